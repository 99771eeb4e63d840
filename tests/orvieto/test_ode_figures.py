"""The ODE chapter's figures draw their data, on the scales and with the titles named."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from lrnn_core.orvieto import ode_figures as figs  # noqa: E402
from lrnn_core.orvieto.ode_flows import Dataset, StoredRun  # noqa: E402
from lrnn_core.orvieto.width import WIDTH_CI, WidthRun  # noqa: E402


@pytest.fixture(autouse=True)
def close():
    yield
    plt.close("all")


class FakeSweep:
    """A trained sweep that predicts 2 v and has eigenvalues 0.5, 0.5 i."""

    def predict(self, v, mode):
        return 2 * np.asarray(v)

    def eigenvalues(self, mode):
        return np.array([0.5, 0.5j])

    def summary(self, mode):
        return {"best": 0.25}


V = np.arange(12.0).reshape(3, 4) / 10
PT = Dataset("PT", V, V + 1.0, V[::-1], V[::-1] + 2.0, 0.0)
ROWS = {
    (f"{s} {r}", m): {"per_seed": [0.1, 0.2], "train_loss_per_seed": [[3.0, 2.0], [4.0, 1.0]]}
    for s in ("LV", "LZ")
    for r in ("linear", "MLP")
    for m in (False, True)
}
BASE = {"ignores input": 0.5, "linear": 0.05}
RUN = StoredRun({}, ROWS, {"LV": BASE, "LZ": BASE}, {"PT": False, "LV": True, "LZ": True})


def test_pt_live_figure_draws_truth_model_and_eigenvalues():
    fig = figs.pt_live_figure(PT, FakeSweep(), 2, "PT, live (ci)")
    ax, axe = fig.axes
    ybar = PT.y_train.mean(axis=0)
    np.testing.assert_allclose(ax.lines[0].get_ydata(), PT.y_test[0] - ybar)
    np.testing.assert_allclose(ax.lines[1].get_ydata(), 2 * PT.v_test[0] - ybar)
    assert len(ax.lines) == 6 and ax.get_title() == "PT, live (ci)"
    np.testing.assert_allclose(axe.lines[1].get_xdata(), [0.5, 0.0])
    np.testing.assert_allclose(axe.lines[1].get_ydata(), [0.0, 0.5])


def test_sensitivity_figure_draws_outputs_and_log_boxes():
    y = np.ones((2, 5))
    sens = {"y": y, "y2": 2 * y, "y_free": 3 * np.ones(5)}
    sens |= {"change": np.array([0.1, 0.2]), "lv_change": np.array([0.01])}
    ax, axc = figs.sensitivity_figure(sens, 1e-3).axes
    np.testing.assert_allclose(ax.lines[1].get_ydata(), 0.2 * np.ones(5))
    np.testing.assert_allclose(ax.lines[2].get_ydata(), 0.3 * np.ones(5))
    assert axc.get_yscale() == "log" and axc.get_title() == "input perturbation 0.001"


def test_mse_figure_draws_seeds_paper_values_and_baselines():
    ax_lv, ax_lz = figs.mse_figure(RUN).axes
    np.testing.assert_allclose(ax_lv.lines[0].get_ydata(), [0.1, 0.2])
    np.testing.assert_allclose(ax_lv.lines[1].get_ydata(), [0.04314] * 2)
    assert ax_lv.get_yscale() == "log" and ax_lv.get_title() == "Lotka-Volterra (stored CPU run)"
    np.testing.assert_allclose(ax_lz.lines[7].get_ydata(), [0.001487] * 2)


def test_seeds_figure_draws_one_curve_per_seed():
    (ax,) = figs.seeds_figure(RUN, (1, 2)).axes
    np.testing.assert_allclose(ax.lines[1].get_ydata(), [4.0, 1.0])
    np.testing.assert_allclose(ax.lines[1].get_xdata(), [1, 2])
    assert ax.get_yscale() == "log" and ax.get_title() == "Lorenz (stored run)"


def test_prediction_figure_names_scale_and_error():
    fig = figs.prediction_figure(PT, {"PT MLP": FakeSweep()}, "book", "MLP", 1)
    (ax,) = fig.axes
    ybar = PT.y_train.mean(axis=0)
    np.testing.assert_allclose(ax.lines[1].get_ydata(), 2 * PT.v_test[1] - ybar)
    assert ax.get_title() == "PT, live (book): test MSE 0.25"


def test_width_figure_draws_errors_and_barron_rate_log_log():
    errors = {j: np.array([0.1, 0.01, 0.001]) * (j + 1) for j in WIDTH_CI.lags}
    run = WidthRun({j: 1.0 for j in WIDTH_CI.lags}, {}, errors)
    (ax,) = figs.width_figure(WIDTH_CI, run).axes
    assert ax.get_xscale() == ax.get_yscale() == "log"
    np.testing.assert_allclose(ax.lines[1].get_ydata(), errors[3])
    np.testing.assert_allclose(ax.lines[3].get_ydata(), 0.1 * 2 / np.array([2, 8, 32]))
