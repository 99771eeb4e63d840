"""The figures of the sparse-inputs chapter (Orvieto et al., ICML 2024, App. E.2, Figs. 9-12, and
§3.1.3): each function takes the computed data, draws a new Figure and returns it. Every title
names the ``scale`` that produced the data (Figs. 9 and 12: the ``title`` the caller gives).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
from jaxtyping import ArrayLike, Float
from matplotlib.figure import Figure

from lrnn_core.orvieto.sparse import LOG10_SINGULAR, Sweep, SweepSet, sweep_curves


def wavelets_figure(
    bases: Mapping[str, Float[ArrayLike, "L P"]],
    columns: Sequence[int] = (0, 3, 11),
    *,
    scale: str,
) -> Figure:
    """Three ``columns`` of each wavelet basis ``Psi`` (Assumption A), one panel per family."""
    fig, axes = plt.subplots(1, len(bases), figsize=(11, 2.6), sharey=True)
    for ax, (name, basis) in zip(np.atleast_1d(axes), bases.items(), strict=True):
        basis = np.asarray(basis)
        for j in columns:
            ax.plot(basis[:, j], lw=1, label=f"column {j}")
        ax.set(title=name, xlabel="time step")
    np.atleast_1d(axes)[0].legend(fontsize=7)
    L = len(basis)
    fig.suptitle(f"wavelet bases, L={L} (scale: {scale}, same at every scale)", fontsize=9)
    fig.tight_layout()
    return fig


def sweeps_figure(
    results: Mapping[int, SweepSet], r_min: float, fig_id: str, *, P: int, scale: str
) -> Figure:
    """Figs. 10-11: per ``N``, the rank of ``V_k`` (dotted: its certified lower bound), the rank of
    the complex ``Gamma_k = V_k Psi_k`` (eq. 6) and the relative error of ``Omega_k x_k``
    (eq. 7) against ``k``; medians and ranges of
    :func:`~lrnn_core.orvieto.sparse.sweep_curves`."""
    fig, axes = plt.subplots(1, 3, figsize=(14, 3.6))
    L = 0
    for N, res in results.items():
        c, L, label = sweep_curves(res), res.v_lower.shape[-1], f"N={N}"
        (line,) = axes[0].plot(res.v_grid, c["v_rank"], lw=1.2, label=label)
        axes[0].plot(np.arange(1, L + 1), c["v_lower"], lw=0.8, ls=":", color=line.get_color())
        axes[1].plot(res.ks, c["rank_gamma"][0], lw=1.2, label=label)
        axes[1].fill_between(res.ks, *c["rank_gamma"][1:], alpha=0.2)
        axes[2].semilogy(c["k_seen"], c["error"][0], lw=0.8, label=label)
        axes[2].fill_between(c["k_seen"], *c["error"][1:], alpha=0.15)
    axes[0].set(xlabel="k", ylabel="rank")
    axes[0].set_title(r"rank of $V_k$ (dotted: certified lower bound)")
    axes[1].set(xlabel="k", ylabel="rank")
    axes[1].set_title(rf"rank of complex $\Gamma_k = V_k\Psi_k$ (P={P})")
    axes[2].set(xlabel="k", ylabel="relative error", ylim=(1e-17, 10))
    axes[2].set_title(f"input reconstruction error up to step k (P={P})")
    axes[2].legend(fontsize=7, ncol=2)
    fig.suptitle(
        f"{fig_id}: inputs sparse in {P} random Haar wavelets, λ ~ T({r_min}, 1), "
        f"L={L}; median and range over draws and inputs (scale: {scale})"
    )
    fig.tight_layout()
    return fig


def atoms_figure(
    by_basis: Mapping[tuple[str, str], Mapping[int, Mapping[str, float]]],
    level: float,
    *,
    scale: str,
) -> Figure:
    """The median largest error over ``k`` against ``N`` for each (ring, atoms), ``by_basis[ring,
    atoms]`` of :func:`~lrnn_core.orvieto.sparse.summarise`, solid on the first ring, dashed on
    the others; dotted: the "perfect" ``level``."""
    fig, ax = plt.subplots(figsize=(6, 3.6))
    first = next(iter(by_basis))[0]
    Ns: list[int] = []
    for (ring, name), summaries in by_basis.items():
        Ns = list(summaries)
        medians = [s["median max error"] for s in summaries.values()]
        ax.loglog(Ns, medians, "o-" if ring == first else "o--", label=f"{name}, {ring}")
    ax.axhline(level, color="k", lw=0.8, ls=":")
    ax.set(xticks=Ns, xticklabels=Ns, xlabel="N", ylabel="median max error over k")
    ax.set_title(f"random vs coarsest 32 Haar wavelets (scale: {scale})")
    ax.legend(fontsize=7)
    return fig


def fig9_figure(
    levels: Float[ArrayLike, "R N P"],
    r_mins: Sequence[float],
    Ns: Sequence[int],
    Ps: Sequence[int],
    *,
    title: str,
) -> Figure:
    """Fig. 9: one heat map per ring of ``log10 cond`` (NaN: numerically singular, written
    "sing.", drawn at the top of the colour scale, ``log10(1/eps)``), ``N`` up, ``P`` across;
    ``title`` names the scale."""
    levels = np.asarray(levels)
    fig, axes = plt.subplots(1, len(r_mins), figsize=(15, 3.4), sharey=True)
    im = None
    for ax, r, panel in zip(axes, r_mins, levels, strict=True):
        shown = np.minimum(panel, LOG10_SINGULAR)
        im = ax.imshow(shown, cmap="viridis_r", vmin=0, vmax=LOG10_SINGULAR, origin="lower")
        ax.set_aspect("auto")
        for i, j in np.ndindex(panel.shape):
            text = f"{panel[i, j]:.1f}" if np.isfinite(panel[i, j]) else "sing."
            ax.text(j, i, text, ha="center", va="center", fontsize=8, color="w")
        ax.set(xticks=range(len(Ps)), xticklabels=Ps, yticks=range(len(Ns)))
        ax.set(yticklabels=Ns, xlabel="sparseness parameter P", title=f"r_min={r}")
    axes[0].set_ylabel("hidden state size N")
    fig.colorbar(im, ax=axes, label=r"$\log_{10}$ cond$(\Gamma_L^\top\Gamma_L)$, real-stacked")
    fig.suptitle(title, y=1.06)
    return fig


def fig12_figure(
    stats: Mapping[tuple[str, str], Mapping[str, ArrayLike]],
    readings: Sequence[str],
    Ps: Sequence[int],
    *,
    title: str,
) -> Figure:
    """Fig. 12: per reading, the median against ``P`` of each wavelet family (non-finite values
    not drawn) and the Vandermonde inverse's median, dashed (or, if singular, only named);
    ``title`` names the scale."""
    fig, axes = plt.subplots(1, len(readings), figsize=(15, 3.8))
    for ax, reading in zip(axes, readings, strict=True):
        for name, v in stats[reading, "median"].items():
            v = np.asarray(v, np.float64)
            if name != "Van. inverse":
                ax.loglog(Ps, np.where(np.isfinite(v), v, np.nan), "o-", label=name)
            elif np.isfinite(v[0]):
                ax.axhline(v[0], color="k", ls="--", label=name)
            else:
                ax.plot([], [], "k--", label=f"{name}: singular")
        ax.set(xscale="log", yscale="log", xticks=Ps, xticklabels=Ps)
        ax.set(xlabel="sparseness P", title=f"{reading} (median)")
        ax.legend(fontsize=7)
    fig.suptitle(title)
    fig.tight_layout()
    return fig


def hippo_figure(
    Ns: Sequence[int],
    err_hippo: Sequence[float],
    err_ring: Sequence[float],
    example: Mapping[str, ArrayLike],
    *,
    scale: str,
) -> Figure:
    """§3.1.3: the median relative errors of HiPPO-LegS and of the ring's ``V_L^+ x_L`` against
    ``N`` (left), and one input with its reconstructions (right; ``example`` maps a label to a
    sequence, the input first)."""
    fig, axes = plt.subplots(1, 2, figsize=(12, 3.6))
    axes[0].semilogy(Ns, err_hippo, "o-", label="HiPPO-LegS")
    axes[0].semilogy(Ns, err_ring, "s-", label=r"ring T(0.99,1), $V_L^+ x_L$")
    axes[0].set(xscale="log", xticks=Ns, xticklabels=Ns, xlabel="N")
    axes[0].set(ylabel="median relative error")
    L = len(next(iter(example.values())))
    axes[0].set_title(f"smooth inputs, L={L} (scale: {scale})")
    axes[0].legend()
    for i, (label, seq) in enumerate(example.items()):
        style = {"color": "k", "lw": 2} if i == 0 else {}
        axes[1].plot(np.asarray(seq), label=label, **style)
    axes[1].set(xlabel="time step", title="one input and its reconstructions")
    axes[1].legend(fontsize=8)
    fig.tight_layout()
    return fig


def widget_figure(
    u: Float[ArrayLike, " L"],
    rec: Float[ArrayLike, " L"],
    sweep: Sweep,
    N: int,
    P: int,
    *,
    scale: str,
) -> Figure:
    """The widget's frame: an input and its reconstruction ``Omega_L x_L`` (eq. 7) from the last
    state, and the relative error up to each step ``k`` of the ``sweep``."""
    u = np.asarray(u)
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.2))
    axes[0].plot(u, "k", lw=1.5, label="input")
    axes[0].plot(np.asarray(rec), "C1", lw=1, label=r"$\Omega_L x_L$")
    axes[0].set(xlabel="time step", title="reconstruction from x_L")
    axes[0].legend(fontsize=8)
    axes[1].semilogy(sweep.ks, sweep.rel_error, lw=1)
    axes[1].set(ylim=(1e-17, 10), xlabel="k", ylabel="relative error")
    axes[1].set_title(f"error up to step k; rank Γ_L = {sweep.rank_gamma[-1]}")
    fig.suptitle(
        f"N={N}, P={P}, L={len(u)}, λ ~ T(0.95, 1) (widget; scale: {scale}, same at every scale)",
        fontsize=9,
    )
    fig.tight_layout()
    return fig
