"""The memorisation chapter's experiments (Orvieto et al., ICML 2024, §3.1, §3.1.1, App. C, Fig. 1).

* :func:`float64_states` runs eq. (2) in float64 and :func:`unrolled_gaps` compares every state
  with ``V_k u_{1:k}`` (eq. 3-4).
* :func:`counter_states` runs the time counter of §3.1.1 beside the plain recurrence on
  ``(v_1..v_k)`` and on ``(0, 0, v_1..v_k)``; :func:`counts_steps` checks ``x_{k,0} = k``;
  :func:`float32_counter` runs the counter channel alone in float32.
* :func:`three_channels` builds the App. C inputs; :func:`relative_errors` scores their recovery.
* :func:`fig1_draws` and :func:`one_node_draws` draw the eigenvalues of Fig. 1 and of its control;
  :func:`pooled_median` summarises the per-digit MSE; :class:`DigitReader` caches the explorer's
  reconstructions ``Re(V_L^+ x_L)`` (eq. 5 at ``k = L``) with their number of distinct nodes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import ArrayLike, Complex, Float, Num

from lrnn_core.core.scan import linear_scan
from lrnn_core.core.vandermonde import vandermonde64
from lrnn_core.orvieto.conditioning import law_eigenvalues, ring_eigenvalues
from lrnn_core.orvieto.memorisation import (
    block_system,
    reconstruct_from_last_state,
    rnn_states,
    with_time,
)

__all__ = [
    "CounterStates",
    "DigitReader",
    "Sizes",
    "counts_steps",
    "counter_states",
    "fig1_draws",
    "float32_counter",
    "float64_states",
    "one_node_draws",
    "pooled_median",
    "relative_errors",
    "repeated_frames",
    "three_channels",
    "unrolled_gaps",
]


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
    """:func:`~lrnn_core.orvieto.memorisation.rnn_states` (eq. 2) inside
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


class CounterStates(NamedTuple):
    """The time counter of §3.1.1: ``lam``, ``B`` with the counter (:func:`block_system`),
    ``x`` (every state of ``(1, v)``), the last states of ``v_{1:k}`` and of ``(0, 0, v_{1:k})``
    without the counter (``plain``, ``shifted``) and with it (``plain_t``, ``shifted_t``)."""

    lam: np.ndarray
    B: np.ndarray
    x: np.ndarray
    plain: np.ndarray
    shifted: np.ndarray
    plain_t: np.ndarray
    shifted_t: np.ndarray


def counter_states(lam: Num[ArrayLike, " N"], v: Float[ArrayLike, " L"], k: int) -> CounterStates:
    """Run §3.1.1 in float64: ``u_k = (1, v_k)`` with ``lambda_0 = 1`` and
    ``B = ((1, 0, ..., 0), (0, 1, ..., 1))^T`` (:func:`with_time`, :func:`block_system`), and
    the two inputs ``v_{1:k}`` and ``(0, 0, v_{1:k})`` with and without the counter."""
    lam, v = np.asarray(lam), np.asarray(v, np.float64)
    lam_t, B_t = block_system([lam], time_counter=True)
    ones = np.ones((lam.size, 1))
    padded = np.r_[0.0, 0.0, v[:k]]
    leading_zeros = np.c_[np.r_[1.0, 1.0, np.ones(k)], padded]
    return CounterStates(
        lam=lam_t,
        B=B_t,
        x=float64_states(lam_t, B_t, with_time(v)),
        plain=float64_states(lam, ones, v[:k, None])[-1],
        shifted=float64_states(lam, ones, padded[:, None])[-1],
        plain_t=float64_states(lam_t, B_t, with_time(v[:k]))[-1],
        shifted_t=float64_states(lam_t, B_t, leading_zeros)[-1],
    )


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
    recovered: Float[ArrayLike, "M L"], target: Float[ArrayLike, "M L"]
) -> Float[np.ndarray, " M"]:
    """Per row, ``||recovered - target|| / ||target||``."""
    recovered, target = np.asarray(recovered), np.asarray(target)
    return np.linalg.norm(recovered - target, axis=1) / np.linalg.norm(target, axis=1)


def fig1_draws(
    Ns: Sequence[int], n_draws: int, *, seed: int, r_min: float, r_max: float
) -> list[list[Complex[np.ndarray, " N"]]]:
    """Fig. 1's eigenvalues: ``out[d][i]``, ``Ns[i]`` of them from the ring ``T[r_min, r_max]``
    (:func:`ring_eigenvalues`) with seed ``seed + 1000 d + Ns[i]``: an independent draw for every
    ``(d, N)`` (nested sets would make the error fall with ``N`` by construction)."""
    return [
        [ring_eigenvalues(seed + 1000 * d + N, N, r_min, r_max) for N in Ns] for d in range(n_draws)
    ]


def one_node_draws(n_draws: int, *, seed: int, r_min: float) -> list[Complex[np.ndarray, " 1"]]:
    """Fig. 1's control: one ring node ``T[r_min, 1]`` per draw, seed ``seed + d``."""
    return [ring_eigenvalues(seed + d, 1, r_min) for d in range(n_draws)]


def pooled_median(mse: Float[ArrayLike, "D K batch"]) -> Float[np.ndarray, " K"]:
    """Median over every (draw, sequence) pair of ``mse[d, i, j]``, per state size ``i``."""
    mse = np.asarray(mse)
    return np.median(mse.transpose(1, 0, 2).reshape(mse.shape[1], -1), axis=1)


class DigitReader:
    """``Re(V_L^+ x_L)`` of one sequence (eq. 5 at ``k = L``,
    :func:`~lrnn_core.orvieto.memorisation.reconstruct_from_last_state`) for eigenvalues of a law
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
