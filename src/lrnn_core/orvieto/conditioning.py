"""Conditioning of the Vandermonde map and reconstruction of many inputs from the last state.

Orvieto et al. (ICML 2024), §4.1 and App. E.1: with ``B = (1, ..., 1)^T`` the last state is
``x_L = V_L u_{1:L}`` (eq. 4) and the input is read back as ``u_{1:L} = Re(V_L^+ x_L)`` (eq. 5).
How well that works is governed by the singular values of ``V_L``: ``||V_L^+||`` (Fig. 2) and
``cond(V_L^H V_L)`` (Fig. 7b).

Everything here is NumPy float64 / complex128, whatever JAX's default dtype is (importing this
module changes no JAX setting; the eigenvalue draws run JAX inside ``jax.enable_x64(True)``): in
float32 a condition number above ``~1e7`` already destroys every digit. Pseudo-inverses, ranks and
``cond(A^H A)`` come from :mod:`lrnn_core.core.vandermonde` (one truncated SVD, one cut-off).

Why ``cond(V^H V)`` is computed from the singular values of ``V``: ``cond(V^H V) = cond(V)^2``
exactly, and an SVD of ``V`` resolves singular values down to ``~eps * s_max`` (backward-stable
SVD), so ``cond(V)`` is reliable up to ``~1/eps ~ 4.5e15`` and its square up to ``~1e31``. Forming
the Gram first rounds each of its entries with an error ``~eps * s_max^2``, which wipes out every
eigenvalue below that level; ``np.linalg.cond`` of the formed Gram then returns rounding noise.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import ArrayLike, Complex, Float, Num

from lrnn_core.core.eigenvalues import real_init, ring_init, roots_of_unity
from lrnn_core.core.validate import (
    as_float64,
    check_choice,
    check_finite,
    check_not_empty,
    check_real,
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
    cutoff,
    gram_condition,
    singular_values,
    vandermonde64,
)
from lrnn_core.orvieto.memorisation import reconstruct_from_last_state

__all__ = [
    "LAWS",
    "ErrorGrid",
    "Norms",
    "aliased_average",
    "cell_seeds",
    "error_by_timestamp",
    "error_grid",
    "formed_gram_condition",
    "formed_gram_tolerance",
    "law_eigenvalues",
    "norms_from_singular_values",
    "recent_horizon",
    "ring_eigenvalues",
    "ring_frobenius_moments",
    "vandermonde_gram_condition",
    "vandermonde_norms",
]

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


@dataclass(frozen=True)
class Norms:
    """Norms of ``V`` and of its pseudo-inverse ``V^+`` (Orvieto et al., Fig. 2)."""

    frobenius: float
    spectral: float
    pinv_frobenius: float
    pinv_spectral: float


def norms_from_singular_values(s: Float[ArrayLike, " r"], shape: tuple[int, int]) -> Norms:
    """``||V||_F = sqrt(sum s^2)``, ``||V||_2 = max s``, ``||V^+||_F``, ``||V^+||_2`` (Fig. 2).

    ``s`` are the ``min(m, n)`` singular values of an ``m x n`` matrix ``V`` (``shape``). ``V^+`` is
    the library's one truncated pseudo-inverse (:func:`lrnn_core.core.vandermonde.pseudo_inverse`):
    singular values ``s <= max(m, n) * eps * s_max`` do not enter it, so ``||V^+||_F =
    sqrt(sum 1/s^2)`` and ``||V^+||_2 = 1 / min s`` run over the kept ones.
    """
    s = as_float64("s", s)
    check_shape("s", s, (None,))
    check_not_empty("s", s)
    check_finite("s", s)
    check_real("s", s)
    if np.any(s < 0):
        raise ValueError("s must hold non-negative singular values")
    kept = s[s > cutoff(shape) * np.max(s)]
    return Norms(
        frobenius=float(np.sqrt(np.sum(s**2))),
        spectral=float(np.max(s)),
        pinv_frobenius=float(np.sqrt(np.sum(kept**-2.0))),
        pinv_spectral=float(1.0 / np.min(kept)) if kept.size else 0.0,
    )


def vandermonde_norms(lam: Num[ArrayLike, " N"], L: int) -> Norms:
    """Frobenius and spectral norms of ``V_L`` and ``V_L^+`` from one float64 SVD (Fig. 2)."""
    lam = eigenvalue_vector("lam", lam)
    L = positive_int("L", L)
    return norms_from_singular_values(singular_values(lam, L), (lam.size, L))


def vandermonde_gram_condition(
    lam: Num[ArrayLike, " N"], L: int, *, on_range: bool = False
) -> float:
    """``cond(V_L^H V_L)`` of Fig. 7b (Orvieto et al.) by ``core.vandermonde.gram_condition``.

    For ``N >= L`` this is the condition number of the ``L x L`` Gram. For ``N < L`` that Gram has
    rank ``N`` and its condition number is ``inf``; ``on_range=True`` gives ``cond(V V^H)``
    instead, the conditioning on the ``N`` directions the map keeps.
    """
    return gram_condition(vandermonde64(lam, L), on_range=on_range)


def formed_gram_condition(lam: Num[ArrayLike, " N"], L: int) -> float:
    """``np.linalg.cond(V^H V)`` with the ``L x L`` Gram formed in float64: the naive computation
    of Fig. 7b, kept to show its saturation (module docstring), also for ``N < L`` (exact: inf)."""
    V = vandermonde64(lam, L)
    return float(np.linalg.cond(V.conj().T @ V))


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
    """Relative gap allowed between :func:`formed_gram_condition` and the true ``cond(V^H V)``.

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


def error_by_timestamp(
    reconstructed: Float[ArrayLike, "batch L"], u: Float[ArrayLike, "batch L"]
) -> tuple[Float[np.ndarray, " L"], Float[np.ndarray, " L"]]:
    """Mean absolute and mean squared error at each timestamp ``k`` over the batch (Fig. 7c-e)."""
    u = real_sequences("u", u, batched=True)
    reconstructed = real_sequences("reconstructed", reconstructed, batched=True)
    check_shape("reconstructed", reconstructed, u.shape)
    diff = reconstructed - u
    return np.mean(np.abs(diff), axis=0), np.mean(diff**2, axis=0)


@dataclass(frozen=True)
class ErrorGrid:
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
        raise ValueError(
            f"seeds must have shape (len(Ns), len(r_mins), draws) = ({n_Ns}, {n_r_mins}, D), "
            f"got {shaped.shape}"
        )
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
        abs_by_k[a, b, c], sq_by_k[a, b, c] = error_by_timestamp(recon, u)
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
