"""One training step of the ODE-flow model, timed against the obvious hand-written LRU (the
performance appendix): the library's ``LRUModel`` with :func:`lrnn_core.core.scan.linear_scan`
against a plain ``lax.scan`` over time with the same readout, as the model of
:mod:`lrnn_core.orvieto.ode_model` (Orvieto et al., ICML 2024, eq. (2) followed by the
position-wise readout of §4.2)."""

from __future__ import annotations

from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax import nnx
from jaxtyping import Array

from lrnn_core.bookkit.benchmark_timing import time_call
from lrnn_core.core.validate import positive_int
from lrnn_core.orvieto.ode_model import ModelConfig, make_model, model_mse, with_constant

__all__ = ["plain_forward", "plain_model", "time_train_step"]


def plain_model(N: int, D: int, key: Array) -> dict[str, Array]:
    """Parameters of the obvious LRU + readout written by hand (for :func:`time_train_step`):
    ``N`` states, an MLP of ``D`` hidden units (``0``: a linear readout)."""
    k = jax.random.split(key, 6)
    fan_in = 2 * N
    p = {
        "nu": jnp.full((N,), -6.0),
        "theta": jax.random.uniform(k[0], (N,)),
        "B_re": jax.random.normal(k[1], (N, 2)) / 2,
        "B_im": jax.random.normal(k[2], (N, 2)) / 2,
    }
    if D:
        p["W1"] = jax.random.normal(k[3], (fan_in, D)) / np.sqrt(fan_in)
        p["b1"] = jnp.zeros(D)
        fan_in = D
    p["W2"] = jax.random.normal(k[4], (fan_in, 1)) / np.sqrt(fan_in)
    p["b2"] = jnp.zeros(1)
    return p


def plain_forward(p: dict[str, Array], v: Array) -> Array:
    """``x_k = lambda x_{k-1} + gamma B [v_k, 1]`` by ``lax.scan`` over time, then the readout."""
    lam = jnp.exp(-jnp.exp(p["nu"]) + 1j * jnp.exp(p["theta"]))
    gamma = jnp.sqrt(1 - jnp.abs(lam) ** 2)
    Bu = jnp.einsum("blm,nm->lbn", with_constant(v), p["B_re"] + 1j * p["B_im"]) * gamma

    def step(x, bu):
        x = lam * x + bu
        return x, x

    _, xs = jax.lax.scan(step, jnp.zeros(Bu.shape[1:], Bu.dtype), Bu)
    h = jnp.concatenate([xs.real, xs.imag], axis=-1)
    if "W1" in p:
        h = jax.nn.relu(h @ p["W1"] + p["b1"])
    return jnp.swapaxes((h @ p["W2"] + p["b2"])[..., 0], 0, 1)


def time_train_step(
    config: ModelConfig, batch_size: int, L: int, *, repeats: int = 5, seed: int = 0
) -> tuple[float, float]:
    """Median seconds of one jitted Adam step of ``config`` on a ``(batch_size, L)`` batch: the
    library's (``LRUModel``, :func:`lrnn_core.core.scan.linear_scan` ``auto``) and a plain
    ``lax.scan`` LRU with the same readout written the obvious way. Returns ``(ours, plain)``."""
    batch_size, L = positive_int("batch_size", batch_size), positive_int("L", L)
    repeats = positive_int("repeats", repeats)
    rng = np.random.default_rng(seed)
    v = jnp.asarray(rng.standard_normal((batch_size, L)), jnp.float32)
    y = jnp.asarray(rng.standard_normal((batch_size, L)), jnp.float32)
    tx = optax.adam(1e-3)

    def stepper(loss):
        @jax.jit
        def step(p, s):
            g = jax.grad(loss)(p, v, y)
            updates, s = tx.update(g, s, p)
            return optax.apply_updates(p, updates), s

        return step

    graphdef, params, rest = nnx.split(make_model(config, nnx.Rngs(seed)), nnx.Param, ...)
    ours = stepper(partial(model_mse, graphdef, rest))
    plain_p = plain_model(config.N, config.D, jax.random.key(seed))
    plain = stepper(lambda p, v, y: jnp.mean((plain_forward(p, v) - y) ** 2))
    t_ours, _ = time_call(ours, (params, tx.init(params)), repeats)
    t_plain, _ = time_call(plain, (plain_p, tx.init(plain_p)), repeats)
    return t_ours, t_plain
