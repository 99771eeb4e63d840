"""Timing harness for :func:`lrnn_core.core.scan.linear_scan` against its peers.

Times every ``linear_scan`` method and the peers (a NumPy loop over time, ``scipy.signal.lfilter``
per channel, plain ``lax.scan``, plain ``lax.associative_scan``) next to a streaming op that reads
and writes the same bytes (jitted ``u * c``: the memory-bandwidth floor). Every timed output is
checked against the NumPy loop (or, where that is skipped, ``method="sequential"``).

Use :func:`run_benchmark` for the rows and :func:`format_table` to print them; the command line
front end is ``benchmarks/scan.py``. :func:`gradient_benchmark` times one ``jax.grad`` through the
scan, and :func:`target_ratios` measures the targets of :data:`TARGETS` as paired ratios.

On a GPU whose data-sheet bandwidth is in :data:`PEAK_BANDWIDTH_GBS`, the tables get two more
columns: ``GB/s`` (bytes of ``u`` read plus ``h`` written, per second) and ``% peak``.
"""

from __future__ import annotations

import json
import math
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import scipy.signal

from lrnn_core.bookkit.scale import by_scale
from lrnn_core.core.scan import METHODS, auto_method, linear_scan
from lrnn_core.core.validate import (
    check_choice,
    check_flag,
    nonnegative_int,
    positive_int,
)

Shape = tuple[int, int, int]

PEERS = ("numpy", "lfilter", "lax.scan", "lax.associative_scan", "stream")
"""Peers timed next to the ``linear_scan`` methods; ``numpy`` and ``stream`` are the references."""

NAMES = (*METHODS, *PEERS)

TARGETS = {"auto / NumPy loop": 1.0, "auto / floor": 1.15, "gradient / forward": 3.0}
"""Issue 13's targets (upper bounds) for :func:`target_ratios`: ``method="auto"`` no slower than
the NumPy loop, within 1.15x the streaming floor, and one ``jax.grad`` within 3x the forward."""

LABELS = {
    "numpy": "NumPy loop over L",
    "lfilter": "scipy lfilter per channel",
    "lax.scan": "plain lax.scan",
    "lax.associative_scan": "plain lax.associative_scan",
    "stream": "stream u*c (floor)",
}

PEAK_BANDWIDTH_GBS = (  # (substring of device_kind, GB/s); first match wins, so specific first
    ("H200", 4800.0),
    ("H100 PCIe", 2000.0),
    ("H100", 3350.0),
    ("A100-SXM4-80GB", 2039.0),
    ("A100 80GB PCIe", 1935.0),
    ("A100", 1555.0),
    ("V100", 900.0),
)
"""Peak memory bandwidth of some accelerators from the vendors' data sheets."""

NOTES = {"lfilter": "one lfilter call per channel", "stream": "reads and writes the same bytes"}

MAX_PEER_ELEMENTS = 2**26
"""The NumPy loop and lfilter peers are skipped above this many elements of ``u`` (minutes each)."""

RTOL = {"complex64": 2e-3, "float32": 2e-3, "complex128": 1e-9, "float64": 1e-9}
"""Largest accepted ``max |h - h_ref| / max |h_ref|`` per dtype."""


def default_shapes() -> list[Shape]:
    """``(B, L, N)`` sizes for the current ``LRNN_SCALE``: at ``book``, a long sequence, the MNIST
    chapters' shape (64, 784, 512) and a wide short one; at ``ci``, smaller shapes of the same
    kinds."""
    return by_scale(
        ci=[(8, 1024, 64), (16, 196, 128), (1, 8192, 16)],
        book=[(8, 4096, 256), (64, 784, 512), (1, 65536, 64), (256, 256, 128)],
        paper=[(8, 4096, 256), (64, 784, 512), (1, 65536, 64), (64, 4096, 512), (16, 16384, 1024)],
    )


def default_names() -> tuple[str, ...]:
    """What :func:`run_benchmark` times by default: :data:`NAMES`, without ``"pallas"`` off a GPU
    (interpreted there, so its time says nothing about the kernel)."""
    return tuple(n for n in NAMES if n != "pallas" or jax.default_backend() == "gpu")


def default_repeats() -> int:
    """Timed calls per entry (the median is reported) for the current ``LRNN_SCALE``."""
    return by_scale(ci=3, book=7, paper=10)


def device_description() -> str:
    """The default JAX device in words, e.g. ``cpu: Intel(R) Xeon(R) ... (2 cores)``."""
    dev = jax.devices()[0]
    if dev.platform == "cpu":
        model = "unknown CPU"
        try:
            with open("/proc/cpuinfo") as f:
                lines = [line for line in f if line.startswith("model name")]
            model = lines[0].split(":", 1)[1].strip() if lines else model
        except OSError:
            pass
        return f"cpu: {model} ({os.cpu_count()} cores), jax {jax.__version__}"
    return f"{dev.platform}: {dev.device_kind}, jax {jax.__version__}"


def peak_bandwidth_gbs(device_kind: str | None = None) -> float | None:
    """Peak memory bandwidth (GB/s) by ``device_kind`` (default: the default device's).

    None on CPU or for a device not in :data:`PEAK_BANDWIDTH_GBS`.
    """
    dev = jax.devices()[0]
    if device_kind is None:
        if dev.platform == "cpu":
            return None
        device_kind = dev.device_kind
    return next((gbs for key, gbs in PEAK_BANDWIDTH_GBS if key in device_kind), None)


def make_inputs(
    shape: Shape, dtype: str = "complex64", seed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """Random stable ``lam`` of shape ``(N,)`` (``|lam|`` in [0.5, 0.99]) and ``u`` of ``shape``."""
    rng = np.random.default_rng(seed)
    n = shape[-1]
    lam = rng.uniform(0.5, 0.99, n)
    u = rng.standard_normal(shape)
    if np.issubdtype(np.dtype(dtype), np.complexfloating):
        lam = lam * np.exp(1j * rng.uniform(0, np.pi, n))
        u = u + 1j * rng.standard_normal(shape)
    return lam.astype(dtype), u.astype(dtype)


def numpy_loop(lam: np.ndarray, u: np.ndarray) -> np.ndarray:
    """The recurrence as a NumPy loop over time, vectorized over batch and channels."""
    out = np.empty_like(u)
    h = np.zeros(u.shape[:-2] + u.shape[-1:], u.dtype)
    for k in range(u.shape[-2]):
        h = lam * h + u[..., k, :]
        out[..., k, :] = h
    return out


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


def _stream(u: jax.Array, c: jax.Array) -> jax.Array:
    """Reads ``u`` and writes an array of the same size: the memory-bandwidth floor."""
    return u * c


def time_call(fn: Callable[..., Any], args: Sequence[Any], repeats: int) -> tuple[float, Any]:
    """Median wall time of ``fn(*args)`` over ``repeats`` calls after one warm-up (compile) call,
    and its output: :func:`_interleaved_medians` with one entry."""
    times, outs = _interleaved_medians({"call": (lambda: tuple(args), fn)}, repeats)
    return times["call"], outs["call"]


def paired_time_ratio(
    fn_a: Callable[..., Any], fn_b: Callable[..., Any], args: Sequence[Any], repeats: int
) -> float:
    """Median over ``repeats`` interleaved pairs of ``time(fn_a(*args)) / time(fn_b(*args))``.

    The calls alternate (a, b, a, b, ...) after one warm-up call each, so a load spike that slows
    one call of a pair is unlikely to decide the median; two medians taken one after the other
    (:func:`time_call`) can swap under load, as when two test workers share two cores.
    """
    repeats = positive_int("repeats", repeats)
    for fn in (fn_a, fn_b):
        jax.block_until_ready(fn(*args))
    ratios = []
    for _ in range(repeats):
        pair = []
        for fn in (fn_a, fn_b):
            start = time.perf_counter()
            jax.block_until_ready(fn(*args))
            pair.append(time.perf_counter() - start)
        ratios.append(pair[0] / pair[1])
    return statistics.median(ratios)


def _entries(names: Sequence[str]) -> list[tuple[str, str, Callable[..., Any] | None]]:
    """``(name, kind, fn)`` to time; ``fn`` is jitted, or None for the NumPy/SciPy peers."""
    table = {
        "numpy": ("peer", None),
        "lfilter": ("peer", None),
        "lax.scan": ("peer", jax.jit(_plain_scan)),
        "lax.associative_scan": ("peer", jax.jit(_plain_associative)),
        "stream": ("floor", jax.jit(_stream)),
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
) -> list[dict[str, Any]]:
    """Time ``methods`` (default: :func:`default_names`) at each ``(B, L, N)`` of ``shapes``.

    ``numpy`` and ``stream`` are always timed: they are the denominators of ``vs_numpy`` and
    ``vs_stream``. Returns one dict per (shape, name) with keys ``shape, name, label, kind,
    dtype, time_s`` (median), ``elements_per_s, gb_per_s, peak_fraction`` (None on CPU),
    ``vs_numpy, vs_stream, rel_err`` (against the reference) and ``note`` (why a row was skipped;
    its numbers are then None). With ``check=True`` a timed output that disagrees with the
    reference beyond :data:`RTOL` raises ``AssertionError``.
    """
    shapes = default_shapes() if shapes is None else [_check_shape_triple(s) for s in shapes]
    repeats = default_repeats() if repeats is None else positive_int("repeats", repeats)
    names = [
        check_choice("methods", n, NAMES) for n in (default_names() if methods is None else methods)
    ]
    dtype = check_choice("dtype", dtype, tuple(RTOL))
    seed = nonnegative_int("seed", seed)
    max_peer_elements = nonnegative_int("max_peer_elements", max_peer_elements)
    check = check_flag("check", check)
    names = ["numpy", "stream"] + [n for n in names if n not in ("numpy", "stream")]
    peak = peak_bandwidth_gbs()
    rows = []
    for shape in shapes:
        rows += _bench_shape(shape, names, repeats, dtype, seed, max_peer_elements, check, peak)
    return rows


def _check_shape_triple(shape: Sequence[int]) -> Shape:
    """``shape`` as a ``(B, L, N)`` tuple of positive ints."""
    b, length, n = shape
    return (
        positive_int("shapes batch", b),
        positive_int("shapes L", length),
        positive_int("shapes N", n),
    )


def _label(name: str) -> str:
    if name == "auto":
        return f"linear_scan(auto -> {auto_method()})"
    return f"linear_scan({name})" if name in METHODS else LABELS[name]


def _bench_shape(
    shape: Shape,
    names: Sequence[str],
    repeats: int,
    dtype: str,
    seed: int,
    max_peer_elements: int,
    check: bool,
    peak: float | None,
) -> list[dict[str, Any]]:
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
            row["rel_err"] = _relative_error(np.asarray(out), ref)
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


def _relative_error(out: np.ndarray, ref: np.ndarray) -> float:
    """``max |out - ref| / max |ref|``."""
    scale = max(float(np.max(np.abs(ref), initial=0.0)), 1e-30)
    return float(np.max(np.abs(out - ref), initial=0.0)) / scale


def format_table(rows: Sequence[dict[str, Any]]) -> str:
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


def _grad_fn(method: str) -> Callable[..., Any]:
    """Jitted gradient of ``sum(Re h)`` with respect to ``lam`` and ``u``: one backward scan."""
    loss = lambda lam, u: jnp.sum(jnp.real(linear_scan(lam, u, method=method)))  # noqa: E731
    return jax.jit(jax.grad(loss, argnums=(0, 1)))


def gradient_benchmark(
    shapes: Sequence[Shape] | None = None,
    *,
    repeats: int | None = None,
    methods: Sequence[str] = ("auto", "sequential"),
    dtype: str = "complex64",
    seed: int = 0,
) -> list[dict[str, Any]]:
    """Time one ``jax.grad`` of ``sum(Re linear_scan(lam, u))`` (w.r.t. lam and u) per method.

    Returns one dict per (shape, method) with keys ``shape, name, label, kind, dtype, time_s``
    (median), ``vs_forward`` (median over ``repeats`` interleaved pairs of gradient time / forward
    time of the same method), ``rel_err`` (against the gradient through ``"sequential"``, the
    largest over ``lam`` and ``u``) and ``note``. Raises ``AssertionError`` beyond :data:`RTOL`.
    """
    shapes = default_shapes() if shapes is None else [_check_shape_triple(s) for s in shapes]
    repeats = default_repeats() if repeats is None else positive_int("repeats", repeats)
    methods = [check_choice("methods", m, METHODS) for m in methods]
    dtype = check_choice("dtype", dtype, tuple(RTOL))
    rows = []
    for shape in shapes:
        lam, u = (jnp.asarray(a) for a in make_inputs(shape, dtype, nonnegative_int("seed", seed)))
        ref = [np.asarray(g) for g in _grad_fn("sequential")(lam, u)]
        for name in methods:
            grad, forward = _grad_fn(name), jax.jit(partial(linear_scan, method=name))
            t, out = time_call(grad, (lam, u), repeats)
            err = max(_relative_error(np.asarray(g), r) for g, r in zip(out, ref, strict=True))
            if not err <= RTOL[dtype]:
                raise AssertionError(f"gradient of {name} at {shape}: relative error {err:.3g}")
            rows.append(
                dict(shape=tuple(shape), name=name, label=f"grad of {_label(name)}", kind="grad")
                | dict(dtype=dtype, time_s=t, rel_err=err, note="w.r.t. lam and u")
                | dict(vs_forward=paired_time_ratio(grad, forward, (lam, u), repeats))
            )
    return rows


def format_gradient_table(rows: Sequence[dict[str, Any]]) -> str:
    """Rows of :func:`gradient_benchmark` as one Markdown table."""
    lines = [
        "| (B, L, N) | what | time ms | x forward (paired) | rel err |",
        "|---|---|---|---|---|",
    ]
    for r in rows:
        shape = "(" + ", ".join(map(str, r["shape"])) + ")"
        lines.append(
            f"| {shape} | {r['label']} | {1e3 * r['time_s']:.2f} | {r['vs_forward']:.2f} "
            f"| {r['rel_err']:.1e} |"
        )
    return "\n".join(lines)


def target_ratios(
    shapes: Sequence[Shape] | None = None,
    *,
    repeats: int | None = None,
    dtype: str = "complex64",
    seed: int = 0,
    max_peer_elements: int = MAX_PEER_ELEMENTS,
) -> list[dict[str, Any]]:
    """The ratios of :data:`TARGETS` for ``method="auto"``, each a :func:`paired_time_ratio`.

    Interleaved pairs, because separate medians of two programs can swap when other processes
    share the cores. Returns one dict per shape: ``shape``, ``load`` (the 1-minute load average
    before the shape, None where the OS has none), ``ratios`` (name -> ratio; the NumPy loop's
    is None above ``max_peer_elements``) and ``met`` (name -> ratio <= bound, or None).
    """
    shapes = default_shapes() if shapes is None else [_check_shape_triple(s) for s in shapes]
    repeats = default_repeats() if repeats is None else positive_int("repeats", repeats)
    dtype = check_choice("dtype", dtype, tuple(RTOL))
    auto, stream, grad = (
        jax.jit(partial(linear_scan, method="auto")),
        jax.jit(_stream),
        _grad_fn("auto"),
    )
    rows = []
    for shape in shapes:
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
        lam_np, u_np = make_inputs(shape, dtype, nonnegative_int("seed", seed))
        lam, u, c = jnp.asarray(lam_np), jnp.asarray(u_np), jnp.asarray(2, dtype)
        run_auto = lambda: auto(lam, u)  # noqa: E731, B023
        ratios = {
            "auto / NumPy loop": None
            if math.prod(shape) > max_peer_elements
            else paired_time_ratio(run_auto, lambda: numpy_loop(lam_np, u_np), (), repeats),  # noqa: B023
            "auto / floor": paired_time_ratio(run_auto, lambda: stream(u, c), (), repeats),  # noqa: B023
            "gradient / forward": paired_time_ratio(lambda: grad(lam, u), run_auto, (), repeats),  # noqa: B023
        }
        met = {k: None if r is None else r <= TARGETS[k] for k, r in ratios.items()}
        rows.append(dict(shape=tuple(shape), load=load, ratios=ratios, met=met))
    return rows


def format_targets(rows: Sequence[dict[str, Any]]) -> str:
    """Rows of :func:`target_ratios` as one Markdown table, each ratio marked met or missed."""
    cell = lambda r, ok: "" if r is None else f"{r:.2f} ({'met' if ok else 'missed'})"  # noqa: E731
    heads = [f"{k} (target <= {v:g})" for k, v in TARGETS.items()]
    lines = ["| (B, L, N) | " + " | ".join(heads) + " | load |", "|---" * (len(heads) + 2) + "|"]
    for r in rows:
        cells = [cell(r["ratios"][k], r["met"][k]) for k in TARGETS]
        load = "" if r["load"] is None else f"{r['load']:.1f}"
        lines.append(
            f"| ({', '.join(map(str, r['shape']))}) | " + " | ".join(cells) + f" | {load} |"
        )
    return "\n".join(lines)


BREAKDOWN = ("floor", "floor in place", "auto", "auto in place", "NumPy stream", "NumPy loop")
"""What :func:`floor_breakdown` times: the streaming floor ``u * c`` and ``linear_scan(auto)``, each
writing a fresh array and in ``u``'s (donated) buffer, NumPy's ``u * c`` into a kept array, and the
NumPy loop."""


def _interleaved_medians(
    calls: dict[str, tuple[Callable[[], tuple], Callable[..., Any]]], repeats: int
) -> tuple[dict[str, float], dict[str, Any]]:
    """Median time per entry of ``calls`` (key -> (make the arguments, function)) over ``repeats``
    rounds that call every entry once, in turn, after one untimed round that compiles.

    The arguments are made before each call's clock starts (a fresh copy for a function that
    donates its argument), and taking turns spreads a burst of load over all entries alike.
    Returns the medians and the last output of each entry.
    """
    samples: dict[str, list[float]] = {key: [] for key in calls}
    outs: dict[str, Any] = {}
    for round_ in range(repeats + 1):
        for key, (make, fn) in calls.items():
            args = jax.block_until_ready(make())
            start = time.perf_counter()
            outs[key] = jax.block_until_ready(fn(*args))
            if round_:
                samples[key].append(time.perf_counter() - start)
    return {key: statistics.median(t) for key, t in samples.items()}, outs


def floor_breakdown(
    shapes: Sequence[Shape] | None = None,
    *,
    repeats: int | None = None,
    dtype: str = "complex64",
    seed: int = 0,
) -> list[dict[str, Any]]:
    """Split the gap between ``linear_scan(method="auto")`` and the streaming floor in two.

    Times per shape, keyed as :data:`BREAKDOWN` (medians over rounds that call each in turn): the
    floor ``u * c`` and ``auto`` as :func:`run_benchmark` calls them (each returns a freshly
    allocated array), the same two jitted with ``u`` donated (XLA writes the result into ``u``'s
    buffer: the pass over memory without an allocation), ``numpy.multiply(u, c, out=kept)`` (the
    bandwidth NumPy reaches without allocating) and the NumPy loop. Returns one dict per shape:
    ``shape``, ``load`` (1-minute load average), ``times`` (key -> seconds) and ``donated``
    (whether XLA took the donated buffer). Raises
    ``AssertionError`` if an in-place output differs from its fresh counterpart beyond :data:`RTOL`.
    """
    shapes = default_shapes() if shapes is None else [_check_shape_triple(s) for s in shapes]
    repeats = default_repeats() if repeats is None else positive_int("repeats", repeats)
    dtype = check_choice("dtype", dtype, tuple(RTOL))
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
        times, outs = _interleaved_medians(
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
            err = _relative_error(np.asarray(outs[f"{key} in place"]), np.asarray(outs[key]))
            if not err <= RTOL[dtype]:
                raise AssertionError(f"{key} in place at {shape}: relative error {err:.3g}")
        rows.append(dict(shape=tuple(shape), load=load, times=times, donated=donated))
    return rows


def format_breakdown(rows: Sequence[dict[str, Any]]) -> str:
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


def target_ratios_in_process(
    env: dict[str, str],
    shapes: Sequence[Shape] | None = None,
    *,
    repeats: int | None = None,
    timeout: float = 1800.0,
) -> list[dict[str, Any]]:
    """:func:`target_ratios` run in a new Python process whose environment adds ``env``.

    For settings read only when a process starts, such as glibc's allocator tunables
    (``GLIBC_TUNABLES=glibc.malloc.hugetlb=1`` asks the kernel for transparent huge pages, as
    NumPy does for its large arrays). Returns the child's rows (shapes as tuples). Raises
    ``subprocess.CalledProcessError`` if the child fails.
    """
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in env.items()):
        raise TypeError(f"env must map str to str, got {env!r}")
    shapes = default_shapes() if shapes is None else [_check_shape_triple(s) for s in shapes]
    repeats = default_repeats() if repeats is None else positive_int("repeats", repeats)
    code = (
        "import json, sys\n"
        "from lrnn_core.bookkit.benchmark import target_ratios\n"
        "shapes = [tuple(s) for s in json.loads(sys.argv[1])]\n"
        "print(json.dumps(target_ratios(shapes, repeats=int(sys.argv[2]))))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, json.dumps(shapes), str(repeats)],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        check=True,
        timeout=timeout,
    )
    rows = json.loads(done.stdout.strip().splitlines()[-1])
    return [r | {"shape": tuple(r["shape"])} for r in rows]
