"""The diagonal linear recurrence ``h_k = lam_k * h_{k-1} + u_k``, computed several ways.

With a constant ``lam`` and ``h_0 = 0`` this is eq. (2) of Orvieto et al. (ICML 2024),
"Universality of linear recurrences followed by non-linear projections",
``x_k = Lambda x_{k-1} + B u_k`` with ``Lambda = diag(lam)``, whose unrolled form is their eq. (3):
``x_k = sum_{j=0}^{k-1} Lambda^j B u_{k-j}`` (equivalently ``sum_{j<=k} Lambda^{k-j} B u_j``).
Our ``u_k`` is their already-projected ``B u_k``; every channel is an independent scalar recurrence.

All methods compute the same numbers (up to rounding) and differ only in speed:

* ``"sequential"``: ``lax.scan`` over time, one step per iteration. The reference.
* ``"associative"``: ``lax.associative_scan`` with :func:`combine`; O(log L) depth, O(L log L) work.
* ``"chunked"``: cut time into chunks of ``CHUNK`` steps; all chunks run their short recurrence in
  parallel, and the states entering each chunk come from a recursive scan over the chunk ends.
* ``"inplace"``: a ``fori_loop`` over time that turns ``u`` into ``h`` in place in the
  ``(..., L, N)`` layout (no transposes, no per-step copies, no zero-filled buffer). Fastest
  measured on CPU.
* ``"pallas"``: a Pallas kernel (:mod:`lrnn_core.core.scan_pallas`): Triton-compiled on a GPU,
  interpreted (slow, for testing) elsewhere. Not timed on a GPU yet, so ``"auto"`` never picks it.

Gradients of every method come from one rule (:func:`_scan_jvp`): the tangent of a linear
recurrence is the same recurrence with a different input, and reverse mode transposes it.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import ArrayLike, Complex, Inexact, Num

from lrnn_core.core.scan_pallas import pallas_scan
from lrnn_core.core.validate import (
    as_float64,
    as_inexact,
    check_choice,
    check_finite,
    check_flag,
    check_ndim,
    check_shape,
    positive_int,
)

Array = jax.Array
Pair = tuple[Array, Array]

CHUNK = 4
"""Steps per chunk in ``"chunked"``: each chunk costs ``CHUNK (CHUNK + 1) / 2`` multiply-adds per
``CHUNK`` outputs in one fused pass, and the scan over chunk ends is ``CHUNK`` times shorter."""

BASE_LENGTH = 64
"""``"chunked"`` hands sequences of at most this many steps to ``"sequential"``."""


def combine(x: Pair, y: Pair) -> Pair:
    """Compose the affine maps ``h -> a h + b``: first ``x = (a1, b1)``, then ``y = (a2, b2)``.

    ``y(x(h)) = a2 (a1 h + b1) + b2 = (a1 a2) h + (a2 b1 + b2)``. Composition of functions is
    associative, and this formula is composition written out, so the operator is associative,
    which is all ``lax.associative_scan`` needs (it is not commutative: the order of time matters).
    """
    a1, b1 = x
    a2, b2 = y
    return a1 * a2, a2 * b1 + b2


def unrolled_sum(lam: Complex[ArrayLike, " N"], bu: Complex[ArrayLike, "L N"]) -> np.ndarray:
    """The unrolled recurrence ``x_k = sum_{j=0}^{k-1} lam^j bu_{k-j}`` (1-based ``k``), literally.

    Orvieto et al. (ICML 2024), eq. (3), with ``bu`` their projected inputs ``B u_k``. A reference
    for :func:`linear_scan`: O(L^2 N) work, in NumPy complex128 whatever JAX's precision. Returns
    the states, shape ``(L, N)``.
    """
    lam = as_float64("lam", lam)
    bu = as_float64("bu", bu)
    check_ndim("bu", bu, 2)
    check_shape("lam", lam, (bu.shape[-1],))
    out = np.zeros(bu.shape, np.result_type(lam, bu))
    for k in range(1, bu.shape[0] + 1):
        out[k - 1] = sum(lam**j * bu[k - 1 - j] for j in range(k))
    return out


def associative_depth(L: int) -> int:
    """Rounds of ``lax.associative_scan`` over length ``L``: calls of the (vectorised) operator.

    Counted while JAX traces the scan with :func:`combine`; each call is one round of parallel work
    on whole arrays, so this is the depth of the computation (Blelloch, 1990), about
    ``2 log2(L)``, where a loop needs ``L`` sequential steps.
    """
    L = positive_int("L", L)
    calls = 0

    def counting(x: Pair, y: Pair) -> Pair:
        nonlocal calls
        calls += 1
        return combine(x, y)

    ones = jnp.ones(L)
    jax.make_jaxpr(lambda a, b: jax.lax.associative_scan(counting, (a, b)))(ones, ones)
    return calls


def _sequential(lam: Array, u: Array, h0: Array, reverse: bool) -> Array:
    """Reference: ``lax.scan`` over time (moved to axis 0), one step per iteration."""
    u_t = jnp.moveaxis(u, -2, 0)
    if lam.shape[-2] == 1:  # time-invariant: close over lam instead of scanning over copies
        a = lam[..., 0, :]

        def step(h, b):
            h = a * h + b
            return h, h

        _, h = jax.lax.scan(step, h0, u_t, reverse=reverse)
    else:

        def step(h, xs):
            a, b = xs
            h = a * h + b
            return h, h

        _, h = jax.lax.scan(step, h0, (jnp.moveaxis(lam, -2, 0), u_t), reverse=reverse)
    return jnp.moveaxis(h, 0, -2)


def _associative(lam: Array, u: Array, h0: Array, reverse: bool) -> Array:
    """Parallel prefix scan of the affine maps ``(lam_k, u_k)`` with :func:`combine`."""
    first = -1 if reverse else 0
    u = u.at[..., first, :].add(lam[..., first, :] * h0)  # fold h0 into the first step
    lam = jnp.broadcast_to(lam, lam.shape[:-2] + u.shape[-2:])
    _, h = jax.lax.associative_scan(combine, (lam, u), reverse=reverse, axis=u.ndim - 2)
    return h


def _chunked(
    lam: Array, u: Array, h0: Array, reverse: bool, chunk: int = CHUNK, base: int = BASE_LENGTH
) -> Array:
    """Chunks of ``chunk`` steps in parallel; the states entering the chunks by recursion."""
    length, n = u.shape[-2:]
    if length <= max(base, 1):
        return _sequential(lam, u, h0, reverse)
    varying = lam.shape[-2] != 1
    n_chunks = -(-length // chunk)
    pad = n_chunks * chunk - length
    if pad:  # pad at the end the recurrence reaches last; those outputs are dropped below
        pad_width = [(0, 0)] * (u.ndim - 2) + [(pad, 0) if reverse else (0, pad), (0, 0)]
        u = jnp.pad(u, pad_width)
        lam = jnp.pad(lam, pad_width) if varying else lam
    uc = u.reshape(u.shape[:-2] + (n_chunks, chunk, n))
    lc = lam.reshape(lam.shape[:-2] + ((n_chunks, chunk) if varying else (1, 1)) + (n,))
    steps = range(chunk - 1, -1, -1) if reverse else range(chunk)
    x = lambda t: uc[..., t, :]  # noqa: E731
    a = lambda t: lc[..., t if varying else 0, :]  # noqa: E731
    # 1. each chunk as one affine map h -> a_c h + e_c (what the chunk does to an incoming state)
    e, a_c = jnp.zeros_like(x(0)), jnp.ones_like(a(0))
    for t in steps:
        e, a_c = a(t) * e + x(t), a(t) * a_c
    # 2. the state after each chunk: the same recurrence, `chunk` times shorter
    ends = _chunked(a_c, e, h0, reverse, chunk, base)
    start = jnp.broadcast_to(h0[..., None, :], ends.shape[:-2] + (1, n))
    if reverse:
        h_in = jnp.concatenate([ends[..., 1:, :], start], axis=-2)
    else:
        h_in = jnp.concatenate([start, ends[..., :-1, :]], axis=-2)
    # 3. every chunk from its incoming state (one fused pass over u)
    h, out = h_in, [None] * chunk
    for t in steps:
        h = a(t) * h + x(t)
        out[t] = h
    out = jnp.stack(out, axis=-2).reshape(u.shape)
    if pad:
        out = out[..., pad:, :] if reverse else out[..., :length, :]
    return out


def _inplace(lam: Array, u: Array, h0: Array, reverse: bool) -> Array:
    """``fori_loop`` over time that turns ``u`` into ``h`` in place: ``u_k <- lam_k u_{k-1} + u_k``.

    Step ``k`` reads the finished ``h_{k-1}`` and the still untouched ``u_k`` from one buffer and
    writes ``h_k`` over ``u_k``. XLA fuses each step into one kernel that updates the buffer in
    place; inside a larger program whose ``u`` is an intermediate (``B u`` in a model) the buffer
    is ``u``'s own, and on its own the loop starts from one copy of ``u``. (Starting from zeros
    costs an extra pass; carrying ``h`` separately or moving time to the front for ``lax.scan``
    costs a copy per step or two transposes: all measured slower on CPU.)
    """
    length = u.shape[-2]
    varying = lam.shape[-2] != 1
    index = (lambda i: length - 1 - i) if reverse else (lambda i: i)  # noqa: E731
    step = -1 if reverse else 1
    at = lambda x, k: jax.lax.dynamic_slice_in_dim(x, k, 1, axis=-2)  # noqa: E731
    a = (lambda k: at(lam, k)) if varying else (lambda k: lam)  # noqa: E731

    def body(i, h):
        k = index(i)
        return jax.lax.dynamic_update_slice_in_dim(h, a(k) * at(h, k - step) + at(h, k), k, -2)

    k0 = index(0)
    h = jax.lax.dynamic_update_slice_in_dim(u, a(k0) * h0[..., None, :] + at(u, k0), k0, -2)
    return jax.lax.fori_loop(1, length, body, h)


_IMPL: dict[str, Callable[[Array, Array, Array, bool], Array]] = {
    "sequential": _sequential,
    "associative": _associative,
    "chunked": _chunked,
    "inplace": _inplace,
    "pallas": pallas_scan,
}
METHODS = ("auto", *_IMPL)
_TANGENT_METHOD = {"inplace": "sequential", "pallas": "associative"}


def auto_method(backend: str | None = None) -> str:
    """The method ``method="auto"`` uses on ``backend`` (default: ``jax.default_backend()``)."""
    backend = backend or jax.default_backend()
    if backend == "cpu":
        # Measured with benchmarks/scan.py on a 2-core Xeon, complex64: "inplace" was the fastest
        # method at (8, 4096, 256) (~1.4x the u*c streaming floor; "chunked" ~2.4x, "sequential"
        # ~3x, "associative" ~6x) and at (64, 784, 512) (~1.8x; "chunked" ~2x). Re-measured for
        # one method per shape (2-core EPYC, shared): "inplace" fastest or within noise of the
        # best at every shape from (1, 65536, 64) to (64, 784, 512) ("chunked" tied at the
        # latter; a float32 real/imaginary split of "inplace" was ~1.7x slower), so no switch.
        # Starting the loop from u instead of zeros: 1.30 -> 1.14, 1.38 -> 1.19, 1.71 -> 1.29 and
        # 1.28 -> 1.29 times the floor at the four book shapes (2-core EPYC, idle). Unrolling the
        # loop (copies the buffer), time blocks and a batch-major order were slower or shape-
        # dependent (batch-major: 0.73x at (64, 784, 512), 1.2x at (256, 256, 128)).
        return "inplace"
    # GPU/TPU: UNMEASURED (no accelerator was available). Chosen from the literature: parallel
    # (associative) scans are how S5 (Smith et al., 2023) and the LRU (Orvieto et al., 2023) run
    # linear recurrences on accelerators, where a sequential loop leaves the device idle.
    return "associative"


def linear_scan(
    lam: Num[ArrayLike, "*#batch #L N"] | Num[ArrayLike, "*#batch N"],
    u: Num[ArrayLike, "*batch L N"],
    h0: Num[ArrayLike, "*#batch N"] | None = None,
    *,
    reverse: bool = False,
    method: str = "auto",
) -> Inexact[Array, "*batch L N"]:
    """Return ``h`` with ``h_k = lam_k * h_{k-1} + u_k`` along axis -2 of ``u``: ``(..., L, N)``.

    Orvieto et al. (ICML 2024), eq. (2)-(3), with ``u_k`` standing for their ``B u_k``.

    Args:
      lam: the diagonal of the state matrix. With fewer dims than ``u`` it is time-invariant and
        must broadcast to ``(..., N)``; with as many dims as ``u`` it gives one value per step
        and must broadcast to ``u.shape``. Any value is allowed (no ``|lam| < 1`` check here).
      u: the inputs, shape ``(..., L, N)``.
      h0: the state before the first step, broadcastable to ``(..., N)``; default zeros.
      reverse: run from the end instead, ``h_k = lam_k * h_{k+1} + u_k`` (``h_{L+1} = h0``).
      method: one of :data:`METHODS`; ``"auto"`` picks :func:`auto_method` for the backend.

    Returns ``h`` with the shape of ``u`` and the result dtype of ``lam``, ``u`` and ``h0``.
    Raises ``TypeError`` for non-numeric inputs and ``ValueError`` for bad shapes, non-finite
    (concrete) values, an unknown ``method`` or a non-bool ``reverse``.
    """
    method = check_choice("method", method, METHODS)
    reverse = check_flag("reverse", reverse)
    lam, u, h0 = _prepare(lam, u, h0)
    if method == "auto":
        method = auto_method()
    if u.shape[-2] == 0:
        return u
    options = {"chunk": CHUNK, "base": BASE_LENGTH} if method == "chunked" else {}
    return _run(lam, u, h0, reverse=reverse, method=method, options=tuple(options.items()))


@partial(jax.jit, static_argnames=("reverse", "method", "options"))
def _run(lam: Array, u: Array, h0: Array, *, reverse: bool, method: str, options: tuple) -> Array:
    """One compiled program per method and shape, so that eager calls are fast too."""
    return _scan(lam, u, h0, reverse, method, options)


@partial(jax.custom_jvp, nondiff_argnums=(3, 4, 5))
def _scan(lam: Array, u: Array, h0: Array, reverse: bool, method: str, options: tuple) -> Array:
    return _IMPL[method](lam, u, h0, reverse, **dict(options))


@_scan.defjvp
def _scan_jvp(reverse: bool, method: str, options: tuple, primals: tuple, tangents: tuple):
    """The tangent of a linear recurrence is the same recurrence driven by ``du + dlam * h_prev``.

    Differentiating ``h_k = lam_k h_{k-1} + u_k`` gives ``dh_k = lam_k dh_{k-1} + (du_k + dlam_k
    h_{k-1})`` with ``dh`` starting from ``dh0``. Reverse mode transposes this linear scan, which
    is again a scan (run the other way). ``"inplace"`` computes the tangent with ``"sequential"``,
    whose transpose JAX builds efficiently (the in-place loop's own transpose copies its buffer);
    ``"pallas"`` with ``"associative"``, the transposable method meant for the same devices (a
    ``pallas_call`` has no transpose rule).
    """
    lam, u, h0 = primals
    dlam, du, dh0 = tangents
    h = _scan(lam, u, h0, reverse, method, options)
    before = h0[..., None, :]
    if reverse:
        h_prev = jnp.concatenate([h[..., 1:, :], before], axis=-2)
    else:
        h_prev = jnp.concatenate([before, h[..., :-1, :]], axis=-2)
    tangent_method = _TANGENT_METHOD.get(method, method)
    dh = _IMPL[tangent_method](lam, du + dlam * h_prev, dh0, reverse, **dict(options))
    return h, dh


def _prepare(lam: ArrayLike, u: ArrayLike, h0: ArrayLike | None) -> tuple[Array, Array, Array]:
    """Check the inputs and bring them to one dtype.

    Returns ``lam`` with ``u.ndim`` dims and time axis of length 1 (time-invariant) or ``L``,
    ``u``, and ``h0`` of the full state shape ``u.shape[:-2] + (N,)``.
    """
    u = as_inexact("u", u)
    lam = as_inexact("lam", lam)
    h0 = None if h0 is None else as_inexact("h0", h0)
    check_ndim("u", u, 2)
    state = u.shape[:-2] + u.shape[-1:]
    varying = lam.ndim >= u.ndim
    want = u.shape if varying else state
    if not _broadcasts_to(lam.shape, want):
        what = "u.shape" if varying else "the state shape (..., N) of u"
        raise ValueError(
            f"lam of shape {lam.shape} does not broadcast to {what} {want} "
            f"(u has shape {u.shape}); "
            "lam with fewer dims than u is per channel, with as many dims it is per time step"
        )
    if h0 is not None and not _broadcasts_to(h0.shape, state):
        raise ValueError(
            f"h0 of shape {h0.shape} does not broadcast to the state shape {state} "
            f"(u has shape {u.shape})"
        )
    for name, x in (("lam", lam), ("u", u), ("h0", h0)):
        if x is not None:
            check_finite(name, x)
    dtype = jnp.result_type(lam, u, *(() if h0 is None else (h0,)))
    lam = lam.astype(dtype)
    if not varying:
        lam = jnp.atleast_1d(lam)[..., None, :]
    lam = lam.reshape((1,) * (u.ndim - lam.ndim) + lam.shape)
    h0 = jnp.zeros(state, dtype) if h0 is None else jnp.broadcast_to(h0.astype(dtype), state)
    return lam, u.astype(dtype), h0


def _broadcasts_to(shape: tuple[int, ...], target: tuple[int, ...]) -> bool:
    """Whether an array of ``shape`` broadcasts to exactly ``target``."""
    if len(shape) > len(target):
        return False
    return all(s in (1, t) for s, t in zip(shape[::-1], target[::-1], strict=False))
