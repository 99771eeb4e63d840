"""The conditioning chapter's figures draw their data, on the scales and with the titles named."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from lrnn_core.core.vandermonde import EPS, vandermonde64  # noqa: E402
from lrnn_core.orvieto.conditioning import ErrorGrid, GramDraws, vandermonde_norms  # noqa: E402
from lrnn_core.orvieto.conditioning_figures import (  # noqa: E402
    abs_vandermonde_figure,
    abs_vandermonde_frame,
    gram_figure,
    grid_panels,
    real_roots_figure,
    reconstruction_figure,
    token_error_figure,
    vandermonde_error_figure,
)


@pytest.fixture(autouse=True)
def close():
    yield
    plt.close("all")


LAM = np.array([0.5, -0.25j, 1.0])


def test_abs_vandermonde_figure_shows_abs_v_and_its_norms():
    fig = abs_vandermonde_figure({0.0: LAM, 0.9: LAM * 0.9}, 4, 7, "ci")
    ax1, ax2 = fig.axes[:2]
    np.testing.assert_allclose(ax1.images[0].get_array(), np.abs(vandermonde64(LAM, 4)))
    np.testing.assert_allclose(ax2.images[0].get_array(), np.abs(vandermonde64(LAM * 0.9, 4)))
    n = vandermonde_norms(LAM, 4)
    assert f"{n.frobenius:.1e}" in ax1.get_title() and f"{n.pinv_frobenius:.1e}" in ax1.get_title()
    assert "seed 7" in ax1.get_title() and "scale: ci" in fig.get_suptitle()


def test_abs_vandermonde_frame_log_scale_clips_at_1e_16():
    lam = np.array([1e-9, 0.5, 1.0])
    fig = abs_vandermonde_frame(lam, 3, 0.0, True, 3, "book")
    shown = fig.axes[0].images[0].get_array()
    np.testing.assert_allclose(shown, np.log10(np.maximum(np.abs(vandermonde64(lam, 3)), 1e-16)))
    assert shown.min() == -16 and fig.axes[0].images[0].get_clim() == (-16, 0)
    assert "scale: book" in fig.axes[0].get_title() and "N=3" in fig.axes[0].get_title()


def test_real_roots_figure_draws_each_law_on_a_log_axis():
    fig = real_roots_figure([4, 6], {"a": [10.0, 100.0], "b": [1.0, 1.0]}, "paper")
    ax = fig.axes[0]
    assert ax.get_yscale() == "log"
    np.testing.assert_array_equal(ax.lines[0].get_ydata(), [10.0, 100.0])
    np.testing.assert_array_equal(ax.lines[1].get_xdata(), [4, 6])
    assert ax.lines[2].get_ydata()[0] == 1 / EPS and "scale: paper" in ax.get_title()


def _grid():
    rng = np.random.default_rng(0)
    abs_by_k = rng.uniform(size=(2, 3, 2, 784))
    examples = rng.uniform(size=(2, 3, 1, 784))
    seeds = np.arange(12).reshape(2, 3, 2)
    return ErrorGrid((8, 16), (0.0, 0.5, 1.0), seeds, abs_by_k, abs_by_k**2, examples)


def test_reconstruction_figure_draws_input_reconstruction_and_image():
    grid, u = _grid(), np.linspace(0, 1, 784)
    fig = reconstruction_figure(u, grid_panels(grid, (16,), (0.5, 1.0)), "Fig (scale: ci)")
    axes = fig.axes
    assert len(axes) == 4 and fig.get_suptitle() == "Fig (scale: ci)"
    np.testing.assert_array_equal(axes[0].lines[0].get_ydata(), u)
    np.testing.assert_array_equal(axes[2].lines[1].get_ydata(), grid.examples[1, 2, 0])
    image = np.clip(grid.examples[1, 1, 0], 0, 1).reshape(28, 28)
    np.testing.assert_array_equal(axes[1].images[0].get_array(), image)
    assert axes[0].get_title() == "N=16, $r_{\\min}$=0.5"


def test_reconstruction_figure_marks_the_periods():
    u = np.zeros(784)
    fig = reconstruction_figure(u, [[("a", u)]], "t", period=256)
    starts = [line.get_xdata()[0] for line in fig.axes[0].lines[2:]]
    assert starts == [528, 272, 16]


def test_vandermonde_error_figure_draws_each_metric_per_N():
    mse = np.array([[0.1, 0.05], [0.02, 0.01]])
    ticks = np.arange(0.0, 0.17, 0.02)
    fig = vandermonde_error_figure({"MSE": mse, "MAE": 2 * mse}, (8, 16), (0.0, 1.0), ticks, "s")
    ax1, ax2 = fig.axes
    np.testing.assert_array_equal(ax1.lines[1].get_ydata(), mse[1])
    np.testing.assert_array_equal(ax2.lines[0].get_ydata(), 2 * mse[0])
    assert ax1.get_ylim() == (0, 0.16) and ax2.get_ylim() == (0, 0.21000000000000002)
    assert ax1.get_ylabel() == "per-pixel MSE" and fig.get_suptitle() == "s"


def test_token_error_figure_averages_over_draws_on_a_log_axis():
    grid = _grid()
    fig = token_error_figure(grid, (16,), "t (scale: ci)")
    ax = fig.axes[0]
    assert ax.get_yscale() == "log" and ax.get_title() == "N=16"
    np.testing.assert_allclose(ax.lines[2].get_ydata(), grid.abs_by_k[1, 2].mean(axis=0))


def test_gram_figure_draws_range_svd_and_formed_curves():
    svd = np.array([[np.inf, np.inf], [1e50, 1e3]])
    rng = np.array([[1e5, 1e2], [np.nan, np.nan]])
    formed = np.array([[1e17, 1e16], [1e16, 1e3]])
    medians = GramDraws((4, 16), (0.0, 1.0), svd, formed, rng)
    fig = gram_figure(medians, (4, 16), (0.0, 1.0), 8, 1e30, "t")
    ax1, ax2 = fig.axes
    np.testing.assert_array_equal(ax1.lines[0].get_ydata(), rng[0])  # N < L: on the range
    np.testing.assert_array_equal(ax1.lines[1].get_ydata(), [1e45, 1e3])  # capped at top
    np.testing.assert_array_equal(ax2.lines[1].get_ydata(), formed[1])
    assert ax1.get_yscale() == "log" and ax1.get_ylim() == (1, 1e46)
