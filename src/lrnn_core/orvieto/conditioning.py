"""Conditioning of the Vandermonde map and reconstruction of many inputs from the last state.

Orvieto et al. (ICML 2024), §4.1 and App. E.1: with ``B = (1, ..., 1)^T`` the last state is
``x_L = V_L u_{1:L}`` (eq. 4) and the input is read back as ``u_{1:L} = Re(V_L^+ x_L)`` (eq. 5).
How well that works is governed by the singular values of ``V_L``: ``||V_L^+||`` (Fig. 2) and
``cond(V_L^H V_L)`` (Fig. 7b).

Everything here is NumPy float64 / complex128, whatever JAX's default dtype is (importing this
module changes no JAX setting; the eigenvalue draws run JAX inside ``jax.enable_x64(True)``): in
float32 a condition number above ``~1e7`` already destroys every digit. Pseudo-inverses, ranks and
``cond(A^H A)`` come from :mod:`lrnn_core.core.vandermonde` (one truncated SVD, one cut-off).

The module holds the paper's mathematics (eigenvalue laws, norms and condition numbers of ``V_L``,
the exact law of ``||V_L||_F``, the rounding bounds), the drivers of the chapter's experiments (one
independent draw per seed and cell) and the statistics its claims are read from (the spec's bounds
on ``||V^+||``, the orderings of Fig. 7a and 7b over independent draws by the Welch tests of
:mod:`lrnn_core.core.verdicts`, the formed Gram against Weyl's bound). The rule that turns these
numbers into a claim's verdict is written in the chapter, beside its figure.

Why ``cond(V^H V)`` is computed from the singular values of ``V``: ``cond(V^H V) = cond(V)^2``
exactly, and an SVD of ``V`` resolves singular values down to ``~eps * s_max`` (backward-stable
SVD), so ``cond(V)`` is reliable up to ``~1/eps ~ 4.5e15`` and its square up to ``~1e31``. Forming
the Gram first rounds each of its entries with an error ``~eps * s_max^2``, which wipes out every
eigenvalue below that level; ``np.linalg.cond`` of the formed Gram then returns rounding noise.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import ArrayLike, Complex, Float, Int, Num

from lrnn_core.core.eigenvalues import real_init, ring_init, roots_of_unity
from lrnn_core.core.validate import (
    as_float64,
    check_choice,
    check_shape,
    eigenvalue_vector,
    nonnegative_int,
    positive_int,
    real_number,
    real_sequences,
    seed_list,
)
from lrnn_core.core.vandermonde import (
    EPS,
    condition_number,
    cutoff,
    gram_condition,
    singular_values,
    vandermonde64,
)
from lrnn_core.core.verdicts import ALPHA, dealt, falls, step_verdicts
from lrnn_core.orvieto.memorisation import reconstruct_from_last_state

#: The eigenvalue laws of §4.1 that :func:`law_eigenvalues` draws from.
LAWS = ("ring", "real", "roots of unity")


def ring_eigenvalues(
    seed: int, N: int, r_min: float, r_max: float = 1.0
) -> Complex[np.ndarray, " N"]:
    """``N`` eigenvalues i.i.d. uniform in area on the ring ``T[r_min, r_max]`` (§4.1), complex128.

    The book's one seeded float64 draw of Orvieto et al.'s ring law: :func:`ring_init` with
    ``jax.random.key(seed)``, sampled in float64 inside ``jax.enable_x64(True)``. The same seed
    couples the draws for different ``r_min`` (same uniforms, same phases); the book's experiments
    give every ``N``, ``r_min`` and draw its own seed (:func:`cell_seeds`).
    """
    seed = nonnegative_int("seed", seed)
    N = positive_int("N", N)
    with jax.enable_x64(True):
        lam = ring_init(jax.random.key(seed), N, r_min, r_max, dtype=jnp.float64)
        return np.asarray(lam, dtype=np.complex128)


def law_eigenvalues(
    law: str, N: int, *, r_min: float = 0.0, r_max: float = 1.0, seed: int = 0
) -> Complex[np.ndarray, " N"]:
    """``N`` eigenvalues of a law compared in §4.1 of Orvieto et al. (ICML 2024), complex128.

    ``"ring"``: :func:`ring_eigenvalues` on ``T[r_min, r_max]``; ``"real"``: ``real_init``, real
    i.i.d. uniform in ``[r_min, r_max]`` (``-1 <= r_min``); ``"roots of unity"``: the ``N``-th roots
    of unity (the radii and the seed are ignored). Random laws draw in float64 with
    ``jax.random.key(seed)``.
    """
    law = check_choice("law", law, LAWS)
    N = positive_int("N", N)
    if law == "ring":
        return ring_eigenvalues(seed, N, r_min, r_max)
    with jax.enable_x64(True):
        if law == "roots of unity":
            lam = roots_of_unity(N, dtype=jnp.complex128)
        else:
            key = jax.random.key(nonnegative_int("seed", seed))
            lam = real_init(key, N, r_min, r_max, dtype=jnp.float64)
        return np.asarray(lam, dtype=np.complex128)


class Norms(NamedTuple):
    """Norms of ``V`` and of its pseudo-inverse ``V^+`` (Orvieto et al., Fig. 2)."""

    frobenius: float
    spectral: float
    pinv_frobenius: float
    pinv_spectral: float


def vandermonde_norms(lam: Num[ArrayLike, " N"], L: int) -> Norms:
    """``||V||_F = sqrt(sum s^2)``, ``||V||_2 = max s``, ``||V^+||_F``, ``||V^+||_2`` (Fig. 2).

    ``s`` are the ``min(N, L)`` singular values of ``V_L``, from one float64 SVD. ``V^+`` is the
    library's one truncated pseudo-inverse (:func:`lrnn_core.core.vandermonde.pseudo_inverse`):
    singular values ``s <= max(N, L) * eps * s_max`` do not enter it, so ``||V^+||_F =
    sqrt(sum 1/s^2)`` and ``||V^+||_2 = 1 / min s`` run over the kept ones.
    """
    lam = eigenvalue_vector("lam", lam)
    L = positive_int("L", L)
    s = singular_values(lam, L)
    kept = s[s > cutoff((lam.size, L)) * np.max(s)]
    return Norms(
        frobenius=float(np.sqrt(np.sum(s**2))),
        spectral=float(np.max(s)),
        pinv_frobenius=float(np.sqrt(np.sum(kept**-2.0))),
        pinv_spectral=float(1.0 / np.min(kept)) if kept.size else 0.0,
    )


def ring_frobenius_moments(N: int, L: int, r_min: float, r_max: float = 1.0) -> tuple[float, float]:
    """Exact mean and variance of ``||V_L||_F^2`` under the ring law of :func:`ring_eigenvalues`.

    Orvieto et al., Fig. 2 (``V_L`` of eq. 4 with ``N`` i.i.d. eigenvalues uniform in area on
    ``T[r_min, r_max]``): ``||V_L||_F^2 = sum_i S_i`` with ``S_i = sum_{j<L} U_i^j`` and
    ``U_i = |lam_i|^2 ~ Uniform(r_min^2, r_max^2)``. With ``E U^m = (b^{m+1} - a^{m+1}) /
    ((m+1)(b-a))`` (``a = r_min^2``, ``b = r_max^2``; ``a^m`` when ``a = b``), ``E S = sum_j E U^j``
    and ``E S^2 = sum_m c_m E U^m`` over ``m = j + k`` with ``c_m = min(m, 2L-2-m) + 1`` pairs; the
    rows are i.i.d., so the mean is ``N E S`` and the variance ``N (E S^2 - (E S)^2)``.
    """
    N = positive_int("N", N)
    L = positive_int("L", L)
    r_max = real_number("r_max", r_max, low=0.0)
    r_min = real_number("r_min", r_min, low=0.0, high=r_max)
    a, b = r_min**2, r_max**2
    m = np.arange(2 * L - 1, dtype=np.float64)
    if b > a:
        moments = (b ** (m + 1) - a ** (m + 1)) / ((m + 1) * (b - a))
    else:
        moments = a**m
    mean_s = float(np.sum(moments[:L]))
    pairs = np.minimum(m, 2 * L - 2 - m) + 1
    var_s = max(float(np.sum(pairs * moments)) - mean_s**2, 0.0)
    return N * mean_s, N * var_s


def formed_gram_tolerance(gram_cond: float, N: int, L: int) -> float:
    """Relative gap allowed between ``np.linalg.cond`` of the formed ``V^H V`` and its true value.

    Fig. 7b of Orvieto et al. (App. E.1) plots ``cond(V_L^H V_L)``. Forming ``G = V^H V`` in
    float64 gives ``G + E`` with ``|E| <= gamma_L |V|^H |V|`` (``gamma_L = L u / (1 - L u)``,
    ``u = EPS / 2``), so ``||E||_2 <= gamma_L ||V||_F^2``; the SVD inside ``np.linalg.cond`` adds
    a backward error taken as ``L EPS ||G||_2 <= 2 gamma_L ||V||_F^2`` (``||G||_2 <= ||V||_F^2``),
    so in all ``||E||_2 <= 3 gamma_L ||V||_F^2``. With ``||V||_F^2 <= min(N, L) ||G||_2``, Weyl's
    theorem moves ``lam_max(G)`` by a relative ``d_max = 3 gamma_L min(N, L)`` and ``lam_min(G)``
    by ``d_min = d_max * gram_cond``, so the formed condition number lies within a relative
    ``(d_min + d_max) / (1 - d_min)`` of the truth. The reference value, ``cond(V)^2`` from the SVD
    of ``V``, errs itself by at most ``~ 2 L EPS cond(V)`` relative (backward-stable SVD), which is
    added. Returns ``inf`` where ``d_min >= 1/2``: there the formed Gram need not carry any digit.
    """
    gram_cond = real_number("gram_cond", gram_cond, low=1.0)
    N = positive_int("N", N)
    L = positive_int("L", L)
    u = EPS / 2
    gamma = L * u / (1 - L * u)
    d_max = 3 * gamma * min(N, L)
    d_min = d_max * gram_cond
    if d_min >= 0.5:
        return float("inf")
    return (d_min + d_max) / (1 - d_min) + 2 * L * EPS * float(np.sqrt(gram_cond))


class ErrorGrid(NamedTuple):
    """Reconstruction errors of :func:`error_grid`, indexed ``[N, r_min, draw, k]``.

    ``seeds[a, b, c]``: the seed of the eigenvalues of ``Ns[a]``, ``r_mins[b]``, draw ``c``;
    ``abs_by_k`` / ``sq_by_k``: mean absolute / squared error over the images at timestamp ``k``;
    ``examples``: reconstructions of the first ``n_examples`` images for the first draw,
    ``[N, r_min, image, k]``.
    """

    Ns: tuple[int, ...]
    r_mins: tuple[float, ...]
    seeds: np.ndarray
    abs_by_k: np.ndarray
    sq_by_k: np.ndarray
    examples: np.ndarray

    def at(self, N: int, r_min: float) -> tuple[int, int]:
        """The index ``(a, b)`` of the cell ``(N, r_min)``."""
        return self.Ns.index(N), self.r_mins.index(r_min)

    @property
    def mse(self) -> np.ndarray:
        """Per-pixel MSE averaged over draws, ``[N, r_min]``."""
        return self.sq_by_k.mean(axis=(2, 3))

    @property
    def mse_by_draw(self) -> np.ndarray:
        """Per-pixel MSE of each draw, ``[N, r_min, draw]``."""
        return self.sq_by_k.mean(axis=3)

    @property
    def mae_by_draw(self) -> np.ndarray:
        """Mean absolute error of each draw, ``[N, r_min, draw]``."""
        return self.abs_by_k.mean(axis=3)


def cell_seeds(seeds: ArrayLike, n_Ns: int, n_r_mins: int) -> np.ndarray:
    """``seeds`` checked as an int array of shape ``(n_Ns, n_r_mins, draws)`` of distinct
    non-negative seeds: one independent draw per ``N``, per ``r_min`` and per draw."""
    flat = seed_list("seeds", np.asarray(seeds).ravel())
    shaped = np.asarray(flat, dtype=np.int64).reshape(np.shape(seeds))
    if shaped.ndim != 3 or shaped.shape[:2] != (n_Ns, n_r_mins):
        raise ValueError(f"seeds must have shape ({n_Ns}, {n_r_mins}, draws), got {shaped.shape}")
    return shaped


def error_grid(
    u: Float[ArrayLike, "batch L"],
    Ns: Sequence[int],
    r_mins: Sequence[float],
    seeds: ArrayLike,
    *,
    r_max: float = 1.0,
    n_examples: int = 0,
) -> ErrorGrid:
    """Vandermonde-inverse reconstruction errors over a grid ``N`` x ``r_min`` x eigenvalue draws.

    Orvieto et al., App. E.1, Fig. 7: eigenvalues ``~ T[r_min, r_max]`` drawn by
    :func:`ring_eigenvalues` with ``seeds[a, b, c]`` for ``Ns[a]``, ``r_mins[b]`` and draw ``c``
    (:func:`cell_seeds`: all distinct, so no cell's eigenvalues are a prefix or a rescaling of
    another's and no ordering is built in), every row of ``u`` reconstructed from its last state
    by :func:`~lrnn_core.orvieto.memorisation.reconstruct_from_last_state` (eq. 5).
    """
    u = real_sequences("u", u, batched=True)
    Ns = tuple(positive_int(f"Ns[{i}]", N) for i, N in enumerate(Ns))
    r_mins = tuple(real_number(f"r_mins[{i}]", r, low=0.0, high=1.0) for i, r in enumerate(r_mins))
    if not Ns or not r_mins:
        raise ValueError("Ns and r_mins must each hold at least one value")
    seeds = cell_seeds(seeds, len(Ns), len(r_mins))
    n_examples = nonnegative_int("n_examples", n_examples)
    if n_examples > u.shape[0]:
        raise ValueError(f"n_examples must be <= the batch size {u.shape[0]}, got {n_examples}")
    shape = (*seeds.shape, u.shape[1])
    abs_by_k, sq_by_k = np.empty(shape), np.empty(shape)
    examples = np.empty((len(Ns), len(r_mins), n_examples, u.shape[1]))
    for (a, b, c), seed in np.ndenumerate(seeds):
        lam = ring_eigenvalues(int(seed), Ns[a], r_mins[b], r_max)
        recon = reconstruct_from_last_state(lam, u)
        diff = recon - u  # the errors at each timestamp k, over the images
        abs_by_k[a, b, c], sq_by_k[a, b, c] = np.mean(np.abs(diff), 0), np.mean(diff**2, 0)
        if c == 0:
            examples[a, b] = recon[:n_examples]
    return ErrorGrid(Ns, r_mins, seeds, abs_by_k, sq_by_k, examples)


def aliased_average(u: Float[ArrayLike, "batch L"], N: int) -> Float[np.ndarray, "batch L"]:
    """Closed-form ``Re(V_L^+ V_L u)`` for the ``N``-th roots of unity with ``N < L`` (Fig. 8).

    ``lam^p`` depends only on ``p mod N``, so the columns of ``V_L`` with powers ``p = L-1-j`` in
    the same class mod ``N`` are equal: ``x_L`` only sees the sum of each class, and the
    minimum-norm solution gives every token of a class that class's average.
    """
    u = real_sequences("u", u, batched=True)
    N = positive_int("N", N)
    L = u.shape[1]
    classes = (L - 1 - np.arange(L)) % N
    membership = np.eye(N)[classes]  # (L, N): token j belongs to class classes[j]
    class_means = (u @ membership) / np.maximum(membership.sum(axis=0), 1.0)
    return class_means[:, classes]


def recent_horizon(err: Float[ArrayLike, " L"], tol: float = 1e-6) -> int:
    """How many of the most recent tokens are recovered to within ``tol``: the length of the
    trailing run of ``err <= tol`` in an error-by-timestamp curve (Orvieto et al., Figs. 7c-e)."""
    err = as_float64("err", err)
    check_shape("err", err, (None,))
    tol = real_number("tol", tol, low=0.0)
    bad = np.nonzero(~(err[::-1] <= tol))[0]
    return int(err.size) if bad.size == 0 else int(bad[0])


# --- Drivers: one independent draw per seed and cell ---------------------------------------------


def seed_block(first: int, shape: tuple[int, ...]) -> Int[np.ndarray, " ..."]:
    """Distinct seeds ``first, first + 1, ...`` in an array of ``shape``: one independent draw per
    cell ``(N, r_min, draw)`` (``seeds(n, start=s)`` of the run is ``run_seed(s) + i``)."""
    return first + np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)


def draw_norms(law: str, seeds: Sequence[int], N: int, L: int, r_min: float) -> list[Norms]:
    """:func:`vandermonde_norms` of ``V_L`` for ``N`` eigenvalues of ``law`` on ``[r_min, 1]``,
    one independent draw per seed (Fig. 2)."""
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
    (independent per ``N``); a deterministic law has one node set per ``N``."""

    def node_sets(law: str, N: int) -> list[np.ndarray]:
        if law == SQUARE_LAWS[0]:
            return [np.linspace(0.0, 1.0, N)]
        if law == SQUARE_LAWS[1]:
            return [law_eigenvalues("real", N, seed=first_seed + 100 * N + k) for k in range(draws)]
        if law == SQUARE_LAWS[2]:
            return [np.linspace(-1.0, 1.0, N)]
        return [law_eigenvalues("roots of unity", N)]

    def curve(law: str) -> Float[np.ndarray, " K"]:
        sets = [(int(N), node_sets(law, int(N))) for N in sizes]
        return np.array([np.median([condition_number(x, N) for x in xs]) for N, xs in sets])

    return {law: curve(law) for law in SQUARE_LAWS}


# --- Fig. 2: norms of V_L and V_L^+ over independent draws ---------------------------------------


def norm_stats(norms: Sequence[Norms], field: str) -> tuple[float, float, float]:
    """Median, min and max of one norm (a field of :class:`Norms`) over the draws (Fig. 2)."""
    values = np.array([getattr(n, field) for n in norms])
    return float(np.median(values)), float(values.min()), float(values.max())


class FrobeniusCheck(NamedTuple):
    """Fig. 2 against the exact law of ``||V_L||_F^2`` (eq. ``eq-cond-frobenius``) and the paper.

    ``mean``: the exact mean (``var``, the exact variance); ``sq``: the draws' ``||V||_F^2``;
    ``std_err = sqrt(var / D)``; ``band``: ``sqrt(mean -+ z sd)``, where one draw's ``||V||_F``
    lies; ``h``: half a unit in the last of the paper's two printed digits; ``spectral_max``: the
    largest ``||V||_2``; ``q``: the fraction of draws with ``||V^+||_F`` below the paper's;
    ``median``: the median ``||V||_F``.
    ``frobenius_ok``: the mean of ``sq`` within ``z`` standard errors of ``mean`` and the paper's
    interval ``[p - h, p + h)`` meets ``band``; ``spectral_below_paper``: every ``||V||_2`` below
    that interval (the paper's norm is Frobenius); ``paper_in_range``: the paper's ``||V^+||``
    inside the range of our draws.
    """

    mean: float
    sq: np.ndarray
    std_err: float
    band: tuple[float, float]
    h: float
    spectral_max: float
    q: float
    median: float
    frobenius_ok: bool
    spectral_below_paper: bool
    paper_in_range: bool


def frobenius_check(
    norms: Sequence[Norms], N: int, L: int, r_min: float, paper: tuple[float, float], z: float
) -> FrobeniusCheck:
    """``|mean(sq) - E||V||_F^2| <= z sqrt(var / D)``, the paper's ``||V||`` (an interval
    ``[p - h, p + h)``) meets the ``z``-sd band, every ``||V||_2`` lies below it (so the paper's
    norm is Frobenius), and the paper's ``||V^+||`` lies in the range of our draws (Fig. 2)."""
    paper_v, paper_pinv = paper
    mean, var = ring_frobenius_moments(N, L, r_min)
    sq = np.array([n.frobenius**2 for n in norms])
    std_err = float(np.sqrt(var / sq.size))
    band = (np.sqrt(max(mean - z * np.sqrt(var), 0.0)), np.sqrt(mean + z * np.sqrt(var)))
    h = 0.5 * 10.0 ** (np.floor(np.log10(paper_v)) - 1)
    spectral_max = norm_stats(norms, "spectral")[2]
    lo, hi = norm_stats(norms, "pinv_frobenius")[1:]
    return FrobeniusCheck(
        mean=mean,
        sq=sq,
        std_err=std_err,
        band=(float(band[0]), float(band[1])),
        h=float(h),
        spectral_max=spectral_max,
        q=float(np.mean([n.pinv_frobenius < paper_pinv for n in norms])),
        median=norm_stats(norms, "frobenius")[0],
        frobenius_ok=bool(abs(sq.mean() - mean) <= z * std_err)
        and bool(band[0] < paper_v + h and paper_v - h < band[1]),
        spectral_below_paper=bool(spectral_max < paper_v - h),
        paper_in_range=bool(lo <= paper_pinv <= hi),
    )


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


# --- §4.1: real nodes against the roots of unity -------------------------------------------------


def growth_slope(sizes: ArrayLike, conds: ArrayLike, trusted: float) -> float:
    """Slope of ``log10 cond(V_N)`` against ``N`` (least squares) where ``cond < trusted``, §4.1:
    the decades gained per extra node (Gautschi: exponential growth for real nodes)."""
    sizes, conds = np.asarray(sizes), np.asarray(conds)
    ok = conds < trusted
    return float(np.polyfit(sizes[ok], np.log10(conds[ok]), 1)[0])


def perfectly_conditioned(conds: ArrayLike, tol: float = 1e-12) -> bool:
    """``|cond(V_N) - 1| < tol`` at every ``N``: the roots of unity (eq. ``eq-cond-dft``)."""
    return bool(np.all(np.abs(np.asarray(conds) - 1) < tol))


# --- Figs. 3, 6 and 7: rounding bounds and orderings over independent draws ----------------------


def recent_only(err: Float[ArrayLike, " L"]) -> bool:
    """Only the recent past comes back (Fig. 3): the mean error of the last 100 tokens is below
    1/100 of that of the first half."""
    err = np.asarray(err)
    return bool(err[-100:].mean() < 1e-2 * err[: err.size // 2].mean())


def draw_conditions(seeds: Sequence[int], N: int, r_min: float, L: int) -> list[float]:
    """``cond(V_L) = sqrt(cond(V_L^H V_L))`` of each draw on the ring (one seed per draw)."""
    return [np.sqrt(gram_condition(vandermonde64(ring_eigenvalues(s, N, r_min), L))) for s in seeds]


def token_rounding_level(u_max: float, conds: Sequence[float]) -> float:
    """Token-wise rounding level ``eps cond(V_L) ||u||_2`` of the worst draw (first-order bound,
    eq. ``eq-cond-rounding``)."""
    return EPS * u_max * max(conds)


def exact_to_rounding(
    mse: float, u_max: float, conds: Sequence[float], L: int
) -> tuple[bool, float]:
    """``MSE <= (eps cond(V_L) ||u||_2)^2 / L`` for the worst draw, with that bound below ``1e-6``
    (informative); returns the verdict and the bound (Fig. 6)."""
    bound = token_rounding_level(u_max, conds) ** 2 / L
    return bool(mse <= bound < 1e-6), bound


class GridOrderings(NamedTuple):
    """Orderings of a grid ``[N, r_min, draw]`` of errors (Fig. 7a): ``n_falls[b]`` whether the
    curve over ``N`` at ``r_mins[b]`` falls (:func:`~lrnn_core.core.verdicts.falls`),
    ``r_falls[a]`` whether the curve over ``r_min`` at ``Ns[a]`` falls, ``r_rises`` the steps
    ``(a, b)`` (``r_mins[b] -> r_mins[b+1]`` at ``Ns[a]``) where it rises significantly."""

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
    cap: float = np.inf,
) -> GridOrderings:
    """``falls`` along both axes of ``values[N, r_min, draw]`` and the significant rises along
    ``r_min`` (Welch's tests of :mod:`lrnn_core.core.verdicts`, values capped at ``cap``).
    ``floors[a]`` (optional) is the rounding level of ``Ns[a]``: values below it are raised to it
    first, so that two cells at rounding level tie instead of being ordered by noise."""
    values = as_float64("values", values)
    if values.ndim != 3 or min(values.shape) < 2:
        raise ValueError(f"values must be (N >= 2, r_min >= 2, draws >= 2), got {values.shape}")
    if floors is not None:
        floors = as_float64("floors", floors)
        if floors.shape != values.shape[:1]:
            raise ValueError(f"floors must have shape ({values.shape[0]},), got {floors.shape}")
        values = np.maximum(values, floors[:, None, None])
    kw = {"alpha": alpha, "cap": cap}
    n_falls = np.array([falls(values[:, b], **kw) for b in range(values.shape[1])])
    r_falls = np.array([falls(values[a], **kw) for a in range(values.shape[0])])
    rises = [
        (a, b)
        for a in range(values.shape[0])
        for b, v in enumerate(step_verdicts(values[a], **kw))
        if v == -1
    ]
    return GridOrderings(n_falls, r_falls, rises)


def floored_orderings(
    grid: ErrorGrid,
    at_floor: Mapping[tuple[int, float], float],
    *,
    shuffle_axis: int | None = None,
    seed: int = 0,
) -> dict[str, GridOrderings]:
    """:func:`grid_orderings` of the per-draw MSE and MAE of ``grid`` (Fig. 7a), each ``N`` raised
    to its rounding floor first: the MAE floor of ``N``, the largest token level
    ``eps cond(V_L) ||u||_2`` among its cells ``at_floor`` (0: none), the MSE floor its square
    over ``L``. With ``shuffle_axis`` (0: ``N``, 1: ``r_min``) the floored draws are then dealt
    back at random along that axis (:func:`~lrnn_core.core.verdicts.dealt` with ``seed``): the
    negative control, the same orderings on a grid with no dependence on that axis."""
    levels = [[b for (n, _), b in at_floor.items() if n == N] for N in grid.Ns]
    mae_floor = np.array([max(b, default=0.0) for b in levels])[:, None, None]
    L = grid.abs_by_k.shape[-1]
    values = {
        "MSE": np.maximum(grid.mse_by_draw, mae_floor**2 / L),
        "MAE": np.maximum(grid.mae_by_draw, mae_floor),
    }
    if shuffle_axis is not None:
        values = {m: dealt(v, seed, axis=shuffle_axis) for m, v in values.items()}
    return {m: grid_orderings(v) for m, v in values.items()}


def fits_axis(values: ArrayLike, ticks: ArrayLike) -> bool:
    """A plotted axis ends within one tick step of the largest value it shows (Fig. 7a)."""
    ticks = np.asarray(ticks)
    return bool(abs(np.max(values) - ticks[-1]) < ticks[1] - ticks[0])


class TokenCell(NamedTuple):
    """Figs. 7c-e for one ``(N, r_min)``: tokens recovered to ``tol``, the largest error of the
    last 10 tokens, the mean error of the first half, and whether that lies in the early band."""

    horizon: int
    recent: float
    early: float
    in_band: bool


def token_cell(
    err: Float[ArrayLike, " L"], tol: float, early_band: tuple[float, float]
) -> TokenCell:
    """Error by timestamp ``k`` of one cell summarised for the spec of Figs. 7c-e."""
    err = np.asarray(err)
    early = float(err[: err.size // 2].mean())
    return TokenCell(
        horizon=recent_horizon(err, tol),
        recent=float(err[-10:].max()),
        early=early,
        in_band=bool(early_band[0] <= early <= early_band[1]),
    )


# --- Fig. 7b: cond(V_L^H V_L) over independent draws ---------------------------------------------


class GramDraws(NamedTuple):
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
    (:func:`law_eigenvalues` on ``[r_min, 1]``), one independent draw per seed: ``seeds[a, b, c]``
    for ``Ns[a]``, ``r_mins[b]``, draw ``c`` (:func:`cell_seeds`: all distinct).

    ``svd``: ``core.vandermonde.gram_condition`` of ``V_L`` (``inf`` for ``N < L``, where the
    ``L x L`` Gram has rank ``N``); ``range``: ``cond(V V^H)`` for ``N < L``, the conditioning on
    the ``N`` directions the map keeps; ``formed``: ``np.linalg.cond(V^H V)`` with the Gram formed
    in float64, the naive computation kept to show its saturation (module docstring), for the
    first ``formed_draws`` draws of each cell (all if ``None``; the others are left ``nan``)."""
    Ns = tuple(positive_int(f"Ns[{i}]", N) for i, N in enumerate(Ns))
    r_mins = tuple(real_number(f"r_mins[{i}]", r, low=0.0, high=1.0) for i, r in enumerate(r_mins))
    L = positive_int("L", L)
    seeds = cell_seeds(seeds, len(Ns), len(r_mins))
    n_formed = (
        seeds.shape[2] if formed_draws is None else nonnegative_int("formed_draws", formed_draws)
    )
    svd, gram, rng = (np.full(seeds.shape, np.nan) for _ in range(3))
    for (a, b, c), seed in np.ndenumerate(seeds):
        V = vandermonde64(law_eigenvalues(law, Ns[a], r_min=r_mins[b], seed=int(seed)), L)
        svd[a, b, c] = gram_condition(V)
        if c < n_formed:
            gram[a, b, c] = np.linalg.cond(V.conj().T @ V)
        if Ns[a] < L:
            rng[a, b, c] = gram_condition(V, on_range=True)
    return GramDraws(Ns, r_mins, svd, gram, rng)


def gram_medians(draws: GramDraws, formed_draws: int) -> GramDraws:
    """The medians over the draws of Fig. 7b's ``cond(V_L^H V_L)``, as a :class:`GramDraws`
    indexed ``[N, r_min]`` (``svd``, ``formed``, ``range``); the formed Gram's over its first
    ``formed_draws`` draws (the ones :func:`gram_condition_draws` formed)."""
    formed = np.median(draws.formed[..., :formed_draws], axis=2)
    svd, on_range = np.median(draws.svd, axis=2), np.median(draws.range, axis=2)
    return GramDraws(draws.Ns, draws.r_mins, svd, formed, on_range)


class WeylCheck(NamedTuple):
    """The formed Gram against the SVD (Fig. 7b), per draw: ``cells`` draws that Weyl's bound
    covers (largest true value ``largest``), ``within`` whether each lies inside it, and
    ``underestimates`` whether the formed value is below the SVD's wherever that exceeds
    ``saturated``."""

    cells: int
    largest: float
    within: bool
    underestimates: bool


def weyl_check(draws: GramDraws, L: int, saturated: float) -> WeylCheck:
    """Compare ``draws.formed`` with ``draws.svd`` draw by draw: inside
    :func:`formed_gram_tolerance` wherever that is finite, and below the SVD value wherever the SVD
    exceeds ``saturated`` (float64 rounding of the formed Gram buries every eigenvalue below
    ``~eps ||V||^2``)."""
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
    """The claims of Fig. 7b on ``draws.svd`` (Welch's tests, values capped at ``saturated``):

    ``"rank N < L: inf"``: every draw with ``N < L`` is ``inf`` (rank ``N``: exact);
    ``"falls with r_min"``: for every ``N >= L``, the curve over ``r_min`` falls;
    ``"falls with N"``: at every ``r_min`` but the first, the curve over ``N >= L`` falls (no
    step up raises it significantly, and the largest ``N`` lies significantly below the smallest:
    :func:`~lrnn_core.core.verdicts.falls`); ``"falls with N at r_min = max"``: at the last
    ``r_min`` every step up in ``N >= L`` lowers it significantly; ``"saturated at r_min = min"``:
    at the first ``r_min`` the median of every ``N >= L`` exceeds ``saturated``. Needs at least two
    ``N >= L``. :func:`grid_orderings` of ``draws.svd[N >= L]`` gives the verdict of every curve.
    """
    L = positive_int("L", L)
    saturated = real_number("saturated", saturated, low=1.0)
    full = [a for a, N in enumerate(draws.Ns) if N >= L]
    if len(full) < 2:
        raise ValueError(f"Ns must hold at least two N >= L = {L}, got {draws.Ns}")
    svd = draws.svd
    orders = grid_orderings(svd[full], alpha=alpha, cap=saturated)
    at_max = step_verdicts(svd[full, -1], alpha=alpha, cap=saturated)
    return {
        "rank N < L: inf": bool(
            all(np.isinf(svd[a]).all() for a, N in enumerate(draws.Ns) if N < L)
        ),
        "falls with r_min": bool(orders.r_falls.all()),
        "falls with N": bool(orders.n_falls[1:].all()),
        "falls with N at r_min = max": bool(np.all(at_max == 1)),
        "saturated at r_min = min": bool(min(np.median(svd[a, 0]) for a in full) > saturated),
    }
