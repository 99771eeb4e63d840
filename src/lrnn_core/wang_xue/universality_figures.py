"""The figures of the universality chapter (Wang & Xue, NeurIPS 2023, Sec. 3): the book's
drawings of the paper's diagrams (Figs. 1, 3, 4; :func:`diagram`), the token-wise fits of
Prop. 3.1 (Fig. 2; :func:`tokenwise_figure`), the exponential-sum fits of Prop. 3.2
(:func:`kernel_fit_figure`), the trained stacks on the Volterra targets of Prop. 3.9
(:func:`volterra_figure`) and one of their predictions (:func:`prediction_figure`). Each takes
the computed data and returns the Figure; the titles carry the scale that produced the data.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

import matplotlib.pyplot as plt
import numpy as np
from jaxtyping import ArrayLike, Float
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import FancyBboxPatch

from lrnn_core.wang_xue.memory_figures import finish
from lrnn_core.wang_xue.tokenwise import TokenwiseRun, tokenwise_outputs

#: Box colours by kind: linear recurrence, point-wise activation, token-wise block, input/output.
COLOURS = {"rec": "#cfe2f3", "act": "#fce5cd", "tok": "#d9ead3", "io": "#eeeeee"}


class Diagram(NamedTuple):
    """Boxes ``(label, kind)`` from left to right (``kind`` a key of :data:`COLOURS`), a title and
    an optional note under them."""

    boxes: tuple[tuple[str, str], ...]
    title: str
    note: str | None = None


#: Fig. 1: a two-layer SSM, eq. (1)-(2).
#:
#: :meta hide-value:
FIG1 = Diagram(
    (
        ("input $u_k$", "io"),
        ("$h_k = \\Lambda h_{k-1} + B u_k$", "rec"),
        ("$\\sigma(C h_k + b)$", "act"),
        ("$h'_k = \\Lambda' h'_{k-1} + B' z_k$", "rec"),
        ("$\\sigma(C' h'_k + b')$", "act"),
        ("readout $y_k$", "io"),
    ),
    "Two-layer SSM (Fig. 1)",
    "time runs inside the blue boxes only; orange boxes act on each step alone",
)
#: Fig. 3: the five-layer Kolmogorov-Arnold construction of Prop. 3.6.
#:
#: :meta hide-value:
FIG3 = Diagram(
    (
        ("input $u_k$", "io"),
        ("2 layers: $\\psi(u_k + q a)$", "tok"),
        ("1 layer: $\\sum_p \\lambda_p \\psi(u_{k-p} + q a)$", "rec"),
        ("2 layers: $\\Phi(\\cdot)$, $\\sum_q$", "tok"),
        ("output $y_k$", "io"),
    ),
    "Five-layer SSM via Kolmogorov–Arnold (Fig. 3)",
    "the convolution kernel λ(p) does not decay: its width grows with L (Remark 3.7)",
)
#: Fig. 4: the Volterra-series construction of Prop. 3.9.
#:
#: :meta hide-value:
FIG4 = Diagram(
    (
        ("input $u_k$", "io"),
        ("1 layer: $f_r = \\rho_r * u$, r = 1..R", "rec"),
        ("2 layers: products $f_r f_s$", "tok"),
        ("readout $\\sum c_{rs} f_r f_s$", "io"),
    ),
    "Volterra-series construction (Fig. 4)",
    "rank-R kernels: the width R does not grow with the sequence length",
)


def diagram(d: Diagram, ax: Axes | None = None) -> Figure:
    """The boxes of ``d`` joined by arrows, on ``ax`` or on a new 12 x 1.9 inch figure."""
    if ax is None:
        _, ax = plt.subplots(figsize=(12, 1.9))
    n = len(d.boxes)
    for i, (label, kind) in enumerate(d.boxes):
        x = i / n
        patch = FancyBboxPatch(
            (x + 0.01, 0.3), 1 / n - 0.04, 0.4, boxstyle="round,pad=0.01",
            facecolor=COLOURS[kind], edgecolor="k", lw=0.8,
        )  # fmt: skip
        ax.add_patch(patch)
        ax.text(x + 0.5 / n - 0.01, 0.5, label, ha="center", va="center", fontsize=7.5)
        if i:
            ax.annotate(
                "", xy=(x + 0.01, 0.5), xytext=(x - 0.03, 0.5),
                arrowprops=dict(arrowstyle="->", lw=1),
            )  # fmt: skip
    ax.set(xlim=(0, 1), ylim=(0, 1), title=d.title)
    if d.note:
        ax.text(0.5, 0.12, d.note, ha="center", fontsize=8, style="italic")
    ax.axis("off")
    return ax.figure


def tokenwise_figure(run: TokenwiseRun, scale: str) -> Figure:
    """Fig. 2: test MSE against the width (with the identity control and the input-ignoring
    baseline) and the fits against ``sin(πu)`` on ``[-1, 1]``."""
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(10, 3.4))
    Ns = list(run.err)
    ax.plot(Ns, list(run.err.values()), "o-", label="tanh, converged fit")
    ax.axhline(run.control_err, color="C3", ls="--", label="identity activation (control)")
    ax.axhline(run.base["ignores input"], color="grey", ls=":", label="ignores input")
    ax.set(xscale="log", yscale="log", xlabel="width N", ylabel="test MSE")
    ax.set_xticks(Ns, [str(n) for n in Ns])
    ax.legend(fontsize=8)
    grid = np.linspace(-1, 1, 200)
    ax2.plot(grid, np.sin(np.pi * grid), "k", lw=2, label="f(u) = sin(πu)")
    for N, fit in run.fits.items():
        ax2.plot(grid, tokenwise_outputs(fit, grid), lw=1, label=f"N = {N}")
    ax2.set(xlabel="u", ylabel="y")
    ax2.legend(fontsize=7)
    return finish(fig, "Token-wise two-layer SSM, converged fits", scale)


def kernel_fit_figure(
    errors: Mapping[str, Float[ArrayLike, " n"]], Ns: Sequence[int], scale: str
) -> Figure:
    """Prop. 3.2: each kernel's relative sup error against the number of exponentials (log-log,
    floored at ``1e-17``)."""
    fig, ax = plt.subplots(figsize=(6, 3.4))
    for name, errs in errors.items():
        ax.plot(Ns, np.maximum(errs, 1e-17), "o-", label=name)
    ax.set(xscale="log", yscale="log", xlabel="width N (number of exponentials)")
    ax.set(ylabel="sup error / sup |ρ|", title=f"Kernel fits on [0, 100] (scale: {scale})")
    ax.legend(fontsize=8)
    return fig


def _levels(grid: Mapping[tuple[str, int, int], object], i: int) -> list:
    """The distinct ``i``-th entries of the grid's keys, in order."""
    return list(dict.fromkeys(key[i] for key in grid))


def volterra_figure(
    grid: Mapping[tuple[str, int, int], Mapping[str, float | np.ndarray]], L: int, scale: str
) -> Figure:
    """Fig. 4 (the book's experiment): per target, test NMSE against the width, one line per
    depth (solid: length ``L``; dotted: the longer sequences)."""
    names, depths, Ns = (_levels(grid, i) for i in range(3))
    fig, axes = plt.subplots(1, len(names), figsize=(10, 3.4), sharey=True, squeeze=False)
    for ax, name in zip(axes[0], names, strict=True):
        for depth in depths:  # colours C0, C1, ... from the cycle
            errs = [grid[name, depth, n]["nmse"] for n in Ns]
            long_errs = [grid[name, depth, n]["nmse_long"] for n in Ns]
            (line,) = ax.plot(Ns, errs, "o-", label=f"depth {depth}")
            ax.plot(Ns, long_errs, ":", color=line.get_color())
        ax.set(xscale="log", yscale="log", xlabel="width N", title=name)
        ax.set_xticks(Ns, [str(n) for n in Ns])
    axes[0, 0].set_ylabel("test NMSE")
    axes[0, 0].legend(fontsize=8)
    return finish(fig, f"Stacked SSMs on Volterra targets (book's own), L = {L}", scale)


def prediction_figure(
    grid: Mapping[tuple[str, int, int], Mapping[str, float | np.ndarray]],
    target: str,
    depth: int,
    N: int,
) -> Figure:
    """The first test sequence's target and the prediction of the stack ``(depth, N)``."""
    run = grid[target, depth, N]
    fig, ax = plt.subplots(figsize=(7, 2.8))
    ax.plot(run["target"], "k", lw=1.5, label="target")
    ax.plot(run["pred"], "C1", lw=1, label="stacked SSM")
    ax.set(xlabel="step k", ylabel="y (normalised)")
    ax.set_title(f"{target}, depth {depth}, N = {N}: NMSE {run['nmse']:.4f}")
    ax.legend(fontsize=8, loc="upper right")
    fig.tight_layout()
    return fig
