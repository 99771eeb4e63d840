"""The figures of the exponential-memory chapter (Wang & Xue, NeurIPS 2023, Figs 5-6, App. A,
Table 1), drawn from the memories of :mod:`lrnn_core.wang_xue.memory`: each function
draws on a new Figure and returns it; the titles carry the scale that produced the data.
Memories are drawn on semilog axes, values at or below round-off masked."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
from jaxtyping import ArrayLike, Float
from matplotlib.figure import Figure

from lrnn_core.core.memory import DecayFit
from lrnn_core.wang_xue.memory import (
    RNNMemory,
    S4Memory,
    StackMemory,
    Table1Memories,
    TwoLayerProbe,
)


def _steps(m: np.ndarray) -> np.ndarray:
    return np.arange(len(m), dtype=float)


def _masked(m: np.ndarray, floor: float) -> np.ndarray:
    return np.where(m > floor, m, np.nan)


def finish(fig: Figure, title: str, scale: str) -> Figure:
    """``title (scale: ...)`` over the figure, laid out tight."""
    fig.suptitle(f"{title} (scale: {scale})")
    fig.tight_layout()
    return fig


def fig5_figure(
    rnns: Sequence[RNNMemory],
    stacks: Sequence[StackMemory],
    control: Float[ArrayLike, " T"],
    scale: str,
) -> Figure:
    """Fig. 5: the RNNs' Heaviside memories (left), the stacks' with their Thm. 3.13 bounds
    (dotted, coloured by depth) and the power-law ``control`` (grey dashed, right)."""
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 3.4), sharey=True)
    for r in rnns:
        ax1.plot(_steps(r.m), _masked(r.m, 1e-16), lw=0.9)
    ax1.set(yscale="log", ylim=(1e-16, 10), xlabel="step k", ylabel="Heaviside memory")
    ax1.set_title("random tanh RNNs (N = 16)")
    for s in stacks:
        colour = f"C{s.depth - 1}"
        ax2.plot(_steps(s.m), _masked(s.m, 1e-16), lw=0.9, color=colour)
        ax2.plot(_steps(s.m), s.bound, ":", lw=0.8, color=colour)
    control = np.asarray(control, float)
    ax2.plot(_steps(control), control, "--", color="grey", lw=1)
    for depth in range(1, 5):
        ax2.plot([], [], color=f"C{depth - 1}", label=f"depth {depth}")
    ax2.set(xlabel="step k", title="naive random stacked SSMs (tanh)")
    ax2.legend(fontsize=8)
    return finish(fig, "Exponentially decaying memory", scale)


def fig6_figure(s4: S4Memory, fit: DecayFit, naive: StackMemory, scale: str) -> Figure:
    """Fig. 6: the S4-style layer's Heaviside memory, its tail ``fit`` (dashed) and one naive
    stack's memory."""
    fig, ax = plt.subplots(figsize=(7, 3.4))
    ax.plot(s4.t, s4.m, lw=1, label=f"S4-style HiPPO-LegS layer, N = {s4.N}")
    ax.plot(
        s4.t, np.exp(fit.log_amplitude - fit.rate * s4.t), "--", lw=0.8,
        label=f"tail fit, rate {fit.rate:.4f}",
    )  # fmt: skip
    ax.plot(_steps(naive.m), naive.m, lw=1, label=f"naive stack, depth {naive.depth}")
    ax.set(yscale="log", ylim=(1e-14, 10), xlabel="step k", ylabel="Heaviside memory")
    ax.legend(fontsize=8)
    ax.set_title(f"S4-style layer (scale: {scale})")
    return fig


def two_layer_figure(probes: Sequence[TwoLayerProbe], dt: float, scale: str) -> Figure:
    """App. A: probed memory (solid) and closed form (38) (dashed) per gap, on linear (left)
    and semilog (right) axes."""
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.3))
    for j, p in enumerate(probes):
        for ax in axes:
            ax.plot(p.t, p.m, color=f"C{j}", lw=1.5, label=f"b - a = {p.gap}")
            ax.plot(p.t, p.closed, "k--", lw=0.7)
    axes[0].set(xlabel="t", ylabel="memory", xlim=(0, 12))
    axes[1].set(xlabel="t", yscale="log", ylim=(1e-8, 2))
    axes[0].legend(fontsize=8)
    return finish(fig, f"Two-layer linear SSM (App. A), Δt = {dt}", scale)


def table1_figure(probes: Table1Memories, scale: str, *, first: int = 120) -> Figure:
    """Table 1: the impulse memories of the first ``first`` steps on semilog axes (left, the
    receptive field dotted), attention's probe, closed form and ``1/k`` on log-log axes
    (right)."""
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 3.4))
    for m, name in ((probes.rnn, "RNN"), (probes.ssm, "stacked SSM"), (probes.tcn, "TCN")):
        ax1.plot(_steps(m)[:first], _masked(m, 0.0)[:first], lw=1.2, label=name)
    m_att, k_att = probes.attention, _steps(probes.attention)
    ax1.plot(k_att[:first], m_att[:first], lw=1.2, label="attention")
    ax1.axvline(probes.R, color="grey", ls=":", lw=0.8)
    ax1.set(yscale="log", ylim=(1e-16, 10), xlabel="step k", ylabel="impulse memory")
    ax1.legend(fontsize=8)
    half = len(m_att) // 2
    ax2.plot(k_att[1:], m_att[1:], color="C3", lw=1.5, label="attention (probe)")
    ax2.plot(k_att[1:], probes.attention_closed[1:], "k--", lw=0.8, label="closed form")
    ax2.plot(k_att[1:], m_att[half] * k_att[half] / k_att[1:], ":", color="grey", label="∝ 1/k")
    ax2.set(xscale="log", yscale="log", xlabel="step k")
    ax2.legend(fontsize=8)
    return finish(fig, "Memory patterns of Table 1, measured", scale)


def stack_memory_figure(
    memories: Mapping[tuple[int, int, str], tuple[np.ndarray, DecayFit, float]],
    depth: int,
    N: int,
    activation: str,
) -> Figure:
    """The explorer's frame: one random stack's Heaviside memory and its tail fit."""
    m, fit, slow = memories[depth, N, activation]
    t = _steps(m)
    fig, ax = plt.subplots(figsize=(6.5, 3))
    ax.plot(t, _masked(m, 1e-17), lw=1.2, label="Heaviside memory")
    ax.plot(
        t, np.exp(fit.log_amplitude - fit.rate * t), "--", lw=0.8,
        label=f"tail fit: rate {fit.rate:.3f} (slowest layer {slow:.3f})",
    )  # fmt: skip
    ax.set(yscale="log", ylim=(1e-16, 10), xlabel="step k")
    ax.set_title(f"random stack: depth {depth}, N = {N}, {activation}")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig
