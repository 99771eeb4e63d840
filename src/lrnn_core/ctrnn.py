"""Continuous-time nonlinear RNNs with a (stably) reparameterised diagonal recurrent weight.

The model of Wang, Li & Li (2024, Sec. 2 and eq. 18; formulas lost in the text version,
reconstructed from the sentences around them and the authors' public code, github
radarFudan/Curse-of-memory) is

    dh/dt = sigma(W h + U x + b),   y = c^T h,   h(0) = 0,

discretised by forward Euler, ``h_{k+1} = h_k + dt * sigma(W h_k + U x_k + b)`` (the authors' code),
and read out at every step, ``y_k = c^T h_{k+1}``.

The recurrent weight is diagonal, ``W = diag(lam)`` (the authors' "diagonal RNN"), with the
eigenvalues ``lam = f(raw)`` given by a *parameterisation* ``f``:

============  ==========================  ======================================================
name          ``lam = f(raw)``            stable for every raw?
============  ==========================  ======================================================
"direct"      ``raw``                     no: a gradient step or a perturbation can make lam >= 0
"exp"         ``-exp(raw)``               yes
"softplus"    ``-log(1 + exp(raw))``      yes
"inverse"     ``-1 / (raw**2 + eps)``     yes (our reconstruction, see below)
============  ==========================  ======================================================

"exp" and "softplus" are named in the paper (Sec. 3.4, Table 1). For "inverse" the paper gives no
formula; the authors' discrete code uses ``1 - 1/w`` with ``w`` clamped to ``w > 1/2``, i.e. a
continuous-time eigenvalue ``-1/w``. We square the raw value instead of clamping it, so that *every*
raw value gives a stable eigenvalue, and add ``eps = INVERSE_EPS`` to keep ``lam`` finite.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from lrnn_core.validate import _is_concrete, as_inexact, check_finite, check_ndim

__all__ = [
    "ACTIVATIONS",
    "CTRNN",
    "INVERSE_EPS",
    "PARAMETERISATIONS",
    "STABLE_PARAMETERISATIONS",
    "ctrnn_outputs",
    "ctrnn_states",
    "init_ctrnn",
    "raw_from_weight",
    "recurrent_weight",
]

ACTIVATIONS = ("linear", "tanh", "hardtanh", "relu")
PARAMETERISATIONS = ("direct", "exp", "softplus", "inverse")
STABLE_PARAMETERISATIONS = ("exp", "softplus", "inverse")
#: Offset of the "inverse" parameterisation: ``lam = -1 / (raw**2 + INVERSE_EPS)``, so ``|lam| < 1/eps``.
INVERSE_EPS = 1e-2

_ACTIVATION_FNS: dict[str, Callable[[jax.Array], jax.Array]] = {
    "linear": lambda z: z,
    "tanh": jnp.tanh,
    "hardtanh": lambda z: jnp.clip(z, -1.0, 1.0),
    "relu": jax.nn.relu,
}


class CTRNN(NamedTuple):
    """Parameters of a continuous-time RNN (a pytree): ``raw`` (m,) gives the diagonal recurrent
    weight through a parameterisation, ``u`` (m, d_in) the input weight, ``b`` (m,) the bias and
    ``c`` (m, d_out) the readout."""

    raw: jax.Array
    u: jax.Array
    b: jax.Array
    c: jax.Array

    @property
    def width(self) -> int:
        return self.raw.shape[-1]


def _check_name(name: str, value: str, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise ValueError(f"{name} must be one of {allowed}, got {value!r}")


def recurrent_weight(raw: jax.Array, parameterisation: str) -> jax.Array:
    """The eigenvalues ``lam = f(raw)`` of the diagonal recurrent weight (WLL eq. 18, reconstructed;
    see the module docstring for the four maps)."""
    _check_name("parameterisation", parameterisation, PARAMETERISATIONS)
    raw = as_inexact("raw", raw)
    if parameterisation == "direct":
        return raw
    if parameterisation == "exp":
        return -jnp.exp(raw)
    if parameterisation == "softplus":
        return -jax.nn.softplus(raw)
    return -1.0 / (raw**2 + INVERSE_EPS)


def raw_from_weight(weight: jax.Array, parameterisation: str) -> jax.Array:
    """The raw parameter that :func:`recurrent_weight` maps to the eigenvalues ``weight``.

    Lets the four parameterisations start from the same recurrent weight (WLL Table 1). The stable
    ones need ``weight < 0``, "inverse" needs ``-1/INVERSE_EPS < weight < 0`` (its raw value is the
    non-negative root); other values raise ValueError.
    """
    _check_name("parameterisation", parameterisation, PARAMETERISATIONS)
    lam = as_inexact("weight", weight)
    check_finite("weight", lam)
    if parameterisation == "direct":
        return lam
    if _is_concrete(lam):
        arr = np.asarray(lam)
        low = -1.0 / INVERSE_EPS if parameterisation == "inverse" else -np.inf
        if not np.all((arr < 0) & (arr > low)):
            raise ValueError(
                f"weight must lie in ({low}, 0) for the {parameterisation!r} parameterisation, "
                f"got values in [{arr.min():.4g}, {arr.max():.4g}]"
            )
    rate = -lam
    if parameterisation == "exp":
        return jnp.log(rate)
    if parameterisation == "softplus":
        # inverse softplus log(exp(r) - 1), written to be accurate for small and large r
        return rate + jnp.log(-jnp.expm1(-rate))
    return jnp.sqrt(1.0 / rate - INVERSE_EPS)


def init_ctrnn(
    key: jax.Array,
    m: int,
    *,
    d_in: int = 1,
    d_out: int = 1,
    parameterisation: str = "direct",
    decay_range: tuple[float, float] = (0.1, 1.0),
    dtype: jnp.dtype = jnp.float32,
) -> CTRNN:
    """A random CTRNN of width ``m``: eigenvalues ``-Uniform(decay_range)`` (the same for every
    parameterisation, given the key), ``u ~ N(0, 1/d_in)``, ``b = 0``, ``c ~ N(0, 1/m)``."""
    if isinstance(m, bool) or not isinstance(m, (int, np.integer)) or m < 1:
        raise ValueError(f"m must be a positive int, got {m!r}")
    low, high = decay_range
    if not 0 < low <= high:
        raise ValueError(f"decay_range must satisfy 0 < low <= high, got {decay_range}")
    k_lam, k_u, k_c = jax.random.split(key, 3)
    lam = -jax.random.uniform(k_lam, (m,), dtype, low, high)
    return CTRNN(
        raw=raw_from_weight(lam, parameterisation).astype(dtype),
        u=jax.random.normal(k_u, (m, d_in), dtype) / np.sqrt(d_in),
        b=jnp.zeros((m,), dtype),
        c=jax.random.normal(k_c, (m, d_out), dtype) / np.sqrt(m),
    )


def ctrnn_states(
    params: CTRNN,
    x: jax.Array,
    *,
    activation: str = "tanh",
    parameterisation: str = "direct",
    dt: float = 1.0,
) -> jax.Array:
    """Hidden states ``h_1..h_T`` (..., T, m) of the Euler-discretised CTRNN on ``x`` (..., T, d_in):
    ``h_{k+1} = h_k + dt * sigma(lam * h_k + U x_k + b)``, ``h_0 = 0`` (WLL Sec. 2, [code])."""
    _check_name("activation", activation, ACTIVATIONS)
    x = as_inexact("x", x)
    check_ndim("x", x, 2)
    m, d_in = params.u.shape
    if x.shape[-1] != d_in:
        raise ValueError(f"x must have shape (..., T, d_in={d_in}), got {x.shape}")
    if params.raw.shape != (m,) or params.b.shape != (m,) or params.c.shape[0] != m:
        raise ValueError(
            f"params are inconsistent: raw {params.raw.shape}, u {params.u.shape}, "
            f"b {params.b.shape}, c {params.c.shape} (expected raw (m,), b (m,), c (m, d_out))"
        )
    if not (isinstance(dt, (int, float, np.floating)) and dt > 0):
        raise ValueError(f"dt must be a positive number, got {dt!r}")
    check_finite("x", x)
    sigma = _ACTIVATION_FNS[activation]
    lam = recurrent_weight(params.raw, parameterisation)
    drive = x @ params.u.T + params.b  # (..., T, m)

    def step(h, d):
        h = h + dt * sigma(lam * h + d)
        return h, h

    h0 = jnp.zeros(drive.shape[:-2] + (m,), drive.dtype)
    _, hs = jax.lax.scan(step, h0, jnp.moveaxis(drive, -2, 0))
    return jnp.moveaxis(hs, 0, -2)


def ctrnn_outputs(
    params: CTRNN,
    x: jax.Array,
    *,
    activation: str = "tanh",
    parameterisation: str = "direct",
    dt: float = 1.0,
) -> jax.Array:
    """Outputs ``y_k = c^T h_k`` (..., T, d_out) of the CTRNN on ``x`` (..., T, d_in)."""
    h = ctrnn_states(params, x, activation=activation, parameterisation=parameterisation, dt=dt)
    return h @ params.c
