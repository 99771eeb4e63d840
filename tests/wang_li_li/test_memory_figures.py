"""The figures of the memory-functions chapter draw the data they are given (Agg backend)."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.figure import Figure

from lrnn_core.core.memory import DecayFit
from lrnn_core.wang_li_li.memory import PairedMemory, RNNSample
from lrnn_core.wang_li_li.memory_figures import (
    lru_figure,
    paired_figure,
    probe_family_figure,
    random_rnn_figure,
    sentiment_figure,
    targets_figure,
)

L = 12
M = 0.5 ** np.arange(L)


@pytest.fixture(autouse=True)
def _close(monkeypatch):
    """No layout pass (what is drawn is tested, not where), and every figure closed after."""
    monkeypatch.setattr(Figure, "tight_layout", lambda self, *args, **kwargs: None)
    yield
    plt.close("all")


def test_targets_figure_hides_round_off_and_names_the_scale():
    t = 0.1 * np.arange(L)
    memory = M.copy()
    memory[-1] = 1e-16  # below round-off: not drawn
    fig = targets_figure(t, {"exp": M}, {"exp": memory}, dt=0.1, scale="ci")
    ax = fig.axes[0]
    pale, dashed = ax.lines
    np.testing.assert_array_equal(pale.get_xdata(), t[1:])
    np.testing.assert_array_equal(pale.get_ydata(), M[1:])
    np.testing.assert_array_equal(dashed.get_ydata()[:-1], memory[1:-1])
    assert np.isnan(dashed.get_ydata()[-1])
    assert ax.get_yscale() == "log" and fig.axes[1].get_xscale() == "log"
    assert "L = 12" in fig._suptitle.get_text() and "scale: ci" in fig._suptitle.get_text()


def test_probe_family_figure_draws_rho_the_probe_and_the_tail_fit():
    t = 0.5 * np.arange(30)
    rho = {("exp", 0.2): np.exp(-0.2 * t), ("pol", 1.1): (1 + 0.1 * t) ** -1.1}
    memory = {(key, "impulse"): r for key, r in rho.items()}
    fig = probe_family_figure(rho, memory, t, 0.2, 1.1, "impulse", scale="book")
    ax = fig.axes[0]
    np.testing.assert_allclose(ax.lines[1].get_ydata(), rho["exp", 0.2][1:])
    np.testing.assert_allclose(ax.lines[2].get_ydata(), np.exp(-0.2 * t), rtol=1e-9)
    assert ax.get_xscale() == ax.get_yscale() == "log"
    assert "dt = 0.5, L = 30 steps (scale: book" in fig._suptitle.get_text()


def test_random_rnn_figure_normalises_each_memory():
    rnns = RNNSample(
        gains=(1.0, 8.0),
        params=[],
        memory=[2 * M, np.ones(L)],
        ratio=np.array([1e-9, 1.0]),
        radius=np.array([0.5, 2.0]),
        norm2=np.array([0.6, 3.0]),
    )
    fig = random_rnn_figure(rnns, scale="ci")
    np.testing.assert_allclose(fig.axes[0].lines[0].get_ydata(), M[1:])
    offsets = fig.axes[1].collections[0].get_offsets()
    np.testing.assert_allclose(offsets, [[0.5, 1e-9], [2.0, 1.0]])
    assert fig.axes[1].get_xscale() == "log"
    assert fig._suptitle.get_text() == "2 random tanh RNNs, m = 16, L = 12 (scale: ci)"


def test_lru_and_paired_figures_draw_the_memories():
    fit = DecayFit(rate=np.log(2), log_amplitude=0.0, r2=1.0)
    rows = [
        PairedMemory(fit, fit, M, 2 * M, 4, name, np.log(2))
        for name in ("LRU", "LRU + MLP", "2 x (LRU + MLP)")
    ]
    fig = lru_figure(rows, scale="ci")
    np.testing.assert_allclose(fig.axes[1].lines[0].get_ydata(), M)
    np.testing.assert_allclose(fig.axes[1].lines[1].get_ydata(), np.e * M)  # slope, shifted
    assert fig.axes[0].get_yscale() == "log" and "scale: ci" in fig._suptitle.get_text()
    pairs = [PairedMemory(fit, fit, M, 3 * M)]
    fig = paired_figure(pairs, rows, 4, scale="paper")
    np.testing.assert_allclose(fig.axes[0].lines[1].get_ydata(), 3 * M)
    assert [line.get_label() for line in fig.axes[1].lines[::2]] == [r.name for r in rows]
    assert fig.axes[1].get_title() == "LRU family, seed 4"
    assert "scale: paper" in fig._suptitle.get_text()


def test_sentiment_figure_draws_memories_and_scores():
    memory = {(s, w): M[:-1] * s for s in (1, 2) for w in ("good", "ha")}
    scores = {"good": np.linspace(0.5, 1.0, L)}
    fig = sentiment_figure(memory, scores, (2.0, 8.0), scale="ci")
    left, right = fig.axes
    np.testing.assert_allclose(left.lines[3].get_ydata(), 2 * M[:-1])
    np.testing.assert_array_equal(left.lines[0].get_xdata(), np.arange(1, L))
    np.testing.assert_allclose(right.lines[0].get_ydata(), scores["good"])
    assert left.get_yscale() == "log" and left.get_title().endswith("2 seeds")
    assert right.get_title() == "the scores themselves, seed 1"
    assert "scale: ci" in fig._suptitle.get_text()
