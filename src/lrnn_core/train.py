"""A small, seeded training loop for Flax NNX models, vectorised over seeds.

``train`` builds one model per seed, splits each into a pure state (``nnx.split``) and trains them all
at once by ``jax.vmap`` of one pure optax step over the stacked states. Each seed gives a key for the
initialisation and a key stream for the data, so a run depends on its seed only: the same seed gives
the same losses, alone or next to other seeds.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax import nnx
from tqdm.auto import tqdm

Batch = Any


def mse_loss(model: Callable[[Any], jax.Array], batch: tuple[Any, Any]) -> jax.Array:
    """Mean squared error ``mean((model(inputs) - targets)^2)`` for ``batch = (inputs, targets)``."""
    inputs, targets = batch
    return jnp.mean((model(inputs) - targets) ** 2)


@dataclass(frozen=True)
class TrainResult:
    """Outcome of :func:`train`.

    ``losses`` has shape ``(n_seeds, steps)`` (``(steps,)`` when a single int seed was given): the
    loss of each step, evaluated before that step's update. ``params`` and ``rest`` are the trained
    ``nnx.Param`` state and all other state, stacked over seeds along axis 0 unless a single int was
    given; :meth:`model` rebuilds a module.
    """

    losses: np.ndarray
    seeds: tuple[int, ...]
    graphdef: nnx.GraphDef
    params: nnx.State
    rest: nnx.State

    def model(self, index: int = 0) -> nnx.Module:
        """The trained model of seed number ``index`` (the only one for a single int seed)."""
        params, rest = self.params, self.rest
        if self.losses.ndim == 2:
            if not -len(self.seeds) <= index < len(self.seeds):
                raise ValueError(f"index must address one of {len(self.seeds)} seeds, got {index}")
            params, rest = jax.tree.map(lambda a: a[index], (params, rest))
        return nnx.merge(self.graphdef, params, rest)


def _check_seeds(seed: int | Sequence[int]) -> tuple[tuple[int, ...], bool]:
    single = isinstance(seed, (int, np.integer)) and not isinstance(seed, bool)
    seeds = (seed,) if single else tuple(seed)
    if not seeds:
        raise ValueError(
            "seed must be an int or a non-empty sequence of ints, got an empty sequence"
        )
    for s in seeds:
        if isinstance(s, bool) or not isinstance(s, (int, np.integer)):
            raise TypeError(f"seeds must be ints, got {type(s).__name__}")
        if not 0 <= s < 2**32:
            raise ValueError(f"seeds must be in [0, 2**32), got {s}")
    return tuple(int(s) for s in seeds), single


def train(
    make_model: Callable[[nnx.Rngs], nnx.Module],
    loss_fn: Callable[[nnx.Module, Batch], jax.Array],
    data: Batch | Callable[[jax.Array], Batch],
    *,
    steps: int,
    seed: int | Sequence[int] = 0,
    optimizer: optax.GradientTransformation | None = None,
    progress: bool = True,
) -> TrainResult:
    """Train ``make_model(nnx.Rngs(...))`` for ``steps`` steps, once per seed, all seeds in one ``vmap``.

    ``loss_fn(model, batch)`` returns a scalar. ``data`` is either a fixed batch (full-batch training)
    or a function ``key -> batch`` called with a fresh key at every step. ``optimizer`` defaults to
    ``optax.adam(1e-3)``. Only ``nnx.Param`` state is trained; other state (e.g. counters) is carried
    along as the model updates it. ``progress=False`` hides the tqdm bar.
    """
    seeds, single = _check_seeds(seed)
    if isinstance(steps, bool) or not isinstance(steps, int):
        raise TypeError(f"steps must be an int, got {type(steps).__name__}")
    if steps < 1:
        raise ValueError(f"steps must be >= 1, got {steps}")
    tx = optax.adam(1e-3) if optimizer is None else optimizer
    sample = data if callable(data) else (lambda key: data)

    def init(s: int):
        init_key, data_key = jax.random.split(jax.random.key(s))
        graphdef, params, rest = nnx.split(make_model(nnx.Rngs(init_key)), nnx.Param, ...)
        return graphdef, (params, rest, tx.init(params), data_key)

    # Initialise seed by seed (eagerly, so a seed's model does not depend on the other seeds and the
    # compiled initialisation ops are reused by later calls), then stack along a new leading axis.
    graphdefs, states = zip(*(init(s) for s in seeds))
    graphdef = graphdefs[0]
    if any(g != graphdef for g in graphdefs):
        raise ValueError("make_model must build the same model structure for every seed")
    params, rest, opt_state, data_keys = jax.tree.map(lambda *leaves: jnp.stack(leaves), *states)

    def loss_of(params: nnx.State, rest: nnx.State, batch: Batch):
        model = nnx.merge(graphdef, params, rest)
        loss = loss_fn(model, batch)
        return loss, nnx.split(model, nnx.Param, ...)[2]

    def step(params, rest, opt_state, data_key, t):
        batch = sample(jax.random.fold_in(data_key, t))
        (loss, rest), grads = jax.value_and_grad(loss_of, has_aux=True)(params, rest, batch)
        updates, opt_state = tx.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), rest, opt_state, loss

    step = jax.jit(jax.vmap(step, in_axes=(0, 0, 0, 0, None)))
    losses = []
    with tqdm(range(steps), disable=not progress, desc=f"train ({len(seeds)} seeds)") as bar:
        for t in bar:
            params, rest, opt_state, loss = step(params, rest, opt_state, data_keys, t)
            losses.append(loss)
            if progress and (t % max(1, steps // 50) == 0 or t == steps - 1):
                bar.set_postfix(loss=f"{float(jnp.mean(loss)):.3e}")
    losses = np.stack([np.asarray(x) for x in losses], axis=1)
    if single:
        losses = losses[0]
        params, rest = jax.tree.map(lambda a: a[0], (params, rest))
    return TrainResult(losses, seeds, graphdef, params, rest)
