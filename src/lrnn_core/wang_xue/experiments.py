"""The book's trained experiment for Wang & Xue's Prop. 3.9 (NeurIPS 2023, Fig. 4): stacked SSMs
trained on sequence-to-sequence targets, scored by the normalised mean squared error

    NMSE = mean_{n,k} (yhat^n_k - y^n_k)^2 / mean_{n,k} (y^n_k)^2     (1 = predicting zero)

on held-out i.i.d. standard normal inputs, against the two baselines of every trained row
(:mod:`lrnn_core.core.baselines`: the mean training output, and the least-squares causal linear
filter), in the same units. :func:`delay_product` is the book's *off-class* target
``y_k = u_{k-i} u_{k-j}``: a second-order Volterra map whose kernel is a delayed point mass, which
sums of a few decaying exponentials match only with many of them.

:func:`normalised` divides a target by its standard deviation on the test inputs;
:func:`train_grid` runs :func:`train_stack` on every (target, depth, ``N``) of a grid.

Training (ours): :func:`lrnn_core.core.train.train`, Adam with a cosine-decaying step size from
``1e-2``, a fresh batch of 32 sequences of length ``L`` per step.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import jax
import jax.numpy as jnp
import numpy as np
import optax
from jaxtyping import Array, ArrayLike, Float

from lrnn_core.core.baselines import causal_filter_mse, ignores_input_mse
from lrnn_core.core.stacked import ACTIVATIONS, StackedSSM
from lrnn_core.core.train import mse_loss, train
from lrnn_core.core.validate import (
    as_float64,
    check_choice,
    check_shape,
    nonnegative_int,
    positive_int,
    seed_list,
)

__all__ = ["baseline_nmse", "delay_product", "nmse", "normalised", "train_grid", "train_stack"]

Target = Callable[[Array], Array]


def delay_product(
    u: Float[ArrayLike, "*batch L"], i: int = 3, j: int = 7
) -> Float[Array, "*batch L"]:
    """``y_k = u_{k-i} u_{k-j}`` (``u_{<0} = 0``) for inputs ``(..., L)``."""
    u = jnp.asarray(u)
    i, j = nonnegative_int("i", i), nonnegative_int("j", j)

    def delay(x: Array, d: int) -> Array:
        pad = [(0, 0)] * (x.ndim - 1) + [(d, 0)]
        return jnp.pad(x, pad)[..., : x.shape[-1]]

    return delay(u, i) * delay(u, j)


def nmse(pred: Float[ArrayLike, ...], y: Float[ArrayLike, ...]) -> float:
    """``mean (pred - y)^2 / mean y^2``."""
    pred, y = as_float64("pred", pred), as_float64("y", y)
    check_shape("pred", pred, y.shape)
    return float(np.mean((pred - y) ** 2) / np.mean(y**2))


def baseline_nmse(
    target: Target, u_train: Float[ArrayLike, "n L"], u_test: Float[ArrayLike, "m L"]
) -> dict[str, float]:
    """The two baselines' NMSE on ``u_test``, fitted on ``(u_train, target(u_train))``:
    ``{"ignores input": ..., "linear": ...}``."""
    y_train, y_test = np.asarray(target(u_train)), np.asarray(target(u_test))
    power = float(np.mean(y_test**2))
    return {
        "ignores input": ignores_input_mse(y_train, y_test) / power,
        "linear": causal_filter_mse(u_train, y_train, u_test, y_test) / power,
    }


def train_stack(
    target: Target,
    *,
    depth: int,
    N: int,
    L: int,
    steps: int,
    seeds: tuple[int, ...],
    u_test: Float[ArrayLike, "n L"],
    u_long: Float[ArrayLike, "n L_long"] | None = None,
    activation: str = "tanh",
) -> dict[str, float | np.ndarray]:
    """Train ``StackedSSM(1, N, 1, depth=depth, residual=True, activation=activation)`` on
    ``target`` (module docstring), one model per seed; returns the median test ``nmse`` (and
    ``nmse_long`` on ``u_long``) and, for the first seed, ``pred`` and ``target`` of the first
    test sequence."""
    depth, N, L = (
        positive_int("depth", depth),
        positive_int("N", N),
        positive_int("L", L),
    )
    steps, seeds = positive_int("steps", steps), seed_list("seeds", seeds)
    activation = check_choice("activation", activation, tuple(ACTIVATIONS))

    def batch(key: Array) -> tuple[Array, Array]:
        u = jax.random.normal(key, (32, L))
        return u[..., None], target(u)[..., None]

    result = train(
        lambda rngs: StackedSSM(
            1, N, 1, depth=depth, residual=True, activation=activation, rngs=rngs
        ),
        mse_loss,
        batch,
        steps=steps,
        seed=seeds,
        optimizer=optax.adam(optax.cosine_decay_schedule(1e-2, steps)),
        progress=False,
    )
    y_test = np.asarray(target(jnp.asarray(u_test)))
    out: dict[str, float | np.ndarray] = {}
    scores, long_scores = [], []
    for i in range(len(seeds)):
        model = result.model(i)
        pred = np.asarray(model(jnp.asarray(u_test)[..., None]))[..., 0]
        scores.append(nmse(pred, y_test))
        if i == 0:
            out.update(pred=pred[0], target=y_test[0])
        if u_long is not None:
            pred_l = np.asarray(model(jnp.asarray(u_long)[..., None]))[..., 0]
            long_scores.append(nmse(pred_l, np.asarray(target(jnp.asarray(u_long)))))
    out["nmse"] = float(np.median(scores))
    if u_long is not None:
        out["nmse_long"] = float(np.median(long_scores))
    return out


def normalised(target: Target, u_test: Float[ArrayLike, "n L"]) -> Target:
    """``u -> target(u) / std(target(u_test))``: the target in units of its test spread."""
    scale = float(jnp.std(target(jnp.asarray(u_test))))
    if not scale > 0:
        raise ValueError(f"the target is constant on u_test (std {scale})")
    return lambda u: target(u) / scale


def train_grid(
    targets: Mapping[str, Target],
    *,
    depths: Sequence[int],
    Ns: Sequence[int],
    L: int,
    steps: int,
    seeds: tuple[int, ...],
    u_test: Float[ArrayLike, "n L"],
    u_long: Float[ArrayLike, "n L_long"] | None = None,
) -> dict[tuple[str, int, int], dict[str, float | np.ndarray]]:
    """:func:`train_stack` (tanh) for every target, depth and width ``N``, keyed
    ``(name, depth, N)`` in that order."""
    return {
        (name, depth, N): train_stack(
            target,
            depth=depth,
            N=N,
            L=L,
            steps=steps,
            seeds=seeds,
            u_test=u_test,
            u_long=u_long,
        )
        for name, target in targets.items()
        for depth in depths
        for N in Ns
    }
