"""The one exception type the user ever sees.

Every problem caused by input (a file, a parameter, a corpus) is raised as
`WordPieceError` with a sentence a person can act on. The command line prints
that sentence on one line; the app shows it in a message box.
"""

from __future__ import annotations


class WordPieceError(Exception):
    """A problem with the user's input, worded for the user."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message
