"""Claim checks of the memory-functions chapter (WLL Figs 5, 6, 10, 11)."""

import numpy as np
import pytest

from lrnn_core.core.memory import heaviside_memory, impulse_memory
from lrnn_core.wang_li_li.memory_checks import (
    bilinear_model,
    cached_model,
    contractions_decay,
    diverse_memories,
    first_order,
    linear_probe_gap,
    median_rates,
    memory_class,
    memory_classes,
    neutral_forgets_slower,
    probe_classes,
    probes_equivalent,
    same_class,
    seeds_where_neutral_is_slower,
    slowest_words,
)


def test_memory_class_reads_the_tail_ratio():
    t = np.arange(100.0)
    assert memory_class(np.exp(-0.5 * t)) == "decaying"  # tail e^-45 of the peak
    assert memory_class(np.exp(-0.1 * t)) == "unclassified"  # tail e^-9 ~ 1e-4
    assert memory_class(1 + 0.5 * np.sin(t)) == "non-decaying"
    with pytest.raises(ValueError, match="identically zero"):
        memory_class(np.zeros(10))


def test_diverse_memories_on_hand_made_samples():
    decaying = np.array([True, True, False, False])
    persistent = np.array([False, False, True, False])
    radius = np.array([0.5, 0.9, 1.3, 1.1])
    norm2 = np.array([0.8, 1.2, 1.5, 1.4])
    assert diverse_memories(decaying, persistent, radius, norm2)
    # no non-decaying member: not diverse
    assert not diverse_memories(decaying[:2], persistent[:2], radius[:2], norm2[:2])
    # a contraction that does not decay contradicts the theory
    assert not diverse_memories(decaying, persistent, radius, np.array([0.8, 1.2, 1.5, 0.9]))
    # a non-decaying member with spectral radius < 1
    assert not diverse_memories(decaying, persistent, np.array([0.5, 0.9, 0.95, 1.1]), norm2)
    with pytest.raises(ValueError, match="both decaying and non-decaying"):
        diverse_memories([True], [True], [1.0], [1.0])
    with pytest.raises(ValueError, match="radius"):
        diverse_memories(decaying, persistent, radius[:2], norm2)


def test_bilinear_model_has_memories_of_two_classes():
    u = np.array([1.0, 2.0, -1.0])
    np.testing.assert_allclose(bilinear_model(u), [1.0, 6.0, -2.0])
    m_h = np.asarray(heaviside_memory(bilinear_model, 50))
    m_i = np.asarray(impulse_memory(bilinear_model, 50))
    np.testing.assert_allclose(m_h, 1.0)  # z_k = k + 1
    np.testing.assert_allclose(m_i, np.r_[1.0, np.zeros(49)])
    assert (memory_class(m_h), memory_class(m_i)) == ("non-decaying", "decaying")
    with pytest.raises(ValueError, match="1-D"):
        bilinear_model(np.ones((2, 3)))


def test_cached_model_reports_why_weights_are_missing(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path))
    assert "not installed" in cached_model("a/b", library="no_such_library_xyz")
    # numpy stands in for an installed library; the cache is empty
    assert "no snapshot of a/b" in cached_model("a/b", library="numpy")
    snap = tmp_path / "models--a--b" / "snapshots" / "0123"
    snap.mkdir(parents=True)
    assert cached_model("a/b", library="numpy") is None
    assert "no snapshot" in cached_model("a/b", library="numpy", kind="datasets")
    with pytest.raises(ValueError, match="owner/name"):
        cached_model("bert", library="numpy")
    with pytest.raises(ValueError, match="kind"):
        cached_model("a/b", kind="spaces")


def test_memory_classes_and_same_class_use_the_thresholds_of_memory_class():
    ratio = np.array([1e-8, 1e-4, 0.5])
    decaying, persistent = memory_classes(ratio)
    np.testing.assert_array_equal(decaying, [True, False, False])
    np.testing.assert_array_equal(persistent, [False, False, True])
    classes = [memory_class(np.r_[1.0, np.full(9, r)]) for r in ratio]  # tail ratio r
    assert classes == ["decaying", "unclassified", "non-decaying"]
    np.testing.assert_array_equal(
        same_class([1e-8, 0.5, 1e-4], [1e-7, 1e-3, 1e-5]), [True, False, True]
    )
    with pytest.raises(ValueError, match="ratio_b"):
        same_class([1e-8, 0.5], [1e-8])


def test_first_order_asks_each_halving_to_halve_the_error():
    assert first_order([0.4, 0.2, 0.1])
    assert first_order([0.4, 0.22, 0.1])  # ratios 0.55 and 0.45: within 0.1 of 1/2
    assert not first_order([0.4, 0.3, 0.2])  # ratios 0.75, 0.67: not first order
    assert not first_order([0.4, 0.2, 0.25])  # the error grows
    assert not first_order([0.4, 0.1, 0.025])  # second order
    with pytest.raises(ValueError, match="two step sizes"):
        first_order([0.1])


def test_probe_classes_tell_the_bilinear_map_from_a_linear_filter():
    assert probe_classes(bilinear_model, 50) == ["non-decaying", "decaying"]
    geometric = 0.5 ** np.arange(50)
    assert probe_classes(lambda u: np.convolve(geometric, u)[:50], 50) == ["decaying"] * 2


def test_linear_probe_gap_in_units_of_the_round_off_floor():
    m = np.array([5.0, 2.0, 1.0, 0.5])
    floor = 1e3 * np.finfo(float).eps * 5.0
    assert linear_probe_gap([(m, m)]) == 0.0
    shifted = m + np.array([7.0, 0.0, 2 * floor, 0.0])  # step 0 is not compared
    assert linear_probe_gap([(m, m), (m, shifted)]) == pytest.approx(2.0)
    with pytest.raises(ValueError, match="at least one"):
        linear_probe_gap([])
    with pytest.raises(ValueError, match="m_i"):
        linear_probe_gap([(m, m[:3])])


def test_contractions_decay_and_probes_equivalent():
    decaying = np.array([True, True, False])
    norm2 = np.array([0.5, 1.5, 2.0])
    assert contractions_decay(decaying, [True, False, False], norm2)  # only RNN 0 contracts
    assert not contractions_decay(decaying, [False, True, True], norm2)  # probes disagree on it
    assert not contractions_decay([False, True, False], [True] * 3, norm2)  # it does not decay
    with pytest.raises(ValueError, match="norm2"):
        contractions_decay(decaying, [True] * 3, norm2[:2])
    classes = ["decaying", "decaying"]
    assert probes_equivalent(classes, classes, 0.5, True)
    assert not probes_equivalent(classes, ["decaying", "unclassified"], 0.5, True)
    assert not probes_equivalent(classes, classes, 1.5, True)  # linear memories differ
    assert not probes_equivalent(classes, classes, 0.5, False)


def test_neutral_forgets_slower_in_the_median_over_seeds():
    rates = {(0, "good"): 0.2, (0, "bad"): 0.3, (0, "ha"): 0.05}
    rates |= {(1, "good"): 0.2, (1, "bad"): 0.1, (1, "ha"): 0.15}
    rates |= {(2, "good"): 0.3, (2, "bad"): 0.25, (2, "ha"): 0.1}
    assert neutral_forgets_slower(rates, [0], ["good", "bad"])
    # seed 1: "bad" is slower; medians: ha 0.1 < good 0.2, bad 0.25
    assert neutral_forgets_slower(rates, [0, 1, 2], ["good", "bad"])
    assert seeds_where_neutral_is_slower(rates, [0, 1, 2], ["good", "bad"]) == [0, 2]
    # medians over seeds 1 and 2: bad 0.175 > ha 0.125, but over seed 1 alone: bad 0.1 < 0.15
    assert neutral_forgets_slower(rates, [1, 2], ["good", "bad"])
    assert not neutral_forgets_slower(rates, [1], ["good", "bad"])
    assert seeds_where_neutral_is_slower(rates, [1], ["good", "bad"]) == []
    assert not neutral_forgets_slower(rates, [0, 1, 2], ["ha"], neutral="good")
    assert median_rates(rates, [0, 1, 2], ["bad", "ha"]) == {"bad": 0.25, "ha": 0.1}
    # the control: each word in the neutral role; only the smallest median passes
    assert slowest_words(rates, [0, 1, 2], ["good", "bad", "ha"]) == ["ha"]
    assert slowest_words(rates, [1], ["good", "bad", "ha"]) == ["bad"]
    tied = {(0, "good"): 0.1, (0, "ha"): 0.1}
    assert slowest_words(tied, [0], ["good", "ha"]) == []  # a tie is not "slower"
    with pytest.raises(ValueError, match="at least two words"):
        slowest_words(rates, [0], ["ha"])
    for check in (neutral_forgets_slower, seeds_where_neutral_is_slower, median_rates):
        with pytest.raises(ValueError, match="empty"):
            check(rates, [], ["good"])
        with pytest.raises(ValueError, match="empty"):
            check(rates, [0], [])
