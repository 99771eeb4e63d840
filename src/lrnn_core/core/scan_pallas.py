"""The diagonal recurrence ``h_k = lam_k * h_{k-1} + u_k`` as a Pallas kernel (GPU path).

The same recurrence as :func:`lrnn_core.core.scan.linear_scan` (Orvieto et al., ICML 2024, eq. 2),
written for a GPU: one program per (batch row, block of ``block`` channels) keeps its states in
registers and walks over time, so ``u`` is read once and ``h`` written once (the bandwidth floor),
with ``B * N / block`` programs running side by side. Complex inputs are split into real and
imaginary float planes (Triton has no complex type); the complex product is written out,
``(a_r + i a_i)(h_r + i h_i) = (a_r h_r - a_i h_i) + i (a_r h_i + a_i h_r)``.

On a GPU ``pallas_call`` compiles it with the Triton backend; elsewhere it runs in Pallas'
interpret mode (same semantics, slow), which is how the tests check it on a CPU. Use it through
``linear_scan(..., method="pallas")``, which adds input checks, broadcasting and gradients.
"""

from __future__ import annotations

from functools import partial

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

Array = jax.Array

BLOCK = 128
"""Channels per program (a power of two, as Triton needs); fewer when ``N`` is smaller."""


def pallas_scan(
    lam: Array,
    u: Array,
    h0: Array,
    reverse: bool,
    block: int = BLOCK,
    interpret: bool | None = None,
) -> Array:
    """``h`` with ``h_k = lam_k h_{k-1} + u_k`` along axis -2 of ``u`` (``h_{L+1}`` if ``reverse``).

    Takes the arrays :func:`lrnn_core.core.scan.linear_scan` prepares: ``u`` of shape
    ``(..., L, N)``, ``lam`` with ``u.ndim`` dims broadcastable to it (time axis 1 or ``L``),
    ``h0`` of shape ``u.shape[:-2] + (N,)``, one dtype. ``interpret=None`` interprets unless the
    default backend is a GPU.
    """
    if interpret is None:
        interpret = jax.default_backend() != "gpu"
    *batch, length, n = u.shape
    rows = 1
    for b in batch:
        rows *= b
    varying = lam.shape[-2] != 1
    lam = jnp.broadcast_to(lam, (*batch, lam.shape[-2], n)).reshape(rows, -1, n)
    u = u.reshape(rows, length, n)
    h0 = h0.reshape(rows, n)
    block = min(block, pl.next_power_of_2(n))
    pad = -n % block
    if pad:  # padded channels have u = 0, lam = 0, h0 = 0 and are dropped below
        lam, u = (jnp.pad(x, ((0, 0), (0, 0), (0, pad))) for x in (lam, u))
        h0 = jnp.pad(h0, ((0, 0), (0, pad)))
    cplx = jnp.iscomplexobj(u)
    planes = lambda x: (x.real, x.imag) if cplx else (x,)  # noqa: E731
    args = (*planes(lam), *planes(u), *planes(h0))
    seq = lambda steps: pl.BlockSpec((None, steps, block), lambda i, j: (i, 0, j))  # noqa: E731
    state = pl.BlockSpec((None, block), lambda i, j: (i, j))
    in_specs = [seq(lam.shape[1])] * (1 + cplx) + [seq(length)] * (1 + cplx) + [state] * (1 + cplx)
    real = args[-1].dtype
    out = pl.pallas_call(
        partial(_kernel, length=length, varying=varying, reverse=reverse, cplx=cplx),
        out_shape=[jax.ShapeDtypeStruct(u.shape, real)] * (1 + cplx),
        grid=(rows, u.shape[-1] // block),
        in_specs=in_specs,
        out_specs=[seq(length)] * (1 + cplx),
        interpret=interpret,
    )(*args)
    h = jax.lax.complex(*out) if cplx else out[0]
    return h[..., :n].reshape(*batch, length, n)


def _kernel(*refs, length: int, varying: bool, reverse: bool, cplx: bool) -> None:
    """One program: ``block`` channels of one batch row, all ``length`` steps in a loop."""
    k = 1 + cplx
    lam, u, h0, out = refs[:k], refs[k : 2 * k], refs[2 * k : 3 * k], refs[3 * k :]

    def step(i, h):
        t = length - 1 - i if reverse else i
        a = [ref[t if varying else 0, :] for ref in lam]
        x = [ref[t, :] for ref in u]
        if cplx:
            (ar, ai), (hr, hi) = a, h
            h = (ar * hr - ai * hi + x[0], ar * hi + ai * hr + x[1])
        else:
            h = (a[0] * h[0] + x[0],)
        for ref, value in zip(out, h, strict=True):
            ref[t, :] = value
        return h

    jax.lax.fori_loop(0, length, step, tuple(ref[...] for ref in h0))
