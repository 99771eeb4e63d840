"""The stable-reparameterisation chapter's figures draw their data, on the scales and with the
titles named."""

import matplotlib

matplotlib.use("Agg")

from types import SimpleNamespace  # noqa: E402

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from lrnn_core.wang_li_li.reparameterisation_figures import (  # noqa: E402
    fig4_figure,
    lru_figure,
    memory_figure,
    mnist_loss_figure,
    nonlinear_figure,
)

BETAS = np.array([0.0, 1e-3, 2e-3])


def test_fig4_figure_one_loglog_panel_per_map():
    E = {"direct": np.array([[0.0, 1.0, 2.0], [0.0, 3.0, 4.0]]), "exp": np.ones((2, 3))}
    fig = fig4_figure(E, [2, 4], BETAS, "ci")
    a, b = fig.axes
    np.testing.assert_array_equal(a.lines[1].get_xdata(), BETAS[1:])
    np.testing.assert_array_equal(a.lines[1].get_ydata(), [3.0, 4.0])
    assert a.get_xscale() == a.get_yscale() == "log" and b.get_title() == "exp"
    assert "scale: ci" in fig._suptitle.get_text()
    plt.close(fig)


def test_nonlinear_figure_rows_are_the_rules_and_relu_counts_pairs():
    runs = {"relu": ("direct",), "tanh": ("direct", "exp"), "hardtanh": ("direct",)}
    E = {
        (a, p): np.full((2, 3), 1.0 + i)
        for i, (a, p) in enumerate([(a, p) for a, ps in runs.items() for p in ps])
    }
    frozen = {k: v / 2 for k, v in E.items()}
    fig = nonlinear_figure([E, frozen], runs, [4, 8], BETAS, 0.5, "Figs 7-8 (scale: ci)")
    axes = np.array(fig.axes).reshape(2, 3)
    np.testing.assert_array_equal(axes[1, 1].lines[2].get_ydata(), frozen["tanh", "exp"][0, 1:])
    assert axes[0, 1].lines[2].get_linestyle() == ":"  # exp dotted
    assert axes[0, 0].lines[0].get_label() == "direct, 4 pairs"
    assert axes[0, 0].lines[-1].get_ydata()[0] == 0.5  # the target variance
    assert "b fixed" in axes[1, 2].get_title() and "Fig 7" in axes[0, 0].get_title()
    assert fig._suptitle.get_text() == "Figs 7-8 (scale: ci)"
    plt.close(fig)


def test_memory_figure_target_fit_and_perturbed():
    t, rho = np.arange(3.0), np.array([1.0, 0.5, 0.25])
    curves = np.array([[1.0, 0.4, 0.2], [1.0, 2.0, 3.0], [1.0, 0.1, 0.01]])
    fig = memory_figure(t, rho, curves, 0.064, "tanh, exp (scale: ci)")
    ax = fig.axes[0]
    np.testing.assert_array_equal(ax.lines[0].get_ydata(), rho)
    np.testing.assert_array_equal(ax.lines[1].get_ydata(), curves[0])
    np.testing.assert_array_equal(ax.lines[3].get_ydata(), curves[2])
    assert ax.get_yscale() == "log" and ax.get_title() == "tanh, exp (scale: ci)"
    plt.close(fig)


def test_lru_figure_moduli_against_beta():
    worst = {"lru": np.array([0.99, 0.995]), "direct": np.array([0.999, 1.5])}
    fig = lru_figure(worst, np.array([1e-3, 1.0]), "book")
    ax = fig.axes[0]
    np.testing.assert_array_equal(ax.lines[1].get_ydata(), [0.999, 1.5])
    assert ax.get_xscale() == "log" and "scale: book" in ax.get_title()
    plt.close(fig)


def test_mnist_loss_figure_smooths_over_a_tenth_of_an_epoch():
    loss = np.array([[4.0, 2.0, 0.0, 2.0] * 5, [2.0, 0.0, 2.0, 4.0] * 5])  # mean: 3, 1, 1, 3
    runs = {"direct": SimpleNamespace(train_loss=loss)}
    fig = mnist_loss_figure(runs, 20, "Fig 9 (scale: ci)")  # window 2
    line = fig.axes[0].lines[0]
    np.testing.assert_allclose(line.get_ydata()[:3], [2.0, 1.0, 2.0])
    np.testing.assert_allclose(line.get_xdata()[:2], [0.1, 0.15])
    assert fig.axes[0].lines[1].get_ydata()[0] == np.log(10)
    assert fig.axes[0].get_title() == "Fig 9 (scale: ci)"
    plt.close(fig)
