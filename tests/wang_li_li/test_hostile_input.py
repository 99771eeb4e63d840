"""Hostile input to the Wang-Li-Li package, the training loop and the memory probes: each bad call
raises the right error type with a message that names the argument; scalars of NumPy/JAX kinds
where Python numbers are expected work."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest
from flax import nnx

from lrnn_core.core.exp_sums import uniform_rates
from lrnn_core.core.memory import fit_decay, heaviside_memory, impulse_memory, tail_ratio
from lrnn_core.core.targets import (
    exp_memory,
    linear_functional,
    random_tanh_rnn,
    white_inputs,
)
from lrnn_core.core.train import mse_loss, train, train_params
from lrnn_core.wang_li_li.classification import (
    SequenceData,
    class_prior_error,
    initial_classifiers,
    logistic_regression_error,
    pixel_sequences,
)
from lrnn_core.wang_li_li.ctrnn import (
    ctrnn_outputs,
    init_ctrnn,
    raw_from_weight,
    recurrent_weight,
)
from lrnn_core.wang_li_li.fitting import (
    fit_linear_rnn,
    fitted_rnn,
    geometric_rates,
    train_ctrnn,
)
from lrnn_core.wang_li_li.perturbation import perturb, perturbation_error, perturbed_losses
from lrnn_core.wang_li_li.reparameterisation import (
    NLData,
    authors_betas,
    nl_error_sets,
    separated,
    sets_of_draws,
)
from lrnn_core.wang_li_li.sentiment import LSTMClassifier, repeated_word_scores, synthetic_reviews

KEY = jax.random.key(0)
T = np.linspace(0.0, 10.0, 101)
RHO = np.exp(-T)
PARAMS = init_ctrnn(KEY, 3)
RUNS = jax.tree.map(lambda a: a[None], PARAMS)
U = jnp.ones((8, 5, 1))
Y = jnp.zeros((8, 5, 1))


def identity(u):
    return u


def quadratic(p, batch):
    return jnp.sum(p**2)


def vector_loss(p, batch):
    return p**2  # not a scalar


def linear(rngs):
    return nnx.Linear(1, 1, rngs=rngs)


def nan_params():
    return PARAMS._replace(B=PARAMS.B.at[0, 0].set(jnp.nan))


def inf_bias():
    return PARAMS._replace(b=PARAMS.b.at[0].set(jnp.inf))


BAD_CALLS = [
    # --- the training loop ---
    (
        "non-scalar loss to train_params",
        lambda: train_params(
            vector_loss,
            jnp.ones((1, 2)),
            lambda s, t: None,
            jnp.zeros(1),
            steps=1,
            optimizer=optax.sgd(0.1),
            progress=False,
        ),
        ValueError,
        "loss must return a scalar",
    ),
    (
        "non-scalar loss to train (NNX)",
        lambda: train(
            linear,
            lambda m, b: m(b[0]),
            (jnp.ones((4, 1)), jnp.ones((4, 1))),
            steps=1,
            progress=False,
        ),
        ValueError,
        "loss must return a scalar",
    ),
    (
        "bool steps",
        lambda: train_params(
            quadratic,
            jnp.ones((1, 2)),
            lambda s, t: None,
            jnp.zeros(1),
            steps=True,
            optimizer=optax.sgd(0.1),
            progress=False,
        ),
        TypeError,
        "steps must be an int",
    ),
    (
        "string progress flag",
        lambda: train_params(
            quadratic,
            jnp.ones((1, 2)),
            lambda s, t: None,
            jnp.zeros(1),
            steps=1,
            optimizer=optax.sgd(0.1),
            progress="no",
        ),
        TypeError,
        "progress must be a bool",
    ),
    (
        "steps not a multiple of the round",
        lambda: train_params(
            quadratic,
            jnp.ones((1, 2)),
            lambda s, t: None,
            jnp.zeros(1),
            steps=5,
            steps_per_round=2,
            optimizer=optax.sgd(0.1),
            progress=False,
        ),
        ValueError,
        "steps must be a multiple of steps_per_round",
    ),
    (
        "params without a run axis",
        lambda: train_params(
            quadratic,
            jnp.float32(1.0),
            lambda s, t: None,
            jnp.zeros(1),
            steps=1,
            optimizer=optax.sgd(0.1),
            progress=False,
        ),
        ValueError,
        "params must have a leading run axis",
    ),
    (
        "streams with another run count",
        lambda: train_params(
            quadratic,
            jnp.ones((2, 2)),
            lambda s, t: None,
            jnp.zeros(3),
            steps=1,
            optimizer=optax.sgd(0.1),
            progress=False,
        ),
        ValueError,
        "streams must have a leading run axis R=2",
    ),
    (
        "optimizer that is not optax",
        lambda: train_params(
            quadratic,
            jnp.ones((1, 2)),
            lambda s, t: None,
            jnp.zeros(1),
            steps=1,
            optimizer="adam",
            progress=False,
        ),
        TypeError,
        "optimizer must be an optax.GradientTransformation",
    ),
    (
        "stop rule not callable",
        lambda: train_params(
            quadratic,
            jnp.ones((1, 2)),
            lambda s, t: None,
            jnp.zeros(1),
            steps=1,
            optimizer=optax.sgd(0.1),
            stop_when=1e-3,
            progress=False,
        ),
        TypeError,
        "stop_when must be callable",
    ),
    (
        "bool seed",
        lambda: train(
            linear,
            mse_loss,
            (jnp.ones((4, 1)), jnp.ones((4, 1))),
            steps=1,
            seed=True,
            progress=False,
        ),
        TypeError,
        "seed[0] must be an int",
    ),
    (
        "repeated seeds",
        lambda: train(
            linear,
            mse_loss,
            (jnp.ones((4, 1)), jnp.ones((4, 1))),
            steps=1,
            seed=[1, 1],
            progress=False,
        ),
        ValueError,
        "seed must not repeat",
    ),
    # --- CTRNN construction and evaluation ---
    (
        "unknown parameterisation at construction",
        lambda: init_ctrnn(KEY, 3, parameterisation="cayley"),
        ValueError,
        "parameterisation must be one of",
    ),
    (
        "unknown activation",
        lambda: ctrnn_outputs(PARAMS, U[0], activation="gelu"),
        ValueError,
        "activation must be one of",
    ),
    (
        "parameterisation given as a bool",
        lambda: recurrent_weight(jnp.ones(3), True),
        TypeError,
        "parameterisation must be a str",
    ),
    ("bool width", lambda: init_ctrnn(KEY, True), TypeError, "N must be an int"),
    ("float width", lambda: init_ctrnn(KEY, 3.0), TypeError, "N must be an int"),
    ("NaN in the input weight", lambda: ctrnn_outputs(nan_params(), U[0]), ValueError, "params.B"),
    ("inf in the bias", lambda: ctrnn_outputs(inf_bias(), U[0]), ValueError, "params.b"),
    (
        "NaN in the input",
        lambda: ctrnn_outputs(PARAMS, U.at[0, 0, 0].set(jnp.nan)),
        ValueError,
        "u",
    ),
    ("string dt", lambda: ctrnn_outputs(PARAMS, U[0], dt="1"), TypeError, "dt"),
    ("negative dt", lambda: ctrnn_outputs(PARAMS, U[0], dt=-0.1), ValueError, "dt"),
    ("tuple instead of CTRNN", lambda: ctrnn_outputs(tuple(PARAMS), U[0]), TypeError, "params"),
    (
        "positive weight for a stable map",
        lambda: raw_from_weight(jnp.array([0.5]), "exp"),
        ValueError,
        "weight must lie in",
    ),
    (
        "decay_range as bools",
        lambda: init_ctrnn(KEY, 3, decay_range=(True, 1.0)),
        TypeError,
        "decay_range[0]",
    ),
    # --- fitting ---
    ("zero width", lambda: uniform_rates(0), ValueError, "N must be >= 1"),
    ("string rate", lambda: uniform_rates(3, rate="0.1"), TypeError, "rate"),
    ("bool fastest", lambda: geometric_rates(3, fastest=True), TypeError, "fastest"),
    (
        "unknown parameterisation for a fit",
        lambda: fit_linear_rnn(RHO, T, 3, parameterisation="expo"),
        ValueError,
        "parameterisation must be one of",
    ),
    (
        "rates of the wrong length",
        lambda: fit_linear_rnn(RHO, T, 3, rates=[1.0]),
        ValueError,
        "rates",
    ),
    ("NaN in the kernel", lambda: fit_linear_rnn(RHO * np.nan, T, 3), ValueError, "rho"),
    (
        "unknown activation for a fitted RNN",
        lambda: fitted_rnn(RHO, T, [0.5, 1.0], activation="swish", parameterisation="exp"),
        ValueError,
        "activation must be one of",
    ),
    (
        "train_ctrnn without a run axis",
        lambda: train_ctrnn(PARAMS, U, Y, key=KEY, epochs=1, progress=False),
        ValueError,
        "params.raw",
    ),
    (
        "train_ctrnn with bool epochs",
        lambda: train_ctrnn(RUNS, U, Y, key=KEY, epochs=True, progress=False),
        TypeError,
        "epochs must be an int",
    ),
    (
        "train_ctrnn with batch larger than the data",
        lambda: train_ctrnn(RUNS, U, Y, key=KEY, epochs=1, batch_size=9, progress=False),
        ValueError,
        "batch_size",
    ),
    (
        "train_ctrnn with a string progress flag",
        lambda: train_ctrnn(RUNS, U, Y, key=KEY, epochs=1, batch_size=4, progress="yes"),
        TypeError,
        "progress must be a bool",
    ),
    (
        "train_ctrnn with NaN in the parameters",
        lambda: train_ctrnn(
            jax.tree.map(lambda a: a[None], nan_params()),
            U,
            Y,
            key=KEY,
            epochs=1,
            batch_size=4,
            progress=False,
        ),
        ValueError,
        "params.B",
    ),
    # --- perturbation ---
    (
        "unknown perturbation rule",
        lambda: perturb(PARAMS, 0.1, KEY, perturbed="weights_only"),
        ValueError,
        "perturbed must be one of",
    ),
    (
        "missing perturbation rule",
        lambda: perturbation_error(lambda p: jnp.sum(p.raw), PARAMS, [0.1], key=KEY),
        TypeError,
        "perturbed",
    ),
    (
        "negative beta",
        lambda: perturbation_error(
            lambda p: jnp.sum(p.raw), PARAMS, [-0.1], key=KEY, perturbed="all"
        ),
        ValueError,
        "betas must be >= 0",
    ),
    (
        "empty betas",
        lambda: perturbation_error(lambda p: jnp.sum(p.raw), PARAMS, [], key=KEY, perturbed="all"),
        ValueError,
        "betas",
    ),
    (
        "non-scalar perturbed loss",
        lambda: perturbation_error(lambda p: p.raw, PARAMS, [0.1], key=KEY, perturbed="all"),
        ValueError,
        "scalar",
    ),
    (
        "bool draws",
        lambda: perturbation_error(
            lambda p: jnp.sum(p.raw), PARAMS, [0.1], key=KEY, draws=True, perturbed="all"
        ),
        TypeError,
        "draws must be an int",
    ),
    (
        "string running_max",
        lambda: perturbation_error(
            lambda p: jnp.sum(p.raw), PARAMS, [0.1], key=KEY, perturbed="all", running_max="yes"
        ),
        TypeError,
        "running_max must be a bool",
    ),
    # --- targets, data, sentiment ---
    ("bool rate", lambda: exp_memory(T, rate=True), TypeError, "rate"),
    (
        "integer kernel beyond 2**24 without float64",
        lambda: linear_functional(np.array([2**25 + 1, 0]), np.ones(2), 1.0),
        ValueError,
        "rho holds integers up to",
    ),
    ("zero sequences", lambda: white_inputs(KEY, 0, 5, 1.0), ValueError, "n_seqs must be >= 1"),
    ("float length", lambda: white_inputs(KEY, 2, 5.0, 1.0), TypeError, "L must be an int"),
    (
        "input longer than the kernel",
        lambda: linear_functional(RHO[:5], np.ones(6), 1.0),
        ValueError,
        "u must have last axis",
    ),
    ("bool width of a tanh target", lambda: random_tanh_rnn(KEY, True), TypeError, "N"),
    (
        "side that does not divide 28",
        lambda: pixel_sequences(np.zeros((1, 28, 28)), 5),
        ValueError,
        "side",
    ),
    ("repeated classifier seeds", lambda: initial_classifiers([0, 0], 4), ValueError, "seeds"),
    (
        "float labels",
        lambda: __import__(
            "lrnn_core.wang_li_li.classification", fromlist=["labelled_sequences"]
        ).labelled_sequences("train", SequenceData(U, jnp.zeros(8)), 10),
        TypeError,
        "train.labels must be integers",
    ),
    (
        "unknown word",
        lambda: repeated_word_scores(LSTMClassifier(rngs=nnx.Rngs(0)), "meh", 3),
        ValueError,
        "word must be one of",
    ),
    ("p_polar above 1", lambda: synthetic_reviews(KEY, 2, 3, p_polar=1.5), ValueError, "p_polar"),
    ("bool LSTM width", lambda: LSTMClassifier(N=True, rngs=nnx.Rngs(0)), TypeError, "N"),
    # --- memory probes ---
    (
        "zero amplitude",
        lambda: heaviside_memory(identity, 5, amplitude=0.0),
        ValueError,
        "amplitude",
    ),
    (
        "NaN amplitude",
        lambda: impulse_memory(identity, 5, amplitude=[1.0, np.nan]),
        ValueError,
        "amplitude",
    ),
    ("bool length", lambda: heaviside_memory(identity, True), TypeError, "L must be an int"),
    ("string dt to a probe", lambda: impulse_memory(identity, 5, dt="0.1"), TypeError, "dt"),
    ("empty memory", lambda: tail_ratio([]), ValueError, "memory"),
    ("tail fraction above 1", lambda: tail_ratio(np.ones(5), tail=2.0), ValueError, "tail"),
    ("bool tail", lambda: fit_decay(np.ones(5), np.arange(5.0), tail=True), TypeError, "tail"),
    # --- reparameterisation checks ---
    ("zero perturb_range", lambda: authors_betas(0), ValueError, "perturb_range"),
    (
        "decreasing betas",
        lambda: nl_error_sets(
            {("tanh", "direct"): [PARAMS]},
            NLData(None, None, U, Y, 0.0),
            [0.1, 0.0],
            key=KEY,
            repeats=1,
            sets=1,
            dt=1.0,
            perturbed="all",
        ),  # fmt: skip
        ValueError,
        "betas",
    ),
    (
        "unknown perturbation rule",
        lambda: perturbed_losses(lambda p: 0.0, PARAMS, [0.0], key=KEY, draws=1, perturbed="some"),
        ValueError,
        "perturbed",
    ),
    ("fewer draws than repeats", lambda: sets_of_draws(np.ones((2, 2))), ValueError, "repeats"),
    ("NaN in separated", lambda: separated([np.nan], [1.0]), ValueError, "NaN"),
    (
        "no models",
        lambda: nl_error_sets(
            {("tanh", "direct"): []},
            NLData(None, None, U, Y, 0.0),
            [0.0],
            key=KEY,
            repeats=1,
            sets=1,
            dt=1.0,
            perturbed="all",
        ),
        ValueError,
        "models",
    ),  # fmt: skip
    ("float labels", lambda: class_prior_error([0.0, 1.0], [0, 1]), TypeError, "train_labels"),
    ("label out of range", lambda: class_prior_error([0, 12], [0, 1]), ValueError, "train_labels"),
    (
        "features of another size",
        lambda: logistic_regression_error(np.ones((4, 3)), [0, 1, 0, 1], np.ones((2, 2)), [0, 1]),
        ValueError,
        "u_test",
    ),
]


@pytest.mark.parametrize(
    ("call", "error", "words"),
    [pytest.param(c, e, w, id=name) for name, c, e, w in BAD_CALLS],
)
def test_bad_call_raises_a_named_error(call, error, words):
    with pytest.raises(error) as info:
        call()
    assert words in str(info.value), str(info.value)


GOOD_SCALARS = [
    ("numpy int width", lambda: init_ctrnn(KEY, np.int64(3)).raw.shape == (3,)),
    ("jax int width", lambda: init_ctrnn(KEY, jnp.int32(3)).raw.shape == (3,)),
    ("numpy float dt", lambda: ctrnn_outputs(PARAMS, U[0], dt=np.float32(0.5)).shape == (5, 1)),
    ("jax float rate", lambda: float(uniform_rates(2, rate=jnp.float32(0.5))[1]) == 1.0),
    (
        "numpy int steps",
        lambda: (
            train_params(
                quadratic,
                jnp.ones((1, 2)),
                lambda s, t: None,
                jnp.zeros(1),
                steps=np.int64(2),
                optimizer=optax.sgd(0.1),
                progress=False,
            ).steps
            == 2
        ),
    ),
    (
        "integer input array",
        lambda: np.allclose(
            ctrnn_outputs(PARAMS, np.ones((5, 1), dtype=np.int32)), ctrnn_outputs(PARAMS, U[0])
        ),
    ),
]


@pytest.mark.parametrize(("call",), [pytest.param(c, id=name) for name, c in GOOD_SCALARS])
def test_numpy_and_jax_scalars_work(call):
    assert call()
