"""The figures of the stable-approximation chapter, drawn with Agg: the plotted data are the
inputs, the axes have the chapter's scales, and the titles carry the scale setting."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from lrnn_core.core.memory import DecayFit  # noqa: E402
from lrnn_core.wang_li_li import stable_figures as figs  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _lines(ax):
    return [(np.asarray(line.get_xdata()), np.asarray(line.get_ydata())) for line in ax.lines]


def test_linear_errors_figure_plots_each_width_against_beta():
    betas = np.array([0.0, 1e-3, 2e-3])
    E = {"exponential": np.array([[1e-3, 1e-4, 2e-4], [1e-21, 1e-4, 1e-4]]),
         "polynomial": np.array([[1e-2, 1e-6, 1e-5], [5e-3, 1e3, 1e4]])}  # fmt: skip
    fig = figs.linear_errors_figure(E, [2, 32], betas, scale="ci")
    assert "(scale: ci)" in fig._suptitle.get_text()
    for ax, (name, errors) in zip(fig.axes, E.items(), strict=True):
        assert ax.get_title() == f"{name} memory"
        assert ax.get_xscale() == ax.get_yscale() == "log"
        for (x, y), row in zip(_lines(ax), errors, strict=True):
            np.testing.assert_array_equal(x, betas[1:])
            np.testing.assert_array_equal(y, row[1:])
    labels = [t.get_text() for t in fig.axes[1].get_legend().get_texts()]
    assert labels == ["m=2: $E_m(0)$=1.0e-02", "m=32: $E_m(0)$=5.0e-03"]


def test_perturbed_fit_figure_draws_the_three_kernels_and_the_error_curve():
    t = np.linspace(0.0, 1.0, 5)
    target, fitted, moved = np.exp(-t), np.exp(-t) + 0.01, np.exp(-t) - 0.2
    betas, E = np.array([0.0, 1e-3, 1e-2]), np.array([1e-4, 2e-3, 3e-2])
    fig = figs.perturbed_fit_figure(t, target, fitted, moved, betas, E, beta=1e-2, title="x")
    ax1, ax2 = fig.axes
    for (x, y), want in zip(_lines(ax1), (target, fitted, moved), strict=True):
        np.testing.assert_array_equal(x, t)
        np.testing.assert_array_equal(y, want)
    assert ax1.get_title() == "x" and ax2.get_title() == "$E_m(0)$ = 1.0e-04"
    x, y = _lines(ax2)[0]
    np.testing.assert_array_equal(y, E[1:])
    assert _lines(ax2)[1][0][0] == 1e-2  # the chosen beta, marked
    assert ax2.get_xscale() == ax2.get_yscale() == "log"


def test_epochs_figure_caps_misses_at_the_budget_plus_one():
    needed = {("tanh", "exponential"): np.array([2.0, 3.0]),
              ("tanh", "polynomial"): np.array([5.0, np.inf])}  # fmt: skip
    fig = figs.epochs_figure(needed, [8, 16], budget=20, split=100, scale="book")
    (ax,) = fig.axes
    (x, exp), (_, pol) = _lines(ax)[:2]
    np.testing.assert_array_equal(x, [8, 16])
    np.testing.assert_array_equal(exp, [2.0, 3.0])
    np.testing.assert_array_equal(pol, [5.0, 21.0])
    assert _lines(ax)[2][1][0] == 20 and _lines(ax)[3][1][0] == 100  # budget, split
    assert ax.get_title() == "tanh" and ax.get_yscale() == "log"
    assert "(scale: book)" in fig._suptitle.get_text()


def test_nonlinear_errors_figure_has_one_panel_per_activation_and_target():
    betas = np.array([0.0, 1e-3, 2e-3])
    E = {(a, n): np.arange(6.0).reshape(2, 3) + i + 1
         for i, (a, n) in enumerate([("tanh", "exponential"), ("tanh", "polynomial"),
                                     ("relu", "exponential"), ("relu", "polynomial")])}  # fmt: skip
    fig = figs.nonlinear_errors_figure(E, [8, 32], betas, scale="paper")
    assert len(fig.axes) == 4 and "(scale: paper)" in fig._suptitle.get_text()
    for ax, (key, errors) in zip(fig.axes, E.items(), strict=True):
        assert ax.get_title() == f"{key[0]}, {key[1]} memory"
        for (x, y), row in zip(_lines(ax), errors, strict=True):
            np.testing.assert_array_equal(x, betas[1:])
            np.testing.assert_array_equal(y, row[1:])


def test_filter_figure_draws_memories_fits_and_radii():
    t = np.arange(4.0)
    memories = [np.array([1.0, 0.5, 0.25, 0.0]), np.array([1.0, 1.0, 1.0, 1.0])]
    fits = [DecayFit(np.log(2), 0.0, 1.0), None]
    fig = figs.filter_figure(t, memories, fits, [True, False], [0.5, 6.0], np.array([0.3, 0.0]),
                             0.01, scale="ci")  # fmt: skip
    ax1, ax2 = fig.axes
    (_, kept), (_, fit), (_, rejected) = _lines(ax1)
    np.testing.assert_array_equal(kept, [1.0, 0.5, 0.25, 1e-16])  # floored for the log axis
    np.testing.assert_allclose(fit, 0.5**t)
    np.testing.assert_array_equal(rejected, memories[1])
    assert ax1.get_yscale() == "log" and ax2.get_yscale() == "symlog"
    offsets = [c.get_offsets() for c in ax2.collections]
    np.testing.assert_array_equal(offsets[0], [[0.5, 0.3]])
    np.testing.assert_array_equal(offsets[1], [[6.0, 0.0]])
    assert _lines(ax2)[0][1][0] == 0.01 and "(scale: ci)" in fig._suptitle.get_text()


def test_rescaling_figure_plots_the_error_at_beta_against_the_width():
    E = {(1.0, 0.1): np.array([[0.0, 1e-9], [0.0, 2e-2]]),
         (0.1, 0.1): np.array([[0.0, 3e-4], [0.0, 1e-4]])}  # fmt: skip
    fig = figs.rescaling_figure(E, [2, 32], scale="ci")
    (ax,) = fig.axes
    for (x, y), errors in zip(_lines(ax), E.values(), strict=True):
        np.testing.assert_array_equal(x, [2, 32])
        np.testing.assert_array_equal(y, errors[:, 1])
    assert ax.get_xscale() == ax.get_yscale() == "log"
    assert ax.get_title().endswith("(scale: ci)")
