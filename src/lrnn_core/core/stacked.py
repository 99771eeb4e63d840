"""A stacked state-space model: linear diagonal recurrences with point-wise non-linearities between.

Wang & Xue (NeurIPS 2023), "State-space models with layer-wise nonlinearity are universal
approximators with exponential decaying memory", eqs. (1)-(2) with the non-linearity "added
layer-wise" (§2.1; the formulas are lost in the text version, the words are kept). Layer ``l``
maps its input sequence ``z^{l-1}`` (width ``d_{l-1}``: ``M`` for the first layer, ``N`` after)
to ``z^l`` (width ``N``):

    h_k = lam * h_{k-1} + B z^{l-1}_k,    h_0 = 0       (diagonal linear recurrence, real lam)
    y_k = C h_k + b                       (mixing; C = identity when ``mixing=False``)
    z^l_k = sigma(y_k)  [+ z^{l-1}_k when ``residual`` and the widths agree]

and the model reads ``out_k = W z^depth_k + w`` (a linear, token-wise readout). ``lam`` lies in
``(0, 1)`` through ``lam = exp(-exp(nu_log))`` (the real part of the LRU's parameterisation), drawn
``U(r_min, r_max)``. ``recurrent=False`` switches the recurrence off (``h_k = B z_k``): the
token-wise layers of Wang & Xue's Prop. 3.1. The paper drops biases; we keep ``b`` and ``w``
(Prop. 3.1's sigmoidal construction needs one inside the activation).

Initialisation (ours; the paper gives none): ``B`` normal with variance ``(1 - lam^2) / d_{l-1}``
per row (a unit-variance white input then gives unit-variance states), ``C`` normal with variance
``1 / N``, ``W`` normal with variance ``1 / N``, biases zero.

Any depth and any width ``N``; :func:`lrnn_core.core.train.train` trains it and the probes of
:mod:`lrnn_core.core.memory` read its memory function unchanged.
"""

from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np
from flax import nnx
from jax.typing import DTypeLike
from jaxtyping import Array, ArrayLike, Float

from lrnn_core.core.scan import METHODS, linear_scan
from lrnn_core.core.validate import (
    as_inexact,
    check_choice,
    check_finite,
    check_flag,
    check_ndim,
    check_shape,
    inexact_dtype,
    positive_int,
    real_number,
)

#: The point-wise non-linearities a layer may use (``"identity"``: a linear stack).
ACTIVATIONS: dict[str, Callable[[Array], Array]] = {
    "tanh": jnp.tanh,
    "relu": jax.nn.relu,
    "hardtanh": lambda x: jnp.clip(x, -1.0, 1.0),
    "sigmoid": jax.nn.sigmoid,
    "identity": lambda x: x,
}


def _check_radii(r_min: float, r_max: float) -> tuple[float, float]:
    r_min = real_number("r_min", r_min, low=0.0)
    r_max = real_number("r_max", r_max, low=0.0)
    if not r_min <= r_max < 1:
        raise ValueError(f"need 0 <= r_min <= r_max < 1, got r_min={r_min}, r_max={r_max}")
    return r_min, r_max


class SSMLayer(nnx.Module):
    """One layer ``z -> sigma(C h + b) (+ z)``, ``h_k = lam h_{k-1} + B z_k`` (module docstring)."""

    def __init__(
        self,
        M: int,
        N: int,
        *,
        activation: str = "tanh",
        recurrent: bool = True,
        mixing: bool = True,
        residual: bool = False,
        r_min: float = 0.5,
        r_max: float = 0.95,
        param_dtype: DTypeLike = jnp.float32,
        scan_method: str = "auto",
        rngs: nnx.Rngs,
    ):
        self.M = positive_int("M", M)
        self.N = positive_int("N", N)
        self.activation = check_choice("activation", activation, tuple(ACTIVATIONS))
        self.recurrent = check_flag("recurrent", recurrent)
        self.mixing = check_flag("mixing", mixing)
        self.residual = check_flag("residual", residual) and self.M == self.N
        self.scan_method = check_choice("scan_method", scan_method, METHODS)
        r_min, r_max = _check_radii(r_min, r_max)
        dtype = inexact_dtype("param_dtype", param_dtype)
        normal = jax.random.normal
        lam = jax.random.uniform(rngs.params(), (N,), dtype, r_min, r_max)
        gain = jnp.sqrt(1 - lam**2) if self.recurrent else jnp.ones((N,), dtype)
        if self.recurrent:
            # lam = exp(-exp(nu_log)); lam = 0 (r_min = 0) is clipped to the smallest float
            self.nu_log = nnx.Param(jnp.log(-jnp.log(jnp.maximum(lam, jnp.finfo(dtype).tiny))))
        scale_b = gain[:, None] / np.sqrt(M)
        self.B = nnx.Param(scale_b * normal(rngs.params(), (N, M), dtype))
        if self.mixing:
            self.C = nnx.Param(normal(rngs.params(), (N, N), dtype) / np.sqrt(N))
        self.b = nnx.Param(jnp.zeros((N,), dtype))

    def eigenvalues(self) -> Float[Array, " N"]:
        """The diagonal ``lam = exp(-exp(nu_log))`` (zeros when the recurrence is off)."""
        if not self.recurrent:
            return jnp.zeros_like(self.b[...])
        return jnp.exp(-jnp.exp(self.nu_log[...]))

    def __call__(self, z: Float[ArrayLike, "*batch L M"]) -> Float[Array, "*batch L N"]:
        """``z``: real ``(..., L, M)``; returns the layer's output ``(..., L, N)``."""
        u = jnp.einsum("...lm,nm->...ln", z, self.B[...])
        h = linear_scan(self.eigenvalues(), u, method=self.scan_method) if self.recurrent else u
        y = jnp.einsum("...ln,mn->...lm", h, self.C[...]) if self.mixing else h
        out = ACTIVATIONS[self.activation](y + self.b[...])
        return out + z if self.residual else out


class StackedSSM(nnx.Module):
    """``depth`` :class:`SSMLayer` s of width ``N``, then a linear readout to ``d_out``.

    Wang & Xue (2023), eqs. (1)-(2) stacked with a layer-wise non-linearity (module docstring).
    Maps real ``(..., L, M)`` to ``(..., L, d_out)``. Keywords (``activation``, ``recurrent``,
    ``mixing``, ``residual``, ``r_min``, ``r_max``, ``param_dtype``, ``scan_method``) apply to
    every layer; ``residual`` skips a layer only where its input and output widths agree.
    """

    def __init__(
        self,
        M: int,
        N: int,
        d_out: int,
        *,
        depth: int = 2,
        param_dtype: DTypeLike = jnp.float32,
        rngs: nnx.Rngs,
        **layer_kwargs,
    ):
        self.M = positive_int("M", M)
        self.N = positive_int("N", N)
        self.d_out = positive_int("d_out", d_out)
        self.depth = positive_int("depth", depth)
        sizes = [self.M] + [self.N] * self.depth
        self.layers = nnx.List(
            [
                SSMLayer(a, b, param_dtype=param_dtype, rngs=rngs, **layer_kwargs)
                for a, b in zip(sizes[:-1], sizes[1:], strict=True)
            ]
        )
        dtype = inexact_dtype("param_dtype", param_dtype)
        w = jax.random.normal(rngs.params(), (d_out, N), dtype) / np.sqrt(N)
        self.W = nnx.Param(w)
        self.w = nnx.Param(jnp.zeros((d_out,), dtype))

    def slowest_rate(self) -> float:
        """``min_l -ln max_i lam^l_i``: the slowest decay rate per step of any layer (Wang & Xue,
        Thm. 3.13: the memory decays at least this fast, up to polynomial factors)."""
        lam_max = max(float(jnp.max(layer.eigenvalues())) for layer in self.layers)
        return float(-np.log(lam_max)) if lam_max > 0 else float("inf")

    def __call__(self, u: Float[ArrayLike, "*batch L M"]) -> Float[Array, "*batch L d_out"]:
        """``u``: real ``(..., L, M)``; returns ``(..., L, d_out)``."""
        u = as_inexact("u", u)
        if jnp.iscomplexobj(u):
            raise TypeError(f"u must be real, got dtype {u.dtype}")
        check_ndim("u", u, 2)
        check_shape("u", u, (None,) * (u.ndim - 1) + (self.M,))
        check_finite("u", u)
        return _forward(self, u)


@nnx.jit
def _forward(model: StackedSSM, u: Array) -> Array:
    """All layers and the readout as one compiled program."""
    z = u
    for layer in model.layers:
        z = layer(z)
    return jnp.einsum("...ln,on->...lo", z, model.W[...]) + model.w[...]
