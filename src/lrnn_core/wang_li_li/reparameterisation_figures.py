"""The figures of the stable-reparameterisation chapter (Wang, Li & Li, ICLR 2024, Figs 4, 7-9,
the memory explorer and the LRU check): each function takes the computed data, draws a new
Figure and returns it; every title names the scale that produced the data."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
from jaxtyping import ArrayLike, Float
from matplotlib.figure import Figure

from lrnn_core.wang_li_li.classification import ClassificationRun

#: Line style per parameterisation in WLL Figs 7-8.
LINE_STYLES = {"direct": "-", "exp": ":", "softplus": "--", "inverse": "-."}
_RULES = ('authors\' protocol, all parameters ("all")', "book's ablation, b fixed")


def fig4_figure(
    errors: Mapping[str, Float[ArrayLike, "Ns betas"]],
    Ns: Sequence[int],
    betas: Float[ArrayLike, " n_betas"],
    scale: str,
) -> Figure:
    """WLL Fig. 4: ``E_m(beta)`` (betas > 0, log-log) of each width, one panel per map."""
    betas = np.asarray(betas)
    fig, axes = plt.subplots(1, len(errors), figsize=(14, 3.6), sharey=True)
    for ax, (p, E) in zip(axes, errors.items(), strict=True):
        for m, row in zip(Ns, np.asarray(E), strict=True):
            ax.loglog(betas[1:], row[1:], "o-", ms=3, label=f"m={m}")
        ax.set(xlabel=r"$\beta$", title=p)
    axes[0].set_ylabel(r"$E_m(\beta)$ (kernel MSE)")
    axes[0].legend(fontsize=7)
    fig.suptitle(
        "Fig 4: linear RNNs, polynomial memory, least squares, 10 draws "
        f"(scale: {scale}; all scales use these sizes)"
    )
    fig.tight_layout()
    return fig


def nonlinear_figure(
    rows: Sequence[Mapping[tuple[str, str], Float[ArrayLike, "Ns betas"]]],
    runs: Mapping[str, Sequence[str]],
    Ns: Sequence[int],
    betas: Float[ArrayLike, " n_betas"],
    target_var: float,
    title: str,
) -> Figure:
    """WLL Figs 7-8: ``E_m(beta)`` (betas > 0) of each run, one column per activation, one row
    per perturbation rule (all parameters; ``b`` fixed); gray: the target's variance."""
    betas = np.asarray(betas)
    fig, axes = plt.subplots(len(rows), len(runs), figsize=(14, 7.2), sharey=True, squeeze=False)
    for i, errors in enumerate(rows):
        for ax, (a, ps) in zip(axes[i], runs.items(), strict=True):
            for p in ps:
                for k, (m, row) in enumerate(zip(Ns, np.asarray(errors[a, p]), strict=True)):
                    label = f"{p}, m={m}" if a != "relu" else f"{p}, {m} pairs"
                    ax.loglog(betas[1:], row[1:], LINE_STYLES[p], color=f"C{k}", label=label)
            ax.axhline(target_var, color="gray", lw=0.8)
            fig_name = "Fig 7" if a == "relu" else "Fig 8"
            ax.set(xlabel=r"$\beta$", title=f"{a} ({fig_name}); {_RULES[i]}")
            ax.title.set_fontsize(8)
        axes[i, 0].set_ylabel(r"$E_m(\beta)$ (test MSE); gray: target variance")
    for ax in axes[0, :2]:
        ax.legend(fontsize=6, ncol=2)
    fig.suptitle(title)
    fig.tight_layout()
    return fig


def memory_figure(
    t: Float[ArrayLike, " L"],
    rho: Float[ArrayLike, " L"],
    curves: Float[ArrayLike, "draws L"],
    beta: float,
    title: str,
) -> Figure:
    """The target memory, the fitted RNN's (``curves[0]``) and the perturbed copies'
    (``curves[1:]``), log scale."""
    curves = np.asarray(curves)
    fig, ax = plt.subplots(figsize=(6, 3.6))
    ax.semilogy(t, rho, "k", lw=2, label=r"target $\rho(t)=(1+0.1t)^{-1.1}$")
    ax.semilogy(t, curves[0], "C0--", label="fitted RNN")
    for c in curves[1:]:
        ax.semilogy(t, c, "C3", lw=0.8, alpha=0.8)
    ax.plot([], [], "C3", lw=0.8, label=rf"perturbed, $\beta$={beta}")
    ax.set(xlabel="t", ylabel="memory", ylim=(1e-3, 1e3))
    ax.set_title(title)
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def lru_figure(
    worst: Mapping[str, Float[ArrayLike, " n_betas"]],
    betas: Float[ArrayLike, " n_betas"],
    scale: str,
) -> Figure:
    """The largest perturbed LRU eigenvalue modulus against beta, per coordinates; dashed: the
    unit circle."""
    fig, ax = plt.subplots(figsize=(6, 3.6))
    for c, w in worst.items():
        ax.semilogx(betas, w, "o-", label=c)
    ax.axhline(1.0, color="gray", ls="--", lw=0.8)
    ax.set(
        xlabel=r"perturbation scale $\beta$",
        ylabel=r"largest $|\lambda|$ over 20 draws",
        title=f"LRU: 256 eigenvalues with 0.99 <= |lambda| <= 0.999 (scale: {scale}, all scales)",
    )
    ax.legend()
    return fig


def mnist_loss_figure(
    runs: Mapping[str, ClassificationRun], steps_per_epoch: int, title: str
) -> Figure:
    """WLL Fig. 9: the mean training loss over seeds of each map, smoothed over a tenth of an
    epoch (``steps_per_epoch`` steps), against epochs; dotted: chance, ``log 10``."""
    window = max(1, steps_per_epoch // 10)
    fig, ax = plt.subplots(figsize=(7, 4))
    for p, run in runs.items():
        mean_loss = run.train_loss.mean(axis=0)
        smooth = np.convolve(mean_loss, np.ones(window) / window, mode="valid")
        epochs_axis = (np.arange(len(smooth)) + window) / steps_per_epoch
        ax.plot(epochs_axis, smooth, label=p, lw=2 if p == "direct" else 1.2)
    ax.axhline(np.log(10), color="gray", ls=":", lw=0.8, label="chance (log 10)")
    ax.set(xlabel="epoch", ylabel="training loss (cross-entropy)", title=title)
    ax.legend()
    return fig
