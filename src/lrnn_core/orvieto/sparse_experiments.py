# ruff: noqa: F722 (jaxtyping's dimension strings are not Python expressions)
"""The experiments of Orvieto et al. (ICML 2024), App. E.2 (Figs. 9-12), over many random draws.

Each driver draws the eigenvalues of every cell independently (one seed per draw, per state size
and per sparsity; nothing is a prefix of another draw), so that orderings across ``N`` and ``P``
are measured, not built in by interlacing. The linear algebra is :mod:`lrnn_core.orvieto.sparse`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from jaxtyping import ArrayLike, Float, Int

from lrnn_core.core.validate import positive_int, real_number, seed_list
from lrnn_core.orvieto.conditioning import ring_eigenvalues
from lrnn_core.orvieto.sparse import (
    SINGULAR_COND,
    gram_condition_candidates,
    log_level,
    map_condition_candidates,
    rank_gap_bound,
    reconstruction_sweep,
    vandermonde_rank_profile,
)
from lrnn_core.orvieto.wavelets import wavelet_basis

#: ``log10(1 / EPS) ~ 15.65``: a condition number above it is float64 rounding noise.
LOG10_SINGULAR = float(np.log10(SINGULAR_COND))

#: Ratio of the standard error of a sample median to that of a sample mean for Gaussian data
#: (``sqrt(pi / 2)``), used to turn a spread into a margin for differences of medians.
MEDIAN_SE_FACTOR = float(np.sqrt(np.pi / 2))


@dataclass(frozen=True)
class SweepSet:
    """Figs. 10-11 for one ``N``: ``D`` eigenvalue draws, ``M`` inputs, steps ``ks``.

    ``rank_gamma``: ``(D, K)`` rank of the complex ``V_k Psi_k``; ``rel_error``: ``(D, M, K)``;
    ``v_grid``, ``v_ranks``: rank of ``V_k`` on the grid of :func:`vandermonde_rank_profile`
    (``(G,)``, ``(D, G)``); ``v_lower``: ``(D, L)`` its certified lower bound at every ``k``;
    ``gap_bound``: ``(D,)`` :func:`rank_gap_bound` of each draw.
    """

    ks: np.ndarray
    rank_gamma: np.ndarray
    rel_error: np.ndarray
    v_grid: np.ndarray
    v_ranks: np.ndarray
    v_lower: np.ndarray
    gap_bound: np.ndarray


def sparse_sweeps(
    r_min: float,
    seeds: Mapping[int, Sequence[int]],
    problems: Mapping[str, tuple[Float[ArrayLike, "L P"], Float[ArrayLike, "M L"]]],
    ks: Int[ArrayLike, " K"],
    v_stride: int,
) -> dict[str, dict[int, SweepSet]]:
    """Figs. 10-11 of Orvieto et al.: for each problem ``name -> (basis, inputs)``, reconstruct
    each input from ``x_k`` for every ``k`` in ``ks`` (eq. 7) with ``lambda ~ T(r_min, 1)``, for
    each ``N`` in ``seeds`` and each of its seeds (one independent draw each, shared by the
    problems), and the rank of ``V_k`` (exact every ``v_stride``-th ``k`` up to ``2N``, certified
    beyond). Returns ``{name: {N: SweepSet}}``."""
    r_min = real_number("r_min", r_min, low=0.0, high=1.0)
    L = np.shape(next(iter(problems.values()))[0])[0]
    out: dict[str, dict[int, SweepSet]] = {name: {} for name in problems}
    for N, draws in seeds.items():
        N = positive_int("N", N)
        sweeps: dict[str, list] = {name: [] for name in problems}
        grids, ranks, lowers, bounds = [], [], [], []
        for seed in draws:
            lam = ring_eigenvalues(seed, N, r_min)
            for name, (basis, inputs) in problems.items():
                sweeps[name].append(reconstruction_sweep(lam, basis, inputs, ks))
            grid, v_ranks, v_lower = vandermonde_rank_profile(lam, L, v_stride)
            grids.append(grid)
            ranks.append(v_ranks)
            lowers.append(v_lower)
            bounds.append(rank_gap_bound(lam))
        for name, runs in sweeps.items():
            out[name][N] = SweepSet(
                ks=runs[0].ks,
                rank_gamma=np.stack([r.rank_gamma for r in runs]),
                rel_error=np.stack([np.atleast_2d(r.rel_error) for r in runs]),
                v_grid=grids[0],
                v_ranks=np.stack(ranks),
                v_lower=np.stack(lowers),
                gap_bound=np.array(bounds),
            )
    return out


def sweep_summary(result: SweepSet, N: int) -> dict[str, float | int | bool]:
    """Numbers of Figs. 10-11 for one ``N``; ``worst error`` is taken over all ``k``, inputs and
    draws, ``median max error`` / ``median late error`` are medians over draws and inputs of the
    maximum over all ``k`` / over ``k >= L/2``."""
    L = result.v_lower.shape[1]
    late = result.ks >= L // 2
    max_err = np.nanmax(result.rel_error, axis=-1)
    gaps = np.minimum(N, result.v_grid) - result.v_ranks  # (D, G)
    return {
        "worst error": float(np.nanmax(result.rel_error)),
        "median max error": float(np.median(max_err)),
        "median late error": float(np.median(np.nanmax(result.rel_error[..., late], axis=-1))),
        "max rank gamma": int(result.rank_gamma.max()),
        "median final rank gamma": float(np.median(result.rank_gamma[:, -1])),
        "max gap": int(gaps.max()),
        "gap within bound": bool(np.all(gaps.max(axis=1) <= result.gap_bound)),
        "max gap bound": int(result.gap_bound.max()),
        "full after 2N": bool(np.all(result.v_lower[:, 2 * N - 1 :] == N)),
    }


def conditioning_grid(
    seeds: Int[ArrayLike, "D R N P"],
    r_mins: Sequence[float],
    Ns: Sequence[int],
    Ps: Sequence[int],
    L: int,
    wavelet: str = "haar",
) -> dict[str, Float[np.ndarray, "D R N P"]]:
    """Fig. 9 of Orvieto et al.: ``log10`` of each reading of ``cond(Omega^T Omega)``
    (:func:`gram_condition_candidates`), ``Omega = V_L Psi_L`` with ``Psi`` the first ``P``
    (coarsest) wavelets, ``lambda ~ T(r_min, 1)``; cell ``(d, i, j, l)`` draws its eigenvalues with
    ``seeds[d, i, j, l]``. Raw values: those above ``LOG10_SINGULAR`` are rounding noise
    (flag them with :func:`flag_singular`)."""
    seeds = np.asarray(seeds)
    shape = (len(r_mins), len(Ns), len(Ps))
    if seeds.ndim != 4 or seeds.shape[1:] != shape:
        raise ValueError(f"seeds must have shape (draws, {shape[0]}, {shape[1]}, {shape[2]})")
    bases = {P: wavelet_basis(L, P, wavelet) for P in Ps}
    out: dict[str, np.ndarray] = {}
    for index in np.ndindex(seeds.shape):
        _, i, j, m = index
        lam = ring_eigenvalues(int(seeds[index]), Ns[j], r_mins[i])
        for name, cond in gram_condition_candidates(lam, bases[Ps[m]]).items():
            with np.errstate(divide="ignore"):
                out.setdefault(name, np.empty(seeds.shape))[index] = np.log10(cond)
    return out


def flag_singular(log10_cond: ArrayLike) -> np.ndarray:
    """``log10`` condition numbers with every value above ``LOG10_SINGULAR`` (``1 / EPS``) set to
    ``inf``: numerically singular, not a level."""
    x = np.asarray(log10_cond, dtype=np.float64)
    return np.where(x > LOG10_SINGULAR, np.inf, x)


def ordering_checks(levels: Float[ArrayLike, "D R N P"], z: float = 3.0) -> dict[str, bool]:
    """The orderings of Fig. 9 (Orvieto et al.) on the medians over draws (axis 0) of ``levels``.

    Margins come from the spread: the standard deviation ``s_r`` of the finite draws, pooled over
    the cells of panel ``r``, gives the standard error ``sqrt(pi/2) s / sqrt(D)`` of a median, and a
    difference of two medians counts only beyond ``z`` times its standard error. ``inf``
    (singular) sorts above every level and ties with ``inf``. Checks: ``"N"`` (every step up in
    ``N`` lowers or keeps the median), ``"P"`` (every step down in ``P`` lowers or keeps it),
    ``"r"`` (every cell lowers or keeps it as ``r_min`` moves up), ``"corner"`` (largest ``N`` with
    smallest ``P`` lies below smallest ``N`` with largest ``P`` by more than the margin, in every
    panel).
    """
    levels = np.asarray(levels, dtype=np.float64)
    z = real_number("z", z, low=0.0)
    D = levels.shape[0]
    med = np.median(levels, axis=0)
    finite = np.all(np.isfinite(levels), axis=0)  # (R, N, P)
    var = np.where(finite, np.var(np.where(finite, levels, 0.0), axis=0, ddof=1), 0.0)
    pooled = np.sqrt(var.sum(axis=(1, 2)) / np.maximum(finite.sum(axis=(1, 2)), 1))  # (R,)
    se = MEDIAN_SE_FACTOR * pooled / np.sqrt(D)
    pair = z * np.sqrt(2) * se[:, None, None]
    across = z * np.sqrt(se[1:] ** 2 + se[:-1] ** 2)[:, None, None]
    return {
        "N": bool(np.all(med[:, 1:] <= med[:, :-1] + pair)),
        "P": bool(np.all(med[:, :, :-1] <= med[:, :, 1:] + pair)),
        "r": bool(np.all(med[1:] <= med[:-1] + across)),
        "corner": bool(np.all(med[:, -1, 0] + pair[:, 0, 0] < med[:, 0, -1])),
    }


def map_condition_study(
    seeds: Int[ArrayLike, "inits n_bases_plus_1"],
    N: int,
    r_min: float,
    bases: Mapping[str, Sequence[Float[ArrayLike, "L P"]]],
) -> dict[str, dict[str, np.ndarray]]:
    """Fig. 12 of Orvieto et al.: every reading of :func:`map_condition_candidates` for each basis
    of each family in ``bases`` (name -> bases of growing ``P``, the same count in every family)
    and for the plain Vandermonde inverse (``"Van. inverse"``, ``Psi = I_L``).

    One draw ``lambda ~ T(r_min, 1)`` per initialisation and per ``P``: ``seeds[s, b]`` for the
    ``b``-th basis of every family (independent across ``P``, shared by the families at the same
    ``P``, which makes their comparison paired) and ``seeds[s, -1]`` for the Vandermonde inverse;
    all distinct. Returns ``{reading: {name: (inits, n_bases)}}``; values above ``1 / EPS``
    (:data:`lrnn_core.orvieto.sparse.SINGULAR_COND`) are ``inf``.
    """
    N = positive_int("N", N)
    r_min = real_number("r_min", r_min, low=0.0, high=1.0)
    counts = {len(family) for family in bases.values()}
    if len(counts) != 1:
        raise ValueError(f"every family of bases must hold the same number of bases, got {counts}")
    n_bases = counts.pop()
    seeds = np.asarray(seed_list("seeds", np.ravel(seeds)), dtype=np.int64).reshape(np.shape(seeds))
    if seeds.ndim != 2 or seeds.shape[1] != n_bases + 1:
        raise ValueError(
            f"seeds must have shape (inits, {n_bases + 1}) (one column per basis, the last for "
            f"the Vandermonde inverse), got {seeds.shape}"
        )
    L = np.shape(next(iter(bases.values()))[0])[0]
    families = {**bases, "Van. inverse": [np.eye(L)]}
    out: dict[str, dict[str, np.ndarray]] = {}
    for name, family in families.items():
        columns = [n_bases] if name == "Van. inverse" else range(n_bases)
        for b, (column, basis) in enumerate(zip(columns, family, strict=True)):
            for s, seed in enumerate(seeds[:, column]):
                lam = ring_eigenvalues(int(seed), N, r_min)
                for reading, value in map_condition_candidates(lam, basis).items():
                    table = out.setdefault(reading, {})
                    table.setdefault(name, np.empty((len(seeds), len(family))))
                    table[name][s, b] = 10 ** log_level(value)
    return out


def grows_with_P(values: Float[ArrayLike, "D nP"], low: int, high: int, z: float = 3.0) -> bool:
    """Fig. 12's "increasing in P": the ``log10`` median of the draws in column ``high``
    exceeds that of column ``low`` by ``z`` standard errors of the difference of medians
    (:data:`MEDIAN_SE_FACTOR` times those of means). ``inf`` (a singular map) is capped at
    :data:`LOG10_SINGULAR`, above every finite level."""
    v = np.asarray(values, np.float64)
    if v.ndim != 2 or v.shape[0] < 2:
        raise ValueError(f"values must be (draws >= 2, n_P), got shape {v.shape}")
    z = real_number("z", z, low=0.0)
    with np.errstate(divide="ignore"):
        logs = np.minimum(np.log10(v[:, [low, high]]), LOG10_SINGULAR)
    se = MEDIAN_SE_FACTOR * np.std(logs, axis=0, ddof=1) / np.sqrt(len(logs))
    return bool(np.diff(np.median(logs, axis=0))[0] > z * np.hypot(*se))


def below_reference(values: ArrayLike, reference: float, factor: float = 10.0) -> np.ndarray:
    """Fig. 12's "below the Vandermonde inverse": each value at least ``factor`` times below
    ``reference`` (``inf``, a singular map, is above everything)."""
    values = np.asarray(values, np.float64)
    factor = real_number("factor", factor, low=1.0)
    return np.isfinite(values) & (factor * values < reference)
