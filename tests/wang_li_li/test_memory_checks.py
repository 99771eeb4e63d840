"""Claim checks of the memory-functions chapter (WLL Figs 5, 6, 10, 11)."""

import numpy as np
import pytest

from lrnn_core.core.memory import heaviside_memory, impulse_memory
from lrnn_core.wang_li_li.memory_checks import (
    bilinear_model,
    cached_model,
    diverse_memories,
    memory_class,
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
