"""The learned-reconstruction chapter's figures (Orvieto et al., ICML 2024, §4.2, Fig. 4): each
function takes the computed data, draws a new Figure and returns it; the titles (or, for Fig. 4,
the live run's legend entries) name the scale that produced the data. :func:`stored_table` shows
every stored cell as a Markdown table."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
from jaxtyping import ArrayLike, Float
from matplotlib.figure import Figure

from lrnn_core.core.verdicts import times_below
from lrnn_core.orvieto.reconstruction import (
    HEADS,
    Cells,
    Fig4Row,
    ReconstructionRun,
    cell_baselines,
)

#: the two baselines of every Fig. 4 cell
BASES = ("ignores input", "linear")

Live = Mapping[str, Mapping[tuple[str, int], Fig4Row]]


#: the header of :func:`stored_table` (Markdown, ten columns)
TABLE_HEAD = (
    "| data | N | decoder | held-out (best / median) | train | mean image "
    "| Vandermonde | trained linear | below better baseline | seconds |\n|" + "---|" * 10
)


def stored_table(stored: Cells, sizes: Mapping[str, Sequence[int]]) -> str:
    """Every stored cell as a Markdown row under :data:`TABLE_HEAD`, data set by data set, ``N``
    then decoder: held-out MSE (best / median), median training MSE, the baselines
    (:func:`~lrnn_core.orvieto.reconstruction.cell_baselines`) and how many times the median sits
    below the better one (:func:`~lrnn_core.core.verdicts.times_below`)."""
    rows = []
    for name, N, head in ((d, N, h) for d in sizes for N in sizes[d] for h in HEADS):
        r, b = stored[name, head, N], cell_baselines(stored, name, head, N)
        rows.append(
            f"| {name} | {N} | {head} | {r['best']:.2e} / {r['median']:.2e} | "
            f"{np.median(r['train_mse']):.2e} | {b['ignores input']:.2e} | "
            f"{b['linear']:.2e} | {b.get('linear decoder, trained', np.nan):.2e} | "
            f"×{times_below(r['median'], b):.2f} | {r['wall_s']:.0f} |"
        )
    return "\n".join([TABLE_HEAD, *rows])


def _image(ax: plt.Axes, u: Float[ArrayLike, " L"]) -> None:
    """A flattened square image, clipped to [0, 1], grey."""
    side = int(round(np.sqrt(np.size(u))))
    ax.imshow(np.clip(u, 0, 1).reshape(side, side), cmap="gray", vmin=0, vmax=1)


def pathfinder_figure(images: Float[ArrayLike, "n L"], labels: Sequence[int], n: int = 6) -> Figure:
    """The first ``n`` images with their labels (1: the dots are joined by one path)."""
    fig, axes = plt.subplots(1, n, figsize=(9, 1.8))
    for ax, img, label in zip(axes, images, labels, strict=False):
        _image(ax, img)
        ax.set_title(f"label {label}", fontsize=8)
        ax.set_axis_off()
    return fig


def _fig4_panel(
    ax: plt.Axes, stored: Cells, Ns: Sequence[int], live: Mapping[tuple[str, int], Fig4Row],
    name: str, margin: float, scale: str,
) -> None:  # fmt: skip
    """One data set of Fig. 4: stored and live decoders, the baselines, the margin."""
    for head, marker in (("linear", "o"), ("MLP", "s")):
        err = [stored[name, head, N]["median"] for N in Ns]
        (line,) = ax.loglog(Ns, err, marker + "-", label=f"trained {head} (stored)")
        live_Ns = sorted(N for h, N in live if h == head)
        live_err = [live[head, N]["median"] for N in live_Ns]
        ax.loglog(live_Ns, live_err, marker, mfc="none", color=line.get_color(),
                  label=f"trained {head} (live, {scale})")  # fmt: skip
    Ns = sorted(set(Ns) | {N for _, N in live})
    cells = {N: stored.get((name, "linear", N), live.get(("linear", N))) for N in Ns}
    base = {k: [cells[N]["baselines"][k] for N in Ns] for k in BASES}
    ax.loglog(Ns, base["ignores input"], "k-", lw=1, label="mean image")
    ax.loglog(Ns, base["linear"], "x--", color="gray", label="untrained Vandermonde")
    better = np.minimum(base["ignores input"], base["linear"])
    ax.loglog(Ns, better / margin, "k:", lw=1, label=f"better baseline / {margin:g}")
    ax.set(xlabel="state size N", title=name)
    ax.set_xticks(Ns, [str(N) for N in Ns])
    ax.xaxis.set_minor_locator(plt.NullLocator())


def fig4_figure(
    stored: Cells, sizes: Mapping[str, Sequence[int]], live: Live, margin: float, scale: str
) -> Figure:
    """Fig. 4, one panel per data set of ``live``: held-out MSE of the trained decoders against
    ``N`` (stored run: lines, at ``sizes[name]``; live run: open markers), the mean image, the
    untrained Vandermonde inverse (eq. 5 at ``k = L``) and the better baseline over ``margin``;
    the axis stops at the paper's floor ``1e-5``."""
    fig, (axes,) = plt.subplots(1, len(live), figsize=(10, 3.8), sharey=True, squeeze=False)
    for ax, name in zip(axes, live, strict=True):
        _fig4_panel(ax, stored, sizes[name], live[name], name, margin, scale)
    axes[0].set_ylim(bottom=1e-5)  # the paper's axis floor (Fig. 4: 1e-5 ... 1e-1)
    axes[0].set_ylabel("held-out MSE (pixel-wise)")
    axes[-1].legend(fontsize=7)
    fig.tight_layout()
    return fig


def examples_figure(
    runs: Mapping[tuple[str, int], Fig4Row],
    test: Float[ArrayLike, "m L"],
    Ns: Sequence[int],
    title: str,
    scale: str,
) -> Figure:
    """The first four held-out images (top row) and their reconstructions by the first run of
    every ``(N, decoder)`` cell, one row per cell."""
    rows = 1 + len(HEADS) * len(Ns)
    fig, axes = plt.subplots(rows, 4, figsize=(4 * 1.1, rows * 1.15))
    for j in range(4):
        _image(axes[0, j], test[j])
    axes[0, 0].set_title("input", fontsize=7, loc="left")
    for i, (N, head) in enumerate((N, h) for N in Ns for h in HEADS):
        for j in range(4):
            _image(axes[1 + i, j], runs[head, N]["run"].examples[0, j])
        axes[1 + i, 0].set_title(f"N = {N}, {head}", fontsize=7, loc="left")
    for ax in axes.ravel():
        ax.set_axis_off()
    fig.suptitle(f"{title} (live run, scale: {scale})", fontsize=9)
    fig.tight_layout()
    return fig


def eigenvalue_figure(runs: Mapping[str, ReconstructionRun], N: int, scale: str) -> Figure:
    """Eigenvalues before (gray) and after training, per decoder: in the complex plane (left)
    and ``|lambda| - |lambda_0|`` against ``|lambda_0|`` (right)."""
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
    circle = np.exp(2j * np.pi * np.linspace(0, 1, 400))
    ax1.plot(circle.real, circle.imag, "k-", lw=0.5)
    for (head, r), color in zip(runs.items(), ("C0", "C1"), strict=False):
        lam0, lam1 = r.lam_init.ravel(), r.lam.ravel()
        if head == "linear":
            ax1.plot(lam0.real, lam0.imag, ".", color="0.7", ms=3, label="initial")
        ax1.plot(lam1.real, lam1.imag, ".", color=color, ms=3, label=f"trained, {head}")
        step = np.abs(lam1) - np.abs(lam0)
        ax2.plot(np.abs(lam0), step, ".", color=color, ms=3, label=head)
    ax1.set(aspect="equal", xlabel="Re λ", ylabel="Im λ", title=f"MNIST, N = {N} (scale: {scale})")
    ax2.axhline(0, color="k", lw=0.5)
    ax2.set(xlabel="initial |λ|", ylabel="trained |λ| − initial |λ|")
    ax1.legend(fontsize=7, markerscale=3)
    ax2.legend(fontsize=7, markerscale=3)
    fig.tight_layout()
    return fig


def decoder_frame(
    digit: Float[ArrayLike, " L"],
    label: int,
    rec: Float[ArrayLike, " L"],
    vdm: Float[ArrayLike, " L"],
    *,
    N: int,
    decoder: str,
    scale: str,
    seed: int,
) -> Figure:
    """One explorer frame: the digit, its reconstruction by the trained model and by the
    untrained inverse ``Re(V_L^+ x_L)`` (ring ``T[0.999, 1]``), each with its MSE."""
    digit, rec, vdm = np.asarray(digit), np.asarray(rec), np.asarray(vdm)
    fig, axes = plt.subplots(1, 3, figsize=(6, 2.4))
    titles = (
        f"input (label {label})",
        f"trained, {decoder}\nMSE {np.mean((rec - digit) ** 2):.2e}",
        f"VdM [0.999, 1]\nMSE {np.mean((vdm - digit) ** 2):.2e}",
    )
    for ax, img, title in zip(axes, (digit, rec, vdm), titles, strict=True):
        _image(ax, img)
        ax.set_title(title, fontsize=8)
        ax.set_axis_off()
    fig.suptitle(f"N = {N} (scale: {scale}, seed {seed})", fontsize=9)
    fig.tight_layout()
    return fig
