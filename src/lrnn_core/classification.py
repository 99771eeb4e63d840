"""Sequence classification with continuous-time RNNs: sequential MNIST (Wang, Li & Li, ICLR 2024, App. E,
Fig. 9 and Table 1).

The model is the CTRNN of :mod:`lrnn_core.ctrnn` read at the last step,

    h_{k+1} = h_k + dt * sigma(lam * h_k + U x_k + b),   logits = c^T h_T,

trained with the softmax cross-entropy. The paper trains "nonlinear RNNs on MNIST for 10 epochs" with the
four recurrent-weight parameterisations (direct, exp, softplus, inverse) from *identical initial weights*;
:func:`compare_parameterisations` does this: one set of initial eigenvalues per seed, re-expressed in each
parameterisation with :func:`lrnn_core.ctrnn.raw_from_weight`, so that all four start from the same function.
Seeds are trained side by side with ``jax.vmap``.

Images become pixel sequences (row-major scan, one pixel per step, ``d_in = 1``), optionally block-averaged
to ``side x side`` pixels first (``side = 28``: the 784-step task). Pixels are standardised with the usual
MNIST mean 0.1307 and standard deviation 0.3081 (the normalisation of the authors' MNIST data module).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import optax
from tqdm.auto import tqdm

from lrnn_core.ctrnn import (
    CTRNN,
    PARAMETERISATIONS,
    ctrnn_outputs,
    init_ctrnn,
    raw_from_weight,
)
from lrnn_core.mnist import load_mnist
from lrnn_core.validate import as_inexact, check_finite

__all__ = [
    "MNIST_MEAN",
    "MNIST_STD",
    "ClassificationRun",
    "SequenceData",
    "classifier_logits",
    "compare_parameterisations",
    "evaluate",
    "initial_classifiers",
    "mnist_pixel_data",
    "pixel_sequences",
    "same_start",
    "train_classifier",
]

MNIST_MEAN = 0.1307
MNIST_STD = 0.3081


class SequenceData(NamedTuple):
    """A labelled set of sequences: ``x`` (n, T, d_in) float32, ``labels`` (n,) int32."""

    x: jax.Array
    labels: jax.Array


class ClassificationRun(NamedTuple):
    """One parameterisation trained from several seeds (leading axis of every array = seed).

    ``train_loss`` (seeds, steps): the mini-batch loss of every step, before that step's update;
    ``test_loss``, ``test_accuracy`` (seeds,): after the last epoch; ``params``: the trained CTRNNs.
    """

    parameterisation: str
    seeds: tuple[int, ...]
    train_loss: np.ndarray
    test_loss: np.ndarray
    test_accuracy: np.ndarray
    params: CTRNN


def pixel_sequences(images: np.ndarray, side: int = 28) -> np.ndarray:
    """Pixel sequences (n, side*side, 1), float32, standardised, of uint8 images (n, 28, 28).

    ``side < 28`` first averages ``28/side x 28/side`` blocks (``side`` must divide 28), so ``side = 14``
    gives 196 steps and ``side = 28`` the 784 steps of sequential MNIST.
    """
    images = np.asarray(images)
    if images.ndim != 3 or images.shape[1:] != (28, 28):
        raise ValueError(f"images must have shape (n, 28, 28), got {images.shape}")
    if isinstance(side, bool) or not isinstance(side, (int, np.integer)) or side < 1 or 28 % side:
        raise ValueError(f"side must be a divisor of 28 (1, 2, 4, 7, 14, 28), got {side!r}")
    f = 28 // side
    pixels = images.astype(np.float64).reshape(-1, side, f, side, f).mean(axis=(2, 4)) / 255.0
    return ((pixels - MNIST_MEAN) / MNIST_STD).reshape(-1, side * side, 1).astype(np.float32)


def mnist_pixel_data(
    split: Literal["train", "test"], n: int | None = None, *, side: int = 28
) -> SequenceData:
    """The first ``n`` MNIST images of ``split`` as pixel sequences (:func:`pixel_sequences`) with labels."""
    images, labels = load_mnist(split)
    if n is not None and not 0 < n <= len(images):
        raise ValueError(f"n must be in 1..{len(images)}, got {n}")
    images, labels = images[:n], labels[:n]
    return SequenceData(jnp.asarray(pixel_sequences(images, side)), jnp.asarray(labels, jnp.int32))


def classifier_logits(
    params: CTRNN, x: jax.Array, *, parameterisation: str, activation: str = "tanh", dt: float = 1.0
) -> jax.Array:
    """Logits ``c^T h_T`` (..., n_classes) of the CTRNN read at the last step of ``x`` (..., T, d_in)."""
    return ctrnn_outputs(params, x, activation=activation, parameterisation=parameterisation, dt=dt)[
        ..., -1, :
    ]


def _check_data(name: str, data: SequenceData, n_classes: int) -> SequenceData:
    x = as_inexact(f"{name}.x", data.x)
    labels = np.asarray(data.labels)
    if x.ndim != 3:
        raise ValueError(f"{name}.x must have shape (n, T, d_in), got {x.shape}")
    if labels.shape != x.shape[:1]:
        raise ValueError(f"{name}.labels must have shape ({x.shape[0]},), got {labels.shape}")
    if not np.issubdtype(labels.dtype, np.integer) or labels.min() < 0 or labels.max() >= n_classes:
        raise ValueError(f"{name}.labels must be integers in 0..{n_classes - 1}")
    check_finite(f"{name}.x", x)
    return SequenceData(x, jnp.asarray(labels, jnp.int32))


def evaluate(
    params: CTRNN,
    data: SequenceData,
    *,
    parameterisation: str,
    activation: str = "tanh",
    dt: float = 1.0,
    chunk: int = 1000,
) -> tuple[float, float]:
    """Mean cross-entropy and accuracy of one CTRNN on ``data``, in chunks of ``chunk`` sequences."""
    data = _check_data("data", data, params.c.shape[-1])

    @jax.jit
    def sums(x, labels):
        logits = classifier_logits(params, x, parameterisation=parameterisation, activation=activation, dt=dt)
        loss = optax.softmax_cross_entropy_with_integer_labels(logits, labels)
        return loss.sum(), (logits.argmax(-1) == labels).sum()

    n = data.x.shape[0]
    totals = [sums(data.x[i : i + chunk], data.labels[i : i + chunk]) for i in range(0, n, chunk)]
    loss, correct = (float(sum(t[j] for t in totals)) for j in range(2))
    return loss / n, correct / n


def initial_classifiers(
    seeds: Sequence[int],
    m: int,
    *,
    d_in: int = 1,
    n_classes: int = 10,
    decay_range: tuple[float, float] = (0.005, 0.5),
) -> CTRNN:
    """One random CTRNN per seed, in the "direct" parameterisation (raw = eigenvalues), stacked on axis 0.

    Eigenvalues ``-Uniform(decay_range)``; the default puts some of them close to the stability boundary 0
    (memories of hundreds of steps, needed to read a 196- or 784-step image), where the parameterisation
    matters. The readout ``c`` is scaled by 0.1 so that the initial loss is close to ``log(n_classes)``.
    """
    def one(seed: int) -> CTRNN:
        p = init_ctrnn(jax.random.key(seed), m, d_in=d_in, d_out=n_classes, decay_range=decay_range)
        return p._replace(c=0.1 * p.c)

    seeds = _check_seeds(seeds)
    return jax.tree.map(lambda *leaves: jnp.stack(leaves), *(one(s) for s in seeds))


def same_start(direct: CTRNN, parameterisation: str) -> CTRNN:
    """``direct`` (raw = eigenvalues) re-expressed in ``parameterisation``: the same network, the same
    function, only the coordinates of the recurrent weight change (WLL Table 1: "identical initial
    weights")."""
    return direct._replace(raw=raw_from_weight(direct.raw, parameterisation))


def _check_seeds(seeds: Sequence[int]) -> tuple[int, ...]:
    seeds = tuple(seeds)
    if not seeds or any(isinstance(s, bool) or not isinstance(s, (int, np.integer)) or s < 0 for s in seeds):
        raise ValueError(f"seeds must be a non-empty sequence of non-negative ints, got {seeds!r}")
    return tuple(int(s) for s in seeds)


def train_classifier(
    init: CTRNN,
    train: SequenceData,
    test: SequenceData,
    *,
    parameterisation: str,
    seeds: Sequence[int],
    epochs: int,
    batch_size: int = 128,
    learning_rate: float = 0.01,
    activation: str = "tanh",
    dt: float = 1.0,
    progress: bool = True,
) -> ClassificationRun:
    """Train the CTRNNs ``init`` (stacked over ``seeds``, already in ``parameterisation``) with Adam on the
    cross-entropy of ``train``, all seeds at once (``jax.vmap``), then evaluate each on ``test``.

    Each epoch visits the training set in a fresh random order drawn from the seed (the last incomplete
    batch is dropped). No gradient clipping, no learning-rate schedule: the comparison is of the bare
    parameterisations.
    """
    if parameterisation not in PARAMETERISATIONS:
        raise ValueError(f"parameterisation must be one of {PARAMETERISATIONS}, got {parameterisation!r}")
    seeds = _check_seeds(seeds)
    if init.raw.ndim != 2 or init.raw.shape[0] != len(seeds):
        raise ValueError(f"init must be stacked over the {len(seeds)} seeds (raw of shape (seeds, m)), "
                         f"got raw of shape {init.raw.shape}")
    n_classes = init.c.shape[-1]
    train, test = _check_data("train", train, n_classes), _check_data("test", test, n_classes)
    for name, value in (("epochs", epochs), ("batch_size", batch_size)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"{name} must be a positive int, got {value!r}")
    n = train.x.shape[0]
    if batch_size > n:
        raise ValueError(f"batch_size={batch_size} exceeds the {n} training sequences")
    tx = optax.adam(learning_rate)

    def loss_fn(params, x, labels):
        logits = classifier_logits(params, x, parameterisation=parameterisation, activation=activation, dt=dt)
        return optax.softmax_cross_entropy_with_integer_labels(logits, labels).mean()

    def step(params, opt_state, x, labels):
        loss, grads = jax.value_and_grad(loss_fn)(params, x, labels)
        updates, opt_state = tx.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), opt_state, loss

    step = jax.jit(jax.vmap(step))
    params, opt_state = init, jax.vmap(tx.init)(init)
    data_keys = [jax.random.fold_in(jax.random.key(s), 1) for s in seeds]
    per_epoch = n // batch_size
    losses = []
    with tqdm(total=epochs * per_epoch, disable=not progress, desc=f"MNIST {parameterisation}") as bar:
        for epoch in range(epochs):
            order = np.stack(
                [np.asarray(jax.random.permutation(jax.random.fold_in(k, epoch), n)) for k in data_keys]
            )
            for i in range(per_epoch):
                idx = order[:, i * batch_size : (i + 1) * batch_size]
                params, opt_state, loss = step(params, opt_state, train.x[idx], train.labels[idx])
                losses.append(loss)
                bar.update()
                if i % 20 == 0:
                    bar.set_postfix(loss=f"{float(jnp.mean(loss)):.3f}")
    results = [
        evaluate(jax.tree.map(lambda a: a[j], params), test, parameterisation=parameterisation,
                 activation=activation, dt=dt)
        for j in range(len(seeds))
    ]
    return ClassificationRun(
        parameterisation=parameterisation,
        seeds=seeds,
        train_loss=np.stack([np.asarray(x) for x in losses], axis=1),
        test_loss=np.array([r[0] for r in results]),
        test_accuracy=np.array([r[1] for r in results]),
        params=params,
    )


def compare_parameterisations(
    train: SequenceData,
    test: SequenceData,
    *,
    m: int,
    seeds: Sequence[int],
    epochs: int,
    parameterisations: Sequence[str] = PARAMETERISATIONS,
    n_classes: int = 10,
    decay_range: tuple[float, float] = (0.005, 0.5),
    **train_kwargs,
) -> dict[str, ClassificationRun]:
    """Train each parameterisation from the same initial CTRNNs (one per seed; WLL App. E, Fig. 9, Table 1).

    Remaining keywords go to :func:`train_classifier` (``batch_size``, ``learning_rate``, ``activation``,
    ``dt``, ``progress``).
    """
    direct = initial_classifiers(
        seeds, m, d_in=train.x.shape[-1], n_classes=n_classes, decay_range=decay_range
    )
    return {
        p: train_classifier(same_start(direct, p), train, test, parameterisation=p, seeds=seeds,
                            epochs=epochs, **train_kwargs)
        for p in parameterisations
    }
