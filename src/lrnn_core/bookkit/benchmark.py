"""Timing :func:`lrnn_core.core.scan.linear_scan` against its peers (the performance appendix).

What is timed, for ``u`` of shape ``(B, L, N)`` (:func:`make_inputs`):

- :func:`run_benchmark`: every ``linear_scan`` method and the peers (a NumPy loop over time,
  ``scipy.signal.lfilter`` per channel, plain ``lax.scan``, plain ``lax.associative_scan``) next
  to a streaming op that reads and writes the same bytes (jitted ``u * c``: the memory-bandwidth
  floor). Every timed output is checked against the NumPy loop (or, where that is skipped,
  ``method="sequential"``). :func:`format_table` prints the rows; the command line front end is
  ``benchmarks/scan.py``.
- :func:`gradient_benchmark`: one ``jax.grad`` through the scan, checked and paired with the
  forward pass.
- :func:`target_ratios` (also in a fresh process, :func:`target_ratios_in_process`): the book's
  :data:`TARGETS` as paired time ratios; :func:`auto_vs_sequential`, the ratio the appendix asserts.
- :func:`floor_breakdown`: the gap between ``auto`` and the floor, split into the allocation of
  a fresh output and the pass over memory.
- :func:`time_train_step`: one training step of the ODE-flow model of
  :mod:`lrnn_core.orvieto.ode_flows` (Orvieto et al., ICML 2024, eq. (2) followed by the
  position-wise readout of §4.2), the library's ``LRUModel`` with ``linear_scan`` against the
  obvious hand-written LRU (a plain ``lax.scan`` over time, :func:`plain_forward`) with the same
  readout.

Timing is by medians over rounds that take turns (:func:`interleaved_medians`) or by paired
ratios (:func:`paired_time_ratio`). The default shapes and repeats follow ``LRNN_SCALE``
(:func:`resolve`, the one place they are filled in). On a GPU whose data-sheet bandwidth is in
:data:`PEAK_BANDWIDTH_GBS`, the tables get two more columns: ``GB/s`` (bytes of ``u`` read plus
``h`` written, per second) and ``% peak``.
"""

from __future__ import annotations

import json
import math
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import optax
import scipy.signal
from flax import nnx

from lrnn_core.bookkit.scale import by_scale
from lrnn_core.bookkit.tables import fmt
from lrnn_core.core.scan import METHODS, auto_method, linear_scan
from lrnn_core.core.validate import check_choice, check_flag, nonnegative_int, positive_int
from lrnn_core.orvieto.ode_flows import ModelConfig, make_model, model_mse, with_constant

Shape = tuple[int, int, int]

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

MAX_PEER_ELEMENTS = 2**26
"""The NumPy loop and lfilter peers are skipped above this many elements of ``u`` (minutes each)."""

RTOL = {"complex64": 2e-3, "float32": 2e-3, "complex128": 1e-9, "float64": 1e-9}
"""Largest accepted ``max |h - h_ref| / max |h_ref|`` per dtype."""

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

NOTES = {"lfilter": "one lfilter call per channel", "stream": "reads and writes the same bytes"}

TARGETS = {"auto / NumPy loop": 1.0, "auto / floor": 1.15, "gradient / forward": 3.0}
"""The book's targets (upper bounds) for :func:`target_ratios`: ``method="auto"`` no slower than
the NumPy loop, within 1.15x the streaming floor, and one ``jax.grad`` within 3x the forward."""

BREAKDOWN = ("floor", "floor in place", "auto", "auto in place", "NumPy stream", "NumPy loop")
"""What :func:`floor_breakdown` times: the streaming floor ``u * c`` and ``linear_scan(auto)``, each
writing a fresh array and in ``u``'s (donated) buffer, NumPy's ``u * c`` into a kept array, and the
NumPy loop."""


# --- defaults, device, inputs and references ---------------------------------------------------


def default_shapes() -> list[Shape]:
    """``(B, L, N)`` sizes for the current ``LRNN_SCALE``: at ``book``, a long sequence, the MNIST
    chapters' shape (64, 784, 512) and a very long narrow one (the wide short (256, 256, 128) is
    left out, for the website build's time); at ``ci``, smaller shapes of the same kinds."""
    return by_scale(
        ci=[(8, 1024, 64), (16, 196, 128), (1, 8192, 16)],
        book=[(8, 4096, 256), (64, 784, 512), (1, 65536, 64)],
        paper=[(8, 4096, 256), (64, 784, 512), (1, 65536, 64), (64, 4096, 512), (16, 16384, 1024)],
    )


def device_description() -> str:
    """The default JAX device in words, e.g. ``cpu: Intel(R) Xeon(R) ... (2 cores)``."""
    dev = jax.devices()[0]
    if dev.platform != "cpu":
        return f"{dev.platform}: {dev.device_kind}, jax {jax.__version__}"
    cpuinfo = Path("/proc/cpuinfo")
    lines = cpuinfo.read_text().splitlines() if cpuinfo.exists() else []
    model = next((x.split(":", 1)[1].strip() for x in lines if x.startswith("model name")), None)
    return f"cpu: {model or 'unknown CPU'} ({os.cpu_count()} cores), jax {jax.__version__}"


def peak_bandwidth_gbs(device_kind: str | None = None) -> float | None:
    """Peak memory bandwidth (GB/s) by ``device_kind`` (default: the default device's).

    None on CPU or for a device not in :data:`PEAK_BANDWIDTH_GBS`.
    """
    dev = jax.devices()[0]
    if device_kind is None and dev.platform == "cpu":
        return None
    device_kind = dev.device_kind if device_kind is None else device_kind
    return next((gbs for key, gbs in PEAK_BANDWIDTH_GBS if key in device_kind), None)


def resolve(shapes: Sequence[Sequence[int]] | None, repeats: int | None,
            dtype: str) -> tuple[list[Shape], int, str]:  # fmt: skip
    """``shapes`` (default :func:`default_shapes`) as checked ``(B, L, N)`` triples of positive
    ints, ``repeats`` (default by ``LRNN_SCALE``: timed calls per entry, the median is reported)
    and ``dtype`` (one of :data:`RTOL`)."""
    if shapes is None:
        shapes = default_shapes()
    else:
        names = ("shapes batch", "shapes L", "shapes N")
        shapes = [tuple(positive_int(k, v) for k, v in zip(names, s, strict=True)) for s in shapes]
    repeats = by_scale(ci=3, book=3, paper=10) if repeats is None else repeats  # book: build time
    repeats = positive_int("repeats", repeats)
    return shapes, repeats, check_choice("dtype", dtype, tuple(RTOL))


def make_inputs(shape: Shape, dtype: str = "complex64",
                seed: int = 0) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
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
    """The recurrence ``h_k = lam_k h_{k-1} + u_k`` (``h_0 = 0``) as a NumPy loop over time,
    vectorized over batch and channels: ``lam`` of shape ``(N,)``, or of ``u``'s shape
    ``(..., L, N)`` for a different ``lam_k`` at every step."""
    out = np.empty_like(u)
    h = np.zeros(u.shape[:-2] + u.shape[-1:], u.dtype)
    varying = lam.ndim == u.ndim
    for k in range(u.shape[-2]):
        h = (lam[..., k, :] if varying else lam) * h + u[..., k, :]
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


def stream(u: jax.Array, c: jax.Array) -> jax.Array:
    """Reads ``u`` and writes an array of the same size: the memory-bandwidth floor."""
    return u * c


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


def grad_fn(method: str) -> Callable[[jax.Array, jax.Array], tuple[jax.Array, jax.Array]]:
    """Jitted gradient of ``sum(Re h)`` with respect to ``lam`` and ``u``: one backward scan."""
    loss = lambda lam, u: jnp.sum(jnp.real(linear_scan(lam, u, method=method)))  # noqa: E731
    return jax.jit(jax.grad(loss, argnums=(0, 1)))


def relative_error(out: np.ndarray, ref: np.ndarray) -> float:
    """``max |out - ref| / max |ref|``."""
    scale = max(float(np.max(np.abs(ref), initial=0.0)), 1e-30)
    return float(np.max(np.abs(out - ref), initial=0.0)) / scale


def method_label(name: str) -> str:
    """The row label of ``linear_scan`` method ``name``; ``auto`` names the method it picks."""
    return f"linear_scan({name}{f' -> {auto_method()}' if name == 'auto' else ''})"


def _load() -> float | None:
    """The 1-minute load average now (None where the OS has none)."""
    return os.getloadavg()[0] if hasattr(os, "getloadavg") else None


# --- timing ---------------------------------------------------------------------------------------


def interleaved_medians(
    calls: dict[str, tuple[Callable[[], tuple], Callable[..., Any]]], repeats: int
) -> tuple[dict[str, float], dict[str, Any]]:
    """Median time per entry of ``calls`` (key -> (make the arguments, function)) over ``repeats``
    rounds that call every entry once, in turn, after one untimed round that compiles.

    The arguments are made before each call's clock starts (a fresh copy for a function that
    donates its argument), and taking turns spreads a burst of load over all entries alike.
    Returns the medians and the last output of each entry.
    """
    samples, outs = _interleaved(calls, repeats)
    return {key: statistics.median(t) for key, t in samples.items()}, outs


def _interleaved(calls, repeats):
    """The times of every round after the first of :func:`interleaved_medians`, per entry."""
    samples: dict[str, list[float]] = {key: [] for key in calls}
    outs: dict[str, Any] = {}
    for round_ in range(repeats + 1):
        for key, (make, fn) in calls.items():
            args = jax.block_until_ready(make())
            start = time.perf_counter()
            outs[key] = jax.block_until_ready(fn(*args))
            if round_:
                samples[key].append(time.perf_counter() - start)
    return samples, outs


def time_call(fn: Callable[..., Any], args: Sequence[Any], repeats: int) -> tuple[float, Any]:
    """Median wall time of ``fn(*args)`` over ``repeats`` calls after one warm-up (compile) call,
    and its output: :func:`interleaved_medians` with one entry."""
    times, outs = interleaved_medians({"call": (lambda: tuple(args), fn)}, repeats)
    return times["call"], outs["call"]


def paired_time_ratio(
    fn_a: Callable[..., Any], fn_b: Callable[..., Any], args: Sequence[Any], repeats: int
) -> float:
    """Median over ``repeats`` interleaved pairs of ``time(fn_a(*args)) / time(fn_b(*args))``.

    The calls alternate (a, b, a, b, ...) after one warm-up call each, so a load spike that slows
    one call of a pair is unlikely to decide the median; two medians taken one after the other
    (:func:`time_call`) can swap under load, as when two test workers share two cores.
    """
    make = lambda: tuple(args)  # noqa: E731
    t, _ = _interleaved({"a": (make, fn_a), "b": (make, fn_b)}, positive_int("repeats", repeats))
    return statistics.median(a / b for a, b in zip(t["a"], t["b"], strict=True))


# --- the forward table ----------------------------------------------------------------------------


def run_benchmark(shapes: Sequence[Shape] | None = None, *, repeats: int | None = None,
                  methods: Sequence[str] | None = None, dtype: str = "complex64", seed: int = 0,
                  max_peer_elements: int = MAX_PEER_ELEMENTS, check: bool = True,
                  ) -> list[dict[str, Any]]:  # fmt: skip
    """Time ``methods`` at each ``(B, L, N)`` of ``shapes`` (default: :data:`NAMES`, without
    ``"pallas"`` off a GPU: interpreted there, its time says nothing about the kernel).

    ``numpy`` and ``stream`` are always timed: they are the denominators of ``vs_numpy`` and
    ``vs_stream``. Returns one dict per (shape, name) with keys ``shape, name, label, kind``
    (``method``, ``peer`` or ``floor``), ``dtype, time_s`` (median), ``elements_per_s, gb_per_s,
    peak_fraction`` (None on CPU), ``vs_numpy, vs_stream, rel_err`` (against the reference) and
    ``note`` (why a row was skipped; its numbers are then None). With ``check=True`` a timed
    output that disagrees with the reference beyond :data:`RTOL` raises ``AssertionError``.
    """
    shapes, repeats, dtype = resolve(shapes, repeats, dtype)
    if methods is None:
        methods = [n for n in NAMES if n != "pallas" or jax.default_backend() == "gpu"]
    names = [check_choice("methods", n, NAMES) for n in methods]
    seed = nonnegative_int("seed", seed)
    max_peer_elements = nonnegative_int("max_peer_elements", max_peer_elements)
    check = check_flag("check", check)
    names = ["numpy", "stream"] + [n for n in names if n not in ("numpy", "stream")]
    peak = peak_bandwidth_gbs()
    rows = []
    for shape in shapes:
        rows += _bench_shape(shape, names, repeats, dtype, seed, max_peer_elements, check, peak)
    return rows


def _bench_shape(shape, names, repeats, dtype, seed, max_peer_elements, check, peak):
    """The rows of :func:`run_benchmark` for one shape."""
    lam_np, u_np = make_inputs(shape, dtype, seed)
    lam, u = jnp.asarray(lam_np), jnp.asarray(u_np)
    if lam.dtype != np.dtype(dtype):
        raise ValueError(f"dtype {dtype} needs float64 enabled in JAX (jax.enable_x64(True))")
    size = math.prod(shape)
    nbytes = 2 * size * u_np.itemsize  # read u, write h
    peers = {  # (kind, fn, args): the NumPy/SciPy peers take NumPy arrays
        "numpy": ("peer", numpy_loop, (lam_np, u_np)),
        "lfilter": ("peer", lfilter_per_channel, (lam_np, u_np)),
        "lax.scan": ("peer", jax.jit(_plain_scan), (lam, u)),
        "lax.associative_scan": ("peer", jax.jit(_plain_associative), (lam, u)),
        "stream": ("floor", jax.jit(stream), (u, jnp.asarray(2, u.dtype))),
    }
    ref = None
    rows = []
    for name in names:
        if name in METHODS:
            kind, fn, args = "method", jax.jit(partial(linear_scan, method=name)), (lam, u)
        else:
            kind, fn, args = peers[name]
        label = method_label(name) if name in METHODS else LABELS[name]
        row = dict(shape=tuple(shape), name=name, label=label, kind=kind, dtype=dtype)
        row.update(time_s=None, elements_per_s=None, gb_per_s=None, peak_fraction=None)
        row.update(vs_numpy=None, vs_stream=None, rel_err=None, note=NOTES.get(name, ""))
        rows.append(row)
        if name in ("numpy", "lfilter") and size > max_peer_elements:
            row["note"] = f"skipped: {size:.3g} elements > {max_peer_elements=:.3g}"
            continue
        t, out = time_call(fn, args, repeats)
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


def markdown_table(rows: Sequence[Mapping[str, Any]]) -> str:
    """``rows`` (dicts with the same keys, the column heads) as one Markdown table: numbers by
    :func:`~lrnn_core.bookkit.tables.fmt`, shapes as tuples, None as an empty cell."""
    cell = lambda v: "" if v is None else v if isinstance(v, str | tuple) else fmt(v)  # noqa: E731
    lines = ["| " + " | ".join(rows[0]) + " |", "|---" * len(rows[0]) + "|"]
    return "\n".join(
        lines + ["| " + " | ".join(str(cell(v)) for v in r.values()) + " |" for r in rows]
    )


def format_table(rows: Sequence[Mapping[str, Any]]) -> str:
    """Rows of :func:`run_benchmark` as Markdown, one table per shape and dtype (readable as plain
    text, and narrow enough for a book page). The bandwidth columns (``GB/s``, ``% peak``) appear
    only where the device's peak bandwidth is known (a GPU)."""
    bandwidth = any(r["peak_fraction"] is not None for r in rows)
    scaled = lambda x, by: None if x is None else by * x  # noqa: E731
    tables = []
    for shape, dtype in dict.fromkeys((r["shape"], r["dtype"]) for r in rows):
        cells = []
        for r in (r for r in rows if (r["shape"], r["dtype"]) == (shape, dtype)):
            cells.append({"what": r["label"], "time ms": scaled(r["time_s"], 1e3)})
            if bandwidth:
                cells[-1] |= {"GB/s": r["gb_per_s"], "% peak": scaled(r["peak_fraction"], 100)}
            cells[-1] |= {"x numpy": r["vs_numpy"], "x stream": r["vs_stream"]}
            cells[-1] |= {"rel err": r["rel_err"], "note": r["note"]}
        caption = f"**(B, L, N) = ({', '.join(map(str, shape))}), {dtype}**\n\n"
        tables.append(caption + markdown_table(cells))
    return "\n\n".join(tables)


# --- the gradient ---------------------------------------------------------------------------------


def gradient_benchmark(shapes: Sequence[Shape] | None = None, *, repeats: int | None = None,
                       methods: Sequence[str] = ("auto", "sequential"), dtype: str = "complex64",
                       seed: int = 0) -> list[dict[str, Any]]:  # fmt: skip
    """Time one ``jax.grad`` of ``sum(Re linear_scan(lam, u))`` (w.r.t. lam and u) per method.

    Returns one dict per (shape, method) with keys ``shape, name, label, time_s`` (median),
    ``vs_forward`` (median over ``repeats`` interleaved pairs of gradient time / forward time of
    the same method) and ``rel_err`` (against the gradient through ``"sequential"``, the largest
    over ``lam`` and ``u``). Raises ``AssertionError`` beyond :data:`RTOL`.
    """
    shapes, repeats, dtype = resolve(shapes, repeats, dtype)
    methods = [check_choice("methods", m, METHODS) for m in methods]
    seed = nonnegative_int("seed", seed)
    rows = []
    for shape in shapes:
        lam, u = (jnp.asarray(a) for a in make_inputs(shape, dtype, seed))
        ref = [np.asarray(g) for g in grad_fn("sequential")(lam, u)]
        for name in methods:
            grad, forward = grad_fn(name), jax.jit(partial(linear_scan, method=name))
            t, out = time_call(grad, (lam, u), repeats)
            err = max(relative_error(np.asarray(g), r) for g, r in zip(out, ref, strict=True))
            if not err <= RTOL[dtype]:
                raise AssertionError(f"gradient of {name} at {shape}: relative error {err:.3g}")
            paired = paired_time_ratio(grad, forward, (lam, u), repeats)
            rows.append(dict(shape=tuple(shape), name=name, label=f"grad of {method_label(name)}",
                             time_s=t, rel_err=err, vs_forward=paired))  # fmt: skip
    return rows


# --- the targets ----------------------------------------------------------------------------------


def target_ratios(shapes: Sequence[Shape] | None = None, *, repeats: int | None = None,
                  dtype: str = "complex64", seed: int = 0,
                  max_peer_elements: int = MAX_PEER_ELEMENTS) -> list[dict[str, Any]]:  # fmt: skip
    """The ratios of :data:`TARGETS` for ``method="auto"``, each a :func:`paired_time_ratio`.

    Interleaved pairs, because separate medians of two programs can swap when other processes
    share the cores. Returns one dict per shape: ``shape``, ``load`` (the 1-minute load average
    before the shape, None where the OS has none), ``ratios`` (name -> ratio; the NumPy loop's
    is None above ``max_peer_elements``) and ``met`` (name -> ratio <= bound, or None).
    """
    shapes, repeats, dtype = resolve(shapes, repeats, dtype)
    seed = nonnegative_int("seed", seed)
    auto, grad = jax.jit(partial(linear_scan, method="auto")), grad_fn("auto")
    floor = jax.jit(stream)
    rows = []
    for shape in shapes:
        load = _load()
        lam_np, u_np = make_inputs(shape, dtype, seed)
        lam, u, c = jnp.asarray(lam_np), jnp.asarray(u_np), jnp.asarray(2, dtype)
        run_auto = lambda: auto(lam, u)  # noqa: E731, B023
        ratios = {
            "auto / NumPy loop": None
            if math.prod(shape) > max_peer_elements
            else paired_time_ratio(run_auto, lambda: numpy_loop(lam_np, u_np), (), repeats),  # noqa: B023
            "auto / floor": paired_time_ratio(run_auto, lambda: floor(u, c), (), repeats),  # noqa: B023
            "gradient / forward": paired_time_ratio(lambda: grad(lam, u), run_auto, (), repeats),  # noqa: B023
        }
        met = {k: None if r is None else r <= TARGETS[k] for k, r in ratios.items()}
        rows.append({"shape": tuple(shape), "load": load, "ratios": ratios, "met": met})
    return rows


def target_ratios_in_process(env: dict[str, str], shapes: Sequence[Shape] | None = None, *,
                             repeats: int | None = None,
                             timeout: float = 1800.0) -> list[dict[str, Any]]:  # fmt: skip
    """:func:`target_ratios` run in a new Python process whose environment adds ``env``.

    For settings read only when a process starts, such as glibc's allocator tunables
    (``GLIBC_TUNABLES=glibc.malloc.hugetlb=1`` asks the kernel for transparent huge pages, as
    NumPy does for its large arrays). Returns the child's rows (shapes as tuples). Raises
    ``subprocess.CalledProcessError`` if the child fails.
    """
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in env.items()):
        raise TypeError(f"env must map str to str, got {env!r}")
    shapes, repeats, _ = resolve(shapes, repeats, "complex64")
    code = (
        "import json, sys\n"
        "from lrnn_core.bookkit.benchmark import target_ratios\n"
        "shapes = [tuple(s) for s in json.loads(sys.argv[1])]\n"
        "print(json.dumps(target_ratios(shapes, repeats=int(sys.argv[2]))))\n"
    )
    done = subprocess.run([sys.executable, "-c", code, json.dumps(shapes), str(repeats)],
                          env={**os.environ, **env}, capture_output=True, text=True, check=True,
                          timeout=timeout)  # fmt: skip
    rows = json.loads(done.stdout.strip().splitlines()[-1])
    return [r | {"shape": tuple(r["shape"])} for r in rows]


def auto_vs_sequential(shape: Shape, repeats: int, seed: int = 0) -> float:
    """The paired time ratio of ``linear_scan`` with ``method="auto"`` over ``"sequential"`` (the
    ``lax.scan`` reference) on :func:`make_inputs` of ``shape``, over ``repeats`` interleaved
    pairs."""
    lam, u = (jnp.asarray(a) for a in make_inputs(shape, "complex64", seed))
    auto, sequential = (jax.jit(partial(linear_scan, method=m)) for m in ("auto", "sequential"))
    return paired_time_ratio(auto, sequential, (lam, u), repeats=repeats)


# --- where the time to the floor goes -------------------------------------------------------------


def floor_breakdown(shapes: Sequence[Shape] | None = None, *, repeats: int | None = None,
                    dtype: str = "complex64", seed: int = 0) -> list[dict[str, Any]]:  # fmt: skip
    """Split the gap between ``linear_scan(method="auto")`` and the streaming floor in two.

    Times per shape, keyed as :data:`BREAKDOWN` (medians over rounds that call each in turn): the
    floor ``u * c`` and ``auto`` as :func:`run_benchmark` calls them (each returns a freshly
    allocated array), the same two jitted with ``u`` donated (XLA writes the result into ``u``'s
    buffer: the pass over memory without an allocation), ``numpy.multiply(u, c, out=kept)`` (the
    bandwidth NumPy reaches without allocating) and the NumPy loop. Returns one dict per shape:
    ``shape``, ``load`` (1-minute load average before it, None where the OS has none), ``times``
    (key -> seconds) and ``donated`` (whether XLA took the donated buffer). Raises
    ``AssertionError`` if an in-place output differs from its fresh counterpart beyond
    :data:`RTOL`.
    """
    shapes, repeats, dtype = resolve(shapes, repeats, dtype)
    seed = nonnegative_int("seed", seed)
    rows = []
    for shape in shapes:
        load = _load()
        lam_np, u_np = make_inputs(shape, dtype, seed)
        lam, u, c = jnp.asarray(lam_np), jnp.asarray(u_np), jnp.asarray(2, dtype)
        c_np, kept = c.item(), np.empty_like(u_np)
        floor = lambda x: x * c  # noqa: E731, B023
        scan = lambda x: linear_scan(lam, x, method="auto")  # noqa: E731, B023
        fresh_u = lambda: (jnp.array(u, copy=True),)  # noqa: E731, B023
        calls = {
            "floor": (fresh_u, jax.jit(floor)),
            "floor in place": (fresh_u, jax.jit(floor, donate_argnums=0)),
            "auto": (fresh_u, jax.jit(scan)),
            "auto in place": (fresh_u, jax.jit(scan, donate_argnums=0)),
            "NumPy stream": (lambda: (u_np, c_np, kept), np.multiply),  # noqa: B023
            "NumPy loop": (lambda: (lam_np, u_np), numpy_loop),  # noqa: B023
        }
        times, outs = interleaved_medians(calls, repeats)
        probe = jnp.array(u, copy=True)
        jax.block_until_ready(jax.jit(scan, donate_argnums=0)(probe))
        donated = probe.is_deleted()
        for key in ("floor", "auto"):
            err = relative_error(np.asarray(outs[f"{key} in place"]), np.asarray(outs[key]))
            if not err <= RTOL[dtype]:
                raise AssertionError(f"{key} in place at {shape}: relative error {err:.3g}")
        rows.append({"shape": tuple(shape), "load": load, "times": times, "donated": donated})
    return rows


# --- one training step: the library's model against the obvious hand-written LRU ---------------


def plain_model(N: int, D: int, key: jax.Array) -> dict[str, jax.Array]:
    """Parameters of the obvious LRU + readout written by hand (for :func:`time_train_step`):
    ``N`` states, an MLP of ``D`` hidden units (``0``: a linear readout)."""
    k = jax.random.split(key, 6)
    fan_in = 2 * N
    p = {
        "nu": jnp.full((N,), -6.0),
        "theta": jax.random.uniform(k[0], (N,)),
        "B_re": jax.random.normal(k[1], (N, 2)) / 2,
        "B_im": jax.random.normal(k[2], (N, 2)) / 2,
    }
    if D:
        p["W1"] = jax.random.normal(k[3], (fan_in, D)) / np.sqrt(fan_in)
        p["b1"] = jnp.zeros(D)
        fan_in = D
    p["W2"] = jax.random.normal(k[4], (fan_in, 1)) / np.sqrt(fan_in)
    p["b2"] = jnp.zeros(1)
    return p


def plain_forward(p: dict[str, jax.Array], v: jax.Array) -> jax.Array:
    """``x_k = lambda x_{k-1} + gamma B [v_k, 1]`` by ``lax.scan`` over time, then the readout."""
    lam = jnp.exp(-jnp.exp(p["nu"]) + 1j * jnp.exp(p["theta"]))
    gamma = jnp.sqrt(1 - jnp.abs(lam) ** 2)
    Bu = jnp.einsum("blm,nm->bln", with_constant(v), p["B_re"] + 1j * p["B_im"]) * gamma
    xs = _plain_scan(lam, Bu)  # (batch, L, N)
    h = jnp.concatenate([xs.real, xs.imag], axis=-1)
    if "W1" in p:
        h = jax.nn.relu(h @ p["W1"] + p["b1"])
    return (h @ p["W2"] + p["b2"])[..., 0]


def time_train_step(config: ModelConfig, batch_size: int, L: int, *, repeats: int = 5,
                    seed: int = 0) -> tuple[float, float]:  # fmt: skip
    """Median seconds of one jitted Adam step of ``config`` on a ``(batch_size, L)`` batch: the
    library's (``LRUModel``, :func:`lrnn_core.core.scan.linear_scan` ``auto``) and a plain
    ``lax.scan`` LRU with the same readout written the obvious way. Returns ``(ours, plain)``."""
    batch_size, L = positive_int("batch_size", batch_size), positive_int("L", L)
    repeats = positive_int("repeats", repeats)
    rng = np.random.default_rng(seed)
    v = jnp.asarray(rng.standard_normal((batch_size, L)), jnp.float32)
    y = jnp.asarray(rng.standard_normal((batch_size, L)), jnp.float32)
    tx = optax.adam(1e-3)

    def stepper(loss):
        @jax.jit
        def step(p, s):
            g = jax.grad(loss)(p, v, y)
            updates, s = tx.update(g, s, p)
            return optax.apply_updates(p, updates), s

        return step

    graphdef, params, rest = nnx.split(make_model(config, nnx.Rngs(seed)), nnx.Param, ...)
    ours = stepper(partial(model_mse, graphdef, rest))
    plain_p = plain_model(config.N, config.D, jax.random.key(seed))
    plain = stepper(lambda p, v, y: jnp.mean((plain_forward(p, v) - y) ** 2))
    t_ours, _ = time_call(ours, (params, tx.init(params)), repeats)
    t_plain, _ = time_call(plain, (plain_p, tx.init(plain_p)), repeats)
    return t_ours, t_plain
