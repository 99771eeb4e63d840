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
    real_sequences,
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

__all__ = [
    "SINGULAR_COND",
    "Sweep",
    "gamma",
    "gamma_gram_condition",
    "gram_condition_candidates",
    "log_level",
    "map_condition_candidates",
    "rank_gap_bound",
    "real_stack",
    "reconstruct_sparse",
    "reconstruction_map",
    "reconstruction_map_norm",
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


def _check_orthonormal(basis: np.ndarray) -> None:
    """ValueError unless ``basis^T basis = I`` (to ``1e-10``)."""
    if not np.allclose(basis.T @ basis, np.eye(basis.shape[1]), atol=1e-10):
        raise ValueError(
            "basis must have orthonormal columns (Psi^T Psi = I); use reconstruction_map otherwise"
        )


def reconstruction_map_norm(lam: Num[ArrayLike, " N"], basis: Float[ArrayLike, "L P"]) -> float:
    """``||Omega_L||_2 = ||Psi Gamma_L^+||_2`` (Fig. 12 of Orvieto et al.) for orthonormal ``Psi``.

    ``Psi^T Psi = I`` makes ``||Psi M||_2 = ||M||_2``, and ``||Gamma^+||_2`` is the inverse of the
    smallest singular value of the real-stacked ``Gamma_L`` that the one cut-off keeps
    (:func:`lrnn_core.core.vandermonde.cutoff`), i.e. the norm of :func:`reconstruction_map`. One
    SVD of ``2N x P`` instead of forming the ``L x 2N`` map. ``basis = I_L`` gives ``||V_L^+||_2``.
    """
    basis = _basis_matrix(basis)
    _check_orthonormal(basis)
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
    G = gamma(lam, basis, basis.shape[0])
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

    ``"norm real"``: ``||Omega_L||_2`` of the real-stacked map (:func:`reconstruction_map_norm`),
    ``inf`` if the real-stacked ``Gamma_L`` is rank deficient under the one cut-off (the norm is
    then set by the cut-off, not by ``Gamma_L``); ``"cond complex"``: ``s_1 / s_r`` of the complex
    ``Gamma_L`` over its ``r = min(N, P)`` singular values (for ``basis = I_L`` the conditioning of
    ``V_L^+``); ``"cond^2 complex"``: its square. ``basis`` must have orthonormal columns.
    """
    basis = _basis_matrix(basis)
    _check_orthonormal(basis)
    G = gamma(lam, basis, basis.shape[0])
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
