"""The exponential-memory figures draw the data they are given, on the stated axes."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from lrnn_core.core.memory import DecayFit  # noqa: E402
from lrnn_core.wang_xue.memory import (  # noqa: E402
    RNNMemory,
    S4Memory,
    StackMemory,
    Table1Memories,
    TwoLayerProbe,
)
from lrnn_core.wang_xue.memory_figures import (  # noqa: E402
    fig5_figure,
    fig6_figure,
    stack_memory_figure,
    table1_figure,
    two_layer_figure,
)

K = np.arange(50, dtype=float)
FIT = DecayFit(rate=0.1, log_amplitude=0.0, r2=1.0)


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


def _stack(depth, r):
    return StackMemory(depth, r**K, (10.0, 20.0), 2 * r**K, -np.log(r))


def test_fig5_draws_memories_bounds_and_control_on_log_axes():
    m = np.r_[0.5 ** K[:40], np.zeros(10)]
    control = 1 / (1 + K)
    fig = fig5_figure([RNNMemory(m, 0.7)], [_stack(2, 0.9)], control, "ci")
    ax1, ax2 = fig.axes
    y = ax1.lines[0].get_ydata()
    np.testing.assert_array_equal(y[:40], m[:40])
    assert np.all(np.isnan(y[40:]))  # zeros masked on the log axis
    np.testing.assert_array_equal(ax2.lines[1].get_ydata(), 2 * 0.9**K)
    np.testing.assert_array_equal(ax2.lines[2].get_ydata(), control)
    assert ax2.lines[0].get_color() == "C1"  # coloured by depth
    assert ax1.get_yscale() == "log" and "scale: ci" in fig._suptitle.get_text()


def test_fig6_draws_the_layer_its_tail_fit_and_a_naive_stack():
    s4 = S4Memory(N=4, dt=0.02, t=K, m=np.exp(-0.02 * K), rate=0.02)
    fig = fig6_figure(s4, FIT, _stack(2, 0.8), "book")
    (ax,) = fig.axes
    np.testing.assert_array_equal(ax.lines[0].get_ydata(), s4.m)
    np.testing.assert_allclose(ax.lines[1].get_ydata(), np.exp(-0.1 * K))
    np.testing.assert_array_equal(ax.lines[2].get_ydata(), 0.8**K)
    assert ax.get_yscale() == "log" and ax.get_title() == "S4-style layer (scale: book)"


def test_two_layer_figure_draws_probe_and_closed_form_on_both_axes():
    t = 0.1 * K
    probe = TwoLayerProbe(0.0, t, t * np.exp(-t), t * np.exp(-0.5 * t), 0.0, 0.1)
    fig = two_layer_figure([probe], 0.1, "paper")
    lin, log = fig.axes
    for ax in (lin, log):
        np.testing.assert_array_equal(ax.lines[0].get_ydata(), probe.m)
        np.testing.assert_array_equal(ax.lines[1].get_ydata(), probe.closed)
    assert lin.get_yscale() == "linear" and log.get_yscale() == "log"
    assert lin.get_legend().get_texts()[0].get_text() == "b - a = 0.0"
    assert "Δt = 0.1 (scale: paper)" in fig._suptitle.get_text()


def test_table1_figure_draws_the_first_steps_and_attention_on_log_log():
    att = 1 / (1 + np.arange(200.0))
    probes = Table1Memories(
        rnn=0.8**K, rnn_rate=0.2, ssm=0.9**K, ssm_rate=0.1, ssm_window=(1.0, 2.0),
        tcn=np.r_[np.ones(4), np.zeros(46)], R=4, attention=att, attention_closed=att,
    )  # fmt: skip
    fig = table1_figure(probes, "ci", first=30)
    ax1, ax2 = fig.axes
    np.testing.assert_array_equal(ax1.lines[0].get_ydata(), 0.8 ** K[:30])
    assert np.all(np.isnan(ax1.lines[2].get_ydata()[4:]))  # the TCN's zeros
    np.testing.assert_array_equal(ax1.lines[3].get_ydata(), att[:30])
    np.testing.assert_array_equal(ax2.lines[0].get_ydata(), att[1:])
    np.testing.assert_allclose(ax2.lines[2].get_ydata(), att[100] * 100 / np.arange(1, 200))
    assert ax2.get_xscale() == ax2.get_yscale() == "log"
    assert "scale: ci" in fig._suptitle.get_text()


def test_stack_memory_figure_draws_the_chosen_frame():
    memories = {(2, 4, "tanh"): (0.9**K, FIT, 0.105)}
    fig = stack_memory_figure(memories, 2, 4, "tanh")
    (ax,) = fig.axes
    np.testing.assert_array_equal(ax.lines[0].get_ydata(), 0.9**K)
    np.testing.assert_allclose(ax.lines[1].get_ydata(), np.exp(-0.1 * K))
    assert ax.get_title() == "random stack: depth 2, N = 4, tanh"
    assert "rate 0.100 (slowest layer 0.105)" in ax.get_legend().get_texts()[1].get_text()
