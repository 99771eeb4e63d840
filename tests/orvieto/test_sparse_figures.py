"""The figures of the sparse-inputs chapter draw the data they are given (Agg backend)."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.figure import Figure

from lrnn_core.orvieto.sparse import LOG10_SINGULAR, Sweep, SweepSet
from lrnn_core.orvieto.sparse_figures import (
    atoms_figure,
    fig9_figure,
    fig12_figure,
    hippo_figure,
    sweeps_figure,
    wavelets_figure,
    widget_figure,
)


@pytest.fixture(autouse=True)
def _close(monkeypatch):
    """No layout pass (what is drawn is tested, not where), and every figure closed after."""
    monkeypatch.setattr(Figure, "tight_layout", lambda self, *args, **kwargs: None)
    yield
    plt.close("all")


def test_wavelets_figure_draws_the_chosen_columns():
    basis = np.arange(24.0).reshape(6, 4)
    fig = wavelets_figure({"A": basis, "B": -basis}, columns=(0, 3), scale="ci")
    np.testing.assert_array_equal(fig.axes[1].lines[1].get_ydata(), -basis[:, 3])
    assert fig.axes[0].get_title() == "A"
    assert "L=6 (scale: ci" in fig._suptitle.get_text()


def test_sweeps_figure_draws_medians_and_the_lower_bound():
    res = SweepSet(
        ks=np.array([2, 4]),
        rank_gamma=np.array([[1, 2], [1, 4]]),
        rel_error=np.array([[[1e-3, 1e-2]], [[1e-5, 1e-4]]]),
        v_grid=np.array([1, 2]),
        v_ranks=np.array([[1, 2], [1, 2]]),
        v_lower=np.array([[1, 2, 2, 2], [1, 1, 2, 2]]),
        gap_bound=np.array([0, 0]),
    )
    fig = sweeps_figure({2: res}, 0.95, "Fig. 10", P=4, scale="book")
    ax0, ax1, ax2 = fig.axes
    np.testing.assert_array_equal(ax0.lines[1].get_ydata(), [1, 1, 2, 2])  # min over draws
    np.testing.assert_array_equal(ax1.lines[0].get_ydata(), [1, 3])  # median rank
    np.testing.assert_allclose(ax2.lines[0].get_ydata(), [np.median([1e-3, 1e-5]), 5.05e-3])
    assert ax2.get_yscale() == "log"
    assert "L=4" in fig._suptitle.get_text() and "scale: book" in fig._suptitle.get_text()


def test_atoms_figure_draws_the_median_errors():
    s = {2: {"median max error": 1e-3}, 4: {"median max error": 1e-12}}
    fig = atoms_figure({("T(0.95,1)", "random"): s, ("T(0.99,1)", "random"): s}, 1e-10, scale="ci")
    ax = fig.axes[0]
    np.testing.assert_array_equal(ax.lines[0].get_ydata(), [1e-3, 1e-12])
    assert ax.lines[0].get_linestyle() == "-" and ax.lines[1].get_linestyle() == "--"
    assert ax.lines[2].get_ydata()[0] == 1e-10
    assert ax.get_xscale() == ax.get_yscale() == "log" and "scale: ci" in ax.get_title()


def test_fig9_figure_marks_singular_cells():
    levels = np.array([[[1.0, np.nan]], [[2.0, 3.0]]])  # 2 rings, 1 N, 2 P
    fig = fig9_figure(levels, [0.9, 0.99], [8], [4, 16], title="Fig. 9 (scale: ci)")
    image = fig.axes[0].images[0].get_array()
    assert image[0, 0] == 1.0 and image.mask[0, 1]  # NaN is masked out
    assert [t.get_text() for t in fig.axes[0].texts] == ["1.0", "sing."]
    assert fig.axes[0].images[0].get_clim() == (0, LOG10_SINGULAR)
    assert fig._suptitle.get_text() == "Fig. 9 (scale: ci)"


def test_fig12_figure_draws_families_and_the_reference():
    stats = {
        ("a", "median"): {"Haar": np.array([1.0, np.inf]), "Van. inverse": np.array([1e5])},
        ("b", "median"): {"Haar": np.array([2.0, 3.0]), "Van. inverse": np.array([np.inf])},
    }
    fig = fig12_figure(stats, ["a", "b"], [8, 16], title="Fig. 12 (scale: paper)")
    a, b = fig.axes
    np.testing.assert_array_equal(a.lines[0].get_ydata(), [1.0, np.nan])
    assert a.lines[1].get_ydata()[0] == 1e5  # the Van. inverse, dashed
    assert b.lines[1].get_label() == "Van. inverse: singular"
    assert a.get_yscale() == "log" and "scale: paper" in fig._suptitle.get_text()


def test_hippo_and_widget_figures_draw_their_data():
    example = {"input": np.ones(8), "HiPPO, N=4": np.zeros(8)}
    fig = hippo_figure([4, 8], [1e-2, 1e-5], [0.5, 0.4], example, scale="ci")
    np.testing.assert_array_equal(fig.axes[0].lines[1].get_ydata(), [0.5, 0.4])
    np.testing.assert_array_equal(fig.axes[1].lines[1].get_ydata(), np.zeros(8))
    assert fig.axes[0].get_yscale() == "log" and "L=8 (scale: ci)" in fig.axes[0].get_title()
    sweep = Sweep(np.array([4, 8]), np.array([2, 3]), np.array([2, 4]), np.array([1e-3, 1e-9]))
    fig = widget_figure(np.ones(8), 2 * np.ones(8), sweep, 4, 2, scale="ci")
    np.testing.assert_array_equal(fig.axes[0].lines[1].get_ydata(), 2 * np.ones(8))
    np.testing.assert_array_equal(fig.axes[1].lines[0].get_ydata(), [1e-3, 1e-9])
    assert (
        fig.axes[1].get_title().endswith("rank Γ_L = 3") and "scale: ci" in fig._suptitle.get_text()
    )
    assert fig._suptitle.get_text().startswith("N=4, P=2, L=8")
