"""Experiment drivers of the conditioning chapter (Orvieto et al. 2024, §4.1, App. E.1).

Each driver takes the seeds of this run and the sizes of its scale, and returns the raw numbers
the checks of :mod:`~lrnn_core.orvieto.conditioning_verdicts` read: per-draw norms of ``V_L`` and
``V_L^+`` (Fig. 2), square condition numbers ``cond(V_N)`` per node law (§4.1), the medians of
``cond(V_L^H V_L)`` (Fig. 7b, eq. ``eq-cond-gram``) and the roots-of-unity reconstructions (Fig. 8).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
from jaxtyping import ArrayLike, Float, Int

from lrnn_core.orvieto.conditioning import Norms, law_eigenvalues, vandermonde_norms
from lrnn_core.orvieto.conditioning_checks import GramDraws
from lrnn_core.orvieto.conditioning_experiments import condition_curve

__all__ = [
    "SQUARE_LAWS",
    "GramMedians",
    "Sizes",
    "draw_norms",
    "gram_medians",
    "seed_block",
    "square_conditions",
    "unit_nodes",
]


class Sizes(NamedTuple):
    """The sizes of one scale of the conditioning chapter."""

    images: int  # Fig. 7: images averaged over
    draws: int  # Fig. 7a, 7c-e: independent draws of Lambda per (N, r_min)
    fig2_seeds: int  # Fig. 2: the paper shows one draw; we show medians
    fig7b_Ns: tuple[int, ...]  # Fig. 7b: state sizes
    fig7b_draws: int  # Fig. 7b: independent draws of Lambda per (N, r_min)


def seed_block(first: int, shape: tuple[int, ...]) -> Int[np.ndarray, " ..."]:
    """Distinct seeds ``first, first + 1, ...`` in an array of ``shape``: one independent draw per
    cell ``(N, r_min, draw)`` (``seeds(n, start=s)`` of the run is ``run_seed(s) + i``)."""
    return first + np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)


def draw_norms(law: str, seeds: Sequence[int], N: int, L: int, r_min: float) -> list[Norms]:
    """:func:`~lrnn_core.orvieto.conditioning.vandermonde_norms` of ``V_L`` for ``N`` eigenvalues
    of ``law`` on ``[r_min, 1]``, one independent draw per seed (Fig. 2)."""
    return [vandermonde_norms(law_eigenvalues(law, N, r_min=r_min, seed=int(s)), L) for s in seeds]


#: §4.1's node laws of the square Vandermonde matrix ``V_N`` (eq. ``eq-cond-dft`` for the last).
SQUARE_LAWS = (
    "real, equispaced in [0, 1]",
    "real, uniform random in [0, 1]",
    "real, equispaced in [-1, 1]",
    "complex, N-th roots of unity",
)


def square_conditions(
    sizes: Sequence[int], draws: int, first_seed: int
) -> dict[str, Float[np.ndarray, " K"]]:
    """``cond(V_N)`` of the square Vandermonde matrix for each law of :data:`SQUARE_LAWS` and each
    ``N`` of ``sizes`` (§4.1, Gautschi's real nodes against the roots of unity). The random law
    takes the median over ``draws`` draws, draw ``k`` of ``N`` with seed ``first_seed + 100 N + k``
    (independent per ``N``)."""

    def node_sets(law: str, N: int) -> list[np.ndarray]:
        if law == SQUARE_LAWS[0]:
            return [np.linspace(0.0, 1.0, N)]
        if law == SQUARE_LAWS[1]:
            return [law_eigenvalues("real", N, seed=first_seed + 100 * N + k) for k in range(draws)]
        if law == SQUARE_LAWS[2]:
            return [np.linspace(-1.0, 1.0, N)]
        return [law_eigenvalues("roots of unity", N)]

    return {
        law: condition_curve([node_sets(law, int(N)) for N in sizes], sizes) for law in SQUARE_LAWS
    }


class GramMedians(NamedTuple):
    """Medians over the draws of Fig. 7b's ``cond(V_L^H V_L)``, ``[N, r_min]``: from the SVD
    (``svd``), on the range for ``N < L`` (``range``), from the formed Gram (``formed``)."""

    svd: np.ndarray
    range: np.ndarray
    formed: np.ndarray


def gram_medians(draws: GramDraws, formed_draws: int) -> GramMedians:
    """The medians of :class:`GramMedians`; the formed Gram's over its first ``formed_draws``
    draws (the ones :func:`~lrnn_core.orvieto.conditioning_checks.gram_condition_draws` formed)."""
    return GramMedians(
        np.median(draws.svd, axis=2),
        np.median(draws.range, axis=2),
        np.median(draws.formed[..., :formed_draws], axis=2),
    )


def unit_nodes(seeds: Sequence[int], r_min: float) -> list[Float[ArrayLike, " 1"]]:
    """One eigenvalue on the ring ``T[r_min, 1]`` per seed (the control of Fig. 7a)."""
    return [law_eigenvalues("ring", 1, r_min=r_min, seed=int(s)) for s in seeds]
