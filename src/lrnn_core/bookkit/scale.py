"""The one problem-size setting of the book: ``LRNN_SCALE=ci|book|paper``.

``ci`` is for the test suite (minutes on a 2-core CPU), ``book`` for building the website on a CPU,
``paper`` for the papers' own sizes on a GPU. Each chapter gathers its sizes in one small frozen
structure (a ``NamedTuple``) chosen once with :func:`by_scale` near its top, and prints
:func:`current_scale` next to every figure.
"""

from __future__ import annotations

import os
from typing import TypeVar

_UNSET = object()

SCALES = ("ci", "book", "paper")
DEFAULT_SCALE = "book"
T = TypeVar("T")


def current_scale() -> str:
    """Return the scale named by the environment variable ``LRNN_SCALE`` (default ``book``)."""
    value = os.environ.get("LRNN_SCALE", DEFAULT_SCALE).strip().lower()
    if value not in SCALES:
        raise ValueError(f"LRNN_SCALE must be one of {SCALES}, got {value!r}")
    return value


def by_scale(*, ci: T, book: T, paper: T = _UNSET) -> T:  # type: ignore[assignment]
    """Pick the value for the current scale.

    E.g. ``SIZES = by_scale(ci=Sizes(...), book=Sizes(...))``.

    ``paper`` defaults to ``book``: leave it out where the book already runs the paper's size.
    """
    return {"ci": ci, "book": book, "paper": book if paper is _UNSET else paper}[current_scale()]
