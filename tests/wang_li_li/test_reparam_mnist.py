"""Tests of lrnn_core.wang_li_li.reparam_mnist on numbers: the class-prior error by counting, the
logistic regression against separable and label-noise data, the paired verdict against a hand
computed t statistic, the status of an ordering claim at its margin."""

import numpy as np
import pytest
import scipy.stats

from lrnn_core.wang_li_li.reparam_mnist import (
    class_prior_error,
    logistic_regression_error,
    ordering_status,
    paired_t_critical,
    paired_verdict,
)


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


def test_paired_verdict_matches_the_t_statistic():
    cand = np.array([0.70, 0.72, 0.71, 0.69])
    ref = np.array([0.60, 0.61, 0.63, 0.60])
    d = cand - ref
    t_crit = scipy.stats.t.ppf(1 - 0.05 / (2 * 3), 3)
    verdict, dbar, margin = paired_verdict(cand, ref, higher_is_better=True, n_tests=3)
    assert dbar == pytest.approx(d.mean())
    assert margin == pytest.approx(t_crit * d.std(ddof=1) / 2)
    assert verdict == "better"
    # lower is better: the same numbers are "worse"
    assert paired_verdict(cand, ref, higher_is_better=False, n_tests=3)[0] == "worse"
    # equal runs are a tie
    assert paired_verdict(ref, ref, higher_is_better=True)[0] == "tie"
    # a difference within the spread is a tie
    assert paired_verdict([1.0, 0.0, 1.0], [0.0, 1.0, 0.0], higher_is_better=True)[0] == "tie"


def test_paired_t_critical_bonferroni():
    assert paired_t_critical(3, n_tests=9) == pytest.approx(scipy.stats.t.ppf(1 - 0.025 / 9, 2))
    with pytest.raises(ValueError, match="n_seeds"):
        paired_t_critical(1)


def test_ordering_status_at_the_margin_and_its_trained_row_fields():
    base = {"ignores input": 0.9, "linear": 0.1}
    good = {"a": "better"}
    # 0.05 * 2 = 0.1: on the margin the row is reproduced, just above it weaker
    assert ordering_status(good, error=0.05, baselines=base, margin=2.0) == (True, "reproduced")
    assert ordering_status(good, error=0.06, baselines=base, margin=2.0) == (True, "weaker")
    # the error, baselines and margin are checked whatever the verdicts and the control say
    with pytest.raises(ValueError, match="baselines"):
        ordering_status({"a": "worse"}, error=0.1, baselines={}, margin=1.0)
    with pytest.raises(ValueError, match="margin"):
        ordering_status(good, error=0.1, baselines=base, margin=0.5, control_passes=True)


def test_ordering_status():
    base = {"ignores input": 0.9, "linear": 0.1}
    good = {"a": "better", "b": "better"}
    assert ordering_status(good, error=0.05, baselines=base, margin=2.0) == (True, "reproduced")
    assert ordering_status(good, error=0.2, baselines=base, margin=2.0) == (True, "weaker")
    tie = {"a": "better", "b": "tie"}
    assert ordering_status(tie, error=0.01, baselines=base, margin=2.0) == (True, "weaker")
    bad = {"a": "better", "b": "worse"}
    assert ordering_status(bad, error=0.01, baselines=base, margin=2.0) == (
        False,
        "not reproduced",
    )
    with pytest.raises(ValueError, match="verdicts"):
        ordering_status({"a": "fine"}, error=0.1, baselines=base, margin=1.0)


def test_ordering_status_with_a_passing_control_is_not_reproduced():
    base = {"prior": 0.9}
    good, tie = {"a": "better"}, {"a": "tie"}
    kw = dict(error=0.05, baselines=base, margin=2.0)
    assert ordering_status(tie, control_passes=False, **kw) == (True, "weaker")
    assert ordering_status(good, control_passes=True, **kw) == (False, "not reproduced")
    assert ordering_status({"a": "worse"}, control_passes=False, **kw) == (
        False,
        "not reproduced",
    )
    with pytest.raises(TypeError, match="control_passes"):
        ordering_status(good, control_passes="yes", **kw)


def test_untrained_scores_evaluate_each_seed_start(monkeypatch):
    from lrnn_core.wang_li_li import reparam_mnist

    def fake_start(seeds, N):  # one "network" per seed: its seed and width
        return {"seed": np.array(seeds, float), "N": np.full(len(seeds), float(N))}

    def fake_evaluate(net, data, *, parameterisation, dt):
        assert parameterisation == "direct"
        return float(net["seed"]) + dt, float(net["N"]) / 100

    monkeypatch.setattr(reparam_mnist, "initial_classifiers", fake_start)
    monkeypatch.setattr(reparam_mnist, "evaluate", fake_evaluate)
    got = reparam_mnist.untrained_scores([3, 4], 16, None, dt=0.5)
    np.testing.assert_allclose(got, [[3.5, 0.16], [4.5, 0.16]])


def test_per_seed_measures_mean_se_and_verdicts():
    from types import SimpleNamespace

    from lrnn_core.wang_li_li.reparam_mnist import (
        mean_se,
        mnist_status,
        mnist_verdicts,
        per_seed_measures,
    )

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
    v = mnist_verdicts(per_seed, ["exp"])
    want = paired_verdict(
        per_seed["exp"]["acc"], per_seed["direct"]["acc"], higher_is_better=True, n_tests=3
    )
    assert v.verdict["acc", "exp"] == want and want[0] == "better"
    assert v.verdict["loss", "exp"][0] == "better"  # lower loss is better
    assert v.by_measure("acc") == {"exp": "better"} and v.control["acc"][0] == "worse"
    s = mnist_status(v, error=0.2, baselines={"linear": 0.5}, margin=1.1)
    assert s.table1_holds and s.table1_status == "reproduced" and not s.table1_control
    assert s.table1_row == (True, "reproduced")
    assert s.fig9_holds and not s.fig9_control
