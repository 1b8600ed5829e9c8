"""The app's glue: corpora, settings and URL state, trace → DataFrames, Altair charts and HTML.

`wordpiece_core` computes; this package reshapes the core's records for display, and holds
what the server shares and what a session remembers. The pages in `pages/` call these
functions and lay out the screen.

Streamlit is imported by these modules only (tests/test_wordpiece_ui.py checks the list against the code):
what every session of the server shares, `server.py` (the store and the training service),
`corpus_loading.py` (the sidebar's corpus as word counts), `trained.py` (trainings as handles,
started early by app.py) and `caches.py` (tables, charts and tokenizers derived from them);
what a session sees and remembers, `state.py` (sidebar, URL, session keys), `user_files.py` (its pasted
and uploaded files, kept in the data store by digest), `navigation.py` (the
pages behind app.py), `progress_view.py` (progress bars and Stop), `stepper.py` and `keys.py` (the
step views and their keys), `intro.py` (the first-visit introduction), `presenter.py` (presenter
mode's type sizes), `glossary.py` (the candidate table's column tooltips, inside one function) and `classroom.py`, `room_teacher.py`
and `room_student.py` (the live class room: a session in a room, the teacher's and the students' parts of the
Train page), `phone_room.py` (the room's page for a student's phone: the app's own routes, no session; it reads
Streamlit's configuration and its store), `merges_view.py` and `rounds_view.py` (the Train page's step views: a merge of BPE or WordPiece,
a round of Unigram), and `real_merges_view.py` (the Train page's replay of a real tokenizer's merges).

The others draw nothing: they turn records into DataFrames, charts, HTML and text, or, as
stores.py, jobs.py and train_worker.py, store and run trainings without a Streamlit session (children.py
starts the child processes and lowers their priority), and, as datastore.py and counting.py, keep the
students' own files on disk and count them in a worker, and, as rooms.py, keep the class rooms, their members
and their votes in SQLite (the two stores' shared SQLite handling is sqlite_files.py). lesson.py and
step_views.py tie the Train page (pages/train.py) to its step views: the `Lesson` on screen, the `StepView`
protocol, and the view for the core's kind of step.
"""
