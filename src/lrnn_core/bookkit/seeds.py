"""The one seed setting of the book: ``LRNN_SEED`` (a non-negative int, default 0).

Every random draw of a chapter comes from a seed built here, so that anyone can rerun a chapter
with another honest seed set: ``LRNN_SEED=1 jupyter execute ...``. Seed ``s`` of the run is
``SEED_STRIDE * LRNN_SEED + s``: the default ``LRNN_SEED=0`` keeps the literal seeds a chapter
names, and each other value gives a disjoint block (as long as a chapter's seeds stay below
``SEED_STRIDE``).
"""

from __future__ import annotations

import os

import jax
import numpy as np

from lrnn_core.core.validate import nonnegative_int

SEED_STRIDE = 100_000
DEFAULT_SEED = 0


def current_seed() -> int:
    """The value of the environment variable ``LRNN_SEED`` (default 0); ValueError otherwise."""
    text = os.environ.get("LRNN_SEED", str(DEFAULT_SEED)).strip()
    if not text.isdigit():
        raise ValueError(f"LRNN_SEED must be a non-negative integer, got {text!r}")
    return int(text)


def run_seed(s: int = 0) -> int:
    """Seed ``s`` of this run: ``SEED_STRIDE * LRNN_SEED + s`` (``s`` in [0, SEED_STRIDE))."""
    s = nonnegative_int("s", s)
    if s >= SEED_STRIDE:
        raise ValueError(f"s must be < SEED_STRIDE={SEED_STRIDE}, got {s}")
    return SEED_STRIDE * current_seed() + s


def seeds(n: int, *, start: int = 0) -> list[int]:
    """``n`` distinct seeds of this run: ``run_seed(start), ..., run_seed(start + n - 1)``."""
    n = nonnegative_int("n", n)
    start = nonnegative_int("start", start)
    return [run_seed(start + i) for i in range(n)]


def rng_key(s: int = 0) -> jax.Array:
    """A JAX PRNG key for seed ``s`` of this run (``jax.random.key(run_seed(s))``)."""
    return jax.random.key(run_seed(s))


def numpy_rng(s: int = 0) -> np.random.Generator:
    """A NumPy generator for seed ``s`` of this run (``np.random.default_rng(run_seed(s))``)."""
    return np.random.default_rng(run_seed(s))
