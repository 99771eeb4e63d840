"""The figures of the conditioning chapter (Orvieto et al. 2024, §4.1, App. E.1, Figs. 2, 3, 6-8).

Each function takes the computed data, draws on a new Figure and returns it; every title names
the scale that produced the data (``scale: ...``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
from jaxtyping import ArrayLike, Float, Num
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.image import AxesImage

from lrnn_core.core.vandermonde import EPS, vandermonde64
from lrnn_core.orvieto.conditioning import ErrorGrid, GramDraws, vandermonde_norms

#: A reconstruction panel: its title, the reconstructed sequence.
Panel = tuple[str, Float[ArrayLike, " L"]]


def abs_vandermonde(ax: Axes, lam: Num[ArrayLike, " N"], L: int, log: bool = False) -> AxesImage:
    """``|V_L|`` (eq. 4) as an ``N x L`` heat map on ``ax``, on a linear ``[0, 1]`` or a
    ``log10`` ``[-16, 0]`` colour scale; columns: powers ``L-1 ... 0`` (Fig. 2)."""
    V = np.abs(vandermonde64(lam, L))
    shown = np.log10(np.maximum(V, 1e-16)) if log else V
    image = ax.imshow(
        shown, aspect="auto", cmap="viridis", vmin=-16 if log else 0, vmax=0 if log else 1
    )
    ax.set(xlabel="column j (power L-1-j)", ylabel="eigenvalue i")
    return image


def _norm_text(lam: Num[ArrayLike, " N"], L: int) -> str:
    n = vandermonde_norms(lam, L)
    return f"$\\|V\\|_F$={n.frobenius:.1e}, $\\|V^+\\|_F$={n.pinv_frobenius:.1e}"


def abs_vandermonde_figure(
    lam: Mapping[float, Num[ArrayLike, " N"]], L: int, seed: int, scale: str
) -> Figure:
    """Fig. 2: ``|V_L|`` for the eigenvalues ``lam[r_min]`` of each ``r_min``, side by side, with
    the norms of ``V_L`` and ``V_L^+`` (:func:`vandermonde_norms`) in the panel titles."""
    fig, axes = plt.subplots(1, len(lam), figsize=(10, 4), layout="constrained")
    for ax, (r_min, nodes) in zip(np.atleast_1d(axes), lam.items(), strict=True):
        image = abs_vandermonde(ax, nodes, L)
        ax.set_title(
            f"$|V|$, $r_{{\\min}}$={r_min}, seed {seed}\n" + _norm_text(nodes, L), fontsize=10
        )
    fig.colorbar(image, ax=axes, label="|V_ij|")
    N = len(next(iter(lam.values())))
    fig.suptitle(f"Fig. 2: magnitude of $V_L$, L={L}, N={N} (scale: {scale})")
    return fig


def abs_vandermonde_frame(
    lam: Num[ArrayLike, " N"], L: int, r_min: float, log: bool, seed: int, scale: str
) -> Figure:
    """One frame of the Fig. 2 explorer: ``|V_L|`` at one ``r_min`` on a linear or log colour
    scale, the norms of ``V_L`` and ``V_L^+`` in the title."""
    fig, ax = plt.subplots(figsize=(6, 3.6))
    image = abs_vandermonde(ax, lam, L, log=log)
    fig.colorbar(image, ax=ax, label="log10 |V_ij|" if log else "|V_ij|")
    ax.set_title(
        f"$r_{{\\min}}$={r_min}: {_norm_text(lam, L)}"
        f"\nL={L}, N={len(lam)}, seed {seed} (scale: {scale})",
        fontsize=9,
    )
    fig.tight_layout()
    return fig


def real_roots_figure(
    sizes: ArrayLike, conds: Mapping[str, Float[ArrayLike, " K"]], scale: str
) -> Figure:
    """§4.1: ``cond(V_N)`` of the square Vandermonde matrix against ``N = L`` for each node law,
    on a log axis, with float64's limit ``1/eps`` dotted."""
    fig, ax = plt.subplots(figsize=(7, 4))
    for name, c in conds.items():
        ax.semilogy(sizes, c, "o-", ms=4, label=name)
    ax.axhline(1 / EPS, color="gray", ls=":", label="1/eps (float64 limit)")
    ax.set(xlabel="N = L", ylabel="cond(V)")
    ax.set_title(f"Real nodes vs roots of unity (scale: {scale}, all scales)")
    ax.legend(fontsize=8)
    return fig


def reconstruction_figure(
    u: Float[ArrayLike, " L"],
    rows: Sequence[Sequence[Panel]],
    title: str,
    *,
    legend: bool = False,
    period: int | None = None,
    title_size: float | None = 9,
) -> Figure:
    """Figs. 3, 6 and 8: per panel, the input ``u`` (grey) and a reconstruction as sequences over
    the token ``k``, beside the reconstruction as a 28 x 28 image (clipped to ``[0, 1]``).
    ``rows[i][j]`` is the panel of row ``i``, column ``j``; ``period``: red dotted lines where a
    new period of the first panel starts (Fig. 8)."""
    u = np.asarray(u)
    L, n_rows, n_cols = u.size, len(rows), len(rows[0])
    fig, axes = plt.subplots(
        n_rows,
        2 * n_cols,
        figsize=(6 * n_cols, 2.8 if n_rows == 1 else 2.25 * n_rows),
        gridspec_kw={"width_ratios": [3, 1] * n_cols},
        squeeze=False,
    )
    for i, row in enumerate(rows):
        for j, (name, recon) in enumerate(row):
            ax_seq, ax_img = axes[i, 2 * j], axes[i, 2 * j + 1]
            ax_seq.plot(u, color="lightgray", lw=1.5, label="input")
            ax_seq.plot(recon, lw=0.7, label="reconstruction")
            ax_seq.set(xlim=(0, L), ylim=(-0.3, 1.2), xlabel="token k")
            ax_seq.set_title(name, fontsize=title_size)
            image = np.clip(np.asarray(recon), 0, 1).reshape(28, 28)
            ax_img.imshow(image, cmap="gray", vmin=0, vmax=1)
            ax_img.set_axis_off()
    if legend:
        axes[0, 0].legend(fontsize=7, loc="upper left")
    if period is not None:
        for k in range(L - period, -1, -period):  # where a new period starts
            axes[0, 0].axvline(k, color="red", lw=0.5, ls=":")
    if n_rows == 1:
        fig.suptitle(title, y=1.04)
    else:
        fig.suptitle(title)
        fig.tight_layout()
    return fig


def grid_panels(grid: ErrorGrid, Ns: Sequence[int], r_mins: Sequence[float]) -> list[list[Panel]]:
    """The panels of :func:`reconstruction_figure` for the first example of ``grid``: one row per
    ``N``, one column per ``r_min`` (Figs. 3 and 6)."""
    return [
        [
            (f"N={N}, $r_{{\\min}}$={r}", grid.examples[grid.Ns.index(N), grid.r_mins.index(r), 0])
            for r in r_mins
        ]
        for N in Ns
    ]


def vandermonde_error_figure(
    metrics: Mapping[str, Float[ArrayLike, "n_Ns n_r"]],
    Ns: Sequence[int],
    r_mins: Sequence[float],
    ticks: ArrayLike,
    title: str,
) -> Figure:
    """Fig. 7a: each error measure (one panel per entry of ``metrics``, ``[N, r_min]``) against
    ``r_min``, one curve per ``N``, on the paper's axis ``ticks`` (extended to the data)."""
    ticks = np.asarray(ticks)
    fig, axes = plt.subplots(1, len(metrics), figsize=(11, 3.8), squeeze=False)
    positions = np.arange(len(r_mins))
    labels = {"MSE": "per-pixel MSE", "MAE": "mean absolute error"}
    for ax, (name, m) in zip(axes[0], metrics.items(), strict=True):
        m = np.asarray(m)
        for a, N in enumerate(Ns):
            ax.plot(positions, m[a], "o-", label=f"N={N}")
        ax.set_xticks(positions, [str(r) for r in r_mins])
        ax.set_yticks(ticks)
        ax.set(
            xlabel="$r_{\\min}$",
            ylabel=labels.get(name, name),
            ylim=(0, max(ticks[-1], 1.05 * m.max())),
        )
        ax.legend(fontsize=8)
    fig.suptitle(title)
    return fig


def token_error_figure(grid: ErrorGrid, Ns: Sequence[int], title: str) -> Figure:
    """Figs. 7c-e: the mean absolute error per timestamp ``k`` of ``grid`` (over images and
    draws) on a log axis down to ``1e-16``, one panel per ``N`` of ``Ns``, one curve per
    ``r_min``."""
    fig, axes = plt.subplots(1, len(Ns), figsize=(14, 3.8), sharey=True, squeeze=False)
    for ax, N in zip(axes[0], Ns, strict=True):
        for b, r_min in enumerate(grid.r_mins):
            err = grid.abs_by_k[grid.Ns.index(N), b].mean(axis=0)
            ax.semilogy(err, lw=0.8, label=f"$r_{{\\min}}$={r_min}")
        ax.set(title=f"N={N}", xlabel="timestamp k", ylim=(1e-16, 1))
    axes[0, 0].set_ylabel("mean abs error")
    axes[0, 0].legend(fontsize=7)
    fig.suptitle(title, y=1.02)
    return fig


def gram_figure(
    medians: GramDraws,
    Ns: Sequence[int],
    r_mins: Sequence[float],
    L: int,
    saturated: float,
    title: str,
    *,
    top: float = 1e45,
) -> Figure:
    """Fig. 7b: ``cond(V_L^H V_L)`` against ``r_min`` per ``N`` from the SVD of ``V_L`` (left;
    capped at ``top``; for ``N < L`` the conditioning on the range, dashed) and from the formed
    Gram (right); grey beyond ``saturated``, ``1/eps`` dotted."""
    svd_cond, range_cond, formed_cond = medians.svd, medians.range, medians.formed
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.2), sharey=True)
    positions = np.arange(len(r_mins))
    for a, N in enumerate(Ns):
        style = {"color": f"C{a}", "label": f"N={N}"}
        if N < L:  # V^H V is singular: show the conditioning on the range, dashed
            ranged = style | {"label": style["label"] + ": cond(V V^H), V^H V singular"}
            ax1.semilogy(positions, range_cond[a], "x--", **ranged)
        else:
            ax1.semilogy(positions, np.minimum(svd_cond[a], top), "o-", **style)
        ax2.semilogy(positions, formed_cond[a], "o-", **style)
    for ax, name in (
        (ax1, "from the SVD of V (squared)"),
        (ax2, "np.linalg.cond of the formed Gram"),
    ):
        ax.axhspan(saturated, top * 10, color="gray", alpha=0.15)
        ax.axhline(1 / EPS, color="gray", ls=":", lw=0.8)
        ax.set_xticks(positions, [str(r) for r in r_mins])
        ax.set(xlabel="$r_{\\min}$", title=name, ylim=(1, top * 10))
    ax1.set_ylabel("cond($V_L^H V_L$)")
    ax1.legend(fontsize=7)
    fig.suptitle(title)
    return fig
