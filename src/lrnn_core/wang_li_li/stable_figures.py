"""The figures of the stable-approximation chapter (Wang, Li & Li, ICLR 2024, Figs 1-3 and
App. C): each function takes the numbers the chapter computed, draws them on a new pyplot
Figure and returns it; every suptitle or title names the scale setting that produced them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
from jaxtyping import ArrayLike, Float
from matplotlib.figure import Figure

from lrnn_core.core.memory import DecayFit


def _finish(fig: Figure, title: str, scale: str) -> Figure:
    """``fig`` with the suptitle ``title (scale: scale)``, laid out tight."""
    fig.suptitle(f"{title} (scale: {scale})")
    fig.tight_layout()
    return fig


def _keys(pairs: Sequence[tuple[str, str]]) -> tuple[list[str], list[str]]:
    """The activations and the target names of ``(activation, name)`` keys, in order."""
    return list(dict.fromkeys(a for a, _ in pairs)), list(dict.fromkeys(n for _, n in pairs))


def linear_errors_figure(
    errors: Mapping[str, Float[ArrayLike, "Ns betas"]],
    Ns: Sequence[int],
    betas: Float[ArrayLike, " n_betas"],
    *,
    scale: str,
) -> Figure:
    """WLL Fig. 1: ``E_m(beta)`` (Def. 3.4) of each width against ``beta > 0``, log-log, one
    panel per target, ``E_m(0)`` in the legend."""
    betas = np.asarray(betas)
    fig, axes = plt.subplots(1, len(errors), figsize=(10, 3.8), sharey=True, squeeze=False)
    for ax, (name, E) in zip(axes[0], errors.items(), strict=True):
        for m, row in zip(Ns, np.asarray(E), strict=True):
            ax.plot(betas[1:], row[1:], "o-", ms=3, label=f"m={m}: $E_m(0)$={row[0]:.1e}")
        ax.set(xscale="log", yscale="log", xlabel=r"perturbation scale $\beta$")
        ax.set_title(f"{name} memory")
        ax.legend(fontsize=7)
    axes[0, 0].set_ylabel(r"perturbation error $E_m(\beta)$")
    return _finish(fig, "Fig 1: least-squares linear RNNs, 10 draws per beta", scale)


def perturbed_fit_figure(
    t: Float[ArrayLike, " T"],
    target: Float[ArrayLike, " T"],
    fitted: Float[ArrayLike, " T"],
    moved: Float[ArrayLike, " T"],
    betas: Float[ArrayLike, " n_betas"],
    errors: Float[ArrayLike, " n_betas"],
    *,
    beta: float,
    title: str,
) -> Figure:
    """The explorer's frame: a target kernel, its fit and one perturbed fit at ``beta`` (left);
    the fit's ``E_m(beta)`` against ``beta > 0`` with ``beta`` marked (right)."""
    betas, errors = np.asarray(betas), np.asarray(errors)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(9, 3.4))
    ax1.plot(t, target, "k", lw=2, label="target")
    ax1.plot(t, fitted, "C0--", label="fit")
    ax1.plot(t, moved, "C3", lw=0.8, label=rf"perturbed, $\beta$={beta:g}")
    ax1.set(xlabel="t", ylabel="kernel", ylim=(-0.5, 1.5), title=title)
    ax1.legend(fontsize=7)
    ax2.loglog(betas[1:], errors[1:], "o-", ms=3)
    ax2.axvline(beta, color="C3", lw=0.8)
    ax2.set(xlabel=r"$\beta$", ylabel=r"$E_m(\beta)$", title=f"$E_m(0)$ = {errors[0]:.1e}")
    fig.tight_layout()
    return fig


def epochs_figure(
    needed: Mapping[tuple[str, str], Float[ArrayLike, " Ns"]],
    Ns: Sequence[int],
    *,
    budget: int,
    split: int,
    scale: str,
) -> Figure:
    """WLL Fig. 2 (left): epochs each width needed (capped at ``budget + 1``), one panel per
    activation, one line per target; the budget dotted, ``split`` epochs dashed."""
    acts, names = _keys(list(needed))
    fig, axes = plt.subplots(1, len(acts), figsize=(5 * len(acts), 3.6), squeeze=False)
    for ax, act in zip(axes[0], acts, strict=True):
        for name in names:
            ax.plot(Ns, np.minimum(needed[act, name], budget + 1), "o-", label=name)
        ax.axhline(budget, color="gray", ls=":", lw=0.8, label="budget")
        ax.axhline(split, color="k", ls="--", lw=0.8, label=f"{split} epochs")
        ax.set(xscale="log", yscale="log", xlabel="width m", title=act)
        ax.set_ylabel("epochs to reach the threshold")
        ax.legend(fontsize=8)
    return _finish(fig, "Fig 2 (left): epochs per width, sequential protocol", scale)


def nonlinear_errors_figure(
    errors: Mapping[tuple[str, str], Float[ArrayLike, "Ns betas"]],
    Ns: Sequence[int],
    betas: Float[ArrayLike, " n_betas"],
    *,
    scale: str,
) -> Figure:
    """WLL Fig. 2 (right): each width's checkpoint ``E_m(beta)`` against ``beta > 0``, log-log,
    one row per activation, one panel per target."""
    acts, names = _keys(list(errors))
    betas = np.asarray(betas)
    fig, axes = plt.subplots(
        len(acts), len(names), figsize=(10, 3.6 * len(acts)), squeeze=False, sharey=True
    )
    for row, act in zip(axes, acts, strict=True):
        for ax, name in zip(row, names, strict=True):
            for m, E in zip(Ns, np.asarray(errors[act, name]), strict=True):
                ax.loglog(betas[1:], E[1:], "o-", ms=3, label=f"m={m}: $E_m(0)$={E[0]:.1e}")
            ax.set(xlabel=r"$\beta$", title=f"{act}, {name} memory")
            ax.legend(fontsize=7)
        row[0].set_ylabel(r"$E_m(\beta)$ (time-weighted MSE)")
    return _finish(fig, "Fig 2 (right): perturbation error of each width's checkpoint", scale)


def filter_figure(
    t: Float[ArrayLike, " L"],
    memories: Sequence[Float[ArrayLike, " L"]],
    fits: Sequence[DecayFit | None],
    kept: Sequence[bool],
    scales: Sequence[float],
    radius: Float[ArrayLike, " targets"],
    margin: float,
    *,
    scale: str,
) -> Figure:
    """WLL Fig. 3: the targets' impulse memories, kept (blue, with their log-linear fits) or
    rejected (red), floored at 1e-16 (left); each target's stability radius against its weight
    scale, the margin dashed (right)."""
    t, kept, radius = np.asarray(t), np.asarray(kept, dtype=bool), np.asarray(radius)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 3.8))
    for mem, fit, k in zip(memories, fits, kept, strict=True):
        style = dict(color="C0", lw=1.2) if k else dict(color="C3", lw=0.6, alpha=0.6)
        ax1.semilogy(t, np.maximum(mem, 1e-16), **style)
        if k and fit:
            ax1.semilogy(t, np.exp(fit.log_amplitude - fit.rate * t), "k:", lw=0.6)
    ax1.set(xlabel="t", ylabel="impulse memory", ylim=(1e-16, 10))
    ax1.set_title("blue: kept (dotted: log-linear fit); red: rejected")
    for mask, color, label in ((kept, "C0", "kept"), (~kept, "C3", "rejected")):
        ax2.scatter(np.array(scales)[mask], radius[mask], color=color, label=label)
    ax2.axhline(margin, color="gray", ls="--", lw=0.8)
    ax2.set(yscale="symlog", xlabel="weight scale of the target", title="dashed: 1/T")
    ax2.set_ylabel(r"stability radius $\min_{m,i}(-\lambda_i)$")
    ax2.legend(fontsize=8)
    return _finish(fig, "Fig 3: random tanh-RNN targets filtered by stable approximation", scale)


def rescaling_figure(
    errors: Mapping[tuple[float, float], Float[ArrayLike, "Ns 2"]],
    Ns: Sequence[int],
    *,
    scale: str,
) -> Figure:
    """The App. C analogue: ``E_m(beta)`` (column 1) against the width for each fixed grid unit
    ``s`` and target rate ``a``, log-log."""
    fig, ax = plt.subplots(figsize=(5.5, 3.6))
    for (s_unit, a), E in errors.items():
        label = f"grid unit s={s_unit:g}, target $e^{{-{a:g}t}}$"
        ax.semilogy(Ns, np.asarray(E)[:, 1], "o-", label=label)
    ax.set(xscale="log", xlabel="width m", ylabel=r"$E_m(10^{-3})$")
    ax.set_title(f"App. C analogue: a fixed rescaling (scale: {scale})")
    ax.legend(fontsize=7)
    return fig
