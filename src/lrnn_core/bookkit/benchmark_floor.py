"""The gap between ``linear_scan(method="auto")`` and the streaming floor, split into the
allocation of a fresh output and the pass over memory."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TypedDict

import jax
import jax.numpy as jnp
import numpy as np

from lrnn_core.bookkit.benchmark_setup import (
    RTOL,
    Shape,
    make_inputs,
    numpy_loop,
    relative_error,
    resolve,
    spread,
)
from lrnn_core.bookkit.benchmark_timing import interleaved_medians
from lrnn_core.core.scan import linear_scan
from lrnn_core.core.validate import nonnegative_int

BREAKDOWN = ("floor", "floor in place", "auto", "auto in place", "NumPy stream", "NumPy loop")
"""What :func:`floor_breakdown` times: the streaming floor ``u * c`` and ``linear_scan(auto)``, each
writing a fresh array and in ``u``'s (donated) buffer, NumPy's ``u * c`` into a kept array, and the
NumPy loop."""


class BreakdownRow(TypedDict):
    """One shape of :func:`floor_breakdown`: the 1-minute ``load`` average before it (None where
    the OS has none), the median ``times`` (s) keyed as :data:`BREAKDOWN`, and whether XLA took
    the ``donated`` buffer."""

    shape: Shape
    load: float | None
    times: dict[str, float]
    donated: bool


def floor_breakdown(
    shapes: Sequence[Shape] | None = None,
    *,
    repeats: int | None = None,
    dtype: str = "complex64",
    seed: int = 0,
) -> list[BreakdownRow]:
    """Split the gap between ``linear_scan(method="auto")`` and the streaming floor in two.

    Times per shape, keyed as :data:`BREAKDOWN` (medians over rounds that call each in turn): the
    floor ``u * c`` and ``auto`` as :func:`~lrnn_core.bookkit.benchmark.run_benchmark` calls them
    (each returns a freshly allocated array), the same two jitted with ``u`` donated (XLA writes
    the result into ``u``'s buffer: the pass over memory without an allocation),
    ``numpy.multiply(u, c, out=kept)`` (the bandwidth NumPy reaches without allocating) and the
    NumPy loop. Returns one dict per shape:
    ``shape``, ``load`` (1-minute load average), ``times`` (key -> seconds) and ``donated``
    (whether XLA took the donated buffer). Raises ``AssertionError`` if an in-place output differs
    from its fresh counterpart beyond :data:`~lrnn_core.bookkit.benchmark_setup.RTOL`.
    """
    shapes, repeats, dtype = resolve(shapes, repeats, dtype)
    seed = nonnegative_int("seed", seed)
    rows = []
    for shape in shapes:
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
        lam_np, u_np = make_inputs(shape, dtype, seed)
        lam, u, c = jnp.asarray(lam_np), jnp.asarray(u_np), jnp.asarray(2, dtype)
        c_np, kept = c.item(), np.empty_like(u_np)
        stream = lambda x: x * c  # noqa: E731, B023
        scan = lambda x: linear_scan(lam, x, method="auto")  # noqa: E731, B023
        fresh_u = lambda: (jnp.array(u, copy=True),)  # noqa: E731, B023
        times, outs = interleaved_medians(
            {
                "floor": (fresh_u, jax.jit(stream)),
                "floor in place": (fresh_u, jax.jit(stream, donate_argnums=0)),
                "auto": (fresh_u, jax.jit(scan)),
                "auto in place": (fresh_u, jax.jit(scan, donate_argnums=0)),
                "NumPy stream": (lambda: (u_np, c_np, kept), np.multiply),  # noqa: B023
                "NumPy loop": (lambda: (lam_np, u_np), numpy_loop),  # noqa: B023
            },
            repeats,
        )
        probe = jnp.array(u, copy=True)
        jax.block_until_ready(jax.jit(scan, donate_argnums=0)(probe))
        donated = probe.is_deleted()
        for key in ("floor", "auto"):
            err = relative_error(np.asarray(outs[f"{key} in place"]), np.asarray(outs[key]))
            if not err <= RTOL[dtype]:
                raise AssertionError(f"{key} in place at {shape}: relative error {err:.3g}")
        rows.append(BreakdownRow(shape=tuple(shape), load=load, times=times, donated=donated))
    return rows


def format_breakdown(rows: Sequence[BreakdownRow]) -> str:
    """Rows of :func:`floor_breakdown` as one Markdown table: the times and the allocation (fresh
    floor minus in-place floor), both in milliseconds; the scan's pass over the floor's pass (both
    in place); XLA's streaming pass over NumPy's; and the load average before the shape."""
    heads = [*BREAKDOWN, "allocation", "scan / stream pass", "XLA / NumPy", "load"]
    lines = ["| (B, L, N) | " + " | ".join(heads) + " |", "|---" * (len(heads) + 1) + "|"]
    for r in rows:
        t = r["times"]
        cells = [f"{1e3 * t[k]:.1f}" for k in BREAKDOWN]
        cells += [
            f"{1e3 * (t['floor'] - t['floor in place']):.1f}",
            f"{t['auto in place'] / t['floor in place']:.2f}",
            f"{t['floor in place'] / t['NumPy stream']:.2f}",
            "" if r["load"] is None else f"{r['load']:.1f}",
        ]
        lines.append(f"| ({', '.join(map(str, r['shape']))}) | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def breakdown_spreads(rows: Sequence[BreakdownRow]) -> dict[str, str]:
    """The range over the shapes of :func:`floor_breakdown`'s ``rows`` of four time ratios: the
    share of the floor's time spent allocating, ``1 - floor in place / floor``, the scan's pass
    over the stream's, XLA's stream pass over NumPy's, and ``auto`` in place over the NumPy
    loop."""
    ratios = {
        "share of the floor's time spent allocating": (
            lambda t: 1 - t["floor in place"] / t["floor"]
        ),
        "scan pass / stream pass": lambda t: t["auto in place"] / t["floor in place"],
        "XLA's stream pass / NumPy's": lambda t: t["floor in place"] / t["NumPy stream"],
        "auto in place / NumPy loop": lambda t: t["auto in place"] / t["NumPy loop"],
    }
    return {name: spread([f(r["times"]) for r in rows]) for name, f in ratios.items()}
