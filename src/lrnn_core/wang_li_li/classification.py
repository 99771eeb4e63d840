"""Sequence classification with continuous-time RNNs: sequential MNIST (Wang, Li & Li, ICLR 2024,
App. E, Fig. 9 and Table 1).

The paper trains "nonlinear RNNs on the MNIST dataset for 10 epochs" with the recurrent-weight
parameterisations direct, exp, softplus and inverse, "initialized with identical weight
configurations", and gives no architecture. The model here is the authors' stably reparameterised
nonlinear RNN (github radarFudan/Curse-of-memory, ``src/models/recurrent/softplusrnn.py``), with a
linear encoder and decoder (their ``encoders/linear.py``, ``decoders/linear.py``), read at the last
step:

    x_{k+1} = x_k + dt * tanh(W x_k + B u_k + b),   W = P^T diag(f(raw)) P,   logits = C x_L + c,

where ``P`` (N, N) is a trained matrix initialised orthogonal and ``f`` is one of the maps of
:func:`lrnn_core.wang_li_li.ctrnn.recurrent_weight` (the authors' code writes ``x - P^T W P h`` with
``W = softplus(w) > 0``, i.e. ``f = -softplus``). For every ``P`` the matrix ``W`` is symmetric with
``z^T W z = (P z)^T diag(f(raw)) (P z) <= 0``, so a stable ``f`` keeps the recurrence stable even
though ``P`` is not kept orthogonal during training.

:func:`compare_parameterisations` starts the four parameterisations from the same network: one
initial classifier per seed, its eigenvalues re-expressed in each parameterisation with
:func:`lrnn_core.wang_li_li.ctrnn.raw_from_weight`. Seeds are trained side by side with
``jax.vmap`` by the book's one training loop, :func:`lrnn_core.core.train.train_params`, with the
optimiser of the same authors' sequential-MNIST configuration (github radarFudan/StableSSM,
``configs/experiment/MNIST/ssm.yaml``): AdamW, learning rate 0.01, weight decay 0.01, cosine decay
to 0 over the run, batch 128.

Images become pixel sequences (row-major scan, one pixel per step, ``M = 1``), optionally
block-averaged to ``side x side`` pixels first (``side = 28``: the 784-step task). Pixels are
standardised with the usual MNIST mean 0.1307 and standard deviation 0.3081 (the normalisation of
the authors' MNIST data module).

**Baselines** (the same test set as the trained models, error = fraction misclassified):

* the best predictor that **ignores the input**: always the most frequent training class, error
  ``1 - #{n: y_n = c*} / n_test`` with ``c* = argmax_c #{train labels = c}``
  (:func:`class_prior_error`);
* the best **linear** classifier of the same input: multinomial logistic regression on the
  flattened pixel sequence ``u`` (every pixel the RNN sees), ``p(y=c|u) = softmax(A u + a)_c``,
  fitted by minimising the mean training cross-entropy plus ``(l2 / 2) |A|_F^2`` with L-BFGS
  (a convex problem: the fit does not depend on a seed), :func:`logistic_regression_error`.

**Paired comparison**: seed ``s`` starts every parameterisation from the same network and visits
the training set in the same order, so the per-seed measures of two parameterisations
(:func:`per_seed_measures`, signed by :data:`HIGHER`) are paired; the test on their differences is
:func:`lrnn_core.core.verdicts.paired_difference`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial
from typing import Literal, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import optax
import scipy.optimize
import scipy.special
from jaxtyping import Array, ArrayLike, Float, Int

from lrnn_core.core.train import TrainResult, epoch_indices, epoch_order, train_params
from lrnn_core.core.validate import (
    as_float64,
    as_inexact,
    check_choice,
    check_finite,
    check_flag,
    check_ndim,
    check_shape,
    check_type,
    positive_int,
    positive_number,
    real_number,
    seed_list,
)
from lrnn_core.data.mnist import load_mnist
from lrnn_core.wang_li_li.ctrnn import PARAMETERISATIONS, raw_from_weight, recurrent_weight

MNIST_MEAN = 0.1307
MNIST_STD = 0.3081


class SequenceData(NamedTuple):
    """A labelled set of sequences: ``u`` (n_seqs, L, M) float32, ``labels`` (n_seqs,) int32."""

    u: Float[Array, "n_seqs L M"]
    labels: Int[Array, " n_seqs"]


class Classifier(NamedTuple):
    """Parameters of the sequence classifier (a pytree; leading run axes allowed): ``raw`` (N,)
    gives the eigenvalues ``f(raw)`` of ``W = P^T diag(f(raw)) P``, ``P`` (N, N) the mixing matrix,
    ``B`` (N, M) and ``b`` (N,) the encoder, ``C`` (n_classes, N) and ``c`` (n_classes,) the
    decoder."""

    raw: Float[Array, "*runs N"]
    P: Float[Array, "*runs N N"]
    B: Float[Array, "*runs N M"]
    b: Float[Array, "*runs N"]
    C: Float[Array, "*runs n_classes N"]
    c: Float[Array, "*runs n_classes"]


class ClassificationRun(NamedTuple):
    """One parameterisation trained from several seeds (leading axis of every array = seed).

    ``training``: the :class:`lrnn_core.core.train.TrainResult` of the book's one loop (its
    ``losses`` (seeds, steps): the mini-batch loss of every step, before that step's update;
    its ``params``: the trained classifiers); ``test_loss``, ``test_accuracy`` (seeds,): after the
    last epoch.
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


def check_classifier(name: str, params: Classifier) -> None:
    """TypeError unless ``params`` is a :class:`Classifier`; ValueError if its shapes disagree or
    (when concrete) it holds NaN or infinity. Leading run axes are allowed."""
    check_type(name, params, Classifier)
    shapes = {}
    for field, value in params._asdict().items():
        label = f"{name}.{field}"
        as_inexact(label, value)
        check_finite(label, value)
        shapes[field] = np.shape(value)
    N, n_classes = shapes["raw"][-1], shapes["c"][-1]
    expected = {"P": (N, N), "b": (N,), "C": (n_classes, N)}
    consistent = all(shapes[k][-len(shape) :] == shape for k, shape in expected.items())
    if not consistent or shapes["B"][-2:-1] != (N,):
        raise ValueError(
            f"{name} is inconsistent: shapes {shapes} (expected raw (N,), P (N, N), B (N, M), "
            "b (N,), C (n_classes, N), c (n_classes,))"
        )


def mixing_weight(params: Classifier, parameterisation: str) -> Float[Array, "*runs N N"]:
    """The recurrent matrix ``W = P^T diag(f(raw)) P`` (the authors' ``softplusrnn.py``, with any
    of the four maps ``f`` of :func:`lrnn_core.wang_li_li.ctrnn.recurrent_weight`)."""
    check_classifier("params", params)
    lam = recurrent_weight(params.raw, parameterisation)
    P = jnp.asarray(params.P)
    return jnp.swapaxes(P, -1, -2) @ (lam[..., :, None] * P)


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
    params: Classifier,
    u: Float[ArrayLike, "*batch L M"],
    *,
    parameterisation: str,
    dt: float = 1.0,
) -> Float[Array, "*batch n_classes"]:
    """Logits ``C x_L + c`` (..., n_classes) of the classifier on ``u`` (..., L, M), with
    ``x_{k+1} = x_k + dt * tanh(W x_k + B u_k + b)``, ``x_0 = 0``, ``W`` of :func:`mixing_weight`
    (WLL Sec. 2 and App. E; the authors' ``softplusrnn.py``)."""
    W = mixing_weight(params, parameterisation)
    u = as_inexact("u", u)
    check_ndim("u", u, 2)
    N, M = params.B.shape
    if u.shape[-1] != M or params.raw.shape != (N,):
        raise ValueError(
            "u must have shape (..., L, M) and params be one classifier (raw (N,)), got "
            f"u {u.shape}, raw {params.raw.shape}, B {params.B.shape}"
        )
    dt = positive_number("dt", dt)
    drive = u @ params.B.T + params.b  # (..., L, N)

    def step(x, d):
        return x + dt * jnp.tanh(x @ W.T + d), None

    x0 = jnp.zeros(drive.shape[:-2] + (N,), drive.dtype)
    x, _ = jax.lax.scan(step, x0, jnp.moveaxis(drive, -2, 0))
    return x @ params.C.T + params.c


def labelled_sequences(name: str, data: SequenceData, n_classes: int) -> SequenceData:
    """``data`` checked as a labelled set for ``n_classes`` classes: ``u`` (n_seqs, L, M) finite
    floats and ``labels`` (n_seqs,) integers in ``0..n_classes-1``; ValueError/TypeError naming
    ``name`` otherwise."""
    check_type(name, data, SequenceData)
    u = as_inexact(f"{name}.u", data.u)
    check_shape(f"{name}.u", u, (None, None, None))
    check_finite(f"{name}.u", u)
    labels = _labels(f"{name}.labels", data.labels, n_classes)
    check_shape(f"{name}.labels", labels, (u.shape[0],))
    return SequenceData(u, jnp.asarray(labels, jnp.int32))


@partial(jax.jit, static_argnums=(3, 4))
def _loss_and_correct(
    params: Classifier, u: Array, labels: Array, parameterisation: str, dt: float
) -> tuple[Array, Array]:
    """Summed cross-entropy and number of correct predictions on one chunk (compiled once per
    shape, parameterisation and step)."""
    logits = classifier_logits(params, u, parameterisation=parameterisation, dt=dt)
    loss = optax.softmax_cross_entropy_with_integer_labels(logits, labels)
    return loss.sum(), (logits.argmax(-1) == labels).sum()


def evaluate(
    params: Classifier,
    data: SequenceData,
    *,
    parameterisation: str,
    dt: float = 1.0,
    chunk: int = 1000,
) -> tuple[float, float]:
    """Mean cross-entropy and accuracy of one classifier on ``data``, in chunks of ``chunk``
    sequences."""
    check_classifier("params", params)
    chunk = positive_int("chunk", chunk)
    data = labelled_sequences("data", data, params.c.shape[0])

    n_seqs = data.u.shape[0]
    totals = [
        _loss_and_correct(
            params, data.u[i : i + chunk], data.labels[i : i + chunk], parameterisation, dt
        )
        for i in range(0, n_seqs, chunk)
    ]
    loss, correct = (float(sum(t[j] for t in totals)) for j in range(2))
    return loss / n_seqs, correct / n_seqs


def initial_classifiers(
    seeds: Sequence[int], N: int, *, M: int = 1, n_classes: int = 10
) -> Classifier:
    """One random classifier per seed, in the "direct" parameterisation (raw = eigenvalues), stacked
    on axis 0, initialised as the authors' code does (PyTorch defaults): eigenvalues
    ``-softplus(z)``, ``z ~ N(0, 1)`` (``softplusrnn.py``), ``P`` orthogonal (the Q factor of a
    Gaussian matrix), encoder ``B, b ~ U(-1/sqrt(M), 1/sqrt(M))`` and decoder
    ``C, c ~ U(-1/sqrt(N), 1/sqrt(N))`` (``nn.Linear``)."""
    N, M, n_classes = (
        positive_int("N", N),
        positive_int("M", M),
        positive_int("n_classes", n_classes),
    )

    def one(seed: int) -> Classifier:
        k = jax.random.split(jax.random.key(seed), 6)
        q, r = jnp.linalg.qr(jax.random.normal(k[1], (N, N)))
        enc, dec = 1.0 / np.sqrt(M), 1.0 / np.sqrt(N)
        return Classifier(
            raw=-jax.nn.softplus(jax.random.normal(k[0], (N,))),
            P=q * jnp.sign(jnp.diag(r)),
            B=jax.random.uniform(k[2], (N, M), minval=-enc, maxval=enc),
            b=jax.random.uniform(k[3], (N,), minval=-enc, maxval=enc),
            C=jax.random.uniform(k[4], (n_classes, N), minval=-dec, maxval=dec),
            c=jax.random.uniform(k[5], (n_classes,), minval=-dec, maxval=dec),
        )

    seeds = seed_list("seeds", seeds)
    return jax.tree.map(lambda *leaves: jnp.stack(leaves), *(one(s) for s in seeds))


def train_classifier(
    init: Classifier,
    train: SequenceData,
    test: SequenceData,
    *,
    parameterisation: str,
    seeds: Sequence[int],
    epochs: int,
    batch_size: int = 128,
    learning_rate: float = 0.01,
    weight_decay: float = 0.01,
    dt: float = 1.0,
    progress: bool = True,
) -> ClassificationRun:
    """Train the classifiers ``init`` (stacked over ``seeds``, already in ``parameterisation``) on
    the cross-entropy of ``train``, all seeds at once (``jax.vmap``), then evaluate each on ``test``
    (WLL App. E).

    Optimiser: AdamW with ``learning_rate`` decayed to 0 by a cosine over the run and
    ``weight_decay`` (the authors' StableSSM MNIST configuration: 0.01, 0.01, batch 128). Epoch
    ``e`` of seed ``s`` visits the training set in the order ``permutation(fold_in(fold_in(key(s),
    1), e), n_seqs)`` (the last incomplete batch is dropped). The loop is
    :func:`lrnn_core.core.train.train_params`, one epoch per round.
    """
    check_choice("parameterisation", parameterisation, PARAMETERISATIONS)
    seeds = seed_list("seeds", seeds)
    check_classifier("init", init)
    check_ndim("init.raw", init.raw, 2)
    if init.raw.shape[0] != len(seeds):
        raise ValueError(f"init must be stacked over the seeds {seeds}, got raw {init.raw.shape}")
    n_classes = init.c.shape[-1]
    train = labelled_sequences("train", train, n_classes)
    test = labelled_sequences("test", test, n_classes)
    epochs = positive_int("epochs", epochs)
    batch_size = positive_int("batch_size", batch_size)
    learning_rate = positive_number("learning_rate", learning_rate)
    weight_decay = real_number("weight_decay", weight_decay, low=0.0)
    dt = positive_number("dt", dt)
    progress = check_flag("progress", progress)
    n_seqs = train.u.shape[0]
    if batch_size > n_seqs:
        raise ValueError(f"batch_size={batch_size} exceeds the {n_seqs} training sequences")
    per_epoch = n_seqs // batch_size

    def loss(params, batch):
        u, labels = batch
        logits = classifier_logits(params, u, parameterisation=parameterisation, dt=dt)
        return optax.softmax_cross_entropy_with_integer_labels(logits, labels).mean()

    def batch_at(order, t):
        idx = epoch_indices(order, t, batch_size=batch_size)
        return train.u[idx], train.labels[idx]

    data_keys = jnp.stack([jax.random.fold_in(jax.random.key(s), 1) for s in seeds])
    schedule = optax.cosine_decay_schedule(learning_rate, epochs * per_epoch)
    training = train_params(
        loss,
        init,
        batch_at,
        data_keys,
        steps=epochs * per_epoch,
        steps_per_round=per_epoch,
        optimizer=optax.adamw(schedule, weight_decay=weight_decay),
        per_round=lambda key, start: epoch_order(key, start, n_seqs=n_seqs, batch_size=batch_size),
        progress=progress,
        desc=f"MNIST {parameterisation}",
    )
    results = _evaluate_each(training.params, test, parameterisation=parameterisation, dt=dt)
    return ClassificationRun(parameterisation, seeds, training, results[:, 0], results[:, 1])


def _evaluate_each(stacked: Classifier, test: SequenceData, **kwargs) -> np.ndarray:
    """``(loss, accuracy)`` of :func:`evaluate` for each classifier of ``stacked`` (axis 0)."""
    n = len(jax.tree.leaves(stacked)[0])
    return np.array(
        [evaluate(jax.tree.map(lambda a, j=j: a[j], stacked), test, **kwargs) for j in range(n)]
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
    **train_kwargs,
) -> dict[str, ClassificationRun]:
    """Train each parameterisation from the same initial classifiers (one per seed; WLL App. E,
    Fig. 9, Table 1): the direct ones (raw = eigenvalues) re-expressed in each parameterisation by
    :func:`lrnn_core.wang_li_li.ctrnn.raw_from_weight`, the same network and function, only the
    coordinates of the eigenvalues change (WLL App. E: "identical weight configurations").

    Remaining keywords go to :func:`train_classifier` (``batch_size``, ``learning_rate``,
    ``weight_decay``, ``dt``, ``progress``).
    """
    train = labelled_sequences("train", train, n_classes)
    for p in parameterisations:
        check_choice("parameterisations", p, PARAMETERISATIONS)
    direct = initial_classifiers(seeds, N, M=train.u.shape[-1], n_classes=n_classes)
    return {
        p: train_classifier(
            direct._replace(raw=raw_from_weight(direct.raw, p)),  # the same network
            train,
            test,
            parameterisation=p,
            seeds=seeds,
            epochs=epochs,
            **train_kwargs,
        )
        for p in parameterisations
    }


# --- baselines and the paired-seed comparison (WLL Fig. 9 and Table 1) ---


def _labels(name: str, labels: ArrayLike, n_classes: int) -> np.ndarray:
    labels = np.asarray(labels)
    if labels.ndim != 1 or labels.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array of labels, got {labels.shape}")
    if not np.issubdtype(labels.dtype, np.integer):
        raise TypeError(f"{name} must be integers, got dtype {labels.dtype}")
    if labels.min() < 0 or labels.max() >= n_classes:
        raise ValueError(f"{name} must be integers in 0..{n_classes - 1}")
    return labels


def class_prior_error(
    train_labels: Int[ArrayLike, " n_train"],
    test_labels: Int[ArrayLike, " n_test"],
    *,
    n_classes: int = 10,
) -> float:
    """Test error of the input-ignoring classifier that always answers the most frequent training
    class (ties: the smallest label)."""
    n_classes = positive_int("n_classes", n_classes)
    train = _labels("train_labels", train_labels, n_classes)
    test = _labels("test_labels", test_labels, n_classes)
    best = int(np.argmax(np.bincount(train, minlength=n_classes)))
    return float(np.mean(test != best))


def _features(name: str, u: ArrayLike) -> np.ndarray:
    u = as_float64(name, u)
    if u.ndim < 2 or u.shape[0] == 0:
        raise ValueError(f"{name} must have shape (n_seqs, ...) with n_seqs >= 1, got {u.shape}")
    check_finite(name, u)
    return u.reshape(u.shape[0], -1)


def logistic_regression_error(
    u_train: Float[ArrayLike, "n_train ..."],
    train_labels: Int[ArrayLike, " n_train"],
    u_test: Float[ArrayLike, "n_test ..."],
    test_labels: Int[ArrayLike, " n_test"],
    *,
    n_classes: int = 10,
    l2: float = 1e-4,
    max_iter: int = 500,
) -> float:
    """Test error of multinomial logistic regression on the flattened inputs (module docstring):
    minimise ``mean_n CE(softmax(A u_n + a), y_n) + (l2 / 2) |A|_F^2`` by L-BFGS (float64,
    analytic gradient, at most ``max_iter`` iterations), then predict ``argmax(A u + a)``."""
    n_classes = positive_int("n_classes", n_classes)
    l2 = real_number("l2", l2, low=0.0)
    max_iter = positive_int("max_iter", max_iter)
    x, x_test = _features("u_train", u_train), _features("u_test", u_test)
    if x_test.shape[1] != x.shape[1]:
        raise ValueError(f"u_test has {x_test.shape[1]} features, u_train {x.shape[1]}")
    y = _labels("train_labels", train_labels, n_classes)
    y_test = _labels("test_labels", test_labels, n_classes)
    check_shape("train_labels", y, (x.shape[0],))
    check_shape("test_labels", y_test, (x_test.shape[0],))
    n, d = x.shape
    onehot = np.eye(n_classes)[y]

    def loss_and_grad(w: np.ndarray) -> tuple[float, np.ndarray]:
        A, a = w[: d * n_classes].reshape(d, n_classes), w[d * n_classes :]
        z = x @ A + a
        log_p = z - scipy.special.logsumexp(z, axis=1, keepdims=True)
        resid = (np.exp(log_p) - onehot) / n
        loss = -np.sum(onehot * log_p) / n + 0.5 * l2 * np.sum(A**2)
        grad = np.concatenate([(x.T @ resid + l2 * A).ravel(), resid.sum(axis=0)])
        return float(loss), grad

    w0 = np.zeros(d * n_classes + n_classes)
    fit = scipy.optimize.minimize(
        loss_and_grad, w0, jac=True, method="L-BFGS-B", options={"maxiter": max_iter}
    )
    A, a = fit.x[: d * n_classes].reshape(d, n_classes), fit.x[d * n_classes :]
    return float(np.mean(np.argmax(x_test @ A + a, axis=1) != y_test))


#: The three measures of a trained classifier and the sign of "better": test accuracy (%),
#: test loss, mean training loss over the run (the area under WLL Fig. 9's curve).
HIGHER = {"acc": True, "loss": False, "area": False}


def untrained_scores(
    seeds: Sequence[int], N: int, test: SequenceData, *, dt: float
) -> Float[np.ndarray, "seeds 2"]:
    """``(test loss, test accuracy)`` of each seed's untrained starting network
    (:func:`lrnn_core.wang_li_li.classification.initial_classifiers`, the same for the four
    maps): the negative control of WLL Fig. 9 and Table 1."""
    return _evaluate_each(initial_classifiers(seeds, N), test, parameterisation="direct", dt=dt)


def per_seed_measures(
    runs: Mapping[str, ClassificationRun], untrained: Float[ArrayLike, "seeds 2"]
) -> dict[str, dict[str, np.ndarray]]:
    """The :data:`HIGHER` measures of each seed, per parameterisation and for "untrained"
    (its loss never moves, so its test loss stands for its training loss)."""
    untrained = np.asarray(untrained)
    out = {
        p: dict(acc=100 * r.test_accuracy, loss=r.test_loss, area=r.train_loss.mean(axis=1))
        for p, r in runs.items()
    }
    out["untrained"] = dict(acc=100 * untrained[:, 1], loss=untrained[:, 0], area=untrained[:, 0])
    return out


def mean_se(values: Float[ArrayLike, " n"]) -> tuple[float, float]:
    """Mean and standard error ``std(ddof=1) / sqrt(n)``."""
    values = np.asarray(values, float)
    return values.mean(), values.std(ddof=1) / np.sqrt(len(values))
