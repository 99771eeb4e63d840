"""The one problem-size setting of the book: ``LRNN_SCALE=ci|book|paper``.

``ci`` is for the test suite (minutes on a 2-core CPU), ``book`` for building the website on a CPU,
``paper`` for the papers' own sizes on a GPU. Chapters pick sizes with :func:`by_scale` and print
:func:`current_scale` next to every figure.
"""

from __future__ import annotations

import os
from typing import TypeVar

SCALES = ("ci", "book", "paper")
DEFAULT_SCALE = "book"
T = TypeVar("T")


def current_scale() -> str:
    """Return the scale named by the environment variable ``LRNN_SCALE`` (default ``book``)."""
    value = os.environ.get("LRNN_SCALE", DEFAULT_SCALE).strip().lower()
    if value not in SCALES:
        raise ValueError(f"LRNN_SCALE must be one of {SCALES}, got {value!r}")
    return value


def by_scale(*, ci: T, book: T, paper: T) -> T:
    """Pick the value for the current scale, e.g. ``n_seeds = by_scale(ci=2, book=5, paper=10)``."""
    return {"ci": ci, "book": book, "paper": paper}[current_scale()]
