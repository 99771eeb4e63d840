"""Reconstructing sparse inputs from a linear RNN state (Orvieto et al., ICML 2024, §3.1.2, E.2).

Assumption A: the input is ``v_{1:k}^T = Psi_k alpha`` with ``Psi_k`` the first ``k`` rows of a
basis ``Psi in R^{L x P}``. With scalar input and ``B = (1, ..., 1)^T`` the state is (eq. 6)

    x_k = V_k v_{1:k}^T = V_k Psi_k alpha = Gamma_k alpha,      Gamma_k := V_k Psi_k  (N x P),

so ``alpha_k = Gamma_k^+ x_k`` and (eq. 7) ``v_{1:k}^T = Omega_k x_k`` with
``Omega_k = Psi_k Gamma_k^+``. The paper writes ``(Gamma^T Gamma)^{-1} Gamma^T``; we use the
library's one truncated-SVD pseudo-inverse (:mod:`lrnn_core.core.vandermonde`), which equals it
when ``Gamma_k`` has full column rank and is the minimum-norm least-squares solution otherwise (it
also avoids squaring the condition number).

Real inputs, complex state: as the paper does ("we consider ... its real/imaginary inputs
representation in R^{2N x N}", §3.1.2) we solve the real system ``[Re Gamma_k; Im Gamma_k] alpha =
[Re x_k; Im x_k]`` (``2N`` equations for ``P`` real unknowns). Ranks and pseudo-inverses use the
one cut-off of :func:`lrnn_core.core.vandermonde.cutoff`: singular values
``> max(m, n) * eps * sigma_max`` count (NumPy's ``matrix_rank`` / ``pinv`` default).

Everything is NumPy float64/complex128: the matrices involved have condition numbers up to ``1e16``
and beyond, where float32 (``eps ~ 1e-7``) would see nothing but noise.

The experiments of App. E.2 (Figs. 9-12) run over many random draws: each driver draws the
eigenvalues of every cell independently (one seed per draw, per state size and per sparsity;
nothing is a prefix of another draw), so that orderings across ``N`` and ``P`` are measured, not
built in by interlacing. A condition number above ``1 / EPS`` is singular (never a level), and
orderings are read on the draws: Fig. 9's trends by :func:`lrnn_core.core.verdicts.falls` on
every line of the grid, Fig. 12's on medians with margins from the spread of the draws. The
§3.1.3 comparison with HiPPO-LegS (:mod:`lrnn_core.core.hippo`) on smooth inputs is here too. The
chapter decides each claim on these numbers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from jaxtyping import ArrayLike, Float, Int, Num

from lrnn_core.core.hippo import legs_reconstruct, legs_states
from lrnn_core.core.validate import (
    check_shape,
    eigenvalue_vector,
    positive_int,
    real_number,
    real_sequences,
    seed_list,
)
from lrnn_core.core.vandermonde import (
    EPS,
    cutoff,
    gram_condition,
    numerical_rank,
    pinv_apply,
    pseudo_inverse,
    singular_values,
    vandermonde64,
)
from lrnn_core.core.verdicts import dealt, falls
from lrnn_core.orvieto.conditioning import ring_eigenvalues
from lrnn_core.orvieto.memorisation import (
    check_step,
    reconstruct_from_last_state,
    relative_errors,
)
from lrnn_core.orvieto.wavelets import random_wavelet_problem, sparse_signal, wavelet_basis


def _basis_matrix(basis: ArrayLike) -> np.ndarray:
    """The basis ``Psi`` (``L x P``) as a finite real float64 matrix."""
    return real_sequences("basis", basis, batched=True)


def _stable_eigenvalues(lam: ArrayLike) -> np.ndarray:
    """``lam`` as complex128 with ``|lambda| <= 1``, as every function here assumes."""
    return eigenvalue_vector("lam", lam, max_modulus=1.0)


def real_stack(M: Num[ArrayLike, "*batch m n"]) -> Float[np.ndarray, "*batch 2m n"]:
    """``[Re M; Im M]`` along the second-to-last axis (rows), or along the only axis of a vector:
    the real representation of a complex system used in §3.1.2 of Orvieto et al. (ICML 2024)."""
    M = np.asarray(M)
    axis = -2 if M.ndim >= 2 else -1
    return np.concatenate([M.real, M.imag], axis=axis)


def gamma(
    lam: Num[ArrayLike, " N"], basis: Float[ArrayLike, "L P"], k: int | None = None
) -> np.ndarray:
    """``Gamma_k = V_k Psi_k`` (eq. 6 of Orvieto et al.), complex ``N x P``; ``Psi_k`` = first
    ``k`` rows of ``basis`` (default: ``Gamma_L``)."""
    lam, basis = _stable_eigenvalues(lam), _basis_matrix(basis)
    k = check_step(k, basis.shape[0])
    return vandermonde64(lam, k) @ basis[:k]


def reconstruction_map(
    lam: Num[ArrayLike, " N"], basis: Float[ArrayLike, "L P"], k: int | None = None
) -> Float[np.ndarray, "k 2N"]:
    """``Omega_k = Psi_k Gamma_k^+`` (eq. 7 of Orvieto et al.) acting on ``[Re x_k; Im x_k]``:
    real, ``k x 2N``.

    ``Gamma_k^+`` is the library's one truncated pseudo-inverse of the real-stacked ``Gamma_k``
    (default cut-off ``max(2N, P) * eps``). With ``basis = I_L`` this is the plain Vandermonde
    inverse ``V_k^+`` (non-sparse case).
    """
    basis = _basis_matrix(basis)
    k = check_step(k, basis.shape[0])
    G = real_stack(gamma(lam, basis, k))
    return basis[:k] @ pseudo_inverse(G)


@dataclass(frozen=True)
class Sweep:
    """Reconstruction of inputs from ``x_k`` for each ``k`` in ``ks`` (``reconstruction_sweep``).

    ``rank_gamma``: numerical rank of the complex ``Gamma_k = V_k Psi_k`` (``N x P``, so at most
    ``min(N, P)``), the rank Figs. 10-11 of Orvieto et al. plot; ``rank_real``: numerical rank of
    the real-stacked ``[Re Gamma_k; Im Gamma_k]`` (``2N x P``) that the solve uses;
    ``rel_error``: ``||Omega_k x_k - v_{1:k}|| / ||v_{1:k}||`` (Euclidean norms over the first ``k``
    steps; NaN while ``v_{1:k} = 0``), shape ``(len(ks),)`` for one input, ``(M, len(ks))`` for
    ``M`` inputs.
    """

    ks: np.ndarray
    rank_gamma: np.ndarray
    rank_real: np.ndarray
    rel_error: np.ndarray


def _steps(ks: ArrayLike | None, L: int) -> np.ndarray:
    """``ks`` as increasing steps in ``1..L`` (``None``: every step)."""
    if ks is None:
        return np.arange(1, L + 1)
    ks = np.array([positive_int(f"ks[{i}]", k) for i, k in enumerate(np.atleast_1d(ks))])
    if ks.size == 0 or ks[-1] > L or np.any(np.diff(ks) <= 0):
        raise ValueError(f"ks must be non-empty, increasing integers in [1, L={L}]")
    return ks


def reconstruction_sweep(
    lam: Num[ArrayLike, " N"],
    basis: Float[ArrayLike, "L P"],
    u: Float[ArrayLike, "*M L"],
    ks: ArrayLike | None = None,
    *,
    chunk: int = 256,
) -> Sweep:
    """Reconstruct ``v_{1:k} = Psi_k alpha_k``, ``alpha_k = Gamma_k^+ x_k`` (eqs. 6-7 of Orvieto et
    al.) for every ``k`` in ``ks``.

    ``lam``: ``(N,)`` eigenvalues (``|lambda| <= 1``), ``basis``: ``Psi`` ``(L, P)``, ``u``: one
    input ``(L,)`` or ``M`` inputs ``(M, L)``; ``ks``: increasing steps in ``[1, L]`` (default
    every ``k``). The states ``x_k = lam x_{k-1} + u_k`` and ``Gamma_k = lam Gamma_{k-1} +
    Psi[k-1]`` are run forward together from one wanted ``k`` to the next, ``d`` steps at once
    (``x_k = lam^d x_{k-d} + [lam^(d-1), ..., 1] u_{k-d+1:k}``; ``O(NP)`` per step, never forming
    ``V_k``); ``Gamma_k^+ x_k`` is the one truncated pseudo-inverse (of the triangular
    factor of a QR of ``[Gamma_k | x_k]``, which has the same singular values, with the cut-off of
    ``Gamma_k``). The ``Gamma_k`` of ``chunk`` steps are solved together as a batch.
    """
    lam, basis = _stable_eigenvalues(lam), _basis_matrix(basis)
    L, P = basis.shape
    u = real_sequences("u", u)
    check_shape("u", u, (*u.shape[:-1], L))
    inputs = np.atleast_2d(u)  # (M, L)
    ks = _steps(ks, L)
    chunk = positive_int("chunk", chunk)
    x = np.zeros(lam.shape + (inputs.shape[0],), np.complex128)
    G = np.zeros(lam.shape + (P,), np.complex128)
    parts, batch_G, batch_x, batch_k = [], [], [], []
    previous = 0
    for i, k in enumerate(ks):
        # d steps of the recurrence at once: x_k = lam^d x_(k-d) + sum_j lam^(k-j) u_j
        d = k - previous
        powers = lam[:, None] ** np.arange(d - 1, -1, -1)  # (N, d): lam^(d-1), ..., lam, 1
        x = lam[:, None] ** d * x + powers @ inputs[:, previous:k].T
        G = lam[:, None] ** d * G + powers @ basis[previous:k]
        previous = k
        batch_G.append(G)
        batch_x.append(x)
        batch_k.append(k)
        if len(batch_k) == chunk or i == ks.size - 1:
            parts.append(
                _solve_batch(np.stack(batch_G), np.stack(batch_x), np.array(batch_k), basis, inputs)
            )
            batch_G, batch_x, batch_k = [], [], []
    rank_gamma, rank_real, errors = (np.concatenate(p, axis=-1) for p in zip(*parts, strict=True))
    return Sweep(
        ks=ks,
        rank_gamma=rank_gamma,
        rank_real=rank_real,
        rel_error=errors if u.ndim == 2 else errors[0],
    )


def _solve_batch(
    G: np.ndarray, x: np.ndarray, ks: np.ndarray, basis: np.ndarray, inputs: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Complex and real ranks ``(B,)`` and relative errors ``(M, B)`` for a batch of ``Gamma_k``
    ``(B, N, P)`` and states ``(B, N, M)``."""
    N, P = G.shape[-2:]
    rank_complex = numerical_rank(np.linalg.svd(G, compute_uv=False), (N, P))
    G = real_stack(G)  # (B, 2N, P)
    x = real_stack(x)  # (B, 2N, M)
    # QR of [Gamma | x] first: Gamma = Q R_G and Q^T x = r, so Gamma^+ x = R_G^+ r, and the SVD
    # is only needed of the small R_G (same singular values as Gamma): far cheaper.
    R = np.linalg.qr(np.concatenate([G, x], axis=-1), mode="r")
    R_G, r = R[..., None, :, :P], np.swapaxes(R[..., P:], -1, -2)  # (B, 1, m, P), (B, M, m)
    alpha, rank = pinv_apply(R_G, r, rcond=cutoff(G.shape), return_rank=True)  # (B, M, P)
    k_max = ks[-1]
    recon = np.einsum("tp,bmp->mtb", basis[:k_max], alpha)  # (M, k_max, B)
    inside = np.arange(k_max)[:, None] < ks[None, :]  # (k_max, B)
    target = inputs[:, :k_max, None]
    residual = np.where(inside, recon - target, 0.0)
    size = np.linalg.norm(np.where(inside, target, 0.0), axis=1)  # (M, B)
    with np.errstate(invalid="ignore", divide="ignore"):
        error = np.where(size > 0, np.linalg.norm(residual, axis=1) / size, np.nan)
    return rank_complex, rank[:, 0], error


def _vandermonde_frobenius(lam: np.ndarray, L: int) -> float:
    """``||V_L||_F = sqrt(sum_i sum_{j<L} |lambda_i|^(2j))`` in closed form (geometric sums)."""
    w = np.abs(lam) ** 2
    on_circle = w == 1.0
    sums = np.where(on_circle, float(L), (1 - w**L) / (1 - np.where(on_circle, 0.0, w)))
    return float(np.sqrt(np.sum(sums)))


def vandermonde_rank_profile(
    lam: Num[ArrayLike, " N"], L: int, stride: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Numerical rank of the complex ``V_k`` (``N x k``) on a grid of ``k`` and a lower bound for
    **every** ``k <= L`` (Figs. 10-11 of Orvieto et al.).

    Returns ``(grid, rank_on_grid, lower)`` with ``lower[k-1] <= rank(V_k)`` for ``k = 1..L``. The
    grid is every ``stride``-th ``k`` up to ``2N`` (and ``L``). Appending a column never decreases a
    singular value (interlacing), so for ``k_lo <= k <= k_hi`` every
    ``sigma_i(V_k) >= sigma_i(V_{k_lo})`` while the tolerance ``max(N, k) eps sigma_1(V_k)`` (the
    one cut-off) is at most its value at ``k_hi``; on the last interval ``[k_lo, L]`` we bound
    ``sigma_1(V_L)`` by the Frobenius norm (closed form), which spares the SVD of the wide
    ``N x L`` matrix.
    """
    lam = _stable_eigenvalues(lam)
    L = positive_int("L", L)
    stride = positive_int("stride", stride)
    N = lam.size
    top = min(L, 2 * N)
    grid = np.unique(np.r_[np.arange(1, top + 1, stride), top])
    svals = [singular_values(lam, int(k)) for k in grid]
    ranks = np.array(
        [int(numerical_rank(s, (N, int(k)))) for s, k in zip(svals, grid, strict=True)]
    )
    lower = np.zeros(L, dtype=int)
    for j, (k_lo, s_lo) in enumerate(zip(grid, svals, strict=True)):
        if j + 1 < grid.size:
            k_hi, top_hi = grid[j + 1], svals[j + 1][0]
        else:
            k_hi, top_hi = L, _vandermonde_frobenius(lam, L)
        certified = np.sum(s_lo > cutoff((N, int(k_hi))) * top_hi)
        lower[k_lo - 1 : k_hi] = np.maximum(lower[k_lo - 1 : k_hi], certified)
    return grid, ranks, lower


def reconstruct_sparse(
    lam: Num[ArrayLike, " N"], basis: Float[ArrayLike, "L P"], u: Float[ArrayLike, "*batch L"]
) -> Float[np.ndarray, "*batch L"]:
    """Encode ``u`` into its last state ``x_L = V_L u`` (eq. 4) and decode it with the sparse map
    ``Omega_L x_L = Psi Gamma_L^+ [Re x_L; Im x_L]`` (eq. 7 of Orvieto et al., ICML 2024).

    ``u``: ``(L,)`` or ``(batch, L)``. Exact (to rounding) when ``u`` lies in the span of ``basis``
    and the real-stacked ``Gamma_L`` has full column rank.
    """
    lam, basis = _stable_eigenvalues(lam), _basis_matrix(basis)
    u = real_sequences("u", u)
    check_shape("u", u, (*u.shape[:-1], basis.shape[0]))
    x_L = vandermonde64(lam, basis.shape[0]) @ u.T  # (N,) or (N, batch)
    return (reconstruction_map(lam, basis) @ real_stack(x_L)).T


#: A condition number above ``1 / EPS ~ 4.5e15`` describes a matrix that is singular to float64
#: working precision: its computed value is rounding noise, not a level.
SINGULAR_COND = 1.0 / EPS


def log_level(cond: ArrayLike) -> np.ndarray:
    """``log10(cond)``, or ``inf`` where ``cond > SINGULAR_COND`` (numerically singular)."""
    cond = np.asarray(cond, dtype=np.float64)
    with np.errstate(divide="ignore"):
        return np.where(cond > SINGULAR_COND, np.inf, np.log10(cond))


def gram_condition_candidates(
    lam: Num[ArrayLike, " N"], basis: Float[ArrayLike, "L P"]
) -> dict[str, float]:
    """The readings of ``cond(Omega^T Omega)``, ``Omega = V_L Psi_L`` (Fig. 9 of Orvieto et al.).

    The paper names neither the matrix's field nor how the number is computed, so four readings:
    ``"complex"``: ``cond(Gamma^H Gamma) = (s_1 / s_P)^2`` from the SVD of the complex ``N x P``
    ``Gamma_L`` (``inf`` if ``P > N``); ``"real"``: the same for ``[Re Gamma; Im Gamma]``
    (``2N x P``); ``"formed complex"`` / ``"formed real"``: :func:`numpy.linalg.cond` of the formed
    Gram matrix ``Gamma^H Gamma`` / ``Re(Gamma^H Gamma)`` (the real-stacked Gram), which cannot
    resolve more than about ``1 / EPS`` and returns rounding noise (``~1e17 ... 1e21``) beyond.
    """
    basis = _basis_matrix(basis)
    G = gamma(lam, basis)
    gram = G.conj().T @ G
    return {
        "complex": gram_condition(G),
        "real": gram_condition(real_stack(G)),
        "formed complex": float(np.linalg.cond(gram)),
        "formed real": float(np.linalg.cond(gram.real)),
    }


def map_condition_candidates(
    lam: Num[ArrayLike, " N"], basis: Float[ArrayLike, "L P"]
) -> dict[str, float]:
    """The readings of Fig. 12's "conditioning of the reconstruction map" (Orvieto et al.).

    ``"norm real"``: ``||Omega_L||_2 = ||Psi Gamma_L^+||_2 = 1 / sigma_min`` of the real-stacked
    ``Gamma_L`` (``Psi^T Psi = I`` makes ``||Psi M||_2 = ||M||_2``; :func:`reconstruction_map`),
    ``inf`` if the real-stacked ``Gamma_L`` is rank deficient under the one cut-off (the norm is
    then set by the cut-off, not by ``Gamma_L``); ``"cond complex"``: ``s_1 / s_r`` of the complex
    ``Gamma_L`` over its ``r = min(N, P)`` singular values (for ``basis = I_L`` the conditioning of
    ``V_L^+``); ``"cond^2 complex"``: its square. ``basis`` must have orthonormal columns.
    """
    basis = _basis_matrix(basis)
    if not np.allclose(basis.T @ basis, np.eye(basis.shape[1]), atol=1e-10):
        raise ValueError("basis must have orthonormal columns (Psi^T Psi = I, to 1e-10)")
    G = gamma(lam, basis)
    stacked = real_stack(G)
    s_real = np.linalg.svd(stacked, compute_uv=False)
    full = numerical_rank(s_real, stacked.shape) == basis.shape[1]
    s = np.linalg.svd(G, compute_uv=False)
    cond = float(s[0] / s[-1]) if s[-1] > 0 else float("inf")
    return {
        "norm real": float(1.0 / s_real[-1]) if full else float("inf"),
        "cond complex": cond,
        "cond^2 complex": cond**2,
    }


def rank_gap_bound(lam: Num[ArrayLike, " N"]) -> int:
    """Upper bound on ``min(N, k) - rank(V_k)`` for every ``k <= 2N`` (Figs. 10-11 of Orvieto et
    al.): the number of singular values of the square ``V_N`` at or below ``2N eps s_1(V_2N)``.

    For ``k <= N``, ``V_k`` is ``k`` columns of ``V_N`` and for ``N <= k``, ``V_k`` contains
    ``V_N``; by interlacing ``sigma_i(V_k) >= sigma_(i + N - k)(V_N)`` resp. ``>= sigma_i(V_N)``,
    while the cut-off ``max(N, k) eps s_1(V_k)`` of the one policy is at most ``2N eps s_1(V_2N)``.
    """
    lam = _stable_eigenvalues(lam)
    N = lam.size
    tol = 2 * N * EPS * singular_values(lam, 2 * N)[0]
    return int(np.sum(singular_values(lam, N) <= tol))


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


def summarise(results: Mapping[int, SweepSet]) -> dict[int, dict[str, float | int | bool]]:
    """Numbers of Figs. 10-11 for every ``N`` of one problem of :func:`sparse_sweeps`:
    ``worst error`` is taken over all ``k``, inputs and draws, ``median max error`` / ``median
    late error`` are medians over draws and inputs of the maximum over all ``k`` / over
    ``k >= L/2``."""
    out = {}
    for N, result in results.items():
        late = result.ks >= result.v_lower.shape[1] // 2
        max_err = np.nanmax(result.rel_error, axis=-1)
        gaps = np.minimum(N, result.v_grid) - result.v_ranks  # (D, G)
        out[N] = {
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
    return out


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


#: Fig. 9's stated trends (Orvieto et al.): the cell axis of ``(R, N, P)`` each runs along, and
#: ``True`` where the condition number is said to fall as the index *shrinks* (smaller ``P``).
FIG9_TRENDS = {"N": (1, False), "P": (2, True), "r_min": (0, False)}


def fig9_trend_falls(
    log10_cond: Float[ArrayLike, "D R N P"], trend: str, seed: int | None = None
) -> np.ndarray:
    """:func:`~lrnn_core.core.verdicts.falls` on every line of Fig. 9's grid along ``trend``
    (a key of :data:`FIG9_TRENDS`), in the direction the paper states: one bool per line (the
    other two axes in C order). The ``log10`` draws are taken as condition numbers capped at
    ``SINGULAR_COND`` (``1 / EPS``; ``inf`` included): singular cells tie with each other and sit
    above every resolved one. With ``seed``, the capped draws are first dealt at random along
    the trend's axis (:func:`~lrnn_core.core.verdicts.dealt`): the negative control."""
    if trend not in FIG9_TRENDS:
        raise ValueError("trend must be one of " + ", ".join(FIG9_TRENDS) + ", got " + repr(trend))
    x = np.asarray(log10_cond, dtype=np.float64)
    check_shape("log10_cond", x, (None, None, None, None))
    if np.any(np.isnan(x)):
        raise ValueError("log10_cond must not hold NaN")
    cond = np.minimum(10.0 ** np.minimum(x, LOG10_SINGULAR), SINGULAR_COND)
    cond = np.moveaxis(cond, 0, -1)  # (R, N, P, D)
    axis, reverse = FIG9_TRENDS[trend]
    if seed is not None:
        cond = dealt(cond, seed, axis=axis)
    lines = np.moveaxis(cond, axis, -2)
    lines = lines[..., ::-1, :] if reverse else lines
    lines = lines.reshape(-1, *lines.shape[-2:])
    return np.array([falls(line, cap=SINGULAR_COND) for line in lines])


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
    (:data:`SINGULAR_COND`) are ``inf``.
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
            f"seeds must have shape (inits, {n_bases + 1}), got {seeds.shape} "
            "(one column per basis, the last for the Vandermonde inverse)"
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
    singular (:func:`log_level`)."""
    rows = [map_condition_candidates(ring_eigenvalues(int(s), N, r_min), basis) for s in seeds]
    return {reading: np.array([10 ** log_level(r[reading]) for r in rows]) for reading in rows[0]}


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


def sweep_curves(result: SweepSet) -> dict[str, np.ndarray | tuple[np.ndarray, ...]]:
    """The curves of Figs. 10-11 for one ``N``: medians and ranges of a :class:`SweepSet` over
    draws (ranks) and over draws and inputs (relative errors, kept only at the ``k`` where every
    ``v_{1:k}`` is nonzero). ``v_rank`` ``(G,)``: median rank of ``V_k`` on the grid; ``v_lower``
    ``(L,)``: its smallest certified lower bound; ``rank_gamma``: median, min, max ``(K,)``;
    ``k_seen``: the ``k`` where every input is nonzero up to ``k``; ``error``: median, min, max
    there."""
    errors = result.rel_error.reshape(-1, result.ks.size)
    seen = np.all(np.isfinite(errors), axis=0)
    errors = errors[:, seen]
    g = result.rank_gamma
    return {
        "v_rank": np.median(result.v_ranks, axis=0),
        "v_lower": result.v_lower.min(axis=0),
        "rank_gamma": (np.median(g, axis=0), g.min(axis=0), g.max(axis=0)),
        "k_seen": result.ks[seen],
        "error": (np.median(errors, axis=0), errors.min(axis=0), errors.max(axis=0)),
    }


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
        hippo.append(np.median(relative_errors(legs, inputs, axis=0)))
        lam = ring_eigenvalues(seed, N, r_min)
        rec = reconstruct_from_last_state(lam, inputs.T, real_input=True)
        ring.append(np.median(relative_errors(rec.T, inputs, axis=0)))
    return np.array(hippo), np.array(ring)


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
        error = relative_errors(reconstruct_sparse(lam, basis, inputs.T).T, inputs, axis=0)
        cond = gram_condition(real_stack(gamma(lam, basis))) ** 0.5  # of the real-stacked Γ_L
        out[N] = (float(np.median(error)), float(cond))
    return out


def smallest_perfect_N(summaries: Mapping[int, Mapping[str, float]], level: float) -> int | None:
    """The first ``N`` (in the order given) whose median largest error over ``k`` (of
    :func:`summarise`) is ``<= level``; ``None`` if there is none (Figs. 10-11)."""
    return next((N for N, s in summaries.items() if s["median max error"] <= level), None)


def reading_ranges(
    readings: Mapping[str, Float[ArrayLike, "R N P"]],
) -> dict[str, dict[str, float | int]]:
    """The smallest (``"min"``) and largest (``"max"``) cell median of each reading of Fig. 9
    (:func:`fig9_readings`), the largest resolved one (``"resolved max"``, of a non-singular
    cell) and the number of singular cells (``"cells > 1/eps"``): those above ``log(1 / EPS)``
    (in the reading's log base: ``"ln ..."`` natural)."""
    out = {}
    for name, med in readings.items():
        med = np.asarray(med)
        threshold = (np.log(10) if name.startswith("ln") else 1.0) * LOG10_SINGULAR
        out[name] = {
            "min": float(med.min()),
            "resolved max": float(med[med <= threshold].max()),
            "max": float(med.max()),
            "cells > 1/eps": int(np.sum(med > threshold)),
        }
    return out


def fits_log_axis(values: Sequence[ArrayLike]) -> bool:
    """Fig. 12's y-axis (log scale, ticks ``1e2 ... 1e11``): every value finite, and matplotlib's
    default limits (the data range widened by 5 % each side, in ``log10``) give a lower limit in
    ``(1e-1, 1e2]`` and an upper one in ``[1e11, 1e14)``."""
    flat = np.log10(np.concatenate([np.ravel(v) for v in values]))
    with np.errstate(invalid="ignore"):
        pad = 0.05 * (flat.max() - flat.min())
        return bool(
            np.all(np.isfinite(flat)) and -1 < flat.min() - pad <= 2 and 11 <= flat.max() + pad < 14
        )


def fig12_statistics(
    study: Mapping[str, Mapping[str, Float[ArrayLike, "inits nP"]]],
) -> tuple[dict[tuple[str, str], dict[str, np.ndarray]], dict[tuple[str, str], bool]]:
    """The median and the mean over initialisations of every curve of
    :func:`map_condition_study`, ``{(reading, stat): {name: (nP,)}}``, and whether each
    ``(reading, stat)`` fits the paper's axis (:func:`fits_log_axis`)."""
    stats, fits = {}, {}
    for reading, families in study.items():
        for stat, f in (("median", np.median), ("mean", np.mean)):
            values = {name: f(v, axis=0) for name, v in families.items()}
            stats[reading, stat] = values
            fits[reading, stat] = fits_log_axis(list(values.values()))
    return stats, fits
