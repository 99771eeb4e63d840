"""Continuous-time nonlinear RNNs with a (stably) reparameterised diagonal recurrent weight.

The model of Wang, Li & Li (2024, Sec. 2 and eq. 18; formulas lost in the text version,
reconstructed from the sentences around them and the authors' public code, github
radarFudan/Curse-of-memory) is, in the book's notation (input ``u``, state ``x`` of width ``N``,
output ``y``; the paper writes ``h`` for the state, ``x`` for the input and ``m`` for ``N``),

    dx/dt = sigma(W x + B u + b),   y = C x,   x(0) = 0,

discretised by forward Euler, ``x_{k+1} = x_k + dt * sigma(W x_k + B u_k + b)`` (the authors' code),
and read out at every step, ``y_k = C x_{k+1}``.

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
from jaxtyping import Array, ArrayLike, Float

from lrnn_core.core.validate import (
    as_inexact,
    check_choice,
    check_finite,
    check_ndim,
    check_type,
    is_concrete,
    positive_int,
    positive_number,
)

ACTIVATIONS = ("linear", "tanh", "hardtanh", "relu")
PARAMETERISATIONS = ("direct", "exp", "softplus", "inverse")
STABLE_PARAMETERISATIONS = ("exp", "softplus", "inverse")
#: Offset of the "inverse" parameterisation: ``lam = -1 / (raw**2 + INVERSE_EPS)``, so
#: ``|lam| < 1/eps``.
INVERSE_EPS = 1e-2

_ACTIVATION_FNS: dict[str, Callable[[jax.Array], jax.Array]] = {
    "linear": lambda z: z,
    "tanh": jnp.tanh,
    "hardtanh": lambda z: jnp.clip(z, -1.0, 1.0),
    "relu": jax.nn.relu,
}


def activation_function(activation: str) -> Callable[[jax.Array], jax.Array]:
    """The function ``sigma`` named ``activation`` (one of :data:`ACTIVATIONS`): identity, tanh,
    hardtanh ``clip(z, -1, 1)`` or relu."""
    return _ACTIVATION_FNS[check_choice("activation", activation, ACTIVATIONS)]


class CTRNN(NamedTuple):
    """Parameters of ``dx/dt = sigma(W x + B u + b), y = C x`` (a pytree; WLL Sec. 2): ``raw``
    (N,) gives the diagonal recurrent weight ``W = diag(f(raw))`` through a parameterisation ``f``,
    ``B`` (N, M) is the input weight, ``b`` (N,) the bias and ``C`` (d_out, N) the readout."""

    raw: Float[Array, "*runs N"]
    B: Float[Array, "*runs N M"]
    b: Float[Array, "*runs N"]
    C: Float[Array, "*runs d_out N"]

    @property
    def N(self) -> int:
        """The state width N."""
        return self.raw.shape[-1]


def recurrent_weight(raw: Float[ArrayLike, "*batch N"], parameterisation: str) -> Array:
    """The eigenvalues ``lam = f(raw)`` of the diagonal recurrent weight (WLL eq. 18, reconstructed;
    see the module docstring for the four maps)."""
    check_choice("parameterisation", parameterisation, PARAMETERISATIONS)
    raw = as_inexact("raw", raw)
    if parameterisation == "direct":
        return raw
    if parameterisation == "exp":
        return -jnp.exp(raw)
    if parameterisation == "softplus":
        return -jax.nn.softplus(raw)
    return -1.0 / (raw**2 + INVERSE_EPS)


def raw_from_weight(weight: Float[ArrayLike, "*batch N"], parameterisation: str) -> Array:
    """The raw parameter that :func:`recurrent_weight` maps to the eigenvalues ``weight``.

    Lets the four parameterisations start from the same recurrent weight (WLL Table 1). The stable
    ones need ``weight < 0``, "inverse" needs ``-1/INVERSE_EPS < weight < 0`` (its raw value is the
    non-negative root); other values raise ValueError.
    """
    check_choice("parameterisation", parameterisation, PARAMETERISATIONS)
    lam = as_inexact("weight", weight)
    check_finite("weight", lam)
    if parameterisation == "direct":
        return lam
    if is_concrete(lam):
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
    key: Array,
    N: int,
    *,
    M: int = 1,
    d_out: int = 1,
    parameterisation: str = "direct",
    decay_range: tuple[float, float] = (0.1, 1.0),
    dtype: jnp.dtype = jnp.float32,
) -> CTRNN:
    """A random CTRNN of width ``N`` with ``M`` input channels: eigenvalues
    ``-Uniform(decay_range)`` (the same for every parameterisation, given the key),
    ``B ~ N(0, 1/M)``, ``b = 0``, ``C ~ N(0, 1/N)``."""
    N, M, d_out = positive_int("N", N), positive_int("M", M), positive_int("d_out", d_out)
    check_choice("parameterisation", parameterisation, PARAMETERISATIONS)
    low, high = decay_range
    low, high = positive_number("decay_range[0]", low), positive_number("decay_range[1]", high)
    if low > high:
        raise ValueError(f"decay_range must satisfy 0 < low <= high, got {decay_range}")
    k_lam, k_u, k_c = jax.random.split(key, 3)
    lam = -jax.random.uniform(k_lam, (N,), dtype, low, high)
    return CTRNN(
        raw=raw_from_weight(lam, parameterisation).astype(dtype),
        B=jax.random.normal(k_u, (N, M), dtype) / np.sqrt(M),
        b=jnp.zeros((N,), dtype),
        C=(jax.random.normal(k_c, (N, d_out), dtype) / np.sqrt(N)).T,
    )


def check_ctrnn(name: str, params: CTRNN) -> None:
    """TypeError unless ``params`` is a :class:`CTRNN`; ValueError if its shapes disagree or (when
    concrete) it holds NaN or infinity. Leading run axes are allowed."""
    check_type(name, params, CTRNN)
    for field in CTRNN._fields:
        as_inexact(f"{name}.{field}", getattr(params, field))
        check_finite(f"{name}.{field}", getattr(params, field))
    N, M = np.shape(params.B)[-2:]
    if (
        np.shape(params.raw)[-1:] != (N,)
        or np.shape(params.b)[-1:] != (N,)
        or np.shape(params.C)[-1] != N
    ):
        raise ValueError(
            f"{name} is inconsistent: raw {np.shape(params.raw)}, B {np.shape(params.B)}, "
            f"b {np.shape(params.b)}, C {np.shape(params.C)} (expected raw (N,), B (N, M), "
            "b (N,), C (d_out, N))"
        )


def ctrnn_states(
    params: CTRNN,
    u: Float[ArrayLike, "*batch L M"],
    *,
    activation: str = "tanh",
    parameterisation: str = "direct",
    dt: float = 1.0,
) -> Float[Array, "*batch L N"]:
    """States ``x_1..x_L`` (..., L, N) of the Euler-discretised CTRNN on the inputs ``u``
    (..., L, M): ``x_{k+1} = x_k + dt * sigma(lam * x_k + B u_k + b)``, ``x_0 = 0`` (WLL Sec. 2,
    [code])."""
    check_choice("activation", activation, ACTIVATIONS)
    check_choice("parameterisation", parameterisation, PARAMETERISATIONS)
    check_ctrnn("params", params)
    u = as_inexact("u", u)
    check_ndim("u", u, 2)
    N, M = params.B.shape
    if u.shape[-1] != M:
        raise ValueError(f"u must have shape (..., L, M={M}), got {u.shape}")
    if params.raw.shape != (N,) or params.b.shape != (N,):
        raise ValueError(
            f"params must be one CTRNN without a run axis: raw {params.raw.shape}, "
            f"B {params.B.shape}, b {params.b.shape}"
        )
    dt = positive_number("dt", dt)
    check_finite("u", u)
    sigma = _ACTIVATION_FNS[activation]
    lam = recurrent_weight(params.raw, parameterisation)
    drive = u @ params.B.T + params.b  # (..., L, N)

    def step(x, d):
        x = x + dt * sigma(lam * x + d)
        return x, x

    x0 = jnp.zeros(drive.shape[:-2] + (N,), drive.dtype)
    _, xs = jax.lax.scan(step, x0, jnp.moveaxis(drive, -2, 0))
    return jnp.moveaxis(xs, 0, -2)


def ctrnn_outputs(
    params: CTRNN,
    u: Float[ArrayLike, "*batch L M"],
    *,
    activation: str = "tanh",
    parameterisation: str = "direct",
    dt: float = 1.0,
) -> Float[Array, "*batch L d_out"]:
    """Outputs ``y_k = C x_k`` (..., L, d_out) of the CTRNN on the inputs ``u`` (..., L, M)
    (WLL Sec. 2)."""
    x = ctrnn_states(params, u, activation=activation, parameterisation=parameterisation, dt=dt)
    return x @ params.C.T


def output_mse(
    params: CTRNN,
    u: Float[ArrayLike, "n_seqs L M"],
    y: Float[ArrayLike, "n_seqs L d_out"],
    *,
    activation: str,
    parameterisation: str,
    dt: float = 1.0,
) -> Array:
    """``mean((C x_k - y_k)^2)`` over sequences, steps and outputs, for the Euler CTRNN
    ``x_{k+1} = x_k + dt sigma(lam x_k + B u_k + b)`` of
    :func:`ctrnn_outputs` (the same numbers), with the readout inside
    the scan so that only ``(n_seqs, N)`` states are held at a time (traceable: used under
    ``vmap``)."""
    sigma = activation_function(activation)
    lam = recurrent_weight(params.raw, parameterisation)
    drive = jnp.moveaxis(jnp.asarray(u) @ params.B.T + params.b, -2, 0)  # (L, n_seqs, N)
    target = jnp.moveaxis(jnp.asarray(y), -2, 0)  # (L, n_seqs, d_out)

    def step(x: Array, dk: tuple[Array, Array]) -> tuple[Array, Array]:
        d, yk = dk
        x = x + dt * sigma(lam * x + d)
        return x, jnp.sum((x @ params.C.T - yk) ** 2)

    x0 = jnp.zeros(drive.shape[1:], drive.dtype)
    _, sq = jax.lax.scan(step, x0, (drive, target))
    return jnp.sum(sq) / target.size
