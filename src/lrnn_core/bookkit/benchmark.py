"""Timing harness for :func:`lrnn_core.core.scan.linear_scan` against its peers.

Times every ``linear_scan`` method and the peers (a NumPy loop over time, ``scipy.signal.lfilter``
per channel, plain ``lax.scan``, plain ``lax.associative_scan``) next to a streaming op that reads
and writes the same bytes (jitted ``u * c``: the memory-bandwidth floor). Every timed output is
checked against the NumPy loop (or, where that is skipped, ``method="sequential"``).

Use :func:`run_benchmark` for the rows and :func:`format_table` to print them; the command line
front end is ``benchmarks/scan.py``. The gradient benchmark, the targets, the floor breakdown,
the timing helpers and the shared inputs are in the sibling ``benchmark_*`` modules.

On a GPU whose data-sheet bandwidth is in
:data:`~lrnn_core.bookkit.benchmark_setup.PEAK_BANDWIDTH_GBS`, the tables get two more columns:
``GB/s`` (bytes of ``u`` read plus ``h`` written, per second) and ``% peak``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from functools import partial
from typing import TypedDict

import jax
import jax.numpy as jnp
import numpy as np
import scipy.signal

from lrnn_core.bookkit.benchmark_setup import (
    MAX_PEER_ELEMENTS,
    RTOL,
    Shape,
    make_inputs,
    method_label,
    numpy_loop,
    peak_bandwidth_gbs,
    relative_error,
    resolve,
    stream,
)
from lrnn_core.bookkit.benchmark_timing import time_call
from lrnn_core.core.scan import METHODS, linear_scan
from lrnn_core.core.validate import check_choice, check_flag, nonnegative_int

PEERS = ("numpy", "lfilter", "lax.scan", "lax.associative_scan", "stream")
"""Peers timed next to the ``linear_scan`` methods; ``numpy`` and ``stream`` are the references."""

NAMES = (*METHODS, *PEERS)

LABELS = {
    "numpy": "NumPy loop over L",
    "lfilter": "scipy lfilter per channel",
    "lax.scan": "plain lax.scan",
    "lax.associative_scan": "plain lax.associative_scan",
    "stream": "stream u*c (floor)",
}


class BenchRow(TypedDict):
    """One row of :func:`run_benchmark`: one ``name`` timed at one ``shape``."""

    shape: Shape
    name: str
    label: str
    kind: str
    dtype: str
    time_s: float | None
    elements_per_s: float | None
    gb_per_s: float | None
    peak_fraction: float | None
    vs_numpy: float | None
    vs_stream: float | None
    rel_err: float | None
    note: str


NOTES = {"lfilter": "one lfilter call per channel", "stream": "reads and writes the same bytes"}


def default_names() -> tuple[str, ...]:
    """What :func:`run_benchmark` times by default: :data:`NAMES`, without ``"pallas"`` off a GPU
    (interpreted there, so its time says nothing about the kernel)."""
    return tuple(n for n in NAMES if n != "pallas" or jax.default_backend() == "gpu")


def lfilter_per_channel(lam: np.ndarray, u: np.ndarray) -> np.ndarray:
    """``scipy.signal.lfilter([1], [1, -lam_n], ...)`` once per channel ``n``, all batches at once.

    (One call per batch element and channel, ``B * N`` calls, is ~B times slower; the vectorized
    call is the fair peer.)"""
    out = np.empty_like(u)
    for n in range(u.shape[-1]):
        out[..., n] = scipy.signal.lfilter([1], [1, -lam[n]], u[..., n], axis=-1)
    return out


PEER_FUNCTIONS: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "numpy": numpy_loop,
    "lfilter": lfilter_per_channel,
}


def _plain_scan(lam: jax.Array, u: jax.Array) -> jax.Array:
    """What one writes without this library: swap time to the front, ``lax.scan``, swap back."""

    def step(h, x):
        h = lam * h + x
        return h, h

    h0 = jnp.zeros(u.shape[:-2] + u.shape[-1:], u.dtype)
    return jnp.moveaxis(jax.lax.scan(step, h0, jnp.moveaxis(u, -2, 0))[1], 0, -2)


def _plain_associative(lam: jax.Array, u: jax.Array) -> jax.Array:
    """What one writes without this library: ``lax.associative_scan`` along the time axis."""
    a = jnp.broadcast_to(lam, u.shape)
    op = lambda x, y: (x[0] * y[0], y[0] * x[1] + y[1])  # noqa: E731
    return jax.lax.associative_scan(op, (a, u), axis=u.ndim - 2)[1]


def _entries(names: Sequence[str]) -> list[tuple[str, str, Callable[..., jax.Array] | None]]:
    """``(name, kind, fn)`` to time; ``fn`` is jitted, or None for the NumPy/SciPy peers."""
    table = {
        "numpy": ("peer", None),
        "lfilter": ("peer", None),
        "lax.scan": ("peer", jax.jit(_plain_scan)),
        "lax.associative_scan": ("peer", jax.jit(_plain_associative)),
        "stream": ("floor", jax.jit(stream)),
    }
    out = []
    for name in names:
        if name in METHODS:
            out.append((name, "method", jax.jit(partial(linear_scan, method=name))))
        else:
            out.append((name, *table[name]))
    return out


def run_benchmark(
    shapes: Sequence[Shape] | None = None,
    *,
    repeats: int | None = None,
    methods: Sequence[str] | None = None,
    dtype: str = "complex64",
    seed: int = 0,
    max_peer_elements: int = MAX_PEER_ELEMENTS,
    check: bool = True,
) -> list[BenchRow]:
    """Time ``methods`` (default: :func:`default_names`) at each ``(B, L, N)`` of ``shapes``.

    ``numpy`` and ``stream`` are always timed: they are the denominators of ``vs_numpy`` and
    ``vs_stream``. Returns one dict per (shape, name) with keys ``shape, name, label, kind,
    dtype, time_s`` (median), ``elements_per_s, gb_per_s, peak_fraction`` (None on CPU),
    ``vs_numpy, vs_stream, rel_err`` (against the reference) and ``note`` (why a row was skipped;
    its numbers are then None). With ``check=True`` a timed output that disagrees with the
    reference beyond :data:`~lrnn_core.bookkit.benchmark_setup.RTOL` raises ``AssertionError``.
    """
    shapes, repeats, dtype = resolve(shapes, repeats, dtype)
    names = [
        check_choice("methods", n, NAMES) for n in (default_names() if methods is None else methods)
    ]
    seed = nonnegative_int("seed", seed)
    max_peer_elements = nonnegative_int("max_peer_elements", max_peer_elements)
    check = check_flag("check", check)
    names = ["numpy", "stream"] + [n for n in names if n not in ("numpy", "stream")]
    peak = peak_bandwidth_gbs()
    rows = []
    for shape in shapes:
        rows += _bench_shape(shape, names, repeats, dtype, seed, max_peer_elements, check, peak)
    return rows


def _label(name: str) -> str:
    return method_label(name) if name in METHODS else LABELS[name]


def _bench_shape(
    shape: Shape,
    names: Sequence[str],
    repeats: int,
    dtype: str,
    seed: int,
    max_peer_elements: int,
    check: bool,
    peak: float | None,
) -> list[BenchRow]:
    """The rows of :func:`run_benchmark` for one shape."""
    lam_np, u_np = make_inputs(shape, dtype, seed)
    lam, u = jnp.asarray(lam_np), jnp.asarray(u_np)
    if lam.dtype != np.dtype(dtype):
        raise ValueError(f"dtype {dtype} needs float64 enabled in JAX (jax.enable_x64(True))")
    size = math.prod(shape)
    nbytes = 2 * size * u_np.itemsize  # read u, write h
    ref = None
    rows = []
    for name, kind, fn in _entries(names):
        row = dict(shape=tuple(shape), name=name, label=_label(name), kind=kind, dtype=dtype)
        row.update(time_s=None, elements_per_s=None, gb_per_s=None, peak_fraction=None)
        row.update(vs_numpy=None, vs_stream=None, rel_err=None, note=NOTES.get(name, ""))
        rows.append(row)
        if name in ("numpy", "lfilter") and size > max_peer_elements:
            row["note"] = (
                f"skipped: {size:.3g} elements > max_peer_elements={max_peer_elements:.3g}"
            )
            continue
        if name == "stream":
            t, out = time_call(fn, (u, jnp.asarray(2, u.dtype)), repeats)
        elif fn is None:  # the NumPy/SciPy peers take NumPy arrays
            t, out = time_call(PEER_FUNCTIONS[name], (lam_np, u_np), repeats)
        else:
            t, out = time_call(fn, (lam, u), repeats)
        row.update(time_s=t, elements_per_s=size / t, gb_per_s=nbytes / t / 1e9)
        if peak is not None:
            row["peak_fraction"] = row["gb_per_s"] / peak
        if name == "numpy":
            ref = out
        elif name != "stream":
            if ref is None:  # the NumPy loop was skipped: check against the reference method
                ref = np.asarray(jax.jit(partial(linear_scan, method="sequential"))(lam, u))
                row["note"] = (row["note"] + "; " if row["note"] else "") + "checked vs sequential"
            row["rel_err"] = relative_error(np.asarray(out), ref)
            if check and not row["rel_err"] <= RTOL[dtype]:
                raise AssertionError(
                    f"{name} at {shape}: relative error {row['rel_err']:.3g} > {RTOL[dtype]}"
                )
    times = {r["name"]: r["time_s"] for r in rows}
    for r in rows:
        if r["time_s"] is not None:
            r["vs_numpy"] = r["time_s"] / times["numpy"] if times.get("numpy") else None
            r["vs_stream"] = r["time_s"] / times["stream"] if times.get("stream") else None
    return rows


def format_table(rows: Sequence[BenchRow]) -> str:
    """Format rows of :func:`run_benchmark` as Markdown, one table per shape and dtype (readable as
    plain text, and narrow enough for a book page). The bandwidth columns (``GB/s``, ``% peak``)
    appear only where the device's peak bandwidth is known (a GPU)."""
    fmt = lambda x, spec: "" if x is None else format(x, spec)  # noqa: E731
    columns = [  # (header, cell of a row)
        ("what", lambda r: r["label"]),
        ("time ms", lambda r: fmt(None if r["time_s"] is None else 1e3 * r["time_s"], ".2f")),
        ("x numpy", lambda r: fmt(r["vs_numpy"], ".2f")),
        ("x stream", lambda r: fmt(r["vs_stream"], ".2f")),
        ("rel err", lambda r: fmt(r["rel_err"], ".1e")),
        ("note", lambda r: r["note"]),
    ]
    if any(r["peak_fraction"] is not None for r in rows):
        columns[2:2] = [
            ("GB/s", lambda r: fmt(r["gb_per_s"], ".1f")),
            (
                "% peak",
                lambda r: fmt(
                    None if r["peak_fraction"] is None else 100 * r["peak_fraction"], ".0f"
                ),
            ),
        ]
    tables = []
    for shape, dtype in dict.fromkeys((r["shape"], r["dtype"]) for r in rows):
        lines = [
            f"**(B, L, N) = ({', '.join(map(str, shape))}), {dtype}**",
            "",
            "| " + " | ".join(head for head, _ in columns) + " |",
            "|" + "|".join("---" for _ in columns) + "|",
        ]
        for r in rows:
            if (r["shape"], r["dtype"]) == (shape, dtype):
                lines.append("| " + " | ".join(cell(r) for _, cell in columns) + " |")
        tables.append("\n".join(lines))
    return "\n\n".join(tables)


def floor_vs_loop(rows: Sequence[BenchRow]) -> dict[Shape, float]:
    """Per shape of :func:`run_benchmark`'s ``rows``, the streaming floor's time over the NumPy
    loop's (shapes whose loop was skipped are left out)."""
    return {
        r["shape"]: r["vs_numpy"]
        for r in rows
        if r["name"] == "stream" and r["vs_numpy"] is not None
    }
