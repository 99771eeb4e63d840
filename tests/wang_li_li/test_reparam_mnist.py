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
