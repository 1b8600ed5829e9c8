"""The five source documents, by title: the app names a source, never a file number.

A link is given where the document is a public page (it opens only when clicked).
"""

from __future__ import annotations

from dataclasses import dataclass

from wordpiece_core.unigram.reference import COURSE_ERRATA as UNIGRAM_ERRATA  # noqa: F401 (the Corpora page's list)


@dataclass(frozen=True)
class Source:
    title: str
    url: str | None = None

    def md(self) -> str:
        """The title as Markdown, linked when the document is public."""
        return f"[{self.title}]({self.url})" if self.url else self.title


COURSE_WORDPIECE = Source("the Hugging Face course's “WordPiece tokenization”", "https://huggingface.co/learn/llm-course/chapter6/6")
COURSE_BPE = Source("the Hugging Face course's “Byte-Pair Encoding tokenization”", "https://huggingface.co/learn/nlp-course/en/chapter6/5")
SCRATCH_TUTORIAL = Source("the tutorial “WordPiece from scratch, in Python and Rust”")
VARIANT_TUTORIAL = Source("the tutorial “WordPiece Tokenization: A BPE Variant”")
LIKELIHOOD = Source("Michael Brenndoerfer's “WordPiece Tokenization: BERT's Subword Algorithm Explained”",
                    "https://mbrenndoerfer.com/writing/wordpiece-tokenization-bert-subword-algorithm")
ALL = (COURSE_WORDPIECE, COURSE_BPE, SCRATCH_TUTORIAL, VARIANT_TUTORIAL, LIKELIHOOD)
# Unigram's reference, beside the five: the course's own section
COURSE_UNIGRAM = Source("the Hugging Face course's “Unigram tokenization”", "https://huggingface.co/learn/llm-course/chapter6/7")
