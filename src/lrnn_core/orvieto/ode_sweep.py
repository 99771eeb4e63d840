"""The vectorised seed x learning-rate sweep of the controlled-ODE experiments of Orvieto et al.
(ICML 2024, §4.2, App. E.3): Adam on the mean squared error of the model of
:mod:`lrnn_core.orvieto.ode_model`, ``Lambda`` frozen or trained.

:func:`sweep` trains every seed x learning-rate pair of one configuration as ONE vectorised
program (:func:`lrnn_core.core.train.train_params`: ``vmap`` over runs, ``jit`` around a whole
epoch), sharded over the run axis with :mod:`jax.sharding` when several devices are present.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from functools import partial
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax import nnx
from jax.sharding import NamedSharding, PartitionSpec
from jaxtyping import Array, ArrayLike, Complex, Float

from lrnn_core.core.lru import LRUModel
from lrnn_core.core.train import epoch_indices, named_in, stack_models, train_params
from lrnn_core.core.validate import check_flag, positive_int, positive_number, seed_list
from lrnn_core.orvieto.ode_data import Dataset
from lrnn_core.orvieto.ode_model import ModelConfig, make_model, model_mse, with_constant

__all__ = ["Sweep", "sweep"]

_FROZEN = frozenset({"nu_log", "theta_log"})


def _optimizer(steps: int) -> optax.GradientTransformation:
    """Adam whose rate decays on a cosine from ``learning_rate`` to 0 over ``steps`` steps, with two
    per-run hyperparameters: ``learning_rate``, and ``train_lambda`` (1 or 0), which multiplies the
    updates of ``nu_log`` and ``theta_log`` (an optax mask): 0 freezes ``Lambda`` at its
    initialisation. (With a constant rate the training loss spikes and the last epoch decides the
    result; the LRU code base anneals on a cosine too.)"""
    steps = positive_int("steps", steps)

    recurrent = partial(named_in, names=_FROZEN)

    def make(learning_rate: float, train_lambda: float) -> optax.GradientTransformation:
        return optax.chain(
            optax.scale_by_adam(),
            optax.scale_by_schedule(optax.cosine_decay_schedule(1.0, steps)),
            optax.scale(-learning_rate),
            optax.masked(optax.scale(train_lambda), recurrent),
        )

    return optax.inject_hyperparams(make)(learning_rate=1e-3, train_lambda=1.0)


def _shard_runs(tree: nnx.State, runs: int) -> nnx.State:
    """Place ``tree`` (leading run axis) split over all devices when there are several and they
    divide ``runs``; unchanged otherwise."""
    n = jax.device_count()
    if n == 1 or runs % n:
        return tree
    mesh = jax.make_mesh((n,), ("runs",), axis_types=(jax.sharding.AxisType.Auto,))
    return jax.device_put(tree, NamedSharding(mesh, PartitionSpec("runs")))


class Sweep(NamedTuple):
    """Every seed x learning rate x (Lambda frozen / trained) of one :class:`ModelConfig`.

    Arrays are indexed ``[seed, lr, mode]`` with ``modes[m]`` True where ``Lambda`` is trained.
    ``train_loss`` ``(S, R, T, epochs)``: mean training MSE of each epoch; ``test_mse``
    ``(S, R, T)``: test MSE after the last epoch. ``params``: stacked over the runs in the order
    of ``test_mse.ravel()``; :meth:`model` rebuilds one.
    """

    config: ModelConfig
    seeds: tuple[int, ...]
    lrs: tuple[float, ...]
    modes: tuple[bool, ...]
    train_loss: np.ndarray
    test_mse: np.ndarray
    params: nnx.State
    graphdef: nnx.GraphDef
    rest: nnx.State
    wall_s: float

    def model(self, seed: int, lr: int, mode: int) -> LRUModel:
        """The trained model at indices ``[seed, lr, mode]``."""
        run = int(np.ravel_multi_index((seed, lr, mode), self.test_mse.shape))
        return nnx.merge(self.graphdef, jax.tree.map(lambda a: a[run], self.params), self.rest)

    def best(self, mode: int) -> tuple[int, int]:
        """``(seed, lr)`` indices of the lowest test MSE of ``mode`` (the paper's selection)."""
        i, j = np.unravel_index(
            int(np.nanargmin(self.test_mse[..., mode])), self.test_mse.shape[:2]
        )
        return int(i), int(j)

    def summary(self, mode: int) -> dict[str, float]:
        """For ``modes[mode]``: the best test MSE over seeds and rates (what the paper reports);
        over seeds, of each seed's best rate: median, min, max; ``train``: last-epoch training MSE
        of the best run, and its ``lr``."""
        per_seed = np.nanmin(self.test_mse[..., mode], axis=1)
        i, j = self.best(mode)
        return {
            "best": float(self.test_mse[i, j, mode]),
            "median": float(np.median(per_seed)),
            "min": float(per_seed.min()),
            "max": float(per_seed.max()),
            "train": float(self.train_loss[i, j, mode, -1]),
            "lr": float(self.lrs[j]),
        }

    def predict(self, v: Float[ArrayLike, "n L"], mode: int) -> np.ndarray:
        """Predictions of the best run of ``mode`` for inputs ``v`` ``(n, L)``."""
        model = self.model(*self.best(mode), mode)
        return np.asarray(model(with_constant(jnp.asarray(v, jnp.float32)))[..., 0])

    def eigenvalues(self, mode: int) -> Complex[np.ndarray, " N"]:
        """The eigenvalues ``lambda`` of the best run of ``mode``."""
        return np.asarray(self.model(*self.best(mode), mode).lru.eigenvalues())


def sweep(
    config: ModelConfig,
    data: Dataset,
    *,
    seeds: Sequence[int],
    lrs: Sequence[float],
    epochs: int,
    batch_size: int,
    modes: Sequence[bool] = (False, True),
    test_chunk: int = 100,
    progress: bool = False,
) -> Sweep:
    """Train ``config`` on ``data`` for every seed, learning rate and mode (``Lambda`` frozen:
    False, trained: True), all runs as one vectorised, jitted program.

    Seed ``s`` gives the initialisation (``nnx.Rngs(s)``) and the order of the mini-batches
    (``epoch_indices`` with ``jax.random.key(s)``), shared by all rates and modes. Adam with the
    rate on a cosine to 0, no weight decay (App. E.3), ``batch_size`` sequences per step,
    ``epochs`` epochs (the last incomplete batch of an epoch is dropped). The test MSE is
    evaluated ``test_chunk`` sequences at a time.
    """
    if not isinstance(config, ModelConfig):
        raise TypeError(f"config must be a ModelConfig, got {type(config).__name__}")
    seeds = seed_list("seeds", list(seeds))
    lrs = tuple(positive_number("learning rate", lr) for lr in lrs)
    modes = tuple(check_flag("mode", m) for m in modes)
    if not lrs or not modes:
        raise ValueError("lrs and modes must not be empty")
    epochs, batch_size = positive_int("epochs", epochs), positive_int("batch_size", batch_size)
    progress = check_flag("progress", progress)
    n_train = len(data.v_train)
    if batch_size > n_train:
        raise ValueError(f"batch_size={batch_size} exceeds the {n_train} training sequences")
    start = time.perf_counter()
    graphdef, params, rest = stack_models([make_model(config, nnx.Rngs(s)) for s in seeds])
    rest = jax.tree.map(lambda a: a[0], rest)  # not trained: one copy serves every run
    shape = (len(seeds), len(lrs), len(modes))
    per_seed = len(lrs) * len(modes)
    params = jax.tree.map(lambda a: jnp.repeat(a, per_seed, axis=0), params)
    keys = jnp.repeat(jnp.stack([jax.random.key(s) for s in seeds]), per_seed, axis=0)
    per_epoch = n_train // batch_size
    tx = _optimizer(epochs * per_epoch)
    opt_state = jax.vmap(tx.init)(params)
    grid = np.meshgrid(seeds, lrs, modes, indexing="ij")
    opt_state.hyperparams["learning_rate"] = jnp.asarray(grid[1].ravel(), jnp.float32)
    opt_state.hyperparams["train_lambda"] = jnp.asarray(grid[2].ravel(), jnp.float32)
    params, keys, opt_state = _shard_runs((params, keys, opt_state), math.prod(shape))

    v_train, y_train = jnp.asarray(data.v_train), jnp.asarray(data.y_train)

    def batch_at(key: Array, t: Array) -> tuple[Array, Array]:
        idx = epoch_indices(key, t, n_seqs=n_train, batch_size=batch_size)
        return v_train[idx], y_train[idx]

    result = train_params(
        lambda p, batch: model_mse(graphdef, rest, p, *batch),
        params,
        batch_at,
        keys,
        steps=epochs * per_epoch,
        steps_per_round=per_epoch,
        optimizer=tx,
        opt_state=opt_state,
        progress=progress,
        desc=f"{data.system}, {config.readout}",
    )
    test = _test_mse(graphdef, rest, result.params, data.v_test, data.y_test, test_chunk)
    return Sweep(
        config=config,
        seeds=seeds,
        lrs=lrs,
        modes=modes,
        train_loss=result.round_losses.reshape(*shape, -1),
        test_mse=test.reshape(shape),
        params=jax.device_get(result.params),
        graphdef=graphdef,
        rest=rest,
        wall_s=time.perf_counter() - start,
    )


def _test_mse(graphdef, rest, params, v, y, chunk: int) -> np.ndarray:
    """Test MSE of every run (leading axis of ``params``), ``chunk`` sequences at a time."""
    chunk = math.gcd(positive_int("test_chunk", chunk), len(v))
    mse = jax.jit(jax.vmap(partial(model_mse, graphdef, rest), in_axes=(0, None, None)))
    parts = [mse(params, v[i : i + chunk], y[i : i + chunk]) for i in range(0, len(v), chunk)]
    return np.mean(np.stack(parts), axis=0)
