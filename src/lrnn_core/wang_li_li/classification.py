"""Sequence classification with continuous-time RNNs: sequential MNIST (Wang, Li & Li, ICLR 2024,
App. E, Fig. 9 and Table 1).

The model is the CTRNN of :mod:`lrnn_core.wang_li_li.ctrnn` read at the last step,

    x_{k+1} = x_k + dt * sigma(lam * x_k + B u_k + b),   logits = C x_L,

trained with the softmax cross-entropy. The paper trains "nonlinear RNNs on MNIST for 10 epochs"
with the four recurrent-weight parameterisations (direct, exp, softplus, inverse) from *identical
initial weights*; :func:`compare_parameterisations` does this: one set of initial eigenvalues per
seed, re-expressed in each parameterisation with :func:`lrnn_core.wang_li_li.ctrnn.raw_from_weight`,
so that all four start from the same function. Seeds are trained side by side with ``jax.vmap`` by
the book's one training loop, :func:`lrnn_core.core.train.train_params`.

Images become pixel sequences (row-major scan, one pixel per step, ``M = 1``), optionally
block-averaged to ``side x side`` pixels first (``side = 28``: the 784-step task). Pixels are
standardised with the usual MNIST mean 0.1307 and standard deviation 0.3081 (the normalisation of
the authors' MNIST data module).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import optax
from jaxtyping import Array, ArrayLike, Float, Int

from lrnn_core.core.train import TrainResult, epoch_indices, train_params
from lrnn_core.core.validate import (
    as_inexact,
    check_choice,
    check_finite,
    check_flag,
    check_ndim,
    check_shape,
    positive_int,
    positive_number,
    seed_list,
)
from lrnn_core.data.mnist import load_mnist
from lrnn_core.wang_li_li.ctrnn import (
    ACTIVATIONS,
    CTRNN,
    PARAMETERISATIONS,
    check_ctrnn,
    ctrnn_outputs,
    init_ctrnn,
    raw_from_weight,
)

__all__ = [
    "MNIST_MEAN",
    "MNIST_STD",
    "ClassificationRun",
    "SequenceData",
    "classifier_logits",
    "compare_parameterisations",
    "evaluate",
    "initial_classifiers",
    "labelled_sequences",
    "mnist_pixel_data",
    "pixel_sequences",
    "same_start",
    "train_classifier",
]

MNIST_MEAN = 0.1307
MNIST_STD = 0.3081


class SequenceData(NamedTuple):
    """A labelled set of sequences: ``u`` (n_seqs, L, M) float32, ``labels`` (n_seqs,) int32."""

    u: Float[Array, "n_seqs L M"]
    labels: Int[Array, " n_seqs"]


class ClassificationRun(NamedTuple):
    """One parameterisation trained from several seeds (leading axis of every array = seed).

    ``training``: the :class:`lrnn_core.core.train.TrainResult` of the book's one loop (its
    ``losses`` (seeds, steps): the mini-batch loss of every step, before that step's update;
    its ``params``: the trained CTRNNs); ``test_loss``, ``test_accuracy`` (seeds,): after the last
    epoch.
    """

    parameterisation: str
    seeds: tuple[int, ...]
    training: TrainResult
    test_loss: np.ndarray
    test_accuracy: np.ndarray

    @property
    def train_loss(self) -> np.ndarray:
        """The mini-batch loss of every step (seeds, steps), before that step's update."""
        return self.training.losses

    @property
    def params(self) -> CTRNN:
        """The trained CTRNNs, stacked over seeds."""
        return self.training.params


def pixel_sequences(images: ArrayLike, side: int = 28) -> np.ndarray:
    """Pixel sequences (n_seqs, side*side, 1), float32, standardised, of uint8 images
    (n_seqs, 28, 28).

    ``side < 28`` first averages ``28/side x 28/side`` blocks (``side`` must divide 28), so ``side =
    14`` gives 196 steps and ``side = 28`` the 784 steps of sequential MNIST.
    """
    images = np.asarray(images)
    check_shape("images", images, (None, 28, 28))
    side = check_choice("side", positive_int("side", side), (1, 2, 4, 7, 14, 28))
    f = 28 // side
    pixels = images.astype(np.float64).reshape(-1, side, f, side, f).mean(axis=(2, 4)) / 255.0
    return ((pixels - MNIST_MEAN) / MNIST_STD).reshape(-1, side * side, 1).astype(np.float32)


def mnist_pixel_data(
    split: Literal["train", "test"], n_seqs: int | None = None, *, side: int = 28
) -> SequenceData:
    """The first ``n_seqs`` MNIST images of ``split`` as pixel sequences (:func:`pixel_sequences`)
    with labels."""
    check_choice("split", split, ("train", "test"))
    if n_seqs is not None:
        n_seqs = positive_int("n_seqs", n_seqs)
    images, labels = load_mnist(split)
    if n_seqs is not None and n_seqs > len(images):
        raise ValueError(f"n_seqs must be in 1..{len(images)}, got {n_seqs}")
    images, labels = images[:n_seqs], labels[:n_seqs]
    return SequenceData(jnp.asarray(pixel_sequences(images, side)), jnp.asarray(labels, jnp.int32))


def classifier_logits(
    params: CTRNN,
    u: Float[ArrayLike, "*batch L M"],
    *,
    parameterisation: str,
    activation: str = "tanh",
    dt: float = 1.0,
) -> Float[Array, "*batch n_classes"]:
    """Logits ``C x_L`` (..., n_classes) of the CTRNN read at the last step of ``u`` (..., L, M)."""
    return ctrnn_outputs(
        params, u, activation=activation, parameterisation=parameterisation, dt=dt
    )[..., -1, :]


def labelled_sequences(name: str, data: SequenceData, n_classes: int) -> SequenceData:
    """``data`` checked as a labelled set for ``n_classes`` classes: ``u`` (n_seqs, L, M) finite
    floats and ``labels`` (n_seqs,) integers in ``0..n_classes-1``; ValueError/TypeError naming
    ``name`` otherwise."""
    if not isinstance(data, SequenceData):
        raise TypeError(f"{name} must be a SequenceData, got {type(data).__name__}")
    u = as_inexact(f"{name}.u", data.u)
    check_shape(f"{name}.u", u, (None, None, None))
    check_finite(f"{name}.u", u)
    labels = np.asarray(data.labels)
    check_shape(f"{name}.labels", labels, (u.shape[0],))
    if not np.issubdtype(labels.dtype, np.integer):
        raise TypeError(f"{name}.labels must be integers, got dtype {labels.dtype}")
    if labels.min() < 0 or labels.max() >= n_classes:
        raise ValueError(f"{name}.labels must be integers in 0..{n_classes - 1}")
    return SequenceData(u, jnp.asarray(labels, jnp.int32))


def evaluate(
    params: CTRNN,
    data: SequenceData,
    *,
    parameterisation: str,
    activation: str = "tanh",
    dt: float = 1.0,
    chunk: int = 1000,
) -> tuple[float, float]:
    """Mean cross-entropy and accuracy of one CTRNN on ``data``, in chunks of ``chunk``
    sequences."""
    check_ctrnn("params", params)
    chunk = positive_int("chunk", chunk)
    data = labelled_sequences("data", data, params.C.shape[0])

    @jax.jit
    def sums(u, labels):
        logits = classifier_logits(
            params, u, parameterisation=parameterisation, activation=activation, dt=dt
        )
        loss = optax.softmax_cross_entropy_with_integer_labels(logits, labels)
        return loss.sum(), (logits.argmax(-1) == labels).sum()

    n_seqs = data.u.shape[0]
    totals = [
        sums(data.u[i : i + chunk], data.labels[i : i + chunk]) for i in range(0, n_seqs, chunk)
    ]
    loss, correct = (float(sum(t[j] for t in totals)) for j in range(2))
    return loss / n_seqs, correct / n_seqs


def initial_classifiers(
    seeds: Sequence[int],
    N: int,
    *,
    M: int = 1,
    n_classes: int = 10,
    decay_range: tuple[float, float] = (0.005, 0.5),
) -> CTRNN:
    """One random CTRNN per seed, in the "direct" parameterisation (raw = eigenvalues), stacked on
    axis 0.

    Eigenvalues ``-Uniform(decay_range)``; the default puts some of them close to the stability
    boundary 0 (memories of hundreds of steps, needed to read a 196- or 784-step image), where the
    parameterisation matters. The readout ``C`` is scaled by 0.1 so that the initial loss is close
    to
    ``log(n_classes)``.
    """

    def one(seed: int) -> CTRNN:
        p = init_ctrnn(jax.random.key(seed), N, M=M, d_out=n_classes, decay_range=decay_range)
        return p._replace(C=0.1 * p.C)

    seeds = seed_list("seeds", seeds)
    return jax.tree.map(lambda *leaves: jnp.stack(leaves), *(one(s) for s in seeds))


def same_start(direct: CTRNN, parameterisation: str) -> CTRNN:
    """``direct`` (raw = eigenvalues) re-expressed in ``parameterisation``: the same network, the
    same function, only the coordinates of the recurrent weight change (WLL Table 1: "identical
    initial weights")."""
    check_ctrnn("direct", direct)
    return direct._replace(raw=raw_from_weight(direct.raw, parameterisation))


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
    """Train the CTRNNs ``init`` (stacked over ``seeds``, already in ``parameterisation``) with Adam
    on the cross-entropy of ``train``, all seeds at once (``jax.vmap``), then evaluate each on
    ``test`` (WLL App. E).

    Epoch ``e`` of seed ``s`` visits the training set in the order
    ``permutation(fold_in(fold_in(key(s), 1), e), n_seqs)`` (the last incomplete batch is dropped).
    No gradient clipping, no learning-rate schedule: the comparison is of the bare
    parameterisations. The loop is :func:`lrnn_core.core.train.train_params`, one step per round.
    """
    check_choice("parameterisation", parameterisation, PARAMETERISATIONS)
    check_choice("activation", activation, ACTIVATIONS)
    seeds = seed_list("seeds", seeds)
    check_ctrnn("init", init)
    check_ndim("init.raw", init.raw, 2)
    if init.raw.shape[0] != len(seeds):
        raise ValueError(
            f"init must be stacked over the {len(seeds)} seeds (raw of shape (seeds, N)), "
            f"got raw of shape {init.raw.shape}"
        )
    n_classes = init.C.shape[-2]
    train = labelled_sequences("train", train, n_classes)
    test = labelled_sequences("test", test, n_classes)
    epochs = positive_int("epochs", epochs)
    batch_size = positive_int("batch_size", batch_size)
    learning_rate = positive_number("learning_rate", learning_rate)
    dt = positive_number("dt", dt)
    progress = check_flag("progress", progress)
    n_seqs = train.u.shape[0]
    if batch_size > n_seqs:
        raise ValueError(f"batch_size={batch_size} exceeds the {n_seqs} training sequences")

    def loss(params, batch):
        u, labels = batch
        logits = classifier_logits(
            params, u, parameterisation=parameterisation, activation=activation, dt=dt
        )
        return optax.softmax_cross_entropy_with_integer_labels(logits, labels).mean()

    def batch_at(key, t):
        idx = epoch_indices(key, t, n_seqs=n_seqs, batch_size=batch_size)
        return train.u[idx], train.labels[idx]

    data_keys = jnp.stack([jax.random.fold_in(jax.random.key(s), 1) for s in seeds])
    training = train_params(
        loss,
        init,
        batch_at,
        data_keys,
        steps=epochs * (n_seqs // batch_size),
        optimizer=optax.adam(learning_rate),
        progress=progress,
        desc=f"MNIST {parameterisation}",
    )
    results = [
        evaluate(
            jax.tree.map(lambda a, j=j: a[j], training.params),
            test,
            parameterisation=parameterisation,
            activation=activation,
            dt=dt,
        )
        for j in range(len(seeds))
    ]
    return ClassificationRun(
        parameterisation=parameterisation,
        seeds=seeds,
        training=training,
        test_loss=np.array([r[0] for r in results]),
        test_accuracy=np.array([r[1] for r in results]),
    )


def compare_parameterisations(
    train: SequenceData,
    test: SequenceData,
    *,
    N: int,
    seeds: Sequence[int],
    epochs: int,
    parameterisations: Sequence[str] = PARAMETERISATIONS,
    n_classes: int = 10,
    decay_range: tuple[float, float] = (0.005, 0.5),
    **train_kwargs,
) -> dict[str, ClassificationRun]:
    """Train each parameterisation from the same initial CTRNNs (one per seed; WLL App. E, Fig. 9,
    Table 1).

    Remaining keywords go to :func:`train_classifier` (``batch_size``, ``learning_rate``,
    ``activation``,
    ``dt``, ``progress``).
    """
    train = labelled_sequences("train", train, n_classes)
    for p in parameterisations:
        check_choice("parameterisations", p, PARAMETERISATIONS)
    direct = initial_classifiers(
        seeds, N, M=train.u.shape[-1], n_classes=n_classes, decay_range=decay_range
    )
    return {
        p: train_classifier(
            same_start(direct, p),
            train,
            test,
            parameterisation=p,
            seeds=seeds,
            epochs=epochs,
            **train_kwargs,
        )
        for p in parameterisations
    }
