"""The memorisation chapter's figures draw their data, on the scales and with the titles named."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from lrnn_core.orvieto.memorisation import PrefixCheck  # noqa: E402
from lrnn_core.orvieto.memorisation_figures import (  # noqa: E402
    channels_figure,
    digit_frame,
    fig1_figure,
    prop1_figure,
)


@pytest.fixture(autouse=True)
def close():
    yield
    plt.close("all")


def test_prop1_figure_draws_errors_and_residuals_on_log_axes():
    check = PrefixCheck(err=np.array([1e-15, 1e-20, 1e-12]), residual=np.array([1e-14]), cond=2.0)
    fig = prop1_figure({"a": check}, [3], [1, 2], [1e-16, 0.5], 1, "ci")
    ax1, ax2 = fig.axes
    assert ax1.get_yscale() == ax2.get_yscale() == "log"
    np.testing.assert_array_equal(ax1.lines[0].get_xdata(), [1, 2, 3])
    np.testing.assert_array_equal(ax1.lines[0].get_ydata(), [1e-15, 1e-17, 1e-12])
    np.testing.assert_array_equal(ax1.lines[1].get_ydata(), [1e-16, 0.5])
    np.testing.assert_array_equal(ax2.lines[0].get_ydata(), [1e-14])
    assert "scale: ci" in ax1.get_title() and "scale: ci" in ax2.get_title()


def test_channels_figure_draws_input_and_reconstruction():
    channels = np.arange(12.0).reshape(4, 3)
    fig = channels_figure(channels, channels.T + 1, ["a", "b", "c"], "book")
    assert len(fig.axes) == 3
    np.testing.assert_array_equal(fig.axes[1].lines[0].get_ydata(), channels[:, 1])
    np.testing.assert_array_equal(fig.axes[1].lines[1].get_ydata(), channels[:, 1] + 1)
    assert "L = 4, scale: book" in fig.axes[0].get_title()


def test_fig1_figure_shows_the_digit_and_clipped_reconstructions():
    digit = np.linspace(0, 1, 16)
    fig = fig1_figure(
        digit, 3, {2: digit * 2, 4: digit}, [0.5, 0.0], r_min=0.9, r_max=1.0, scale="ci", seed=0
    )
    first, second = (ax.images[0].get_array() for ax in fig.axes[:2])
    np.testing.assert_array_equal(first, digit.reshape(4, 4))
    np.testing.assert_array_equal(second, np.clip(digit * 2, 0, 1).reshape(4, 4))
    assert fig.axes[1].get_title() == "N = 2, MSE 0.5000"
    assert "(scale: ci, seed 0)" in fig._suptitle.get_text()


def test_digit_frame_names_repeated_nodes():
    digit = np.linspace(0, 1, 16)
    fig = digit_frame(digit, digit, 1, law="real", N=4, r_min=0.5, r_max=0.5, scale="ci", seed=0)
    title = fig.axes[1].get_title()
    assert title.startswith("real, N=4, [0.5, 0.5] (1 distinct λ)") and "MSE 0.00e+00" in title
    assert "scale: ci" in fig._suptitle.get_text()
