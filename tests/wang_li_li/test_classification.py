"""Tests of lrnn_core.wang_li_li.classification on numbers: NumPy references for the data, logits
and loss; the mixing matrix is negative semidefinite for any P; the authors' initialisation; the
same start for all parameterisations; training lowers the loss; seeds are independent of each
other; the class-prior error by counting, the logistic regression against separable and
label-noise data, the per-seed measures through the paired test of core.verdicts."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from lrnn_core.core.verdicts import paired_difference
from lrnn_core.wang_li_li.classification import (
    HIGHER,
    MNIST_MEAN,
    MNIST_STD,
    Classifier,
    SequenceData,
    class_prior_error,
    classifier_logits,
    compare_parameterisations,
    evaluate,
    initial_classifiers,
    logistic_regression_error,
    mean_se,
    mixing_weight,
    per_seed_measures,
    pixel_sequences,
    train_classifier,
)
from lrnn_core.wang_li_li.ctrnn import PARAMETERISATIONS, raw_from_weight, recurrent_weight


def _numpy_logits(params, x, dt):
    """Euler RNN h <- h + dt tanh(P^T diag(lam) P h + B x_k + b), logits = C h_L + c, by a plain
    loop (direct parameterisation: lam = raw)."""
    lam, P, B, b, C, c = (np.asarray(a, np.float64) for a in params)
    W = P.T @ np.diag(lam) @ P
    h = np.zeros(lam.shape)
    for xk in np.asarray(x, np.float64):
        h = h + dt * np.tanh(W @ h + B @ xk + b)
    return C @ h + c


def _toy_data(n, T=12, seed=0):
    """Two classes: the sign of the mean of a noisy constant sequence."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 2, n)
    x = (2 * labels - 1)[:, None, None] * 0.5 + rng.normal(0, 0.5, (n, T, 1))
    return SequenceData(jnp.asarray(x, jnp.float32), jnp.asarray(labels, jnp.int32))


def test_pixel_sequences_block_mean_and_standardisation():
    rng = np.random.default_rng(0)
    images = rng.integers(0, 256, (3, 28, 28), dtype=np.uint8)
    seq = pixel_sequences(images, side=14)
    assert seq.shape == (3, 196, 1) and seq.dtype == np.float32
    block = images[1, 4:6, 10:12].astype(float).mean() / 255  # pixel (2, 5) of the 14 x 14 image
    np.testing.assert_allclose(seq[1, 2 * 14 + 5, 0], (block - MNIST_MEAN) / MNIST_STD, rtol=1e-6)
    full = pixel_sequences(images)
    np.testing.assert_allclose(
        full[2, 28 * 7 + 3, 0], (images[2, 7, 3] / 255 - MNIST_MEAN) / MNIST_STD, rtol=1e-6
    )


def test_pixel_sequences_rejects_bad_input():
    with pytest.raises(ValueError, match="side"):
        pixel_sequences(np.zeros((1, 28, 28), np.uint8), side=5)
    with pytest.raises(ValueError, match="images"):
        pixel_sequences(np.zeros((1, 27, 28), np.uint8))


def test_logits_match_numpy_loop():
    params = jax.tree.map(lambda a: a[0], initial_classifiers([3], 5, M=2, n_classes=4))
    x = np.random.default_rng(1).normal(size=(9, 2)).astype(np.float32)
    ours = classifier_logits(params, x, parameterisation="direct", dt=0.5)
    np.testing.assert_allclose(ours, _numpy_logits(params, x, 0.5), rtol=1e-5, atol=1e-6)


def test_mixing_weight_is_negative_semidefinite_for_any_p():
    rng = np.random.default_rng(4)
    raw = jnp.asarray(rng.normal(0, 3, 6), jnp.float32)
    params = Classifier(
        raw=raw,
        P=jnp.asarray(rng.normal(size=(6, 6)), jnp.float32),  # not orthogonal
        B=jnp.ones((6, 1)),
        b=jnp.zeros(6),
        C=jnp.ones((2, 6)),
        c=jnp.zeros(2),
    )
    for p in ("exp", "softplus", "inverse"):
        W = np.asarray(mixing_weight(params, p), np.float64)
        np.testing.assert_allclose(W, W.T, rtol=1e-5, atol=1e-5)
        assert np.linalg.eigvalsh(W).max() <= 1e-4 * np.abs(W).max()
    # direct: Sylvester's law of inertia, W has a positive eigenvalue iff some raw value is > 0
    W = np.asarray(mixing_weight(params, "direct"), np.float64)
    assert raw.max() > 0 and np.linalg.eigvalsh(W).max() > 0


def test_initialisation_is_the_authors():
    init = initial_classifiers([0, 1], 50, n_classes=10)
    P = np.asarray(init.P[1], np.float64)
    np.testing.assert_allclose(P.T @ P, np.eye(50), atol=1e-5)  # orthogonal
    lam = np.asarray(init.raw)
    assert np.all(lam < 0) and np.all(lam > -np.log1p(np.exp(6.0)))  # -softplus(N(0, 1))
    assert np.all(np.abs(init.B) <= 1) and np.all(np.abs(init.C) <= 1 / np.sqrt(50))
    assert np.abs(np.median(np.log(np.expm1(-lam)))) < 0.3  # the raw values have median ~0


def test_reexpressed_start_gives_the_same_function():
    direct = initial_classifiers([0, 1], 8, n_classes=3)
    x = np.random.default_rng(2).normal(size=(2, 4, 30, 1)).astype(np.float32)
    ref = jax.vmap(lambda p, xs: classifier_logits(p, xs, parameterisation="direct"))(direct, x)
    for p in PARAMETERISATIONS:
        start = direct._replace(raw=raw_from_weight(direct.raw, p))  # as compare_... does
        np.testing.assert_allclose(recurrent_weight(start.raw, p), direct.raw, rtol=1e-5)
        out = jax.vmap(lambda q, xs, p=p: classifier_logits(q, xs, parameterisation=p))(start, x)
        np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-6)


def test_evaluate_matches_numpy_cross_entropy_and_accuracy():
    params = jax.tree.map(lambda a: a[0], initial_classifiers([0], 6, n_classes=2))
    params = params._replace(C=10 * params.C)
    data = _toy_data(50)
    loss, acc = evaluate(params, data, parameterisation="direct", chunk=16)
    logits = np.stack([_numpy_logits(params, x, 1.0) for x in np.asarray(data.u)])
    labels = np.asarray(data.labels)
    logp = logits - np.log(np.exp(logits).sum(1, keepdims=True))
    np.testing.assert_allclose(loss, -logp[np.arange(50), labels].mean(), rtol=1e-5)
    assert acc == pytest.approx(np.mean(logits.argmax(1) == labels))


def test_training_lowers_the_loss_and_seeds_are_independent():
    train, test = _toy_data(512, seed=0), _toy_data(256, seed=1)
    kwargs = dict(
        N=8,
        epochs=3,
        batch_size=64,
        learning_rate=0.02,
        n_classes=2,
        progress=False,
        parameterisations=("exp",),
    )
    both = compare_parameterisations(train, test, seeds=[0, 1], **kwargs)["exp"]
    one = compare_parameterisations(train, test, seeds=[1], **kwargs)["exp"]
    assert both.train_loss.shape == (2, 3 * 8)
    assert np.all(both.train_loss[:, -8:].mean(1) < 0.7 * both.train_loss[:, :2].mean(1))
    assert np.all(both.test_accuracy > 0.9)
    np.testing.assert_allclose(one.train_loss[0], both.train_loss[1], rtol=1e-4)
    np.testing.assert_allclose(one.test_accuracy[0], both.test_accuracy[1])


def test_train_classifier_rejects_bad_arguments():
    data = _toy_data(64)
    init = initial_classifiers([0], 4, n_classes=2)
    with pytest.raises(ValueError, match="parameterisation"):
        train_classifier(init, data, data, parameterisation="cayley", seeds=[0], epochs=1)
    with pytest.raises(ValueError, match="stacked"):
        train_classifier(init, data, data, parameterisation="direct", seeds=[0, 1], epochs=1)
    bad = SequenceData(data.u, data.labels.at[0].set(5))
    with pytest.raises(ValueError, match="labels"):
        train_classifier(init, bad, data, parameterisation="direct", seeds=[0], epochs=1)
    with pytest.raises(ValueError, match="batch_size"):
        train_classifier(
            init, data, data, parameterisation="direct", seeds=[0], epochs=1, batch_size=100
        )
    nan = SequenceData(data.u.at[0, 0, 0].set(jnp.nan), data.labels)
    with pytest.raises(ValueError, match="non-finite"):
        evaluate(jax.tree.map(lambda a: a[0], init), nan, parameterisation="direct")


def test_class_prior_error_counts_the_most_frequent_training_class():
    train = np.array([0, 1, 1, 2, 1, 0])  # class 1 most frequent
    test = np.array([1, 1, 0, 2, 2])  # two of five are class 1
    assert class_prior_error(train, test, n_classes=3) == pytest.approx(3 / 5)
    # a tie goes to the smallest label
    assert class_prior_error(np.array([2, 0, 2, 0]), np.array([0, 2]), n_classes=3) == 0.5


def test_logistic_regression_separates_linearly_separable_classes():
    rng = np.random.default_rng(0)
    centres = np.array([[4.0, 0.0], [-4.0, 0.0], [0.0, 4.0]])
    y = rng.integers(0, 3, 600)
    x = centres[y] + 0.3 * rng.normal(size=(600, 2))
    err = logistic_regression_error(
        x[:400, :, None], y[:400], x[400:, :, None], y[400:], n_classes=3
    )
    assert err == 0.0


def test_logistic_regression_is_at_chance_on_inputs_unrelated_to_labels():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(4000, 3))
    y = rng.integers(0, 2, 4000)
    err = logistic_regression_error(x[:2000], y[:2000], x[2000:], y[2000:], n_classes=2)
    # chance is 1/2; binomial s.e. of 2000 test labels is 0.011
    assert abs(err - 0.5) < 0.05


def test_untrained_scores_evaluate_each_seed_start(monkeypatch):
    from lrnn_core.wang_li_li import classification

    def fake_start(seeds, N):  # one "network" per seed: its seed and width
        return {"seed": np.array(seeds, float), "N": np.full(len(seeds), float(N))}

    def fake_evaluate(net, data, *, parameterisation, dt):
        assert parameterisation == "direct"
        return float(net["seed"]) + dt, float(net["N"]) / 100

    monkeypatch.setattr(classification, "initial_classifiers", fake_start)
    monkeypatch.setattr(classification, "evaluate", fake_evaluate)
    got = classification.untrained_scores([3, 4], 16, None, dt=0.5)
    np.testing.assert_allclose(got, [[3.5, 0.16], [4.5, 0.16]])


def test_per_seed_measures_mean_se_and_verdicts():
    from types import SimpleNamespace

    def run(acc, loss):
        return SimpleNamespace(
            test_accuracy=np.array(acc), test_loss=np.array(loss),
            train_loss=np.array([[2.0, 1.0]] * len(acc)) * np.array(loss)[:, None],
        )  # fmt: skip

    runs = {
        "exp": run([0.80, 0.82, 0.81], [0.5, 0.5, 0.6]),
        "direct": run([0.5, 0.52, 0.5], [1.0, 1.1, 1.0]),
    }
    per_seed = per_seed_measures(runs, np.array([[2.3, 0.1]] * 3))
    np.testing.assert_allclose(per_seed["exp"]["acc"], [80.0, 82.0, 81.0])
    np.testing.assert_allclose(per_seed["exp"]["area"], [0.75, 0.75, 0.9])  # mean of 2 l, l
    np.testing.assert_allclose(per_seed["untrained"]["area"], [2.3] * 3)
    m, se = mean_se([1.0, 2.0, 3.0])
    assert (m, se) == (2.0, pytest.approx(1 / np.sqrt(3)))

    def versus_direct(p, k):  # the chapter's comparison, Bonferroni over 3 measures
        return paired_difference(
            per_seed[p][k], per_seed["direct"][k], higher_is_better=HIGHER[k], n_tests=3
        )

    d = per_seed["exp"]["acc"] - per_seed["direct"]["acc"]  # 30, 30, 31 points
    acc = versus_direct("exp", "acc")
    assert acc.mean == pytest.approx(d.mean()) and acc.better
    assert versus_direct("exp", "loss").better  # lower loss is better
    assert versus_direct("untrained", "acc").worse
