"""The universality chapter's figures draw the data they are given (Agg backend)."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.patches import FancyBboxPatch  # noqa: E402

from lrnn_core.wang_xue.tokenwise import TokenFit, TokenwiseRun, tokenwise_outputs  # noqa: E402
from lrnn_core.wang_xue.universality_figures import (  # noqa: E402
    FIG1,
    FIG3,
    FIG4,
    Diagram,
    diagram,
    kernel_fit_figure,
    prediction_figure,
    tokenwise_figure,
    volterra_figure,
)


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


@pytest.mark.parametrize("d", [FIG1, FIG3, FIG4])
def test_diagrams_draw_one_box_per_label(d):
    ax = diagram(d).axes[0]
    assert sum(isinstance(p, FancyBboxPatch) for p in ax.patches) == len(d.boxes)
    texts = [t.get_text() for t in ax.texts if t.get_text()]  # arrows are empty annotations
    assert [label for label, _ in d.boxes] == texts[: len(d.boxes)] and d.note in texts
    assert ax.get_title() == d.title


def test_diagram_on_given_axes_without_note():
    fig, ax = plt.subplots()
    assert diagram(Diagram((("a", "io"), ("b", "rec")), "t"), ax) is fig
    assert [t.get_text() for t in ax.texts] == ["a", "b", ""] and len(ax.patches) == 2


def test_tokenwise_figure_plots_errors_and_fits():
    fit = TokenFit(np.array([2.0]), np.array([0.1]), np.array([0.5]), 0.2, "tanh", 0, 0, True)
    run = TokenwiseRun({1: fit, 2: fit}, {1: 1e-2, 2: 1e-4}, {1: True, 2: True}, fit, 0.3,
                       {"ignores input": 0.5, "linear": 0.2})  # fmt: skip
    fig = tokenwise_figure(run, "ci")
    ax, ax2 = fig.axes
    np.testing.assert_array_equal(ax.lines[0].get_xydata(), [[1, 1e-2], [2, 1e-4]])
    assert ax.lines[1].get_ydata()[0] == 0.3 and ax.lines[2].get_ydata()[0] == 0.5
    assert ax.get_xscale() == ax.get_yscale() == "log"
    u = ax2.lines[1].get_xdata()
    np.testing.assert_allclose(ax2.lines[0].get_ydata(), np.sin(np.pi * u))
    np.testing.assert_allclose(ax2.lines[1].get_ydata(), tokenwise_outputs(fit, u))
    assert "scale: ci" in fig._suptitle.get_text()


def test_kernel_fit_figure_floors_the_errors():
    fig = kernel_fit_figure({"k": np.array([0.5, 0.0])}, [1, 2], "book")
    ax = fig.axes[0]
    np.testing.assert_array_equal(ax.lines[0].get_ydata(), [0.5, 1e-17])
    assert ax.get_yscale() == "log" and "scale: book" in ax.get_title()


def test_volterra_and_prediction_figures():
    r = lambda e: {"nmse": e, "nmse_long": 2 * e, "pred": np.ones(3), "target": np.zeros(3)}  # noqa: E731
    grid = {("a", 1, 4): r(0.4), ("a", 1, 8): r(0.1), ("b", 1, 4): r(0.3), ("b", 1, 8): r(0.2)}
    fig = volterra_figure(grid, 64, "ci")
    ax_a, ax_b = fig.axes
    np.testing.assert_array_equal(ax_a.lines[0].get_xydata(), [[4, 0.4], [8, 0.1]])
    np.testing.assert_array_equal(ax_b.lines[1].get_ydata(), [0.6, 0.4])
    assert ax_a.get_title() == "a" and ax_a.get_xscale() == "log"
    assert "L = 64 (scale: ci" in fig._suptitle.get_text()
    ax = prediction_figure(grid, "b", 1, 8).axes[0]
    np.testing.assert_array_equal(ax.lines[0].get_ydata(), np.zeros(3))
    np.testing.assert_array_equal(ax.lines[1].get_ydata(), np.ones(3))
    assert ax.get_title() == "b, depth 1, N = 8: NMSE 0.2000"
