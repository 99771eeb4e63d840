"""The figure of the performance appendix: the median times of the rows of
:func:`lrnn_core.bookkit.benchmark.run_benchmark`, one panel per ``(B, L, N)``, ``linear_scan``
methods against their peers."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import matplotlib.pyplot as plt
from matplotlib.figure import Figure


def timing_figure(rows: Sequence[Mapping[str, Any]], scale: str) -> Figure:
    """Horizontal bars of ``1e3 * time_s`` (ms, log scale) per timed row, ``linear_scan``'s
    methods blue and the peers orange; the title names ``scale``."""
    shapes = list(dict.fromkeys(r["shape"] for r in rows))
    fig, axes = plt.subplots(1, len(shapes), figsize=(4.2 * len(shapes), 3.6), squeeze=False)
    for ax, shape in zip(axes[0], shapes, strict=True):
        timed = [r for r in rows if r["shape"] == shape and r["time_s"] is not None]
        ax.barh(
            [r["label"] for r in timed],
            [1e3 * r["time_s"] for r in timed],
            color=["C1" if r["kind"] != "method" else "C0" for r in timed],
        )
        ax.set(
            xscale="log",
            xlabel="time (ms, log scale)",
            title="B, L, N = " + "x".join(map(str, shape)),
        )
        ax.invert_yaxis()
    fig.suptitle(f"linear_scan methods (blue) and peers (orange); scale: {scale}")
    fig.tight_layout()
    return fig
