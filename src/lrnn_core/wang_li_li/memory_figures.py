"""The figures of the memory-functions chapter (Wang, Li & Li, ICLR 2024, Def. 3.1, Figs 5, 10,
11): each function takes the computed memories, draws a new Figure and returns it. Every title
names the ``scale`` that produced the data.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
from jaxtyping import ArrayLike, Float
from matplotlib.figure import Figure

from lrnn_core.core.memory import fit_decay
from lrnn_core.wang_li_li.memory import PairedMemory, RNNSample

#: The names of the three models of :func:`~lrnn_core.wang_li_li.memory.lru_family`.
LRU_NAMES = ("LRU", "LRU + MLP", "2 x (LRU + MLP)")


def _finish(fig: Figure, title: str, scale: str) -> Figure:
    """``fig`` with the suptitle ``title (scale: scale)``, laid out tight."""
    fig.suptitle(f"{title} (scale: {scale})")
    fig.tight_layout()
    return fig


def _above(m: ArrayLike, floor: float) -> np.ndarray:
    """``m`` with the values at or below ``floor`` (round-off) set to NaN, so they are not drawn."""
    m = np.asarray(m)
    return np.where(m > floor, m, np.nan)


def targets_figure(
    t: Float[ArrayLike, " L"],
    targets: Mapping[str, ArrayLike],
    memories: Mapping[str, ArrayLike],
    *,
    dt: float,
    scale: str,
) -> Figure:
    """``|rho|`` of each target kernel (WLL eq. 5) and its Heaviside memory (Def. 3.1), on a
    linear and a logarithmic time axis; memory values below 1e-14 are not drawn."""
    t = np.asarray(t)
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.4))
    for ax, xscale in zip(axes, ("linear", "log"), strict=True):
        for name, r in targets.items():
            r = np.asarray(r)
            ax.plot(t[1:], r[1:], lw=3, alpha=0.35, label=rf"$|\rho_{{\rm {name}}}|$")
            shown = _above(memories[name], 1e-14)
            ax.plot(t[1:], shown[1:], "--", lw=1, label=f"Heaviside probe, {name}")
        ax.set(xscale=xscale, yscale="log", xlabel="t", ylim=(1e-20, 2))
        ax.set_title(f"{xscale} time axis")
    axes[0].legend(fontsize=8)
    title = f"Memory of the two target functionals, dt = {dt}, L = {len(t)}; "
    return _finish(fig, title + "values below round-off (1e-14) not drawn", scale)


def probe_family_figure(
    rho: Mapping[Hashable, ArrayLike],
    memory: Mapping[tuple[Hashable, str], ArrayLike],
    t: Float[ArrayLike, " L"],
    rate: float,
    power: float,
    probe: str,
    *,
    scale: str,
) -> Figure:
    """``|rho|`` against the memory under ``probe`` of the targets ``e^{-rate t}`` and
    ``(1 + 0.1 t)^{-power}`` (keys ``("exp", rate)``, ``("pol", power)`` of
    :func:`~lrnn_core.wang_li_li.memory.probe_family`), with the exponential fitted
    to the probe's tail ``t >= 5`` (:func:`~lrnn_core.core.memory.fit_decay`), log-log axes."""
    t = np.asarray(t)
    fig, axes = plt.subplots(1, 2, figsize=(8.5, 3.2))
    exp_label, pol_label = rf"$e^{{-{rate:g}t}}$", rf"$(1+0.1t)^{{-{power:g}}}$"
    labels = {("exp", rate): exp_label, ("pol", power): pol_label}
    for ax, (key, label) in zip(axes, labels.items(), strict=True):
        r, m = np.asarray(rho[key]), np.asarray(memory[key, probe])
        fit = fit_decay(m, t, tail=(5.0, t[-1]))  # points below round-off left out
        ax.plot(t[1:], np.abs(r[1:]), lw=4, alpha=0.3, label=r"$|\rho|$")
        ax.plot(t[1:], m[1:], "--", label=f"{probe} probe")
        line = np.exp(fit.log_amplitude - fit.rate * t)
        ax.plot(t, line, ":k", lw=1, label=f"tail fit: rate {fit.rate:.3g}")
        ax.set(xscale="log", yscale="log", ylim=(1e-16, 2), xlabel="t")
        ax.set_title(f"target {label}")
        ax.legend(fontsize=7, loc="lower left")
    dt = t[1] - t[0]
    return _finish(fig, f"dt = {dt:g}, L = {len(t)} steps", f"{scale}, same at every scale")


def random_rnn_figure(rnns: RNNSample, *, scale: str) -> Figure:
    """WLL Fig. 11 analogue: the Heaviside memories of the random tanh RNNs over their peaks (blue
    decaying, red non-decaying, grey unclassified) and the tail ratio against the spectral
    radius of ``W``."""
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 3.6))
    colour = np.where(rnns.decaying, "tab:blue", np.where(rnns.persistent, "tab:red", "tab:gray"))
    L = len(rnns.memory[0])
    for m, c in zip(rnns.memory, colour, strict=True):
        ax1.plot(np.arange(1, L), (m / m.max())[1:], color=c, lw=0.8, alpha=0.8)
    ax1.plot([], [], color="tab:blue", label="decaying")
    ax1.plot([], [], color="tab:red", label="non-decaying")
    ax1.set(xscale="log", yscale="log", ylim=(1e-14, 2), xlabel="step k")
    ax1.set(ylabel="memory / peak", title="Heaviside memory of random tanh RNNs")
    ax1.legend(fontsize=8)
    ax2.scatter(rnns.radius, np.maximum(rnns.ratio, 1e-17), c=colour, s=14)
    ax2.axvline(1, color="k", lw=0.6, ls=":")
    ax2.set(xscale="log", yscale="log", xlabel="spectral radius of W")
    ax2.set(ylabel="tail ratio (last 10%)", title="memory left at the end of the horizon")
    ax2.xaxis.set_minor_formatter(plt.NullFormatter())
    return _finish(fig, f"{len(rnns.memory)} random tanh RNNs, m = 16, L = {L}", scale)


def lru_figure(rows: Sequence[PairedMemory], *, scale: str) -> Figure:
    """The Heaviside memory of each model of the LRU family, one panel per model, each with the
    slope ``|lambda_max|^k`` of its slowest eigenvalue (dotted, shifted up by a factor e)."""
    fig, axes = plt.subplots(1, 3, figsize=(11, 3.3), sharey=True)
    for ax, name in zip(axes, LRU_NAMES, strict=True):
        for row in (r for r in rows if r.name == name):
            t = np.arange(len(row.m_h), dtype=float)
            (line,) = ax.plot(t, _above(row.m_h, 1e-15), lw=0.8, label=f"seed {row.seed}")
            slope_line = np.exp(row.fit_h.log_amplitude + 1.0 - row.slow * t)
            ax.plot(t, slope_line, ":", color=line.get_color(), lw=1.2)
        ax.set(yscale="log", ylim=(1e-18, 10), xlabel="step k", title=name)
    axes[0].set_ylabel("Heaviside memory")
    axes[0].legend(fontsize=7)
    title = "Memory of LRU models; dotted: slope of $|\\lambda_{max}|^k$, ring [0.5, 0.95]"
    return _finish(fig, title, scale)


def paired_figure(
    pairs: Sequence[PairedMemory], rows: Sequence[PairedMemory], seed: int, *, scale: str
) -> Figure:
    """WLL Fig. 10 analogue: Heaviside (solid) against impulse (dashed) memories of the first
    four ``pairs`` (tanh RNNs at gain 1) and of the LRU family drawn from ``seed``."""
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.4))
    cycle = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for p, c in zip(pairs[:4], cycle[:4], strict=False):
        rates = f"rates {p.fit_h.rate:.2f} / {p.fit_i.rate:.2f}"
        axes[0].plot(p.m_h, color=c, lw=1, label=rates)
        axes[0].plot(p.m_i, "--", color=c, lw=1)
    axes[0].set(yscale="log", xlim=(0, 120), ylim=(1e-16, 1), xlabel="step k")
    axes[0].set_title("tanh RNNs, gain 1: Heaviside (solid), impulse (dashed)")
    axes[0].legend(fontsize=7)
    for row in [r for r in rows if r.seed == seed]:
        (line,) = axes[1].plot(row.m_h, lw=1, label=row.name)
        axes[1].plot(row.m_i, "--", color=line.get_color(), lw=1)
    axes[1].set(yscale="log", ylim=(1e-18, 10), xlabel="step k")
    axes[1].set_title(f"LRU family, seed {seed}")
    axes[1].legend(fontsize=7)
    return _finish(fig, "Heaviside against impulse memory (WLL Fig. 10 analogue)", scale)


def sentiment_figure(
    memory: Mapping[tuple[int, str], ArrayLike],
    scores: Mapping[str, ArrayLike],
    window: tuple[float, float],
    *,
    scale: str,
) -> Figure:
    """Substitute for WLL Fig. 5: the memory ``|s(n+1) - s(n)|`` of each (seed, word) (values
    below 1e-17, the float64 round-off of a score, not drawn; shaded: the fit ``window``), and
    the scores ``s(n)`` of the first seed's model."""
    seeds = list(dict.fromkeys(seed for seed, _ in memory))
    words = list(dict.fromkeys(word for _, word in memory))
    cycle = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    colours = dict(zip(words, cycle[: len(words)], strict=True))
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.5))
    for (seed, word), m in memory.items():
        n = np.arange(1, len(m) + 1)
        label = word if seed == seeds[0] else None
        axes[0].plot(n, _above(m, 1e-17), color=colours[word], lw=0.8, label=label)
    axes[0].axvspan(*window, color="k", alpha=0.06)
    axes[0].set(yscale="log", ylim=(1e-22, 1), xlabel="n (word repeated n times)")
    axes[0].set(ylabel="|s(n+1) - s(n)|")
    axes[0].set_title(f"memory of the sentiment score, {len(seeds)} seeds")
    axes[0].legend(fontsize=8)
    for word, s in scores.items():
        axes[1].plot(np.arange(1, len(s) + 1), s, color=colours[word], label=word)
    axes[1].set(xlim=(0, 60), xlabel="n", ylabel="score s(n)")
    axes[1].set_title(f"the scores themselves, seed {seeds[0]}")
    axes[1].legend(fontsize=8)
    return _finish(fig, "SUBSTITUTE for WLL Fig. 5: synthetic-review LSTM, not IMDB", scale)
