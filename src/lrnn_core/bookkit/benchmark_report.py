"""The printed summaries of the performance appendix: which of issue 13's targets each shape
missed, the streaming floor over the NumPy loop, the spreads of repeated measurements, and the
training-step timing."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

from lrnn_core.bookkit.benchmark import BenchRow, floor_vs_loop
from lrnn_core.bookkit.benchmark_setup import default_shapes, device_description
from lrnn_core.bookkit.benchmark_targets import TargetRow, ratio_spreads
from lrnn_core.core.scan import auto_method

__all__ = ["allocator_report", "setup_report", "targets_report", "train_step_report"]


def setup_report() -> str:
    """The device, the method ``linear_scan(method="auto")`` picks on it, the default shapes
    ``(B, L, N)`` and the load average (1, 5, 15 min) now."""
    return "\n".join(
        [
            f"device: {device_description()}",
            f'method="auto" uses: {auto_method()!r}',
            f"shapes (B, L, N): {default_shapes()}",
            f"load average (1, 5, 15 min) before the run: {os.getloadavg()}",
        ]
    )


def targets_report(targets: Sequence[TargetRow], rows: Sequence[BenchRow]) -> str:
    """Per shape of ``targets``, the targets missed (ratio > bound), then the streaming floor's
    time over the NumPy loop's per shape of ``rows`` (:func:`floor_vs_loop`)."""
    lines = []
    for row in targets:
        missed = [name for name, ok in row["met"].items() if ok is False]
        lines.append(f"{row['shape']}: " + (f"missed {missed}" if missed else "all targets met"))
    lines.append(
        "the streaming floor's time / the NumPy loop's, per shape: "
        + ", ".join(f"{s}: {v:.2f}" for s, v in floor_vs_loop(rows).items())
    )
    return "\n".join(lines)


def allocator_report(measured: Mapping[str, Sequence[TargetRow]]) -> str:
    """``"<setting>: <ratio> <range over shapes>"`` per setting of ``measured`` (e.g. the default
    allocator, huge pages) and per ratio (:func:`ratio_spreads`)."""
    return "\n".join(
        f"{env_name}: {name} {values}"
        for env_name, rows in measured.items()
        for name, values in ratio_spreads(rows).items()
    )


def train_step_report(ours: float, plain: float) -> str:
    """The median times (s) of one training step with the library and with plain ``lax.scan``,
    in ms, and their ratio."""
    return (
        f"training step: library {1e3 * ours:.1f} ms, plain lax.scan {1e3 * plain:.1f} ms, "
        f"ratio {ours / plain:.2f}"
    )
