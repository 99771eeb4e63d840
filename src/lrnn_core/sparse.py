"""Reconstruction of sparse inputs from a linear RNN state (Orvieto et al., ICML 2024, §3.1.2, App. E.2).

Assumption A: the input is ``v_{1:k}^T = Psi_k alpha`` with ``Psi_k`` the first ``k`` rows of a
basis ``Psi in R^{L x P}``. With scalar input and ``B = (1, ..., 1)^T`` the state is (eq. 6)

    x_k = V_k v_{1:k}^T = V_k Psi_k alpha = Gamma_k alpha,      Gamma_k := V_k Psi_k  (N x P),

so ``alpha_k = Gamma_k^+ x_k`` and (eq. 7) ``v_{1:k}^T = Omega_k x_k`` with
``Omega_k = Psi_k Gamma_k^+``. The paper writes ``(Gamma^T Gamma)^{-1} Gamma^T``; we use the SVD
pseudo-inverse, which equals it when ``Gamma_k`` has full column rank and is the minimum-norm
least-squares solution otherwise (it also avoids squaring the condition number).

Real inputs, complex state: as the paper does ("we consider ... its real/imaginary inputs
representation in R^{2N x N}", §3.1.2) we solve the real system ``[Re Gamma_k; Im Gamma_k] alpha =
[Re x_k; Im x_k]`` (``2N`` equations for ``P`` real unknowns). Ranks are numerical ranks with the
tolerance of :func:`numpy.linalg.matrix_rank`: singular values ``> max(m, n) * eps * sigma_max``.

Everything is NumPy float64/complex128: the matrices involved have condition numbers up to ``1e16``
and beyond, where float32 (``eps ~ 1e-7``) would see nothing but noise.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from lrnn_core.validate import eigenvalue_vector
from lrnn_core.vandermonde import vandermonde64

EPS = float(np.finfo(np.float64).eps)



def _basis(basis: Any) -> np.ndarray:
    basis = np.asarray(basis, dtype=np.float64)
    if basis.ndim != 2:
        raise ValueError(f"basis must be an L x P matrix, got shape {basis.shape}")
    if not np.all(np.isfinite(basis)):
        raise ValueError("basis contains non-finite values (NaN or inf)")
    return basis


def _input(u: Any, L: int) -> np.ndarray:
    u = np.asarray(u, dtype=np.float64)
    if u.shape != (L,):
        raise ValueError(f"u must have shape ({L},) like the rows of basis, got {u.shape}")
    if not np.all(np.isfinite(u)):
        raise ValueError("u contains non-finite values (NaN or inf)")
    return u


def real_stack(M: np.ndarray) -> np.ndarray:
    """``[Re M; Im M]`` along the second-to-last axis (rows), or along the only axis of a vector."""
    M = np.asarray(M)
    axis = -2 if M.ndim >= 2 else -1
    return np.concatenate([M.real, M.imag], axis=axis)


def numerical_rank(s: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """Count singular values ``s`` (descending, last axis) above ``max(shape) * eps * s[0]``."""
    s = np.asarray(s)
    tol = max(shape) * EPS * s[..., :1]
    return np.sum(s > tol, axis=-1)


def gamma(lam: Any, basis: Any, k: int) -> np.ndarray:
    """``Gamma_k = V_k Psi_k`` (eq. 6), complex ``N x P``; ``Psi_k`` = first ``k`` rows of ``basis``."""
    lam, basis = eigenvalue_vector("lam", lam, max_modulus=1.0), _basis(basis)
    if not 1 <= k <= basis.shape[0]:
        raise ValueError(f"k must be in [1, L={basis.shape[0]}], got {k}")
    return vandermonde64(lam, k) @ basis[:k]


def reconstruction_map(lam: Any, basis: Any, k: int | None = None) -> np.ndarray:
    """``Omega_k = Psi_k Gamma_k^+`` (eq. 7) acting on ``[Re x_k; Im x_k]``: real, ``k x 2N``.

    The pseudo-inverse keeps every non-zero singular value (no truncation), so ``||Omega_k||_2`` is
    ``||Psi_k Gamma_k^+||`` as written; values beyond ``~1 / (eps sigma_max)`` are rounding noise.
    With ``basis = I_L`` this is the plain Vandermonde inverse ``V_k^+`` (non-sparse case).
    """
    basis = _basis(basis)
    k = basis.shape[0] if k is None else k
    G = real_stack(gamma(lam, basis, k))
    return basis[:k] @ np.linalg.pinv(G, rcond=0.0)


def reconstruction_map_norm(lam: Any, basis: Any) -> float:
    """``||Omega_L||_2 = ||Psi Gamma_L^+||_2`` (Fig. 12) for ``Psi`` with orthonormal columns: ``1 / sigma_min(Gamma_L)``.

    ``Psi^T Psi = I`` makes ``||Psi M||_2 = ||M||_2``, and ``||Gamma^+||_2`` is the inverse of the
    smallest singular value of the real-stacked ``Gamma_L`` (``inf`` if it is rank deficient). One
    SVD of ``2N x P`` instead of forming the ``L x 2N`` map. ``basis = I_L`` gives ``||V_L^+||_2``.
    """
    basis = _basis(basis)
    if not np.allclose(basis.T @ basis, np.eye(basis.shape[1]), atol=1e-10):
        raise ValueError("basis must have orthonormal columns (Psi^T Psi = I); use reconstruction_map otherwise")
    G = real_stack(gamma(lam, basis, basis.shape[0]))
    if G.shape[1] > G.shape[0]:
        return float("inf")
    s = np.linalg.svd(G, compute_uv=False)
    return float("inf") if s[-1] == 0.0 else float(1.0 / s[-1])


def gram_condition(lam: Any, basis: Any, k: int | None = None) -> float:
    """``cond(Gamma_k^T Gamma_k) = (sigma_max / sigma_min)^2`` of the real-stacked ``Gamma_k`` (Fig. 9).

    Taken from the singular values of ``Gamma_k`` itself, so it is resolved up to ``~1 / eps^2``
    (not ``1 / eps`` as a condition number of the formed Gram matrix would be). ``inf`` if
    ``sigma_min = 0`` (e.g. ``P > 2N``).
    """
    basis = _basis(basis)
    k = basis.shape[0] if k is None else k
    G = real_stack(gamma(lam, basis, k))
    s = np.linalg.svd(G, compute_uv=False)
    if G.shape[1] > G.shape[0] or s[-1] == 0.0:
        return float("inf")
    return float((s[0] / s[-1]) ** 2)


@dataclass(frozen=True)
class Sweep:
    """Reconstruction of one input from ``x_k`` for each ``k`` in ``ks`` (see :func:`reconstruction_sweep`).

    ``rank_gamma``: numerical rank of the real-stacked ``Gamma_k`` (``2N x P``);
    ``rel_error``: ``||Omega_k x_k - v_{1:k}|| / ||v_{1:k}||`` (Euclidean norms over the first ``k``
    steps; NaN while ``v_{1:k} = 0``).
    """

    ks: np.ndarray
    rank_gamma: np.ndarray
    rel_error: np.ndarray


def reconstruction_sweep(
    lam: Any, basis: Any, u: Any, ks: Any = None, *, chunk: int = 256
) -> Sweep:
    """Reconstruct ``v_{1:k} = Psi_k alpha_k``, ``alpha_k = Gamma_k^+ x_k`` (eqs. 6-7) for every ``k`` in ``ks``.

    ``lam``: ``(N,)`` eigenvalues (``|lambda| <= 1``), ``basis``: ``Psi`` ``(L, P)``, ``u``: the input
    ``(L,)``; ``ks``: increasing steps in ``[1, L]`` (default every ``k``). The state
    ``x_k = lam x_{k-1} + u_k`` and ``Gamma_k = lam Gamma_{k-1} + Psi[k-1]`` are run forward together
    (the recurrence itself, ``O(NP)`` per step, instead of forming ``V_k``); the pseudo-inverse uses
    the truncated SVD (of the triangular factor of a QR of ``[Gamma_k | x_k]``, which has the same
    singular values) with the rank tolerance of :func:`numerical_rank`. The ``Gamma_k`` of ``chunk``
    steps are solved together as a batch.
    """
    lam, basis = eigenvalue_vector("lam", lam, max_modulus=1.0), _basis(basis)
    L, P = basis.shape
    u = _input(u, L)
    ks = np.arange(1, L + 1) if ks is None else np.asarray(ks)
    if ks.ndim != 1 or ks.size == 0 or ks[0] < 1 or ks[-1] > L or np.any(np.diff(ks) <= 0):
        raise ValueError(f"ks must be increasing integers in [1, L={L}]")
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
    # QR of [Gamma | x] first: Gamma = Q R_G and Q^T x = r, so Gamma^+ x = R_G^+ r, and the SVD is
    # only needed of the small R_G (same singular values as Gamma). Far cheaper than an SVD of Gamma.
    R = np.linalg.qr(np.concatenate([G, x[..., None]], axis=-1), mode="r")
    R_G, r = R[..., :P], R[..., P]
    U, s, Wh = np.linalg.svd(R_G, full_matrices=False)
    rank = numerical_rank(s, G.shape[-2:])
    keep = s > max(G.shape[-2:]) * EPS * s[:, :1]
    s_inv = np.where(keep, 1.0 / np.where(keep, s, 1.0), 0.0)
    alpha = np.einsum("bqp,bq->bp", Wh, s_inv * np.einsum("bnq,bn->bq", U, r))
    k_max = ks[-1]
    recon = basis[:k_max] @ alpha.T  # (k_max, B): column b is Psi alpha_b on the first k_max steps
    inside = np.arange(k_max)[:, None] < ks[None, :]
    residual = np.where(inside, recon - u[:k_max, None], 0.0)
    reference = np.where(inside, u[:k_max, None], 0.0)
    size = np.linalg.norm(reference, axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return rank, np.where(size > 0, np.linalg.norm(residual, axis=0) / size, np.nan)


def _vandermonde_svals(lam: np.ndarray, k: int) -> np.ndarray:
    return np.linalg.svd(vandermonde64(lam, k), compute_uv=False)


def _vandermonde_frobenius(lam: np.ndarray, L: int) -> float:
    """``||V_L||_F = sqrt(sum_i sum_{j<L} |lambda_i|^(2j))`` in closed form (geometric sums)."""
    w = np.abs(lam) ** 2
    on_circle = w == 1.0
    sums = np.where(on_circle, float(L), (1 - w**L) / (1 - np.where(on_circle, 0.0, w)))
    return float(np.sqrt(np.sum(sums)))


def vandermonde_rank_profile(lam: Any, L: int, stride: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Numerical rank of the complex ``V_k`` (``N x k``) on a grid of ``k``; a lower bound for **every** ``k <= L``.

    Returns ``(grid, rank_on_grid, lower)`` with ``lower[k-1] <= rank(V_k)`` for ``k = 1..L``. The grid
    is every ``stride``-th ``k`` up to ``2N`` (and ``L``). Appending a column never decreases a
    singular value (interlacing), so for ``k_lo <= k <= k_hi`` every ``sigma_i(V_k) >= sigma_i(V_{k_lo})``
    while the tolerance ``max(N, k) eps sigma_1(V_k)`` is at most its value at ``k_hi``; on the last
    interval ``[k_lo, L]`` we bound ``sigma_1(V_L)`` by the Frobenius norm (closed form), which spares
    the SVD of the wide ``N x L`` matrix.
    """
    lam = eigenvalue_vector("lam", lam, max_modulus=1.0)
    N = lam.size
    if not isinstance(stride, (int, np.integer)) or stride < 1:
        raise ValueError(f"stride must be a positive int, got {stride!r}")
    top = min(L, 2 * N)
    grid = np.unique(np.r_[np.arange(1, top + 1, stride), top])
    svals = [_vandermonde_svals(lam, int(k)) for k in grid]
    ranks = np.array([int(numerical_rank(s, (N, int(k)))) for s, k in zip(svals, grid)])
    lower = np.zeros(L, dtype=int)
    for j, (k_lo, s_lo) in enumerate(zip(grid, svals)):
        if j + 1 < grid.size:
            k_hi, top_hi = grid[j + 1], svals[j + 1][0]
        else:
            k_hi, top_hi = L, _vandermonde_frobenius(lam, L)
        certified = np.sum(s_lo > max(N, k_hi) * EPS * top_hi)
        lower[k_lo - 1 : k_hi] = np.maximum(lower[k_lo - 1 : k_hi], certified)
    return grid, ranks, lower
