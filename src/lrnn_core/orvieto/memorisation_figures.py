"""The memorisation chapter's figures (Orvieto et al., ICML 2024, §3.1, App. C, Fig. 1): each
function takes the computed data, draws a new Figure and returns it; every title names the
scale that produced the data."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
from jaxtyping import ArrayLike, Float
from matplotlib.figure import Figure

from lrnn_core.orvieto.memorisation import PrefixCheck


def prop1_figure(
    checks: Mapping[str, PrefixCheck],
    identity_ks: Sequence[int],
    few_ks: Sequence[int],
    few_err: Sequence[float],
    N_few: int,
    scale: str,
) -> Figure:
    """Prop. 1 at every step (eq. 5): left, the relative error of ``V_k^+ x_k`` per ``k`` for
    each check and (dashed) for ``N_few`` roots of unity; right, ``max |V_k^+ V_k - I_k|``."""
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 3.6))
    for (name, r), marker in zip(checks.items(), ["o", "x"], strict=False):
        ks = np.arange(1, r.err.size + 1)
        ax1.semilogy(ks, np.maximum(r.err, 1e-17), lw=1, label=name)
        res = np.maximum(r.residual, 1e-17)
        ax2.semilogy(identity_ks, res, marker, mfc="none", ms=4, label=name)
    ax1.semilogy(few_ks, few_err, "o--", label=f"roots of unity, N = L/2 = {N_few}")
    for ax in (ax1, ax2):
        ax.axhline(1e-8, color="gray", ls=":", label="claim: 1e-8")
        ax.set(xlabel="step k", ylim=(1e-17, 10))
    ax1.axvline(N_few, color="C2", lw=0.6)
    ax1.set(
        ylabel=r"$\|V_k^+ x_k - u_{1:k}\| / \|u_{1:k}\|$",
        title=f"reconstruction at every k (scale: {scale})",
    )
    ax2.set(
        ylabel=r"$\max |V_k^+ V_k - I_k|$",
        title=f"identity at {len(identity_ks)} values of k (scale: {scale})",
    )
    ax1.legend(fontsize=7)
    fig.tight_layout()
    return fig


def channels_figure(
    channels: Float[ArrayLike, "L M"],
    recovered: Float[ArrayLike, "M L"],
    names: Sequence[str],
    scale: str,
) -> Figure:
    """App. C: each input channel (grey) under its reconstruction ``V_{L,j}^+ x_{L,j}``."""
    channels, recovered = np.asarray(channels), np.asarray(recovered)
    fig, axes = plt.subplots(len(names), 1, figsize=(9, 1.5 * len(names)), sharex=True)
    for ax, orig, rec, name in zip(axes, channels.T, recovered, names, strict=True):
        ax.plot(orig, lw=2.5, color="lightgray", label="input")
        ax.plot(rec, lw=0.8, color="C0", label=r"$V_{L,j}^+ x_{L,j}$")
        ax.set_ylabel(name)
    axes[0].legend(loc="upper right", fontsize=7)
    axes[0].set_title(
        f"three channels recovered from the last state x_L (L = {len(channels)}, scale: {scale})"
    )
    axes[-1].set_xlabel("step k")
    fig.tight_layout()
    return fig


def _image(ax: plt.Axes, u: Float[ArrayLike, " L"]) -> None:
    """A flattened square image in [0, 1], clipped, grey, without axes."""
    side = int(round(np.sqrt(np.size(u))))
    ax.imshow(np.clip(u, 0, 1).reshape(side, side), cmap="gray", vmin=0, vmax=1)
    ax.set_axis_off()


def fig1_figure(
    digit: Float[ArrayLike, " L"],
    label: int,
    shown: Mapping[int, Float[ArrayLike, " L"]],
    mse: Sequence[float],
    *,
    r_min: float,
    r_max: float,
    scale: str,
    seed: int,
) -> Figure:
    """Fig. 1: the digit and ``Re(V_L^+ x_L)`` (eq. 5 at ``k = L``) for every ``N`` of
    ``shown``, each titled with its MSE ``mse[i]``."""
    fig, axes = plt.subplots(1, 1 + len(shown), figsize=(9, 2.8))
    _image(axes[0], digit)
    axes[0].set_title(f"input (label {label})", fontsize=9)
    for ax, (N, rec), err in zip(axes[1:], shown.items(), mse, strict=True):
        _image(ax, rec)
        ax.set_title(f"N = {N}, MSE {err:.4f}", fontsize=9)
    fig.suptitle(
        rf"Fig. 1: $\mathrm{{Re}}(V_L^+ x_L)$, ring [{r_min}, {r_max}], "
        f"L = {np.size(digit)} (scale: {scale}, seed {seed})",
        fontsize=10,
    )
    fig.tight_layout()
    return fig


def digit_frame(
    digit: Float[ArrayLike, " L"],
    rec: Float[ArrayLike, " L"],
    distinct: int,
    *,
    law: str,
    N: int,
    r_min: float,
    r_max: float,
    scale: str,
    seed: int,
) -> Figure:
    """One explorer frame: the digit beside ``Re(V_L^+ x_L)`` for ``N`` eigenvalues of ``law``,
    titled with the MSE and, outside Prop. 1, the number of ``distinct`` eigenvalues."""
    digit, rec = np.asarray(digit), np.asarray(rec)
    fig, (a, b) = plt.subplots(1, 2, figsize=(5, 2.9))
    _image(a, digit)
    _image(b, rec)
    a.set_title("input", fontsize=9)
    radii = "" if law == "roots of unity" else f", [{r_min}, {r_max}]"
    if distinct < N:  # outside Prop. 1's hypothesis
        radii += f" ({distinct} distinct λ)"
    mse = np.mean((rec - digit) ** 2)
    b.set_title(f"{law}, N={N}{radii}\nMSE {mse:.2e}", fontsize=9)
    fig.suptitle(
        rf"$\mathrm{{Re}}(V_L^+ x_L)$, L = {digit.size} (scale: {scale}, seed {seed})",
        fontsize=9,
    )
    fig.tight_layout(rect=(0, 0, 1, 0.93))
    return fig
