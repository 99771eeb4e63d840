"""The experiments of Orvieto et al. (ICML 2024), App. E.2 (Figs. 9-12), over many random draws.

Each driver draws the eigenvalues of every cell independently (one seed per draw, per state size
and per sparsity; nothing is a prefix of another draw), so that orderings across ``N`` and ``P``
are measured, not built in by interlacing. The linear algebra is :mod:`lrnn_core.orvieto.sparse`;
the claim checks on these numbers are :mod:`lrnn_core.orvieto.sparse_checks`. The §3.1.3
comparison with HiPPO-LegS (:mod:`lrnn_core.core.hippo`) on smooth inputs is here too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from jaxtyping import ArrayLike, Float, Int

from lrnn_core.core.hippo import legs_reconstruct, legs_states
from lrnn_core.core.validate import positive_int, real_number, seed_list
from lrnn_core.orvieto.conditioning import ring_eigenvalues
from lrnn_core.orvieto.memorisation import reconstruct_from_last_state
from lrnn_core.orvieto.sparse import (
    SINGULAR_COND,
    Sweep,
    gamma_gram_condition,
    gram_condition_candidates,
    log_level,
    map_condition_candidates,
    rank_gap_bound,
    reconstruct_sparse,
    reconstruction_sweep,
    vandermonde_rank_profile,
)
from lrnn_core.orvieto.wavelets import random_wavelet_problem, sparse_signal, wavelet_basis

#: ``log10(1 / EPS) ~ 15.65``: a condition number above it is float64 rounding noise.
LOG10_SINGULAR = float(np.log10(SINGULAR_COND))

#: Ratio of the standard error of a sample median to that of a sample mean for Gaussian data
#: (``sqrt(pi / 2)``), used to turn a spread into a margin for differences of medians.
MEDIAN_SE_FACTOR = float(np.sqrt(np.pi / 2))


class Sizes(NamedTuple):
    """The sizes of the sparse-inputs chapter's sweeps at one scale (Figs. 9-12, §3.1.3)."""

    k_stride: int  # Figs. 10-11: reconstruction at every k_stride-th k
    v_stride: int  # Figs. 10-11: exact SVD of V_k every v_stride-th k up to 2N
    sweep_draws: int  # Figs. 10-11: independent eigenvalue draws per N
    sweep_inputs: int  # Figs. 10-11: random sparse inputs
    fig9_L: int  # Fig. 9: length L (512 in the paper; N and P scale with it)
    fig9_draws: int  # Fig. 9: independent eigenvalue draws per cell
    fig12_inits: int  # Fig. 12: initialisations
    hippo_Ns: tuple[int, ...]  # §3.1.3: state sizes N
    hippo_inputs: int  # §3.1.3: smooth inputs


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
            for reading, values in map_readings(seeds[:, column], N, r_min, basis).items():
                table = out.setdefault(reading, {})
                table.setdefault(name, np.empty((len(seeds), len(family))))[:, b] = values
    return out


def map_readings(
    seeds: Sequence[int], N: int, r_min: float, basis: Float[ArrayLike, "L P"]
) -> dict[str, Float[np.ndarray, " D"]]:
    """Every reading of :func:`map_condition_candidates` (Fig. 12 of Orvieto et al.) for one basis,
    one draw ``lambda ~ T(r_min, 1)`` per seed: ``{reading: (D,)}``, ``inf`` where numerically
    singular (:func:`lrnn_core.orvieto.sparse.log_level`)."""
    rows = [map_condition_candidates(ring_eigenvalues(int(s), N, r_min), basis) for s in seeds]
    return {reading: np.array([10 ** log_level(r[reading]) for r in rows]) for reading in rows[0]}


def singular_inverse_count(seeds: Sequence[int], N: int, r_min: float, L: int) -> int:
    """How many of the draws ``lambda ~ T(r_min, 1)`` (one per seed) give a real-stacked
    Vandermonde inverse ``V_L^+`` (``Psi = I_L``) that is numerically singular (Fig. 12)."""
    norms = map_readings(seeds, N, r_min, np.eye(positive_int("L", L)))["norm real"]
    return int(np.sum(~np.isfinite(norms)))


def complete_basis_readings(
    seeds: Sequence[int],
    N: int,
    r_min: float,
    bases: Mapping[str, Sequence[Float[ArrayLike, "L P"]]],
) -> dict[str, dict[str, np.ndarray]]:
    """Fig. 12's negative control: :func:`map_readings` of the last (complete, ``P = L``) basis of
    each family, on the draws ``seeds`` (those of the Vandermonde inverse): ``{name: {reading:
    (D,)}}``."""
    return {name: map_readings(seeds, N, r_min, family[-1]) for name, family in bases.items()}


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


def sweep_problems(
    rng: np.random.Generator, L: int, P: int, inputs: int, wavelet: str = "haar"
) -> dict[str, tuple[Float[np.ndarray, "L P"], Float[np.ndarray, "M L"]]]:
    """The two readings of Figs. 10-11's "inputs sparse in a basis of ``P`` Haar wavelets"
    (Orvieto et al., App. E.2), as the ``problems`` of :func:`sparse_sweeps`: ``"random atoms"``,
    ``P`` wavelets drawn among all ``L`` (:func:`random_wavelet_problem`), and ``"coarsest atoms"``,
    the first ``P``; ``inputs`` sequences ``v = Psi alpha``, ``alpha ~ N(0, I_P)``, each. ``rng``
    draws the atoms, then the inputs of each problem in that order."""
    random_atoms = random_wavelet_problem(rng, L, P, inputs, wavelet)
    coarsest = wavelet_basis(L, P, wavelet)
    return {
        "random atoms": random_atoms,
        "coarsest atoms": (coarsest, sparse_signal(rng, coarsest, inputs)[0]),
    }


def summarise(results: Mapping[int, SweepSet]) -> dict[int, dict[str, float | int | bool]]:
    """:func:`sweep_summary` of every ``N`` of one problem of :func:`sparse_sweeps`."""
    return {N: sweep_summary(result, N) for N, result in results.items()}


class SweepCurves(NamedTuple):
    """The curves of Figs. 10-11 for one ``N`` (:func:`sweep_curves`)."""

    v_rank: np.ndarray  # (G,) median over draws of rank(V_k) on the grid
    v_lower: np.ndarray  # (L,) smallest certified lower bound on rank(V_k) over draws
    rank_gamma: tuple[np.ndarray, np.ndarray, np.ndarray]  # (K,) median, min, max over draws
    k_seen: np.ndarray  # the k at which every input is nonzero up to k
    error: tuple[np.ndarray, np.ndarray, np.ndarray]  # at k_seen: median, min, max


def sweep_curves(result: SweepSet) -> SweepCurves:
    """Medians and ranges of a :class:`SweepSet` over draws (ranks) and over draws and inputs
    (relative errors, kept only at the ``k`` where every ``v_{1:k}`` is nonzero)."""
    errors = result.rel_error.reshape(-1, result.ks.size)
    seen = np.all(np.isfinite(errors), axis=0)
    errors = errors[:, seen]
    g = result.rank_gamma
    return SweepCurves(
        v_rank=np.median(result.v_ranks, axis=0),
        v_lower=result.v_lower.min(axis=0),
        rank_gamma=(np.median(g, axis=0), g.min(axis=0), g.max(axis=0)),
        k_seen=result.ks[seen],
        error=(np.median(errors, axis=0), errors.min(axis=0), errors.max(axis=0)),
    )


def near_circle_fraction(r_min: float, radius: float = 0.999) -> float:
    """The fraction ``(1 - radius^2) / (1 - r_min^2)`` of the ring ``T(r_min, 1)``, uniform in area
    (§4.1 of Orvieto et al.), with ``|lambda| > radius``: the eigenvalues that remember long."""
    r_min = real_number("r_min", r_min, low=0.0, high=1.0)
    if r_min == 1.0:
        raise ValueError("r_min must be < 1 (the ring T(1, 1) has no area)")
    return (1 - radius**2) / (1 - r_min**2)


def dense_error(dense: Float[ArrayLike, " L"], r_min: float, N: int, seed: int) -> float:
    """Negative control of Figs. 10-11: relative error of ``Re(V_L^+ x_L)`` (eq. 5 at ``k = L``)
    for an input ``dense`` sparse in no basis, with the draw ``lambda ~ T(r_min, 1)`` of ``seed``;
    a lower bound on its largest error over ``k``."""
    dense = np.asarray(dense, np.float64)
    rec = reconstruct_from_last_state(ring_eigenvalues(seed, N, r_min), dense)
    return float(np.linalg.norm(rec - dense) / np.linalg.norm(dense))


#: Fig. 9 of Orvieto et al. at the paper's length ``L = 512``: the rings, state sizes, sparsities.
FIG9_R_MINS = (0.0, 0.9, 0.99, 0.999)
FIG9_NS = (256, 512, 1024)
FIG9_PS = (64, 128, 256, 512)


def fig9_sizes(L: int) -> tuple[list[int], list[int]]:
    """Fig. 9's ``(Ns, Ps)`` at length ``L``: the paper's (``L = 512``) divided by ``512 // L``."""
    shrink = 512 // positive_int("L", L)
    return [n // shrink for n in FIG9_NS], [p // shrink for p in FIG9_PS]


def fig9_readings(raw: Mapping[str, Float[ArrayLike, "D R N P"]]) -> dict[str, np.ndarray]:
    """Every reading of Fig. 9's "log cond": the medians over draws of :func:`conditioning_grid`'s
    ``log10`` values as ``"log10 <name>"``, in natural log as ``"ln <name>"``, and ``log10
    cond(Gamma_L) = log10 cond(Gamma^T Gamma) / 2`` of the complex and the real-stacked matrix."""
    readings = {f"log10 {name}": np.median(v, axis=0) for name, v in raw.items()}
    readings |= {f"ln {name}": np.log(10) * np.median(v, axis=0) for name, v in raw.items()}
    readings |= {
        f"log10 cond(Γ) {name}": np.median(raw[name], axis=0) / 2 for name in ("complex", "real")
    }
    return readings


def smooth_inputs(
    rng: np.random.Generator, L: int, n: int, periods: int = 8
) -> Float[np.ndarray, "L n"]:
    """``n`` smooth inputs of §3.1.3's HiPPO comparison: ``sum_m a_m cos(2 pi m s + phi_m)`` over
    ``m = 1..periods`` periods, ``s = k / L`` (``k = 1..L``), ``a_m ~ N(0, 1)``, ``phi_m ~ U(0,
    2 pi)``; ``rng`` draws the amplitudes, then the phases. Shape ``(L, n)``."""
    L, n = positive_int("L", L), positive_int("n", n)
    s = np.arange(1, L + 1) / L
    m = np.arange(1, positive_int("periods", periods) + 1)
    amplitude = rng.standard_normal((m.size, n))
    phase = rng.uniform(0, 2 * np.pi, (m.size, n))
    waves = np.cos(2 * np.pi * m[:, None, None] * s[None, :, None] + phase[:, None, :])
    return np.einsum("mb,msb->sb", amplitude, waves)


def relative_errors(
    estimate: Float[ArrayLike, "L B"], target: Float[ArrayLike, "L B"]
) -> Float[np.ndarray, " B"]:
    """``||estimate - target|| / ||target||`` of each column (sequences along axis 0)."""
    target = np.asarray(target)
    return np.linalg.norm(np.asarray(estimate) - target, axis=0) / np.linalg.norm(target, axis=0)


def hippo_vs_ring(
    inputs: Float[ArrayLike, "L B"], seeds: Mapping[int, int], r_min: float
) -> tuple[np.ndarray, np.ndarray]:
    """§3.1.3 of Orvieto et al.: median over the columns of ``inputs`` of the relative error of the
    HiPPO-LegS reconstruction ``sum_n c_n(L) g_n`` and of the ring's ``V_L^+ x_L`` (eq. 5,
    real-stacked, ``lambda ~ T(r_min, 1)`` drawn with ``seeds[N]``), for each ``N`` of ``seeds``."""
    inputs = np.asarray(inputs, np.float64)
    L = inputs.shape[0]
    hippo, ring = [], []
    for N, seed in seeds.items():
        legs = legs_reconstruct(legs_states(inputs, N), L)
        hippo.append(np.median(relative_errors(legs, inputs)))
        lam = ring_eigenvalues(seed, N, r_min)
        rec = reconstruct_from_last_state(lam, inputs.T, real_input=True)
        ring.append(np.median(relative_errors(rec.T, inputs)))
    return np.array(hippo), np.array(ring)


def hippo_ring_example(
    u: Float[ArrayLike, " L"], N: int, seed: int, r_min: float
) -> dict[str, np.ndarray]:
    """One input of §3.1.3 and its two reconstructions with ``N`` states: HiPPO-LegS
    ``sum_n c_n(L) g_n`` (eq. sparse-legs) and the ring's ``V_L^+ x_L`` (eq. 5, real-stacked,
    ``lambda ~ T(r_min, 1)`` drawn with ``seed``), keyed by the labels the figure shows."""
    u = np.asarray(u, np.float64)
    lam = ring_eigenvalues(seed, positive_int("N", N), r_min)
    return {
        "input": u,
        f"HiPPO, N={N}": legs_reconstruct(legs_states(u, N), u.shape[0]),
        f"ring, N={N}": reconstruct_from_last_state(lam, u, real_input=True),
    }


def widget_reconstruction(
    rng: np.random.Generator,
    seed: int,
    N: int,
    P: int,
    L: int,
    *,
    r_min: float = 0.95,
    k_stride: int = 8,
) -> tuple[np.ndarray, np.ndarray, Sweep]:
    """Figs. 10-11 on one input: ``P`` random Haar wavelets and an input drawn from ``rng``
    (:func:`random_wavelet_problem`), ``N`` eigenvalues ``T(r_min, 1)`` drawn with ``seed``;
    returns the input, its reconstruction ``Omega_L x_L`` (eq. 7) and the sweep over every
    ``k_stride``-th ``k`` (:func:`reconstruction_sweep`)."""
    basis, u = random_wavelet_problem(rng, L, P)
    lam = ring_eigenvalues(seed, N, r_min)
    ks = np.arange(positive_int("k_stride", k_stride), L + 1, k_stride)
    sweep = reconstruction_sweep(lam, basis, u, ks)
    return u, reconstruct_sparse(lam, basis, u), sweep


def legendre_ring_errors(
    inputs: Float[ArrayLike, "L B"],
    basis: Float[ArrayLike, "L P"],
    seeds: Mapping[int, int],
    r_min: float,
) -> dict[int, tuple[float, float]]:
    """§3.1.3 with a basis: for each ``N >= P`` of ``seeds``, the median relative error of the
    sparse map ``Omega_L x_L`` (eq. 7, :func:`reconstruct_sparse`) on the columns of ``inputs``
    and ``cond`` of the real-stacked ``Gamma_L = V_L Psi`` (``lambda ~ T(r_min, 1)`` drawn with
    ``seeds[N]``): ``{N: (error, cond)}``."""
    inputs = np.asarray(inputs, np.float64)
    out = {}
    for N, seed in seeds.items():
        if N < np.shape(basis)[1]:
            continue
        lam = ring_eigenvalues(seed, N, r_min)
        error = np.median(relative_errors(reconstruct_sparse(lam, basis, inputs.T).T, inputs))
        out[N] = (float(error), float(gamma_gram_condition(lam, basis) ** 0.5))
    return out
