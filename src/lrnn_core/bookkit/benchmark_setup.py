"""What every benchmark of :mod:`lrnn_core.bookkit` shares: the default shapes and repeats per
``LRNN_SCALE`` (:func:`resolve`, the one place they are filled in), the inputs, the NumPy loop over
time (the reference), the streaming floor, the accuracy check and the device."""

from __future__ import annotations

import os
from collections.abc import Sequence

import jax
import numpy as np

from lrnn_core.bookkit.scale import by_scale
from lrnn_core.core.scan import auto_method
from lrnn_core.core.validate import check_choice, positive_int

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


def default_shapes() -> list[Shape]:
    """``(B, L, N)`` sizes for the current ``LRNN_SCALE``: at ``book``, a long sequence, the MNIST
    chapters' shape (64, 784, 512) and a wide short one; at ``ci``, smaller shapes of the same
    kinds."""
    return by_scale(
        ci=[(8, 1024, 64), (16, 196, 128), (1, 8192, 16)],
        book=[(8, 4096, 256), (64, 784, 512), (1, 65536, 64), (256, 256, 128)],
        paper=[(8, 4096, 256), (64, 784, 512), (1, 65536, 64), (64, 4096, 512), (16, 16384, 1024)],
    )


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


def resolve(
    shapes: Sequence[Sequence[int]] | None, repeats: int | None, dtype: str
) -> tuple[list[Shape], int, str]:
    """``shapes`` (default :func:`default_shapes`) as checked ``(B, L, N)`` triples, ``repeats``
    (default :func:`default_repeats`) and ``dtype`` (one of :data:`RTOL`), checked."""
    shapes = default_shapes() if shapes is None else [_check_shape_triple(s) for s in shapes]
    repeats = default_repeats() if repeats is None else positive_int("repeats", repeats)
    return shapes, repeats, check_choice("dtype", dtype, tuple(RTOL))


def _check_shape_triple(shape: Sequence[int]) -> Shape:
    """``shape`` as a ``(B, L, N)`` tuple of positive ints."""
    b, length, n = shape
    return (
        positive_int("shapes batch", b),
        positive_int("shapes L", length),
        positive_int("shapes N", n),
    )


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


def stream(u: jax.Array, c: jax.Array) -> jax.Array:
    """Reads ``u`` and writes an array of the same size: the memory-bandwidth floor."""
    return u * c


def relative_error(out: np.ndarray, ref: np.ndarray) -> float:
    """``max |out - ref| / max |ref|``."""
    scale = max(float(np.max(np.abs(ref), initial=0.0)), 1e-30)
    return float(np.max(np.abs(out - ref), initial=0.0)) / scale


def method_label(name: str) -> str:
    """The row label of ``linear_scan`` method ``name``; ``auto`` names the method it picks."""
    if name == "auto":
        return f"linear_scan(auto -> {auto_method()})"
    return f"linear_scan({name})"


def spread(values: Sequence[float]) -> str:
    """``values`` as their range, ``"min to max"`` with two decimals."""
    return f"{min(values):.2f} to {max(values):.2f}"
