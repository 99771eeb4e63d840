"""Target sequence maps of Wang, Li & Li (ICLR 2024): linear functionals and random tanh RNNs.

Linear functional (WLL eq. 5; the formula is lost in the text version, the integral form is stated
in the authors' data generator): ``H_t(u) = int_0^t rho(t - s) u(s) ds``, discretised on the grid
``t_k = k dt`` by the causal sum ``y_k = dt sum_{j=0}^{k} rho(t_j) u_{k-j}`` (rectangle rule),
computed as a zero-padded FFT convolution. Its memory function (WLL Def. 3.1) is ``|rho|``.

The two memory kernels are the defaults of the authors' code (github radarFudan/Curse-of-memory,
``src/data/components/lf/datagen.py``): ``rho(t) = exp(-t)`` and ``rho(t) = (1 + 0.1 t)^(-1.1)``;
the paper's text only says the polynomial one has "an additional constant added to make it
integrable".

Random nonlinear RNN targets (WLL Figs 3, 11; the code uses ``torch.nn.RNN(1 -> 16)`` in float64
with a linear readout): ``x_k = tanh(W x_{k-1} + B u_k + b)``, ``x_{-1} = 0``,
``y_k = C . x_k + d``, all weights drawn ``U(-1/sqrt(N), 1/sqrt(N))`` as PyTorch does; ``scale``
multiplies ``W`` so that a sample can include recurrent weights of large spectral radius
(non-decaying memory, WLL Fig 11).
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike, Float

from lrnn_core.core.validate import (
    as_inexact,
    check_finite,
    check_ndim,
    check_shape,
    check_type,
    positive_int,
    positive_number,
)


def exp_memory(t: Float[ArrayLike, "*T"], rate: float = 1.0) -> Float[Array, "*T"]:
    """Exponentially decaying memory ``rho(t) = exp(-rate t)`` (WLL App. D; code default
    ``rate = 1``)."""
    t = as_inexact("t", t)
    return jnp.exp(-positive_number("rate", rate) * t)


def poly_memory(
    t: Float[ArrayLike, "*T"], power: float = 1.1, scale: float = 0.1
) -> Float[Array, "*T"]:
    """Polynomially decaying memory ``rho(t) = (1 + scale t)^(-power)`` (WLL App. D; code default
    ``(1 + 0.1 t)^-1.1``).

    ``rho(0) = 1``; it is integrable on ``[0, inf)`` for ``power > 1``.
    """
    t = as_inexact("t", t)
    return (1.0 + positive_number("scale", scale) * t) ** (-positive_number("power", power))


def linear_functional(
    rho: Float[ArrayLike, " L"], u: Float[ArrayLike, "*batch L"], dt: float
) -> Float[Array, "*batch L"]:
    """``y_k = dt sum_{j=0}^{k} rho[j] u[..., k-j]``: the rectangle-rule linear functional (WLL
    eq. 5), causal.

    ``rho``: the kernel sampled on the grid, ``rho[j] = rho(j dt)``, shape ``(L,)``; ``u``: inputs
    of shape ``(..., L)``. Computed by a zero-padded real FFT (no wrap-around), O(L log L).
    """
    dt = positive_number("dt", dt)
    rho = as_inexact("rho", rho)
    u = as_inexact("u", u)
    check_shape("rho", rho, (None,))
    check_ndim("u", u, 1)
    if u.shape[-1] != rho.shape[0]:
        raise ValueError(
            f"u must have last axis of length L = len(rho) = {rho.shape[0]}, got shape {u.shape}"
        )
    check_finite("rho", rho)
    check_finite("u", u)
    return _fft_convolve(rho, u, dt)


@jax.jit
def _fft_convolve(rho: Array, u: Array, dt: Array) -> Array:
    L = rho.shape[0]
    n = 1 << (2 * L - 1).bit_length()  # >= 2L - 1: linear, not circular, convolution
    spectrum = jnp.fft.rfft(rho, n=n) * jnp.fft.rfft(u, n=n, axis=-1)
    return dt * jnp.fft.irfft(spectrum, n=n, axis=-1)[..., :L]


def white_inputs(key: Array, n_seqs: int, L: int, dt: float) -> Float[Array, "n_seqs L"]:
    """``n_seqs`` input sequences of length ``L`` with i.i.d. entries ``dt * N(0, 1)``.

    This is the authors' generator (``inputs = dt * np.random.normal(...)``, WLL App. D), i.e. the
    increments of a Brownian motion scaled by ``sqrt(dt)`` rather than a white noise of unit
    variance per unit time; for the code's ``dt = 1`` both are standard normal.
    """
    n_seqs, L = positive_int("n_seqs", n_seqs), positive_int("L", L)
    return positive_number("dt", dt) * jax.random.normal(key, (n_seqs, L))


class TanhRNN(NamedTuple):
    """Weights of ``x_k = tanh(W x_{k-1} + B u_k + b)``, ``y_k = C . x_k + d`` (a pytree)."""

    W: Float[Array, "N N"]  # recurrent weight
    B: Float[Array, " N"]  # input weight (scalar input)
    b: Float[Array, " N"]  # bias
    C: Float[Array, " N"]  # readout
    d: Float[Array, ""]  # readout bias


def random_tanh_rnn(key: Array, N: int = 16, *, scale: float = 1.0) -> TanhRNN:
    """A random tanh RNN of width ``N`` with PyTorch's default law, ``W`` multiplied by ``scale``
    (WLL Figs 3, 11).

    Every weight and bias is ``U(-1/sqrt(N), 1/sqrt(N))`` (``torch.nn.RNN`` and
    ``torch.nn.Linear(N, 1)``; the input weight of ``nn.RNN`` uses the same bound ``1/sqrt(N)``).
    At ``scale = 1`` the spectral radius of ``W`` is about ``0.58`` for ``N = 16`` (decaying
    memory); larger ``scale`` gives radii above 1 and, often, memory that does not decay (WLL
    App. I.1, Fig 11).
    """
    N = positive_int("N", N)
    scale = positive_number("scale", scale)
    bound = 1.0 / np.sqrt(N)
    kw, ku, kb, kc, kd = jax.random.split(key, 5)

    def uniform(k: jax.Array, shape: tuple[int, ...]) -> jax.Array:
        return jax.random.uniform(k, shape, minval=-bound, maxval=bound)

    return TanhRNN(
        W=scale * uniform(kw, (N, N)),
        B=uniform(ku, (N,)),
        b=uniform(kb, (N,)),
        C=uniform(kc, (N,)),
        d=uniform(kd, ()),
    )


def tanh_rnn_outputs(params: TanhRNN, u: Float[ArrayLike, "*batch L"]) -> Float[Array, "*batch L"]:
    """Outputs ``y_k = C . x_k + d`` of :class:`TanhRNN` on scalar inputs ``u`` (..., L)."""
    u = as_inexact("u", u)
    check_ndim("u", u, 1)
    check_finite("u", u)
    check_type("params", params, TanhRNN)
    N = params.W.shape[0]
    if params.W.shape != (N, N) or any(v.shape != (N,) for v in params[1:4]):
        raise ValueError(
            "params must hold W (N, N) and B, b, C (N,), got shapes "
            f"{[tuple(v.shape) for v in params]}"
        )
    for name in TanhRNN._fields:
        check_finite(f"params.{name}", getattr(params, name))
    return _tanh_rnn(params, u)


@jax.jit
def _tanh_rnn(params: TanhRNN, u: Array) -> Array:
    W, B, b, C, d = params
    dtype = jnp.result_type(u, W)

    def step(x: Array, u_k: Array) -> tuple[Array, Array]:
        x = jnp.tanh(x @ W.T + u_k[..., None] * B + b)
        return x, x @ C + d

    x0 = jnp.zeros(u.shape[:-1] + (W.shape[0],), dtype)
    _, y = jax.lax.scan(step, x0, jnp.moveaxis(u.astype(dtype), -1, 0))
    return jnp.moveaxis(y, 0, -1)
