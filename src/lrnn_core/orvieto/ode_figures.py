"""The figures of the controlled-ODE chapter (Orvieto et al., ICML 2024, §4.2, App. E.3; Figs. 5,
13-16 and the width illustration of Thm. 1 / Prop. 2): each takes computed data and returns a new
matplotlib Figure."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

from lrnn_core.orvieto.ode_flows import PAPER_MSE, Dataset, StoredRun, Sweep, filter_prediction
from lrnn_core.orvieto.odes import ode
from lrnn_core.orvieto.width import WidthRun, WidthSizes


def _input_driven(ax: plt.Axes, pt: Dataset, sw: Sweep, idx: list[int], model: str) -> None:
    """On ``ax``, the input-driven part ``y - ybar`` of the PT test trajectories ``idx``: the
    truth, the best run of ``sw`` (mode 0, labelled ``LRU + model``) and the causal linear
    filter's predictions."""
    ybar = pt.y_train.mean(axis=0)
    pred = sw.predict(pt.v_test[idx], 0)
    lin = filter_prediction(pt.v_train, pt.y_train, pt.v_test[idx])
    for k, i in enumerate(idx):
        ax.plot(pt.y_test[i] - ybar, f"C{k}", lw=3, alpha=0.4, label=f"truth {i + 1}")
        ax.plot(pred[k] - ybar, f"C{k}--", label=f"LRU + {model} {i + 1}")
        ax.plot(lin[k] - ybar, f"C{k}:", label=f"linear filter {i + 1}")
    ax.set(xlabel="step k", ylabel="y − mean trajectory")
    ax.legend(fontsize=7, ncol=3)


def pt_live_figure(pt: Dataset, sw: Sweep, n: int, title: str) -> Figure:
    """Left: the input-driven part ``y - ybar`` of the first ``n`` test trajectories, with the
    model's (mode 0) and the causal linear filter's predictions; right: the learned eigenvalues."""
    lam = sw.eigenvalues(0)
    fig, (ax, axe) = plt.subplots(1, 2, figsize=(10, 3.5), width_ratios=(2.2, 1))
    _input_driven(ax, pt, sw, list(range(n)), "MLP")
    ax.set_title(title)
    t = np.linspace(0, 2 * np.pi, 200)
    axe.plot(np.cos(t), np.sin(t), "k", lw=0.5)
    axe.plot(lam.real, lam.imag, ".")
    axe.set(aspect="equal", title="learned eigenvalues", xlabel="Re λ", ylabel="Im λ")
    return fig


def sensitivity_figure(sens: dict[str, np.ndarray], relative: float) -> Figure:
    """Left: one Lorenz output (``z_1 / 10``), perturbed and unforced; right: box plots of the
    relative output changes of Lorenz and Lotka-Volterra, log scale (``sens``: of
    :func:`~lrnn_core.orvieto.ode_flows.sensitivity_run`)."""
    fig, (ax, axc) = plt.subplots(1, 2, figsize=(10, 3.2))
    ax.plot(sens["y"][0] / 10, label="y (input v)")
    ax.plot(sens["y2"][0] / 10, "--", label="y (input v + 1e-3 w)")
    ax.plot(sens["y_free"] / 10, "k:", label="unforced (v = 0)")
    ax.set(xlabel="step k", ylabel="z₁ / 10", title="Lorenz, 512 steps of Δ = 0.002")
    ax.legend(fontsize=8)
    axc.boxplot([sens["change"], sens["lv_change"]], tick_labels=["Lorenz", "Lotka-Volterra"])
    axc.set(yscale="log", ylabel="max |Δy| / std(y)", title=f"input perturbation {relative:g}")
    return fig


def mse_figure(run: StoredRun) -> Figure:
    """Per system (LV, LZ): every seed's test MSE per readout and mode, the paper's best-of-seeds
    values (red, :data:`PAPER_MSE`) and the two baselines."""
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.5), sharey=True)
    for ax, system in zip(axes, ("LV", "LZ"), strict=True):
        for i, (s, r, m) in enumerate(k for k in PAPER_MSE if k[0] == system):
            per_seed = run.rows[f"{s} {r}", m]["per_seed"]
            ax.plot(np.full(len(per_seed), i), per_seed, "o", color="C0", alpha=0.6)
            ax.plot([i - 0.3, i + 0.3], [PAPER_MSE[s, r, m]] * 2, "C3-", lw=2)
        base = run.baselines[system]
        ax.axhline(base["ignores input"], color="gray", ls="--", label="ignores input")
        ax.axhline(base["linear"], color="k", ls=":", label="better linear map")
        ax.set_xticks(
            range(4), ["lin, Λ frozen", "lin, Λ trained", "MLP, Λ frozen", "MLP, Λ trained"]
        )
        ax.set(yscale="log", title=f"{ode(system).name} (stored CPU run)")
    axes[0].set_ylabel("test MSE")
    axes[0].legend(fontsize=8)
    return fig


def seeds_figure(run: StoredRun, seeds: tuple[int, ...]) -> Figure:
    """Fig. 14: training loss per epoch of the Lorenz MLP (Lambda trained), one curve per seed,
    with the two baselines."""
    fig, ax = plt.subplots(figsize=(6, 3.2))
    curves = np.asarray(run.rows["LZ MLP", True]["train_loss_per_seed"])
    for s, c in zip(seeds, curves, strict=True):
        ax.plot(np.arange(1, c.size + 1), c, label=f"seed {s}")
    base = run.baselines["LZ"]
    ax.axhline(base["ignores input"], color="gray", ls="--", label="ignores input")
    ax.axhline(base["linear"], color="k", ls=":", label="better linear map")
    ax.legend(fontsize=8)
    ax.set(yscale="log", xlabel="epoch", ylabel="train MSE", title="Lorenz (stored run)")
    return fig


def prediction_figure(
    pt: Dataset, live: dict[str, Sweep], scale: str, readout: str, trajectory: int
) -> Figure:
    """One PT test trajectory's input-driven part, the live model with ``readout`` (best seed)
    and the causal linear filter; the title carries the scale and the model's test MSE."""
    sw = live[f"PT {readout}"]
    fig, ax = plt.subplots(figsize=(7, 3))
    _input_driven(ax, pt, sw, [trajectory], readout)
    ax.set_title(f"PT, live ({scale}): test MSE {sw.summary(0)['best']:.3g}")
    return fig


def width_figure(sizes: WidthSizes, run: WidthRun) -> Figure:
    """Relative test MSE against the MLP width ``D`` per lag (log-log), Barron's ``1/D`` rate
    through the first point (Thm. 1), and the level ``eps`` that defines ``D(eps)``."""
    fig, ax = plt.subplots(figsize=(5.5, 3.6))
    for j in sizes.lags:
        label = f"j = {j}, ‖ω‖ = {run.omega_norm[j]:.2f}"
        ax.loglog(sizes.Ds, run.errors[j], "o-", label=label)
    D = np.asarray(sizes.Ds, float)
    ax.loglog(D, run.errors[sizes.lags[0]][0] * D[0] / D, "k--", lw=1, label="∝ 1/D (Barron)")
    ax.axhline(sizes.eps, color="gray", ls=":", lw=1)
    ax.set_xlabel("MLP width D")
    ax.set_ylabel("relative test MSE")
    ax.legend(fontsize=8)
    return fig
