"""Memorising an input sequence in the state of a linear RNN (Orvieto et al., ICML 2024, §3.1, App. C).

* :func:`rnn_states` runs eq. (2), ``x_k = Lambda x_{k-1} + B u_k``, whose unrolled form is eq. (3).
* :class:`PrefixInverse` applies the pseudo-inverse of eq. (5), ``u_{1:k} = V_k^+ x_k``, for *every*
  ``k <= L`` from a single QR factorisation (Prop. 1, checked at every step).
* :func:`with_time` and :func:`block_system` build the time counter of §3.1.1 and the block-diagonal
  ``Lambda`` / block ``B`` of App. C that store ``M`` input channels side by side;
  :func:`reconstruct_blocks` inverts them channel by channel.
* :func:`reconstruct_from_last_state` is the fixed linear decoder ``Re(V_L^+ x_L)`` of Fig. 1 / Fig. 3.

Everything that inverts a Vandermonde matrix works in float64 / complex128 (NumPy, SciPy, or JAX
inside ``jax.enable_x64``): its rounding errors are amplified by ``cond(V_k)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import scipy.linalg

from lrnn_core.scan import linear_scan
from lrnn_core.validate import as_inexact, check_finite, check_ndim
from lrnn_core.vandermonde import reconstruct, vandermonde64

__all__ = [
    "PrefixInverse",
    "block_system",
    "reconstruct_blocks",
    "reconstruct_from_last_state",
    "rnn_states",
    "with_time",
]


def _array(name: str, x: Any) -> np.ndarray:
    """``x`` as a finite float64 / complex128 NumPy array (no round trip through JAX's default dtype)."""
    arr = np.asarray(x)
    if arr.dtype == np.bool_ or not np.issubdtype(arr.dtype, np.number):
        raise TypeError(f"{name} must be a float or complex array, got dtype {arr.dtype}")
    arr = arr.astype(np.result_type(arr.dtype, np.float64))
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains non-finite values (NaN or inf)")
    return arr


def _vector(name: str, x: Any) -> np.ndarray:
    """A finite 1-D float64 / complex128 NumPy array named ``name`` in errors."""
    arr = _array(name, x)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {arr.shape}")
    return arr


def rnn_states(lam: Any, B: Any, u: Any) -> jax.Array:
    """All states ``x_1, ..., x_L`` of ``x_k = diag(lam) x_{k-1} + B u_k``, ``x_0 = 0`` (eq. 2-3).

    ``lam``: ``(N,)``; ``B``: ``(N, H)``; ``u``: ``(..., L, H)``. Returns ``(..., L, N)`` in the result
    dtype of the three (pass float64 / complex128 arrays under ``jax.enable_x64`` for float64).
    """
    lam, B, u = as_inexact("lam", lam), as_inexact("B", B), as_inexact("u", u)
    check_ndim("u", u, 2)
    if lam.ndim != 1 or B.shape != (lam.shape[0], u.shape[-1]):
        raise ValueError(
            f"need lam of shape (N,) and B of shape (N, H) with H = {u.shape[-1]} for u of shape "
            f"{u.shape}; got lam {lam.shape}, B {B.shape}"
        )
    check_finite("B", B)
    return linear_scan(lam, u @ B.T.astype(jnp.result_type(B, u)))


class PrefixInverse:
    """``V_k^+`` for every ``k = 1, ..., L`` from one QR factorisation (eq. 5, Prop. 1).

    ``V_k`` (eq. 4, rows ``(lam_i^(k-1), ..., lam_i, 1)``) is the matrix of the *first* ``k`` columns
    of the ascending Vandermonde ``W = [1, lam, ..., lam^(L-1)]`` (``N x L``), in reversed order. With the QR
    factorisation ``W = Q R`` (``R`` upper triangular) the first ``k`` columns are ``W_k = Q_k R_k``, so
    ``V_k^+ x = flip(R_k^{-1} Q_k^H x)`` costs one triangular solve of size ``k``: all ``L`` prefixes
    cost ``O(N L^2 + L^3)`` instead of ``O(N L^4)`` for one SVD per ``k``. This is ``V_k^+`` only when
    ``V_k`` has full column rank, so it needs ``N >= L`` and distinct eigenvalues (Prop. 1): both are
    checked. Computed in complex128 with SciPy (Householder QR, backward stable).
    """

    def __init__(self, lam: Any, L: int) -> None:
        lam = _vector("lam", lam).astype(np.complex128)
        if isinstance(L, bool) or not isinstance(L, (int, np.integer)) or L < 1:
            raise ValueError(f"L must be a positive int, got {L!r}")
        if lam.size < L:
            raise ValueError(
                f"lam has N = {lam.size} eigenvalues, fewer than L = {L}: V_k is not injective for "
                "k > N (Prop. 1 needs N >= L); use lrnn_core.vandermonde.reconstruct for N < k"
            )
        self.lam, self.L = lam, int(L)
        self.ascending = vandermonde64(lam, self.L)[:, ::-1]  # W, N x L
        self.q, self.r = scipy.linalg.qr(self.ascending, mode="economic")
        diag = np.abs(np.diag(self.r))
        if not diag.min() > np.finfo(float).eps * max(lam.size, self.L) * diag.max():
            raise ValueError(
                "lam gives a numerically rank-deficient V_L (repeated or nearly equal eigenvalues?)"
            )
        self._projected: np.ndarray | None = None  # Q^H W, computed on first use

    def apply(self, k: int, x_k: Any) -> np.ndarray:
        """``V_k^+ x_k``: the input ``u_{1:k}`` recovered from the state ``x_k`` (shape ``(N,)``)."""
        k = self._check_k(k)
        x_k = _vector("x_k", x_k)
        if x_k.shape != self.lam.shape:
            raise ValueError(f"x_k must have shape {self.lam.shape}, got {x_k.shape}")
        coeffs = self.q[:, :k].conj().T @ x_k
        return scipy.linalg.solve_triangular(self.r[:k, :k], coeffs)[::-1]

    def all_prefixes(self, states: Any) -> np.ndarray:
        """``V_k^+ x_k`` for every ``k``: ``states`` is ``(L, N)`` (row ``k-1`` = ``x_k``).

        Returns an ``(L, L)`` complex array whose row ``k-1`` holds ``u_{1:k}`` in its first ``k``
        entries and zeros after them.
        """
        states = _array("states", states)
        if states.shape != (self.L, self.lam.size):
            want = (self.L, self.lam.size)
            raise ValueError(f"states must have shape (L, N) = {want}, got {states.shape}")
        coeffs = self.q.conj().T @ states.T  # column k-1 is Q^H x_k
        out = np.zeros((self.L, self.L), np.complex128)
        for k in range(1, self.L + 1):
            out[k - 1, :k] = scipy.linalg.solve_triangular(self.r[:k, :k], coeffs[:k, k - 1])[::-1]
        return out

    def identity_residual(self, k: int) -> float:
        """``max |V_k^+ V_k - I_k|``: rounding-sized (about ``eps * cond(V_k)``) iff ``V_k`` is injective."""
        k = self._check_k(k)
        if self._projected is None:
            self._projected = self.q.conj().T @ self.ascending
        # R_k^{-1} Q_k^H W_k = P V_k^+ V_k P, with P the reversal (same entries, permuted)
        product = scipy.linalg.solve_triangular(self.r[:k, :k], self._projected[:k, :k])
        return float(np.abs(product - np.eye(k)).max())

    def singular_values(self) -> np.ndarray:
        """Singular values of ``V_L`` (those of ``R``: ``Q`` has orthonormal columns, reversing columns
        changes none). Every ``V_k`` is ``V_L`` with columns deleted, so by interlacing
        ``sigma_min(V_k) >= sigma_min(V_L)`` and ``sigma_max(V_k) <= sigma_max(V_L)``."""
        return scipy.linalg.svdvals(self.r)

    def _check_k(self, k: int) -> int:
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 1 <= k <= self.L:
            raise ValueError(f"k must be an int in 1..{self.L}, got {k!r}")
        return int(k)


def with_time(v: Any) -> np.ndarray:
    """The encoder of §3.1.1: ``v_k -> u_k = (1, v_k)``.

    ``v``: ``(L,)`` or ``(L, M)``; returns ``(L, 1 + M)``.
    """
    v = _array("v", v)
    if v.ndim == 1:
        v = v[:, None]
    if v.ndim != 2:
        raise ValueError(f"v must have shape (L,) or (L, M), got {v.shape}")
    return np.concatenate([np.ones((v.shape[0], 1), v.dtype), v], axis=1)


def block_system(lams: Sequence[Any], *, time_counter: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """``Lambda = diag(Lambda_1, ..., Lambda_M)`` and the block ``B`` of App. C (``N = M N'``).

    ``lams[j]`` holds the ``N'`` eigenvalues of channel ``j``; ``B`` (``N x M``) has ones on the rows of
    block ``j`` in column ``j`` and zeros elsewhere, so the state of block ``j`` is
    ``V_{k,j} v_{j,1:k}``. With ``time_counter=True`` (§3.1.1) a first state with ``lambda_0 = 1`` is
    fed by an extra first input channel, which :func:`with_time` holds at 1: then ``x_{k,0} = k``.
    For ``M = 1`` this is exactly the ``B = ((1, 0, ..., 0), (0, 1, ..., 1))^T`` of §3.1.1.
    Returns ``(lam, B)`` for :func:`rnn_states`.
    """
    if isinstance(lams, (str, bytes)) or len(lams) == 0:
        raise ValueError("lams must be a non-empty sequence of 1-D eigenvalue arrays, one per channel")
    blocks = [_vector(f"lams[{j}]", lam) for j, lam in enumerate(lams)]
    lam = np.concatenate(blocks)
    B = scipy.linalg.block_diag(*[np.ones((b.size, 1)) for b in blocks])
    if time_counter:
        lam = np.concatenate([np.ones(1, lam.dtype), lam])
        B = scipy.linalg.block_diag(np.ones((1, 1)), B)
    return lam, B


def reconstruct_blocks(
    lams: Sequence[Any], x_k: Any, k: int, *, time_counter: bool = False
) -> np.ndarray:
    """Invert :func:`block_system` at step ``k``: ``v_{j,1:k} = V_{k,j}^+ x_{k,j}`` per block (App. C).

    Returns the real part, shape ``(M, k)``; with ``time_counter=True`` the first state (the counter)
    is skipped. Each block needs ``N' >= k`` distinct eigenvalues for exact recovery.
    """
    x_k = _vector("x_k", x_k)
    sizes = [len(lam) for lam in lams]
    offset = 1 if time_counter else 0
    if x_k.size != offset + sum(sizes):
        raise ValueError(f"x_k has {x_k.size} entries, the blocks need {offset + sum(sizes)}")
    ends = np.cumsum([offset, *sizes])
    with jax.enable_x64(True):
        parts = [
            np.asarray(reconstruct(jnp.asarray(lam), jnp.asarray(x_k[a:b]), k)).real
            for lam, a, b in zip(lams, ends[:-1], ends[1:])
        ]
    return np.stack(parts)


def reconstruct_from_last_state(lam: Any, u: Any) -> np.ndarray:
    """``Re(V_L^+ x_L)``: sequences ``u`` (``(L,)`` or ``(batch, L)``) read by
    ``x_k = Lambda x_{k-1} + u_k`` (``B = 1``) and recovered from their last state by the fixed map
    of eq. (5) (Fig. 1, Fig. 3).

    The states come from :func:`rnn_states` in float64 / complex128 whatever the global JAX setting;
    ``V_L^+ x_L`` is :func:`lrnn_core.vandermonde.reconstruct` (truncated SVD, one for all sequences).
    """
    lam = _vector("lam", lam)
    u = _array("u", u)
    if np.iscomplexobj(u):
        raise TypeError(f"u must be real, got dtype {u.dtype}")
    if u.ndim not in (1, 2):
        raise ValueError(f"u must have shape (L,) or (batch, L), got {u.shape}")
    L = u.shape[-1]
    with jax.enable_x64(True):
        states = rnn_states(jnp.asarray(lam), jnp.ones((lam.size, 1)), jnp.asarray(u)[..., None])
        return np.asarray(reconstruct(jnp.asarray(lam), states[..., -1, :], L)).real
