"""The figures of the foundations chapter on linear recurrences: the circular law of a Glorot
matrix's eigenvalues, the sequential depth of ``jax.lax.associative_scan``, and eigenvalues on
the ring ``T[r_min, r_max]`` with their impulse responses ``Re lambda^k``."""

from __future__ import annotations

from collections.abc import Sequence

import jax
import matplotlib.pyplot as plt
import numpy as np
from jaxtyping import Complex
from matplotlib.figure import Figure

from lrnn_core.core.eigenvalues import ring_init


def circular_law_figure(lam: Complex[np.ndarray, " N"]) -> Figure:
    """The eigenvalues ``lam`` of an ``N x N`` matrix in the complex plane, with the unit circle
    (dashed) that a Glorot matrix's fill as ``N`` grows (the circular law)."""
    fig, ax = plt.subplots(figsize=(4, 4))
    ax.add_patch(plt.Circle((0, 0), 1, fill=False, ls="--", color="gray"))
    ax.scatter(lam.real, lam.imag, s=12)
    ax.set(
        aspect="equal",
        xlabel=r"Re $\lambda$",
        ylabel=r"Im $\lambda$",
        title=f"eigenvalues of a Glorot matrix, N={len(lam)}",
    )
    return fig


def scan_depth_figure(lengths: Sequence[int], depth: Sequence[int]) -> Figure:
    """Sequential rounds ``depth`` of the associative scan against the lengths ``L`` (log x
    axis), beside ``2 log2 L``."""
    fig, ax = plt.subplots(figsize=(5, 3))
    ax.plot(lengths, depth, "o-", label="associative scan (rounds)")
    ax.plot(lengths, 2 * np.log2(lengths), "k--", label=r"$2\log_2 L$")
    ax.set(xscale="log", xlabel="sequence length L", ylabel="sequential rounds")
    ax.legend()
    return fig


def ring_figure(
    N: int, r_min: float, r_max: float, max_phase: float, *, key: jax.Array, steps: int = 300
) -> Figure:
    """``N`` eigenvalues of :func:`ring_init` (``key``) on ``T[r_min, r_max]``, phases up to
    ``max_phase``; right, ``Re lambda^k`` of four of them over ``steps`` steps, between the
    envelopes ``|lambda|^k`` of the smallest and largest modulus."""
    lam = np.asarray(ring_init(key, N, r_min, r_max, max_phase))
    k = np.arange(steps)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(8, 3.4))
    for r in (r_min, r_max):
        ax1.add_patch(plt.Circle((0, 0), r, fill=False, ls="--", color="gray"))
    ax1.add_patch(plt.Circle((0, 0), 1, fill=False, color="black", lw=0.8))
    ax1.scatter(lam.real, lam.imag, s=10)
    ax1.set(aspect="equal", xlim=(-1.1, 1.1), ylim=(-1.1, 1.1))
    ax1.set_title(f"{N} eigenvalues")
    for i in range(min(N, 4)):
        ax2.plot(k, (lam[i] ** k).real, lw=1)
    for r in (np.abs(lam).min(), np.abs(lam).max()):
        ax2.plot(k, r**k, "k--", lw=0.8)
    ax2.set(xlabel="step k", ylabel=r"Re $\lambda^k$", ylim=(-1.05, 1.05))
    ax2.set_title("impulse responses")
    fig.tight_layout()
    return fig
