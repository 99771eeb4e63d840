"""Target sequence maps of Wang, Li & Li (ICLR 2024): linear functionals and random tanh RNNs.

Linear functional (WLL eq. 5; the formula is lost in the text version, the integral form is stated in
the authors' data generator): ``H_t(x) = int_0^t rho(t - s) x(s) ds``, discretised on the grid
``t_k = k dt`` by the causal sum ``y_k = dt sum_{j=0}^{k} rho(t_j) x_{k-j}`` (rectangle rule), computed
as a zero-padded FFT convolution. Its memory function (WLL Def. 3.1) is ``|rho|``.

The two memory kernels are the defaults of the authors' code (github radarFudan/Curse-of-memory,
``src/data/components/lf/datagen.py``): ``rho(t) = exp(-t)`` and ``rho(t) = (1 + 0.1 t)^(-1.1)``; the
paper's text only says the polynomial one has "an additional constant added to make it integrable".

Random nonlinear RNN targets (WLL Figs 3, 11; the code uses ``torch.nn.RNN(1 -> 16)`` in float64 with a
linear readout): ``h_k = tanh(W h_{k-1} + U x_k + b)``, ``h_{-1} = 0``, ``y_k = c . h_k + d``, all
weights drawn ``U(-1/sqrt(m), 1/sqrt(m))`` as PyTorch does; ``scale`` multiplies ``W`` so that a
sample can include recurrent weights of large spectral radius (non-decaying memory, WLL Fig 11).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from lrnn_core.validate import as_inexact, check_finite, check_ndim, positive_int

__all__ = [
    "TanhRNN",
    "exp_memory",
    "linear_functional",
    "poly_memory",
    "random_tanh_rnn",
    "tanh_rnn_outputs",
    "white_inputs",
]


def _positive(name: str, value: Any) -> float:
    if isinstance(value, bool) or not np.isscalar(value) or not np.isreal(value):
        raise TypeError(f"{name} must be a real number, got {value!r}")
    if not (np.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be a positive finite number, got {value!r}")
    return float(value)



def exp_memory(t: Any, rate: float = 1.0) -> jax.Array:
    """Exponentially decaying memory ``rho(t) = exp(-rate t)`` (WLL App. D; code default ``rate = 1``)."""
    t = as_inexact("t", t)
    return jnp.exp(-_positive("rate", rate) * t)


def poly_memory(t: Any, power: float = 1.1, scale: float = 0.1) -> jax.Array:
    """Polynomially decaying memory ``rho(t) = (1 + scale t)^(-power)`` (code default ``(1 + 0.1 t)^-1.1``).

    ``rho(0) = 1``; it is integrable on ``[0, inf)`` for ``power > 1``.
    """
    t = as_inexact("t", t)
    return (1.0 + _positive("scale", scale) * t) ** (-_positive("power", power))


def linear_functional(rho: Any, x: Any, dt: float) -> jax.Array:
    """``y_k = dt sum_{j=0}^{k} rho[j] x[..., k-j]``: the rectangle-rule linear functional, causal.

    ``rho``: the kernel sampled on the grid, ``rho[j] = rho(j dt)``, shape ``(T,)``; ``x``: inputs of
    shape ``(..., T)``. Computed by a zero-padded real FFT (no wrap-around), O(T log T).
    """
    dt = _positive("dt", dt)
    rho = as_inexact("rho", rho)
    x = as_inexact("x", x)
    if rho.ndim != 1:
        raise ValueError(f"rho must have shape (T,), got shape {rho.shape}")
    check_ndim("x", x, 1)
    if x.shape[-1] != rho.shape[0]:
        raise ValueError(
            f"x must have last axis of length T = len(rho) = {rho.shape[0]}, got shape {x.shape}"
        )
    check_finite("rho", rho)
    check_finite("x", x)
    return _fft_convolve(rho, x, dt)


@jax.jit
def _fft_convolve(rho: jax.Array, x: jax.Array, dt: jax.Array) -> jax.Array:
    T = rho.shape[0]
    n = 1 << (2 * T - 1).bit_length()  # >= 2T - 1: linear, not circular, convolution
    spectrum = jnp.fft.rfft(rho, n=n) * jnp.fft.rfft(x, n=n, axis=-1)
    return dt * jnp.fft.irfft(spectrum, n=n, axis=-1)[..., :T]


def white_inputs(key: jax.Array, n: int, T: int, dt: float) -> jax.Array:
    """``n`` input sequences of length ``T`` with i.i.d. entries ``dt * N(0, 1)``, shape ``(n, T)``.

    This is the authors' generator (``inputs = dt * np.random.normal(...)``), i.e. the increments of a
    Brownian motion scaled by ``sqrt(dt)`` rather than a white noise of unit variance per unit time;
    for the code's ``dt = 1`` both are standard normal.
    """
    n, T = positive_int("n", n), positive_int("T", T)
    return _positive("dt", dt) * jax.random.normal(key, (n, T))


class TanhRNN(NamedTuple):
    """Weights of ``h_k = tanh(w h_{k-1} + u x_k + b)``, ``y_k = c . h_k + d`` (a pytree of arrays)."""

    w: jax.Array  # (m, m) recurrent weight
    u: jax.Array  # (m,) input weight (1-D input)
    b: jax.Array  # (m,) bias
    c: jax.Array  # (m,) readout
    d: jax.Array  # () readout bias


def random_tanh_rnn(key: jax.Array, m: int = 16, *, scale: float = 1.0) -> TanhRNN:
    """A random tanh RNN of width ``m`` with PyTorch's default law, ``W`` multiplied by ``scale``.

    Every weight and bias is ``U(-1/sqrt(m), 1/sqrt(m))`` (``torch.nn.RNN`` and ``torch.nn.Linear(m, 1)``;
    the input weight of ``nn.RNN`` uses the same bound ``1/sqrt(m)``). At ``scale = 1`` the spectral
    radius of ``W`` is about ``0.58`` for ``m = 16`` (decaying memory); larger ``scale`` gives
    radii above 1 and, often, memory that does not decay (WLL App. I.1, Fig 11).
    """
    m = positive_int("m", m)
    scale = _positive("scale", scale)
    bound = 1.0 / np.sqrt(m)
    kw, ku, kb, kc, kd = jax.random.split(key, 5)

    def uniform(k: jax.Array, shape: tuple[int, ...]) -> jax.Array:
        return jax.random.uniform(k, shape, minval=-bound, maxval=bound)

    return TanhRNN(
        w=scale * uniform(kw, (m, m)),
        u=uniform(ku, (m,)),
        b=uniform(kb, (m,)),
        c=uniform(kc, (m,)),
        d=uniform(kd, ()),
    )


def tanh_rnn_outputs(params: TanhRNN, x: Any) -> jax.Array:
    """Outputs ``y_k = c . h_k + d`` of :class:`TanhRNN` on scalar inputs ``x`` of shape ``(..., T)``."""
    x = as_inexact("x", x)
    check_ndim("x", x, 1)
    check_finite("x", x)
    if not isinstance(params, TanhRNN):
        raise TypeError(f"params must be a TanhRNN, got {type(params).__name__}")
    m = params.w.shape[0]
    if params.w.shape != (m, m) or any(v.shape != (m,) for v in params[1:4]):
        raise ValueError(
            "params must hold w (m, m) and u, b, c (m,), got shapes "
            f"{[tuple(v.shape) for v in params]}"
        )
    return _tanh_rnn(params, x)


@jax.jit
def _tanh_rnn(params: TanhRNN, x: jax.Array) -> jax.Array:
    w, u, b, c, d = params
    dtype = jnp.result_type(x, w)

    def step(h: jax.Array, x_k: jax.Array) -> tuple[jax.Array, jax.Array]:
        h = jnp.tanh(h @ w.T + x_k[..., None] * u + b)
        return h, h @ c + d

    h0 = jnp.zeros(x.shape[:-1] + (w.shape[0],), dtype)
    _, y = jax.lax.scan(step, h0, jnp.moveaxis(x.astype(dtype), -1, 0))
    return jnp.moveaxis(y, 0, -1)
