"""The foundations chapter's figures draw their data, on the axes named."""

import matplotlib

matplotlib.use("Agg")

import jax  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from lrnn_core.foundations import linear_recurrences_figures as figures  # noqa: E402


@pytest.fixture(autouse=True)
def close():
    yield
    plt.close("all")


def test_circular_law_figure_scatters_the_eigenvalues_in_the_unit_circle():
    lam = np.array([0.5 + 0.5j, -0.2j, 0.9])
    (ax,) = figures.circular_law_figure(lam).axes
    np.testing.assert_allclose(ax.collections[0].get_offsets(), [[0.5, 0.5], [0, -0.2], [0.9, 0]])
    assert ax.patches[0].get_radius() == 1 and ax.get_title().endswith("N=3")


def test_scan_depth_figure_draws_rounds_and_two_log2_l():
    (ax,) = figures.scan_depth_figure([2, 4, 8], [1, 3, 5]).axes
    np.testing.assert_allclose(ax.lines[0].get_ydata(), [1, 3, 5])
    np.testing.assert_allclose(ax.lines[1].get_ydata(), [2, 4, 6])
    assert ax.get_xscale() == "log"


def test_ring_figure_draws_ring_eigenvalues_and_their_powers():
    fig = figures.ring_figure(4, 0.5, 0.9, np.pi, key=jax.random.key(0), steps=5)
    ax1, ax2 = fig.axes
    x, y = ax1.collections[0].get_offsets().T
    lam = x + 1j * y  # the scattered eigenvalues: on the ring, their powers on the right
    assert np.all((np.abs(lam) >= 0.5 - 1e-6) & (np.abs(lam) <= 0.9 + 1e-6))
    np.testing.assert_allclose(ax2.lines[1].get_ydata(), (lam[1] ** np.arange(5)).real, rtol=1e-5)
    assert [p.get_radius() for p in ax1.patches] == [0.5, 0.9, 1]
    assert ax1.get_title() == "4 eigenvalues"
