"""Orderings over independent draws, and the drivers and checks of Fig. 7b (Orvieto et al.).

Orvieto et al. (ICML 2024), App. E.1, Fig. 7 claim that the reconstruction error of
``u = Re(V_L^+ x_L)`` (eq. 5) and ``cond(V_L^H V_L)`` fall as ``r_min -> 1`` and as ``N`` grows.
Every such claim is tested here on ``D`` independent draws per cell (one seed per ``N``, per
``r_min`` and per draw), on ``log10`` of the per-draw values, by Welch's test: a step from cell
``a`` to cell ``b`` *drops* when

    mean(log10 a) - mean(log10 b) > t_{1 - alpha, nu} * sqrt(s_a^2 / D_a + s_b^2 / D_b)

(``nu`` Welch–Satterthwaite degrees of freedom) and by more than ``atol`` decades; it *rises* under
the mirror condition, and is a *tie* otherwise. The false-alarm rate ``alpha`` per comparison is
fixed before any run (:data:`ALPHA`), so the margins come from the spread of the draws and hold for
any seed. Values above a saturation ``cap`` (e.g. ``cond >= 1e30``, beyond what float64 resolves)
are set to the cap first: two saturated cells tie, a saturated cell sits above every resolved one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from jaxtyping import ArrayLike, Float, Int

from lrnn_core.core.validate import (
    as_float64,
    nonnegative_int,
    positive_int,
    real_number,
)
from lrnn_core.core.vandermonde import EPS
from lrnn_core.core.verdicts import ALPHA, compare, falls, separated, step_verdicts  # noqa: F401 (re-exported)
from lrnn_core.orvieto.conditioning import (
    Norms,
    cell_seeds,
    formed_gram_condition,
    formed_gram_tolerance,
    law_eigenvalues,
    vandermonde_gram_condition,
)

__all__ = [
    "ALPHA",
    "GramDraws",
    "GridOrderings",
    "WeylCheck",
    "compare",
    "falls",
    "gram_condition_draws",
    "gram_orderings",
    "grid_orderings",
    "pinv_drop",
    "step_verdicts",
    "weyl_check",
]


@dataclass(frozen=True)
class GramDraws:
    """``cond(V_L^H V_L)`` over a grid ``[N, r_min, draw]`` (Fig. 7b): ``svd`` from the SVD of
    ``V_L`` (``inf`` for ``N < L``), ``formed`` from the formed Gram (``np.linalg.cond``), ``range``
    the conditioning on the range ``cond(V V^H)`` for ``N < L`` (``nan`` otherwise)."""

    Ns: tuple[int, ...]
    r_mins: tuple[float, ...]
    svd: np.ndarray
    formed: np.ndarray
    range: np.ndarray


def gram_condition_draws(
    seeds: Int[ArrayLike, "nN nR D"],
    Ns: Sequence[int],
    r_mins: Sequence[float],
    L: int,
    *,
    law: str = "ring",
    formed_draws: int | None = None,
) -> GramDraws:
    """Fig. 7b of Orvieto et al.: ``cond(V_L^H V_L)`` for eigenvalues of ``law``
    (:func:`~lrnn_core.orvieto.conditioning.law_eigenvalues` on ``[r_min, 1]``), one independent
    draw per seed: ``seeds[a, b, c]`` for ``Ns[a]``, ``r_mins[b]``, draw ``c``
    (:func:`~lrnn_core.orvieto.conditioning.cell_seeds`: all distinct).
    The formed Gram is computed for the first ``formed_draws`` draws of each cell (all if
    ``None``; the others are left ``nan``)."""
    Ns = tuple(positive_int(f"Ns[{i}]", N) for i, N in enumerate(Ns))
    r_mins = tuple(real_number(f"r_mins[{i}]", r, low=0.0, high=1.0) for i, r in enumerate(r_mins))
    L = positive_int("L", L)
    seeds = cell_seeds(seeds, len(Ns), len(r_mins))
    n_formed = (
        seeds.shape[2] if formed_draws is None else nonnegative_int("formed_draws", formed_draws)
    )
    svd, gram, rng = (np.full(seeds.shape, np.nan) for _ in range(3))
    for (a, b, c), seed in np.ndenumerate(seeds):
        lam = law_eigenvalues(law, Ns[a], r_min=r_mins[b], seed=int(seed))
        svd[a, b, c] = vandermonde_gram_condition(lam, L)
        if c < n_formed:
            gram[a, b, c] = formed_gram_condition(lam, L)
        if Ns[a] < L:
            rng[a, b, c] = vandermonde_gram_condition(lam, L, on_range=True)
    return GramDraws(Ns, r_mins, svd, gram, rng)


@dataclass(frozen=True)
class WeylCheck:
    """The formed Gram against the SVD (Fig. 7b), per draw: ``cells`` draws that Weyl's bound
    covers (largest true value ``largest``), ``within`` whether each lies inside it, and
    ``underestimates`` whether the formed value is below the SVD's wherever that exceeds
    ``saturated``."""

    cells: int
    largest: float
    within: bool
    underestimates: bool

    def report(self, formed_max: float, saturated: float, square_worst: bool) -> str:
        """The printed reading, beside float64's ``1/eps`` and the paper's axis top."""
        return (
            f"Weyl's bound covers {self.cells} draw(s) (cond(G) up to {self.largest:.1e}): "
            f"within it: {self.within}; largest formed-Gram value {formed_max:.1e} "
            f"(1/eps = {1 / EPS:.1e}; the paper's axis top: 1e22), below the SVD's beyond "
            f"{saturated:.0e}: {self.underestimates}; square case worst: {square_worst}"
        )


def weyl_check(draws: GramDraws, L: int, saturated: float) -> WeylCheck:
    """Compare ``draws.formed`` with ``draws.svd`` draw by draw: inside
    :func:`~lrnn_core.orvieto.conditioning.formed_gram_tolerance` wherever that is finite, and
    below the SVD value wherever the SVD exceeds ``saturated`` (float64 rounding of the formed
    Gram buries every eigenvalue below ``~eps ||V||^2``)."""
    L = positive_int("L", L)
    saturated = real_number("saturated", saturated, low=1.0)
    cells, largest, within, under = 0, 0.0, True, True
    for index, true in np.ndenumerate(draws.svd):
        formed, N = draws.formed[index], draws.Ns[index[0]]
        if np.isnan(formed):
            continue
        if np.isfinite(true) and np.isfinite(tol := formed_gram_tolerance(true, N, L)):
            cells, largest = cells + 1, max(largest, float(true))
            within &= bool(abs(formed / true - 1) <= tol)
        if true > saturated:
            under &= bool(formed < true)
    return WeylCheck(cells, largest, within and cells > 0, under)


def gram_orderings(
    draws: GramDraws, L: int, saturated: float, *, alpha: float = ALPHA
) -> dict[str, bool]:
    """The claims of Fig. 7b on ``draws.svd`` (:func:`compare`, values capped at ``saturated``):

    ``"rank N < L: inf"``: every draw with ``N < L`` is ``inf`` (rank ``N``: exact);
    ``"falls with r_min"``: for every ``N >= L``, the curve over ``r_min`` :func:`falls`;
    ``"no rise with N"``: at every ``r_min`` no step up in ``N >= L`` raises it significantly;
    ``"falls with N at r_min = max"``: at the last ``r_min`` every step up in ``N >= L`` lowers it
    significantly; ``"saturated at r_min = min"``: at the first ``r_min`` the median of every
    ``N >= L`` exceeds ``saturated``. Needs at least two ``N >= L``.
    """
    L = positive_int("L", L)
    saturated = real_number("saturated", saturated, low=1.0)
    full = [a for a, N in enumerate(draws.Ns) if N >= L]
    if len(full) < 2:
        raise ValueError(f"Ns must hold at least two N >= L = {L}, got {draws.Ns}")
    svd = draws.svd
    kw = {"alpha": alpha, "cap": saturated}
    by_n = [step_verdicts(svd[full, b], **kw) for b in range(len(draws.r_mins))]
    return {
        "rank N < L: inf": bool(
            all(np.isinf(svd[a]).all() for a, N in enumerate(draws.Ns) if N < L)
        ),
        "falls with r_min": all(falls(svd[a], **kw) for a in full),
        "no rise with N": bool(all(np.all(v >= 0) for v in by_n)),
        "falls with N at r_min = max": bool(np.all(by_n[-1] == 1)),
        "saturated at r_min = min": bool(min(np.median(svd[a, 0]) for a in full) > saturated),
    }


def pinv_drop(
    far: Sequence[Norms],
    near: Sequence[Norms],
    *,
    far_low: float = 1e8,
    near_high: float = 10.0,
    drop: float = 1e7,
) -> bool:
    """Fig. 2 of Orvieto et al. with the spec's bounds: the medians over draws of ``||V^+||_F`` and
    ``||V^+||_2`` are ``>= far_low`` for the draws ``far`` (``r_min = 0``), ``<= near_high`` for
    ``near`` (``r_min = 0.999``), and their ratio exceeds ``drop``."""
    if len(far) == 0 or len(near) == 0:
        raise ValueError("far and near must each hold at least one draw's Norms")
    ok = True
    for field in ("pinv_frobenius", "pinv_spectral"):
        f = float(np.median([getattr(n, field) for n in far]))
        m = float(np.median([getattr(n, field) for n in near]))
        ok &= f >= far_low and m <= near_high and f > drop * m
    return bool(ok)


@dataclass(frozen=True)
class GridOrderings:
    """Orderings of a grid ``[N, r_min, draw]`` of errors (Fig. 7a): ``n_falls[b]`` whether the
    curve over ``N`` at ``r_mins[b]`` :func:`falls`, ``r_falls[a]`` whether the curve over
    ``r_min`` at ``Ns[a]`` falls, ``r_rises`` the steps ``(a, b)`` (``r_mins[b] -> r_mins[b+1]``
    at ``Ns[a]``) where it rises significantly."""

    n_falls: np.ndarray
    r_falls: np.ndarray
    r_rises: list[tuple[int, int]]

    @property
    def holds(self) -> bool:
        """The paper's "decreasing in ``N`` and ``r_min``": every curve falls."""
        return bool(self.n_falls.all() and self.r_falls.all())


def grid_orderings(
    values: Float[ArrayLike, "nN nR D"],
    floors: Float[ArrayLike, " nN"] | None = None,
    *,
    alpha: float = ALPHA,
) -> GridOrderings:
    """:func:`falls` along both axes of ``values[N, r_min, draw]`` and the significant rises along
    ``r_min``. ``floors[a]`` (optional) is the rounding level of ``Ns[a]``: values below it are
    raised to it first, so that two cells at rounding level tie instead of being ordered by noise.
    """
    values = as_float64("values", values)
    if values.ndim != 3 or min(values.shape) < 2:
        raise ValueError(f"values must be (N >= 2, r_min >= 2, draws >= 2), got {values.shape}")
    if floors is not None:
        floors = as_float64("floors", floors)
        if floors.shape != values.shape[:1]:
            raise ValueError(f"floors must have shape ({values.shape[0]},), got {floors.shape}")
        values = np.maximum(values, floors[:, None, None])
    n_falls = np.array([falls(values[:, b], alpha=alpha) for b in range(values.shape[1])])
    r_falls = np.array([falls(values[a], alpha=alpha) for a in range(values.shape[0])])
    rises = [
        (a, b)
        for a in range(values.shape[0])
        for b, v in enumerate(step_verdicts(values[a], alpha=alpha))
        if v == -1
    ]
    return GridOrderings(n_falls, r_falls, rises)
