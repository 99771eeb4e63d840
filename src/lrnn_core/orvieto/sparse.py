# ruff: noqa: F722 (jaxtyping's dimension strings are not Python expressions)
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
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from jaxtyping import ArrayLike, Float, Num

from lrnn_core.core.validate import (
    check_shape,
    eigenvalue_vector,
    positive_int,
)
from lrnn_core.core.vandermonde import (
    cutoff,
    gram_condition,
    numerical_rank,
    pinv_apply,
    pseudo_inverse,
    singular_values,
    vandermonde64,
)
from lrnn_core.orvieto.memorisation import real_sequences

__all__ = [
    "Sweep",
    "gamma",
    "gamma_gram_condition",
    "real_stack",
    "reconstruction_map",
    "reconstruction_map_norm",
    "reconstruct_sparse",
    "reconstruction_sweep",
    "vandermonde_rank_profile",
]


def _basis_matrix(basis: ArrayLike) -> np.ndarray:
    """The basis ``Psi`` (``L x P``) as a finite real float64 matrix."""
    return real_sequences("basis", basis, batched=True)


def _stable_eigenvalues(lam: ArrayLike) -> np.ndarray:
    """``lam`` as complex128 with ``|lambda| <= 1``, as every function here assumes."""
    return eigenvalue_vector("lam", lam, max_modulus=1.0)


def _step(k: int | None, L: int) -> int:
    """``k`` as a step in ``1..L`` (``None``: ``L``)."""
    if k is None:
        return L
    k = positive_int("k", k)
    if k > L:
        raise ValueError(f"k must be <= L = {L} (the rows of basis), got {k}")
    return k


def real_stack(M: Num[ArrayLike, "*batch m n"]) -> Float[np.ndarray, "*batch 2m n"]:
    """``[Re M; Im M]`` along the second-to-last axis (rows), or along the only axis of a vector:
    the real representation of a complex system used in §3.1.2 of Orvieto et al. (ICML 2024)."""
    M = np.asarray(M)
    axis = -2 if M.ndim >= 2 else -1
    return np.concatenate([M.real, M.imag], axis=axis)


def gamma(lam: Num[ArrayLike, " N"], basis: Float[ArrayLike, "L P"], k: int) -> np.ndarray:
    """``Gamma_k = V_k Psi_k`` (eq. 6 of Orvieto et al.), complex ``N x P``; ``Psi_k`` = first
    ``k`` rows of ``basis``."""
    lam, basis = _stable_eigenvalues(lam), _basis_matrix(basis)
    k = _step(k, basis.shape[0])
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
    k = _step(k, basis.shape[0])
    G = real_stack(gamma(lam, basis, k))
    return basis[:k] @ pseudo_inverse(G)


def reconstruction_map_norm(lam: Num[ArrayLike, " N"], basis: Float[ArrayLike, "L P"]) -> float:
    """``||Omega_L||_2 = ||Psi Gamma_L^+||_2`` (Fig. 12 of Orvieto et al.) for orthonormal ``Psi``.

    ``Psi^T Psi = I`` makes ``||Psi M||_2 = ||M||_2``, and ``||Gamma^+||_2`` is the inverse of the
    smallest singular value of the real-stacked ``Gamma_L`` that the one cut-off keeps
    (:func:`lrnn_core.core.vandermonde.cutoff`), i.e. the norm of :func:`reconstruction_map`. One
    SVD of ``2N x P`` instead of forming the ``L x 2N`` map. ``basis = I_L`` gives ``||V_L^+||_2``.
    """
    basis = _basis_matrix(basis)
    if not np.allclose(basis.T @ basis, np.eye(basis.shape[1]), atol=1e-10):
        raise ValueError(
            "basis must have orthonormal columns (Psi^T Psi = I); use reconstruction_map otherwise"
        )
    G = real_stack(gamma(lam, basis, basis.shape[0]))
    s = np.linalg.svd(G, compute_uv=False)
    kept = s[s > cutoff(G.shape) * s[0]]
    return float(1.0 / kept[-1]) if kept.size else 0.0


def gamma_gram_condition(
    lam: Num[ArrayLike, " N"], basis: Float[ArrayLike, "L P"], k: int | None = None
) -> float:
    """``cond(Gamma_k^T Gamma_k)`` of the real-stacked ``Gamma_k`` (Fig. 9 of Orvieto et al.).

    :func:`lrnn_core.core.vandermonde.gram_condition` of ``[Re Gamma_k; Im Gamma_k]``: from the
    singular values of ``Gamma_k`` itself, resolved up to ``~1 / eps^2``; ``inf`` if ``P > 2N``
    or ``sigma_min = 0``.
    """
    basis = _basis_matrix(basis)
    k = _step(k, basis.shape[0])
    return gram_condition(real_stack(gamma(lam, basis, k)))


@dataclass(frozen=True)
class Sweep:
    """Reconstruction of one input from ``x_k`` for each ``k`` in ``ks`` (``reconstruction_sweep``).

    ``rank_gamma``: numerical rank of the real-stacked ``Gamma_k`` (``2N x P``);
    ``rel_error``: ``||Omega_k x_k - v_{1:k}|| / ||v_{1:k}||`` (Euclidean norms over the first ``k``
    steps; NaN while ``v_{1:k} = 0``).
    """

    ks: np.ndarray
    rank_gamma: np.ndarray
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
    u: Float[ArrayLike, " L"],
    ks: ArrayLike | None = None,
    *,
    chunk: int = 256,
) -> Sweep:
    """Reconstruct ``v_{1:k} = Psi_k alpha_k``, ``alpha_k = Gamma_k^+ x_k`` (eqs. 6-7 of Orvieto et
    al.) for every ``k`` in ``ks``.

    ``lam``: ``(N,)`` eigenvalues (``|lambda| <= 1``), ``basis``: ``Psi`` ``(L, P)``, ``u``: the
    input ``(L,)``; ``ks``: increasing steps in ``[1, L]`` (default every ``k``). The state
    ``x_k = lam x_{k-1} + u_k`` and ``Gamma_k = lam Gamma_{k-1} + Psi[k-1]`` are run forward
    together (the recurrence itself, ``O(NP)`` per step, instead of forming ``V_k``);
    ``Gamma_k^+ x_k`` is the one truncated pseudo-inverse (of the triangular factor of a QR of
    ``[Gamma_k | x_k]``, which has the same singular values, with the cut-off of ``Gamma_k``).
    The ``Gamma_k`` of ``chunk`` steps are solved together as a batch.
    """
    lam, basis = _stable_eigenvalues(lam), _basis_matrix(basis)
    L, P = basis.shape
    u = real_sequences("u", u)
    check_shape("u", u, (L,))
    ks = _steps(ks, L)
    chunk = positive_int("chunk", chunk)
    wanted = np.zeros(L + 1, dtype=bool)
    wanted[ks] = True
    x = np.zeros(lam.shape, np.complex128)
    G = np.zeros(lam.shape + (P,), np.complex128)
    ranks, errors, batch_G, batch_x, batch_k = [], [], [], [], []
    for k in range(1, L + 1):
        x = lam * x + u[k - 1]
        G = lam[:, None] * G + basis[k - 1]
        if wanted[k]:
            batch_G.append(G.copy())
            batch_x.append(x.copy())
            batch_k.append(k)
        if len(batch_k) == chunk or (k == L and batch_k):
            r, e = _solve_batch(np.stack(batch_G), np.stack(batch_x), np.array(batch_k), basis, u)
            ranks.append(r)
            errors.append(e)
            batch_G, batch_x, batch_k = [], [], []
    return Sweep(ks=ks, rank_gamma=np.concatenate(ranks), rel_error=np.concatenate(errors))


def _solve_batch(
    G: np.ndarray, x: np.ndarray, ks: np.ndarray, basis: np.ndarray, u: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Ranks and relative errors for a batch of ``Gamma_k`` ``(B, N, P)`` and states ``(B, N)``."""
    G = real_stack(G)  # (B, 2N, P)
    x = np.concatenate([x.real, x.imag], axis=-1)  # (B, 2N)
    P = G.shape[-1]
    # QR of [Gamma | x] first: Gamma = Q R_G and Q^T x = r, so Gamma^+ x = R_G^+ r, and the SVD
    # is only needed of the small R_G (same singular values as Gamma): far cheaper.
    R = np.linalg.qr(np.concatenate([G, x[..., None]], axis=-1), mode="r")
    R_G, r = R[..., :P], R[..., P]
    alpha, rank = pinv_apply(R_G, r, rcond=cutoff(G.shape), return_rank=True)
    k_max = ks[-1]
    recon = basis[:k_max] @ alpha.T  # (k_max, B): column b is Psi alpha_b on the first k_max steps
    inside = np.arange(k_max)[:, None] < ks[None, :]
    residual = np.where(inside, recon - u[:k_max, None], 0.0)
    reference = np.where(inside, u[:k_max, None], 0.0)
    size = np.linalg.norm(reference, axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return rank, np.where(size > 0, np.linalg.norm(residual, axis=0) / size, np.nan)


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
