"""Memorising an input sequence in a linear RNN's state (Orvieto et al., ICML 2024, §3.1, App. C).

* :func:`rnn_states` runs eq. (2), ``x_k = Lambda x_{k-1} + B u_k``, whose unrolled form is eq. (3).
* :class:`PrefixInverse` applies the pseudo-inverse of eq. (5), ``u_{1:k} = V_k^+ x_k``, for *every*
  ``k <= L`` from a single QR factorisation (Prop. 1, checked at every step).
* :func:`with_time` and :func:`block_system` build the time counter of §3.1.1 and the block-diagonal
  ``Lambda`` / block ``B`` of App. C that store ``M`` input channels side by side;
  :func:`reconstruct_blocks` inverts them channel by channel.
* :func:`reconstruct_from_last_state` is the fixed linear decoder ``Re(V_L^+ x_L)`` of Figs. 1, 3;
  :func:`draw_mse` scores it per eigenvalue draw and sequence (Fig. 1).

Everything that inverts a Vandermonde matrix works in float64 / complex128 (NumPy, SciPy, or JAX
inside ``jax.enable_x64``): its rounding errors are amplified by ``cond(V_k)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import jax
import jax.numpy as jnp
import numpy as np
import scipy.linalg
from jaxtyping import Array, ArrayLike, Complex, Float, Inexact, Num

from lrnn_core.core.scan import linear_scan
from lrnn_core.core.validate import (
    as_float64,
    as_inexact,
    check_finite,
    check_flag,
    check_ndim,
    check_not_empty,
    check_shape,
    eigenvalue_vector,
    positive_int,
    real_sequences,
)
from lrnn_core.core.vandermonde import (
    cutoff,
    numerical_rank,
    pseudo_inverse,
    reconstruct,
    singular_values,
    vandermonde64,
)

__all__ = [
    "PrefixCheck",
    "PrefixInverse",
    "block_system",
    "draw_mse",
    "monotone_share",
    "prefix_check",
    "prefix_errors",
    "prefix_loss_holds",
    "prefix_rank_errors",
    "reconstruct_blocks",
    "reconstruct_from_last_state",
    "recovers_at_last_state",
    "repeated_node_mse",
    "rnn_states",
    "with_time",
]


def rnn_states(
    lam: Inexact[ArrayLike, " N"], B: Inexact[ArrayLike, "N M"], u: Inexact[ArrayLike, "*batch L M"]
) -> Inexact[Array, "*batch L N"]:
    """All states ``x_1, ..., x_L`` of ``x_k = diag(lam) x_{k-1} + B u_k``, ``x_0 = 0`` (eq. 2-3).

    Orvieto et al. (ICML 2024). ``lam``: ``(N,)``; ``B``: ``(N, M)``; ``u``: ``(..., L, M)``.
    Returns ``(..., L, N)`` in the result dtype of the three (pass float64 / complex128 arrays
    inside ``jax.enable_x64(True)`` for float64).
    """
    lam, B, u = as_inexact("lam", lam), as_inexact("B", B), as_inexact("u", u)
    check_ndim("u", u, 2)
    check_shape("lam", lam, (None,))
    check_shape("B", B, (lam.shape[0], u.shape[-1]))
    check_finite("lam", lam)
    check_finite("B", B)
    return linear_scan(lam, u @ B.T.astype(jnp.result_type(B, u)))


class PrefixInverse:
    """``V_k^+`` for every ``k = 1, ..., L`` from one QR factorisation (eq. 5, Prop. 1).

    Orvieto et al. (ICML 2024). ``V_k`` (eq. 4, rows ``(lam_i^(k-1), ..., lam_i, 1)``) is the
    matrix of the *first* ``k`` columns of the ascending Vandermonde ``W = [1, ..., lam^(L-1)]``
    (``N x L``), in reversed order. With the QR factorisation ``W = Q R`` (``R`` upper triangular)
    the first ``k`` columns are ``W_k = Q_k R_k``, so ``V_k^+ x = flip(R_k^{-1} Q_k^H x)`` costs one
    triangular solve of size ``k``: all ``L`` prefixes cost ``O(N L^2 + L^3)`` instead of
    ``O(N L^4)`` for one SVD per ``k``. This is ``V_k^+`` only when ``V_k`` has full column rank, so
    it needs ``N >= L`` and distinct eigenvalues (Prop. 1): both are checked, the rank with the
    library's one cut-off (:func:`lrnn_core.core.vandermonde.cutoff`) on the diagonal of ``R``.
    Computed in complex128 with SciPy (Householder QR, backward stable).
    """

    def __init__(self, lam: Num[ArrayLike, " N"], L: int) -> None:
        lam = eigenvalue_vector("lam", lam)
        L = positive_int("L", L)
        if lam.size < L:
            raise ValueError(
                f"lam has N = {lam.size} eigenvalues, fewer than L = {L}: V_k is not injective for "
                "k > N (Prop. 1 needs N >= L); use lrnn_core.core.vandermonde.reconstruct for N < k"
            )
        self.lam, self.L = lam, L
        self.ascending = vandermonde64(lam, self.L)[:, ::-1]  # W, N x L
        self.q, self.r = scipy.linalg.qr(self.ascending, mode="economic")
        diag = np.abs(np.diag(self.r))
        if not diag.min() > cutoff((lam.size, self.L)) * diag.max():
            raise ValueError(
                "lam gives a numerically rank-deficient V_L (repeated or nearly equal eigenvalues?)"
            )
        self._projected: np.ndarray | None = None  # Q^H W, computed on first use

    def _step(self, k: int) -> int:
        """``k`` as a step in ``1..L`` (checked by ``positive_int``)."""
        k = positive_int("k", k)
        if k > self.L:
            raise ValueError(f"k must be <= L = {self.L}, got {k}")
        return k

    def apply(self, k: int, x_k: Num[ArrayLike, " N"]) -> Complex[np.ndarray, " k"]:
        """``V_k^+ x_k``: the input ``u_{1:k}`` recovered from the state ``x_k`` (``(N,)``)."""
        k = self._step(k)
        x_k = as_float64("x_k", x_k)
        check_shape("x_k", x_k, self.lam.shape)
        check_finite("x_k", x_k)
        coeffs = self.q[:, :k].conj().T @ x_k
        return scipy.linalg.solve_triangular(self.r[:k, :k], coeffs)[::-1]

    def all_prefixes(self, states: Num[ArrayLike, "L N"]) -> Complex[np.ndarray, "L L"]:
        """``V_k^+ x_k`` for every ``k``: ``states`` is ``(L, N)`` (row ``k-1`` = ``x_k``).

        Returns an ``(L, L)`` complex array whose row ``k-1`` holds ``u_{1:k}`` in its first ``k``
        entries and zeros after them.
        """
        states = as_float64("states", states)
        check_shape("states", states, (self.L, self.lam.size))
        check_finite("states", states)
        coeffs = self.q.conj().T @ states.T  # column k-1 is Q^H x_k
        out = np.zeros((self.L, self.L), np.complex128)
        for k in range(1, self.L + 1):
            out[k - 1, :k] = scipy.linalg.solve_triangular(self.r[:k, :k], coeffs[:k, k - 1])[::-1]
        return out

    def identity_residual(self, k: int) -> float:
        """``max |V_k^+ V_k - I_k|``: rounding-sized (about ``eps * cond(V_k)``) iff ``V_k`` is
        injective (Prop. 1)."""
        k = self._step(k)
        if self._projected is None:
            self._projected = self.q.conj().T @ self.ascending
        # R_k^{-1} Q_k^H W_k = P V_k^+ V_k P, with P the reversal (same entries, permuted)
        product = scipy.linalg.solve_triangular(self.r[:k, :k], self._projected[:k, :k])
        return float(np.abs(product - np.eye(k)).max())

    def singular_values(self) -> Float[np.ndarray, " L"]:
        """Singular values of ``V_L`` (those of ``R``: ``Q`` has orthonormal columns, reversing
        columns changes none). Every ``V_k`` is ``V_L`` with columns deleted, so by interlacing
        ``sigma_min(V_k) >= sigma_min(V_L)`` and ``sigma_max(V_k) <= sigma_max(V_L)``."""
        return scipy.linalg.svdvals(self.r)


def with_time(v: Num[ArrayLike, "L ..."]) -> Inexact[np.ndarray, "L M_plus_1"]:
    """The encoder of §3.1.1 of Orvieto et al. (ICML 2024): ``v_k -> u_k = (1, v_k)``.

    ``v``: ``(L,)`` or ``(L, M)``; returns ``(L, 1 + M)``.
    """
    v = as_float64("v", v)
    if v.ndim == 1:
        v = v[:, None]
    check_shape("v", v, (None, None))
    check_not_empty("v", v)
    check_finite("v", v)
    return np.concatenate([np.ones((v.shape[0], 1), v.dtype), v], axis=1)


def block_system(
    lams: Sequence[Num[ArrayLike, " N_j"]], *, time_counter: bool = False
) -> tuple[Complex[np.ndarray, " N"], Float[np.ndarray, "N M"]]:
    """``Lambda = diag(Lambda_1, ..., Lambda_M)`` and the block ``B`` of App. C (``N = M N'``).

    Orvieto et al. (ICML 2024), App. C and §3.1.1. ``lams[j]`` holds the ``N'`` eigenvalues of
    channel ``j``; ``B`` (``N x M``) has ones on the rows of block ``j`` in column ``j`` and zeros
    elsewhere, so the state of block ``j`` is ``V_{k,j} v_{j,1:k}``. With ``time_counter=True`` a
    first state with ``lambda_0 = 1`` is fed by an extra first input channel, which
    :func:`with_time` holds at 1: then ``x_{k,0} = k``. For ``M = 1`` this is exactly the
    ``B = ((1, 0, ..., 0), (0, 1, ..., 1))^T`` of §3.1.1. Returns ``(lam, B)`` for
    :func:`rnn_states`.
    """
    time_counter = check_flag("time_counter", time_counter)
    blocks = [eigenvalue_vector(f"lams[{j}]", lam) for j, lam in enumerate(lams)]
    if not blocks:
        raise ValueError("lams must be a non-empty sequence of 1-D eigenvalue arrays")
    lam = np.concatenate(blocks)
    B = scipy.linalg.block_diag(*[np.ones((b.size, 1)) for b in blocks])
    if time_counter:
        lam = np.concatenate([np.ones(1, lam.dtype), lam])
        B = scipy.linalg.block_diag(np.ones((1, 1)), B)
    return lam, B


def reconstruct_blocks(
    lams: Sequence[Num[ArrayLike, " N_j"]],
    x_k: Num[ArrayLike, " N"],
    k: int,
    *,
    time_counter: bool = False,
) -> Float[np.ndarray, "M k"]:
    """Invert :func:`block_system` at step ``k``: ``v_{j,1:k} = V_{k,j}^+ x_{k,j}`` per block.

    Orvieto et al. (ICML 2024), App. C with eq. (5) per block. Returns the real part, shape
    ``(M, k)``; with ``time_counter=True`` the first state (the counter) is skipped. Each block
    needs ``N' >= k`` distinct eigenvalues for exact recovery.
    """
    blocks = [eigenvalue_vector(f"lams[{j}]", lam) for j, lam in enumerate(lams)]
    time_counter = check_flag("time_counter", time_counter)
    x_k = as_float64("x_k", x_k)
    offset = 1 if time_counter else 0
    check_shape("x_k", x_k, (offset + sum(b.size for b in blocks),))
    ends = np.cumsum([offset, *(b.size for b in blocks)])
    parts = [
        reconstruct(lam, x_k[a:b], k).real
        for lam, a, b in zip(blocks, ends[:-1], ends[1:], strict=True)
    ]
    return np.stack(parts)


def reconstruct_from_last_state(
    lam: Num[ArrayLike, " N"], u: Float[ArrayLike, "*batch L"], *, real_input: bool = False
) -> Float[np.ndarray, "*batch L"]:
    """``Re(V_L^+ x_L)`` (eq. 5 at ``k = L``, Orvieto et al., Figs. 1, 3, 6-8): sequences ``u``
    (``(L,)`` or ``(batch, L)``) read by ``x_k = Lambda x_{k-1} + u_k`` (``B = 1``), recovered from
    their last state by one fixed linear map.

    ``x_L = V_L u`` (eq. 4, the recurrence unrolled; complex128) for the whole batch, then one
    truncated SVD of ``V_L`` (:func:`lrnn_core.core.vandermonde.pseudo_inverse`) serves every
    sequence. ``real_input=True`` solves the real system ``[Re V_L; Im V_L] u = [Re x_L; Im x_L]``
    (``2N`` equations: the minimum-norm *real* input consistent with the state, §3.1.2).

    Repeated eigenvalues (outside Prop. 1, which asks for distinct ones) give identical rows of
    ``V_L`` and identical states; only the first copy of each is kept. The system is consistent
    (``x_L = V_L u``), so its minimum-norm solution is unchanged, and LAPACK's divide-and-conquer
    SVD is not handed a matrix with exactly repeated rows (an exactly rank-deficient input on which
    it can fail with "DLASCL parameter number 4").
    """
    lam = eigenvalue_vector("lam", lam)
    u = real_sequences("u", u)
    real_input = check_flag("real_input", real_input)
    _, first = np.unique(lam, return_index=True)
    if first.size < lam.size:
        lam = lam[np.sort(first)]
    V = vandermonde64(lam, u.shape[-1])
    states = V @ u.T  # (N,) or (N, batch): the last states x_L
    if real_input:
        V = np.concatenate([V.real, V.imag])
        states = np.concatenate([states.real, states.imag])
    return (pseudo_inverse(V) @ states).real.T


def prefix_errors(
    lam: Num[ArrayLike, " N"], u: Float[ArrayLike, " L"]
) -> tuple[Float[np.ndarray, " L"], PrefixInverse]:
    """Prop. 1 of Orvieto et al. (ICML 2024) checked at every step: the relative error
    ``||V_k^+ x_k - u_{1:k}|| / ||u_{1:k}||`` for ``k = 1..L``, with ``x_k`` from the recurrence
    (:func:`rnn_states`, ``B = 1``, run in float64 inside ``jax.enable_x64(True)``) and ``V_k^+``
    from one :class:`PrefixInverse` (returned too). NaN where ``u_{1:k} = 0``.
    """
    lam = eigenvalue_vector("lam", lam)
    u = real_sequences("u", u)
    check_shape("u", u, (None,))
    L = u.size
    with jax.enable_x64(True):
        states = np.asarray(rnn_states(lam, np.ones((lam.size, 1)), u[:, None]))
    inverse = PrefixInverse(lam, L)
    recovered = inverse.all_prefixes(states)
    inside = np.tril(np.ones((L, L), dtype=bool))  # row k-1: the first k entries
    residual = np.linalg.norm(np.where(inside, recovered - u, 0.0), axis=1)
    size = np.linalg.norm(np.where(inside, u, 0.0), axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(size > 0, residual / size, np.nan), inverse


@dataclass(frozen=True)
class PrefixCheck:
    """Prop. 1 checked at every step: ``err[k-1] = ||V_k^+ x_k - u_{1:k}|| / ||u_{1:k}||``,
    ``residual`` = ``max |V_k^+ V_k - I_k|`` at the chosen ``k``, ``cond = cond(V_L)``."""

    err: np.ndarray
    residual: np.ndarray
    cond: float


def prefix_check(
    lam: Num[ArrayLike, " N"], u: Float[ArrayLike, " L"], ks: Sequence[int]
) -> PrefixCheck:
    """:func:`prefix_errors` at every ``k``, the identity residual ``V_k^+ V_k - I_k`` at ``ks``
    and ``cond(V_L)``, which bounds every ``cond(V_k)`` by interlacing (Prop. 1)."""
    err, inverse = prefix_errors(lam, u)
    s = inverse.singular_values()
    residual = np.array([inverse.identity_residual(k) for k in ks])
    return PrefixCheck(err=err, residual=residual, cond=s[0] / s[-1])


def recovers_at_last_state(
    lam: Num[ArrayLike, " N"], u: Float[ArrayLike, " L"], rtol: float = 1e-8
) -> bool:
    """Prop. 1 at ``k = L``: ``||Re(V_L^+ x_L) - u|| <= rtol ||u||`` (eq. 5)."""
    u = np.asarray(u)
    u_hat = reconstruct_from_last_state(lam, u)
    return bool(np.linalg.norm(u_hat - u) <= rtol * np.linalg.norm(u))


def prefix_rank_errors(
    lam: Num[ArrayLike, " N"], u: Float[ArrayLike, " L"], ks: Sequence[int]
) -> tuple[Float[np.ndarray, " K"], Num[np.ndarray, " K"]]:
    """For each ``k`` of ``ks``: the relative error of ``Re(V_k^+ x_k)`` against ``u_{1:k}``
    (``x_k`` from the float64 recurrence, ``B = 1``) and ``rank(V_k)`` with the library's cut-off;
    with ``N`` nodes, ``rank(V_k) = min(N, k)`` and ``u_{1:k}`` is lost once ``k > N`` (Prop. 1)."""
    lam, u = np.asarray(lam), np.asarray(u)
    with jax.enable_x64(True):  # float64 recurrence
        states = np.asarray(rnn_states(lam, jnp.ones((lam.size, 1)), u[:, None]))
    err, rank = [], []
    for k in ks:
        u_hat = reconstruct(lam, states[k - 1], k).real
        err.append(np.linalg.norm(u_hat - u[:k]) / np.linalg.norm(u[:k]))
        rank.append(numerical_rank(singular_values(lam, k), (lam.size, k)))
    return np.array(err), np.array(rank)


def repeated_node_mse(
    nodes: Sequence[Num[ArrayLike, " 1"]], Ns: Sequence[int], u: Float[ArrayLike, "batch L"]
) -> Float[np.ndarray, "n_Ns D"]:
    """Per-pixel MSE of ``Re(V_L^+ x_L)`` when one node is repeated ``N`` times (the control of
    Figs. 1 and 7a: a wider state with no new node), one row per ``N``, one column per node."""
    u = np.asarray(u)
    return np.array(
        [
            [np.mean((reconstruct_from_last_state(np.repeat(lam, N), u) - u) ** 2) for lam in nodes]
            for N in Ns
        ]
    )


def draw_mse(
    draws: Sequence[Sequence[Num[ArrayLike, " N"]]], u: Float[ArrayLike, "batch L"]
) -> Float[np.ndarray, "D K batch"]:
    """Per-sequence MSE ``(1/L) sum_k (Re(V_L^+ x_L)_k - u_k)^2`` of the decoder
    :func:`reconstruct_from_last_state` (eq. 5 at ``k = L``, Fig. 1): ``out[d, i, j]`` for the
    eigenvalues ``draws[d][i]`` and the sequence ``u[j]``; one SVD per draw serves every
    sequence."""
    u = real_sequences("u", u)
    errors = [[reconstruct_from_last_state(lam, u) - u for lam in draw] for draw in draws]
    return np.array([[np.mean(e**2, axis=1) for e in draw] for draw in errors])


def monotone_share(mse: Float[ArrayLike, "D K batch"]) -> float:
    """Share of the (draw, sequence) pairs whose MSE falls at every step along axis 1 (the state
    sizes in increasing order)."""
    mse = np.asarray(mse)
    return float(np.mean(np.all(mse[:, 1:] < mse[:, :-1], axis=1)))


def prefix_loss_holds(ks: Sequence[int], rank: Sequence[int], err: Sequence[float], N: int) -> bool:
    """Prop. 1 with ``N < L`` nodes (from :func:`prefix_rank_errors`): ``rank(V_k) = min(N, k)``
    at every ``k``, ``u_{1:k}`` recovered (relative error ``< 1e-8``) while ``k <= N``, and lost
    (error ``> 0.1``) for every ``k > N``."""
    ks, err = np.asarray(ks), np.asarray(err)
    return bool(
        np.array_equal(rank, np.minimum(ks, N))
        and err[ks <= N].max() < 1e-8
        and err[ks > N].min() > 0.1
    )
