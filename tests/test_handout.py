"""wordpiece_ui/handout.py: a printable, self-contained handout of training steps i..j."""

from helpers import TOY
from wordpiece_core.config import TrainerConfig
from wordpiece_core.engine import train
from wordpiece_ui import handout


def test_the_handout_of_the_toy_steps_1_to_3():
    t = train(TOY, TrainerConfig(algorithm="wordpiece", vocab_size=30, top_k=10))
    page = handout.as_html(t, "course-toy", "Course toy words", 1, 3, "http://localhost:8501/?step=1")
    for number in ("5 / (20 × 5) = 1/20", "15 / (15 × 36) = 1/36", "5 / (15 × 5) = 1/15"):
        assert number in page
    assert page.count("<h2") == 3 and "<script" not in page and "http" not in page.split("<body>")[0].replace(
        "http://localhost:8501/?step=1", "")  # nothing loaded from anywhere
    assert "<code>h ##u ##g ##s</code>" in page  # the corpus as split before step 1
    md = handout.as_markdown(t, "course-toy", "Course toy words", 1, 3, "http://localhost:8501/?step=1")
    assert "## Step 3: hu + ##gs → hugs" in md and "1/15" in md and "| **`##g + ##s`** | 5 | 20 | 5 |" in md
    assert handout.as_html(t, "course-toy", "t", 1, 500, "x").count("<h2") == len(t.steps)  # clamped to the training
