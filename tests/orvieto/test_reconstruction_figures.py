"""The learned-reconstruction chapter's figures draw their data, on the scales and with the
titles named."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from lrnn_core.orvieto.reconstruction import ReconstructionRun, index_rows  # noqa: E402
from lrnn_core.orvieto.reconstruction_figures import (  # noqa: E402
    TABLE_HEAD,
    decoder_frame,
    eigenvalue_figure,
    examples_figure,
    fig4_figure,
    pathfinder_figure,
    stored_table,
)


@pytest.fixture(autouse=True)
def close():
    yield
    plt.close("all")


def _run(examples, lam=0.6):
    return ReconstructionRun(
        N=1, D=(), train_mse=np.zeros(1), test_mse=np.zeros(1), curve=np.zeros((1, 1)),
        lam_init=np.array([[0.5]]), lam=np.array([[lam]]), examples=examples,
        shuffled_mse=np.zeros(1),
    )  # fmt: skip


def _cell(median, run=None):
    cell = {"median": median, "baselines": {"ignores input": 0.1, "linear": 0.2}}
    return cell | ({"run": run} if run is not None else {})


def test_pathfinder_figure_shows_images_and_labels():
    images = np.random.default_rng(0).random((6, 16))
    fig = pathfinder_figure(images, [0, 1, 0, 1, 1, 0])
    np.testing.assert_array_equal(fig.axes[1].images[0].get_array(), images[1].reshape(4, 4))
    assert fig.axes[1].get_title() == "label 1"


def test_fig4_figure_draws_stored_live_and_baselines_on_log_axes():
    stored = {("A", h, N): _cell(m) for h, N, m in [("linear", 4, 0.05), ("linear", 16, 0.01),
              ("MLP", 4, 0.04), ("MLP", 16, 0.02)]}  # fmt: skip
    live = {"A": {("linear", 4): _cell(0.06), ("MLP", 4): _cell(0.07)}}
    fig = fig4_figure(stored, {"A": [4, 16]}, live, 2.0, "ci")
    (ax,) = fig.axes
    assert ax.get_xscale() == ax.get_yscale() == "log"
    lines = {line.get_label(): line for line in ax.lines}
    np.testing.assert_array_equal(lines["trained linear (stored)"].get_ydata(), [0.05, 0.01])
    np.testing.assert_array_equal(lines["trained MLP (live, ci)"].get_ydata(), [0.07])
    np.testing.assert_array_equal(lines["better baseline / 2"].get_ydata(), [0.05, 0.05])
    assert ax.get_ylim()[0] == pytest.approx(1e-5)


def test_examples_figure_draws_each_cells_first_run():
    test = np.random.default_rng(1).random((4, 9))
    runs = {(h, 2): _cell(0.1, _run(np.full((1, 4, 9), 0.25 if h == "MLP" else 2.0)))
            for h in ("linear", "MLP")}  # fmt: skip
    fig = examples_figure(runs, test, [2], "digits", "book")
    axes = np.array(fig.axes).reshape(3, 4)
    np.testing.assert_array_equal(axes[0, 2].images[0].get_array(), test[2].reshape(3, 3))
    np.testing.assert_array_equal(axes[1, 0].images[0].get_array(), np.ones((3, 3)))  # clipped
    np.testing.assert_array_equal(axes[2, 0].images[0].get_array(), np.full((3, 3), 0.25))
    assert fig._suptitle.get_text() == "digits (live run, scale: book)"


def test_eigenvalue_figure_plots_before_after_and_modulus_steps():
    runs = {"linear": _run(None), "MLP": _run(None, lam=0.4j)}
    fig = eigenvalue_figure(runs, 1, "ci")
    ax1, ax2 = fig.axes
    assert ax1.lines[1].get_xdata()[0] == 0.5  # the initial eigenvalue
    np.testing.assert_allclose(ax2.lines[0].get_ydata(), [0.1])
    np.testing.assert_allclose(ax2.lines[1].get_ydata(), [-0.1])
    assert ax1.get_title() == "MNIST, N = 1 (scale: ci)"


def test_decoder_frame_titles_carry_the_mse():
    digit = np.linspace(0, 1, 4)
    fig = decoder_frame(digit, 7, digit + 0.1, digit, N=2, decoder="MLP", scale="ci", seed=0)
    titles = [ax.get_title() for ax in fig.axes]
    assert titles == [
        "input (label 7)",
        "trained, MLP\nMSE 1.00e-02",
        "VdM [0.999, 1]\nMSE 0.00e+00",
    ]
    assert fig._suptitle.get_text() == "N = 2 (scale: ci, seed 0)"


def test_stored_table_rows_carry_the_numbers():
    def row(head, N, median, train):
        return {"data": "MNIST", "head": head, "N": N, "best": median / 2, "median": median,
                "train_mse": train, "wall_s": 12.4,
                "baselines": {"ignores input": 0.06, "linear": 0.1}}  # fmt: skip

    rows = [row("linear", 64, 0.02, [0.01, 0.03]), row("MLP", 64, 0.01, [0.004])]
    rows += [row("linear", 256, 0.005, [0.002]), row("MLP", 256, 0.006, [0.003])]
    S = index_rows(rows)
    head, *rows = stored_table(S, {"MNIST": [64, 256]}).split("\n")[1:]
    assert rows[0] == (
        "| MNIST | 64 | linear | 1.00e-02 / 2.00e-02 | 2.00e-02 | 6.00e-02 | 1.00e-01 | "
        "nan | ×3.00 | 12 |"
    )
    assert rows[1].endswith("| 2.00e-02 | ×2.00 | 12 |")  # the trained linear is a baseline
    assert rows[3].endswith("5.00e-03 | ×0.83 | 12 |")
    assert TABLE_HEAD.count("|") == 10 + 1 + 11 and TABLE_HEAD.endswith("---|" * 10)
