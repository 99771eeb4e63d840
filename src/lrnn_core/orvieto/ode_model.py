"""The model of the controlled-ODE experiments of Orvieto et al. (ICML 2024, §4.2, Fig. 5 and
App. E.3, Figs. 13-16).

The model is ``f = g o R o e`` of the paper's §2: the input ``v_k`` and a constant channel
``1`` (every trajectory starts from the same state, so the model must produce the shared free
response) are encoded by the LRU's input matrix ``B``, the LRU ``x_k = lambda x_{k-1} + gamma B
[v_k, 1]`` with ring-initialised eigenvalues (``r_min = 0.999``, ``r_max = 1``) keeps ``N``
complex states, and a position-wise readout ``g`` (linear, or a one-hidden-layer ReLU MLP of
width ``D``) maps ``[Re x_k, Im x_k]`` to ``y_k``. ``Lambda`` (``nu_log``, ``theta_log``) is trained
or frozen at initialisation; ``gamma``, ``B`` and the readout are always trained (Fig. 15 caption).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import jax.numpy as jnp
from flax import nnx
from jaxtyping import Array

from lrnn_core.core.eigenvalues import TWO_PI
from lrnn_core.core.lru import LRUModel
from lrnn_core.core.validate import nonnegative_int, positive_int

__all__ = ["PHASE", "ModelConfig", "make_model", "model_mse", "with_constant"]

#: Initial eigenvalue phases ``U(0, PHASE)``: the ``max_phase`` option of the LRU paper
#: (Orvieto et al., 2023, App. D: ``pi/10`` for its long-range tasks) and of ``minimal-LRU``
#: (``max_phase``). The paper's ODE section states none; with phases up to ``2 pi`` most modes
#: oscillate much faster than the slowly varying inputs and outputs.
PHASE: float = math.pi / 10


class ModelConfig(NamedTuple):
    """One model of Figs. 5, 15, 16: ``N`` states, readout width ``D`` (0: linear readout),
    ring initialisation ``r_min``, ``r_max``, phases ``U(0, max_phase)`` (the LRU code base's
    default ``2 pi``; the paper states none), and the scan of
    :func:`lrnn_core.core.scan.linear_scan` (``sequential``: on a CPU a training step is as fast
    as with ``associative`` and compiles faster; ``associative`` suits a GPU). Whether ``Lambda``
    is trained is a per-run choice of :func:`lrnn_core.orvieto.ode_sweep.sweep`."""

    N: int
    D: int
    max_phase: float = TWO_PI
    r_min: float = 0.999
    r_max: float = 1.0
    scan_method: str = "sequential"

    @property
    def readout(self) -> str:
        return "linear" if self.D == 0 else f"MLP {self.D}"


def make_model(config: ModelConfig, rngs: nnx.Rngs) -> LRUModel:
    """The model of ``config``: inputs ``[v_k, 1]`` -> LRU -> readout, one output."""
    D = nonnegative_int("D", config.D)
    return LRUModel(
        2,
        positive_int("N", config.N),
        1,
        D=(D,) if D else (),
        r_min=config.r_min,
        r_max=config.r_max,
        max_phase=config.max_phase,
        scan_method=config.scan_method,
        rngs=rngs,
    )


def with_constant(v: Array) -> Array:
    """``[v_k, 1]``, shape ``(..., L, 2)``."""
    return jnp.stack([v, jnp.ones_like(v)], axis=-1)


def model_mse(
    graphdef: nnx.GraphDef, rest: nnx.State, params: nnx.State, v: Array, y: Array
) -> Array:
    """``mean((f(v) - y)^2)`` of the model ``(graphdef, params, rest)``."""
    model = nnx.merge(graphdef, params, rest)
    return jnp.mean((model(with_constant(v))[..., 0] - y) ** 2)
