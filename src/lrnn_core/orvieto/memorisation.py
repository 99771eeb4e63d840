"""Memorising an input sequence in a linear RNN's state (Orvieto et al., ICML 2024, §3.1, App. C).

* :func:`rnn_states` runs eq. (2), ``x_k = Lambda x_{k-1} + B u_k``, whose unrolled form is eq. (3);
  :func:`float64_states` runs it in float64 and :func:`unrolled_gaps` compares every state with
  ``V_k u_{1:k}`` (eq. 3-4).
* :class:`PrefixInverse` applies the pseudo-inverse of eq. (5), ``u_{1:k} = V_k^+ x_k``, for *every*
  ``k <= L`` from one QR factorisation (Prop. 1, checked at every step by :func:`prefix_check`).
* :func:`with_time` and :func:`block_system` build the time counter of §3.1.1 and the block-diagonal
  ``Lambda`` / block ``B`` of App. C that store ``M`` input channels side by side;
  :func:`reconstruct_blocks` inverts them channel by channel. :func:`counter_states` runs the
  counter beside the plain recurrence on ``(v_1..v_k)`` and on ``(0, 0, v_1..v_k)``,
  :func:`counts_steps` checks ``x_{k,0} = k``, :func:`float32_counter` runs the counter channel
  alone in float32; :func:`three_channels` builds the App. C inputs.
* :func:`reconstruct_from_last_state` is the fixed linear decoder ``Re(V_L^+ x_L)`` of Figs. 1, 3;
  :func:`draw_mse` scores it per eigenvalue draw and sequence (Fig. 1), and :func:`dealt` deals
  the draws of a curve back at random (its control); :class:`DigitReader` caches the
  explorer's reconstructions with their number of distinct nodes.

Everything that inverts a Vandermonde matrix works in float64 / complex128 (NumPy, SciPy, or JAX
inside ``jax.enable_x64``): its rounding errors are amplified by ``cond(V_k)``.

The eigenvalue laws come from :mod:`lrnn_core.orvieto.conditioning`, which imports this module's
decoder: :class:`DigitReader` imports it when it runs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

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


def check_step(k: int | None, L: int) -> int:
    """``k`` as a step in ``1..L`` (``None``: ``L``)."""
    if k is None:
        return L
    k = positive_int("k", k)
    if k > L:
        raise ValueError(f"k must be <= L = {L}, got {k}")
    return k


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

    def apply(self, k: int, x_k: Num[ArrayLike, " N"]) -> Complex[np.ndarray, " k"]:
        """``V_k^+ x_k``: the input ``u_{1:k}`` recovered from the state ``x_k`` (``(N,)``)."""
        k = check_step(k, self.L)
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
        k = check_step(k, self.L)
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


def _blocks(lams: Sequence[Num[ArrayLike, " N_j"]]) -> list[np.ndarray]:
    """The eigenvalues of each block (``lams[j]``) as complex128; at least one block."""
    blocks = [eigenvalue_vector(f"lams[{j}]", lam) for j, lam in enumerate(lams)]
    if not blocks:
        raise ValueError("lams must be a non-empty sequence of 1-D eigenvalue arrays")
    return blocks


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
    blocks = _blocks(lams)
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
    blocks = _blocks(lams)
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
    """Prop. 1 of Orvieto et al. (ICML 2024) checked at every step: the relative error
    ``||V_k^+ x_k - u_{1:k}|| / ||u_{1:k}||`` for ``k = 1..L`` (NaN where ``u_{1:k} = 0``), with
    ``x_k`` from the float64 recurrence (:func:`float64_states`, ``B = 1``) and ``V_k^+`` from one
    :class:`PrefixInverse`; the identity residual ``V_k^+ V_k - I_k`` at ``ks``; and
    ``cond(V_L)``, which bounds every ``cond(V_k)`` by interlacing."""
    lam = eigenvalue_vector("lam", lam)
    u = real_sequences("u", u)
    check_shape("u", u, (None,))
    L = u.size
    states = float64_states(lam, np.ones((lam.size, 1)), u[:, None])
    inverse = PrefixInverse(lam, L)
    recovered = inverse.all_prefixes(states)
    inside = np.tril(np.ones((L, L), dtype=bool))  # row k-1: the first k entries
    residual = np.linalg.norm(np.where(inside, recovered - u, 0.0), axis=1)
    size = np.linalg.norm(np.where(inside, u, 0.0), axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        err = np.where(size > 0, residual / size, np.nan)
    s = inverse.singular_values()
    identity = np.array([inverse.identity_residual(k) for k in ks])
    return PrefixCheck(err=err, residual=identity, cond=s[0] / s[-1])


def prefix_rank_errors(
    lam: Num[ArrayLike, " N"], u: Float[ArrayLike, " L"], ks: Sequence[int]
) -> tuple[Float[np.ndarray, " K"], Num[np.ndarray, " K"]]:
    """For each ``k`` of ``ks``: the relative error of ``Re(V_k^+ x_k)`` against ``u_{1:k}``
    (``x_k`` from the float64 recurrence, ``B = 1``) and ``rank(V_k)`` with the library's cut-off;
    with ``N`` nodes, ``rank(V_k) = min(N, k)`` and ``u_{1:k}`` is lost once ``k > N`` (Prop. 1)."""
    lam, u = np.asarray(lam), np.asarray(u)
    states = float64_states(lam, np.ones((lam.size, 1)), u[:, None])
    err, rank = [], []
    for k in ks:
        u_hat = reconstruct(lam, states[k - 1], k).real
        err.append(np.linalg.norm(u_hat - u[:k]) / np.linalg.norm(u[:k]))
        rank.append(numerical_rank(singular_values(lam, k), (lam.size, k)))
    return np.array(err), np.array(rank)


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


class Sizes(NamedTuple):
    """The sizes of the memorisation chapter's checks at one scale (Prop. 1, Fig. 1, App. C)."""

    prop_L: int  # Prop. 1 check: sequence length L (paper: MNIST, 784)
    identity_stride: int  # Prop. 1: V_k^+ V_k = I_k checked at every identity_stride-th k
    fig1_digits: int  # Fig. 1 statistics: MNIST test digits
    fig1_seeds: int  # Fig. 1 statistics: eigenvalue draws
    channels_L: int  # App. C: length L of the three channels
    widget_Ns: tuple[int, ...]  # the explorer's state sizes N
    widget_r_mins: tuple[float, ...]  # the explorer's inner ring radii r_min
    widget_r_maxs: tuple[float, ...]  # the explorer's outer ring radii r_max


def float64_states(
    lam: Num[ArrayLike, " N"], B: Num[ArrayLike, "N M"], u: Num[ArrayLike, "L M"]
) -> Num[np.ndarray, "L N"]:
    """:func:`rnn_states` (eq. 2) inside
    ``jax.enable_x64(True)``: every state ``x_1..x_L`` in float64 / complex128."""
    with jax.enable_x64(True):
        return np.asarray(rnn_states(lam, jnp.asarray(B), u))


def unrolled_gaps(lam: Num[ArrayLike, " N"], u: Float[ArrayLike, " L"]) -> Float[np.ndarray, " L"]:
    """``max_i |x_k - V_k u_{1:k}|`` for ``k = 1..L`` (eq. 3-4, ``B = 1``): the float64
    recurrence against the last ``k`` columns of ``V_L`` times ``u_{1:k}``."""
    lam, u = np.asarray(lam), np.asarray(u, np.float64)
    L = u.size
    states = float64_states(lam, np.ones((lam.size, 1)), u[:, None])  # row k-1: x_k
    V_L = vandermonde64(lam, L)
    return np.array(
        [np.abs(states[k - 1] - V_L[:, L - k :] @ u[:k]).max() for k in range(1, L + 1)]
    )


def counter_states(
    lam: Num[ArrayLike, " N"], v: Float[ArrayLike, " L"], k: int
) -> dict[str, np.ndarray]:
    """Run §3.1.1 in float64: ``u_k = (1, v_k)`` with ``lambda_0 = 1`` and
    ``B = ((1, 0, ..., 0), (0, 1, ..., 1))^T`` (:func:`with_time`, :func:`block_system`), and
    the two inputs ``v_{1:k}`` and ``(0, 0, v_{1:k})`` with and without the counter. Returns
    ``lam``, ``B`` (with the counter), ``x`` (every state of ``(1, v)``) and the last states of
    ``v_{1:k}`` and of ``(0, 0, v_{1:k})`` without the counter (``plain``, ``shifted``) and with
    it (``plain_t``, ``shifted_t``)."""
    lam, v = np.asarray(lam), np.asarray(v, np.float64)
    lam_t, B_t = block_system([lam], time_counter=True)
    ones = np.ones((lam.size, 1))
    padded = np.r_[0.0, 0.0, v[:k]]
    leading_zeros = np.c_[np.r_[1.0, 1.0, np.ones(k)], padded]
    return {
        "lam": lam_t,
        "B": B_t,
        "x": float64_states(lam_t, B_t, with_time(v)),
        "plain": float64_states(lam, ones, v[:k, None])[-1],
        "shifted": float64_states(lam, ones, padded[:, None])[-1],
        "plain_t": float64_states(lam_t, B_t, with_time(v[:k]))[-1],
        "shifted_t": float64_states(lam_t, B_t, leading_zeros)[-1],
    }


def counts_steps(x: Num[ArrayLike, "L N"]) -> bool:
    """The first state counts the steps exactly: ``x_{k,0} = k`` (real) for ``k = 1..L``."""
    first = np.asarray(x)[:, 0]
    return bool(
        np.array_equal(first.real, np.arange(1, first.size + 1)) and not np.imag(first).any()
    )


def float32_counter(steps: int) -> Float[np.ndarray, " steps"]:
    """The counter channel alone in float32: ``x_k = x_{k-1} + 1`` (``lambda_0 = 1``) for
    ``steps`` steps by :func:`~lrnn_core.core.scan.linear_scan`; exact up to ``2^24``."""
    ones = jnp.ones((steps, 1), jnp.float32)
    return np.asarray(linear_scan(jnp.ones(1, jnp.float32), ones))[:, 0]


def three_channels(L: int, rng: np.random.Generator) -> Float[np.ndarray, "L 3"]:
    """The App. C inputs: a sine of period 50, a random walk (steps ``N(0, 1) / 5``) and white
    noise, drawn in that order from ``rng``."""
    t = np.arange(L)
    return np.c_[
        np.sin(2 * np.pi * t / 50),
        np.cumsum(rng.normal(size=L)) / 5,
        rng.normal(size=L),
    ]


def relative_errors(
    estimate: Float[ArrayLike, "M L"], target: Float[ArrayLike, "M L"], axis: int = -1
) -> Float[np.ndarray, " M"]:
    """``||estimate - target|| / ||target||`` of each sequence, the sequences running along
    ``axis`` (rows by default; ``axis=0``: columns)."""
    estimate, target = np.asarray(estimate), np.asarray(target)
    return np.linalg.norm(estimate - target, axis=axis) / np.linalg.norm(target, axis=axis)


class DigitReader:
    """``Re(V_L^+ x_L)`` of one sequence (eq. 5 at ``k = L``,
    :func:`reconstruct_from_last_state`) for eigenvalues of a law
    (:func:`law_eigenvalues`, ``seed``), cached; the roots of unity ignore the radii."""

    def __init__(self, digit: Float[ArrayLike, " L"], *, seed: int) -> None:
        self.digit, self.seed = np.asarray(digit), seed
        self._cache: dict[tuple, tuple[np.ndarray, int]] = {}

    def __call__(
        self, law: str, N: int, r_min: float, r_max: float
    ) -> tuple[Float[np.ndarray, " L"], int]:
        """``(Re(V_L^+ x_L), number of distinct eigenvalues)``."""
        key = (law, N) if law == "roots of unity" else (law, N, r_min, r_max)
        if key not in self._cache:
            from lrnn_core.orvieto.conditioning import law_eigenvalues  # imports this module

            lam = law_eigenvalues(law, N, r_min=r_min, r_max=r_max, seed=self.seed)
            self._cache[key] = reconstruct_from_last_state(lam, self.digit), np.unique(lam).size
        return self._cache[key]


def repeated_frames(reader: DigitReader, grid: Mapping[str, Sequence]) -> str:
    """The explorer's frames outside Prop. 1 (real law, fewer than ``N`` distinct eigenvalues),
    as the sentence its description ends with (empty if there are none)."""
    repeated = [
        f"real, N={N}, [{r_min}, {r_max}]: {distinct} distinct λ"
        for N in grid["N"]
        for r_min in grid["r_min"]
        for r_max in grid["r_max"]
        if (distinct := reader("real", N, r_min, r_max)[1]) < N
    ]
    return ". Outside Prop. 1 (distinct λ_i): " + "; ".join(repeated) if repeated else ""
