"""The sequence models of Wang & Xue's Table 1 besides RNNs, as small random instances whose
memory the probes of :mod:`lrnn_core.core.memory` can measure (the table's "memory pattern" row:
exponential decay / low rank / no restriction; its entries are words, not measurements).

* Dilated causal convolution (TCN, Bai et al. 2018): ``depth`` layers of ``channels`` channels,
  layer ``l`` a causal convolution of ``kernel_size`` taps with dilation ``2^l`` followed by
  ``tanh``, then a linear readout. Its output at ``k`` sees the inputs ``k - R + 1 .. k`` only,
  ``R = 1 + (kernel_size - 1)(2^depth - 1)`` (:func:`receptive_field`): memory exactly zero
  beyond ``R``.
* One-layer causal softmax attention (Vaswani et al. 2017) with no positional encoding: token
  ``x_k = u_k e + e0``, ``y_k = w . sum_{j <= k} softmax_j(q_k . k_j / sqrt(d)) v_j`` with
  ``q = Wq x``, ``k = Wk x``, ``v = Wv x``. Under an impulse ``u_0 = 1`` the zero tokens share one
  score ``s`` and token 0 has ``s0``, so the impulse memory is exactly
  ``|w . (v(1) - v(0))| / (1 + k e^{s - s0})`` (:func:`attention_impulse_memory`): a power law
  ``~ 1/k``, not exponential.

Random weights are normal with variance ``1 / fan_in`` (our choice). NumPy float64.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from jaxtyping import ArrayLike, Float

from lrnn_core.core.validate import as_float64, check_finite, check_shape, positive_int


class TCN(NamedTuple):
    """Weights of a dilated causal convolution stack: ``kernels[l]`` (taps, out, in),
    ``biases[l]`` (out,), readout ``w`` (channels,)."""

    kernels: tuple[np.ndarray, ...]
    biases: tuple[np.ndarray, ...]
    w: np.ndarray


def receptive_field(kernel_size: int, depth: int) -> int:
    """``1 + (kernel_size - 1)(2^depth - 1)``: inputs seen by one output of :class:`TCN`."""
    kernel_size, depth = positive_int("kernel_size", kernel_size), positive_int("depth", depth)
    return 1 + (kernel_size - 1) * (2**depth - 1)


def random_tcn(
    rng: np.random.Generator, *, channels: int = 8, kernel_size: int = 2, depth: int = 4
) -> TCN:
    """A random :class:`TCN` (dilations ``1, 2, ..., 2^(depth-1)``)."""
    named = {"channels": channels, "kernel_size": kernel_size, "depth": depth}
    channels, kernel_size, depth = (positive_int(n, v) for n, v in named.items())
    kernels, biases, M = [], [], 1  # M: the input channels of each layer in turn
    for _ in range(depth):
        scale = 1.0 / np.sqrt(kernel_size * M)
        kernels.append(scale * rng.normal(size=(kernel_size, channels, M)))
        biases.append(0.1 * rng.normal(size=channels))
        M = channels
    return TCN(tuple(kernels), tuple(biases), rng.normal(size=channels) / np.sqrt(channels))


def tcn_outputs(params: TCN, u: Float[ArrayLike, " L"]) -> Float[np.ndarray, " L"]:
    """Output of :class:`TCN` on a scalar input ``u`` (L,): tap ``j`` of layer ``l`` reads the
    input ``j 2^l`` steps back (zero before the start)."""
    u = as_float64("u", u)
    check_shape("u", u, (None,))
    check_finite("u", u)
    z = u[:, None]
    for level, (kernel, bias) in enumerate(zip(params.kernels, params.biases, strict=True)):
        pre = np.broadcast_to(bias, (len(u), len(bias))).copy()
        for j, tap in enumerate(kernel):
            shift = j * 2**level
            if shift < len(u):
                pre[shift:] += z[: len(u) - shift] @ tap.T
        z = np.tanh(pre)
    return z @ params.w


class Attention(NamedTuple):
    """One causal attention head: embedding ``e``, ``e0`` (d,), ``Wq``, ``Wk``, ``Wv`` (d, d),
    readout ``w`` (d,)."""

    e: np.ndarray
    e0: np.ndarray
    Wq: np.ndarray
    Wk: np.ndarray
    Wv: np.ndarray
    w: np.ndarray


def random_attention(rng: np.random.Generator, d: int = 8) -> Attention:
    """A random :class:`Attention` of width ``d``."""
    d = positive_int("d", d)
    mats = [rng.normal(size=(d, d)) / np.sqrt(d) for _ in range(3)]
    return Attention(rng.normal(size=d), rng.normal(size=d), *mats, rng.normal(size=d) / np.sqrt(d))


def _scores(params: Attention, x: np.ndarray) -> np.ndarray:
    q, k = x @ params.Wq.T, x @ params.Wk.T
    return q @ k.T / np.sqrt(len(params.w))


def attention_outputs(params: Attention, u: Float[ArrayLike, " L"]) -> Float[np.ndarray, " L"]:
    """``y_k = w . sum_{j <= k} softmax_j(q_k . k_j / sqrt(d)) v_j`` for scalar ``u`` (L,)."""
    u = as_float64("u", u)
    check_shape("u", u, (None,))
    check_finite("u", u)
    x = np.outer(u, params.e) + params.e0
    s = _scores(params, x)
    s = np.where(np.tril(np.ones_like(s, bool)), s, -np.inf)
    a = np.exp(s - s.max(axis=1, keepdims=True))
    a /= a.sum(axis=1, keepdims=True)
    return a @ (x @ params.Wv.T) @ params.w


def attention_impulse_memory(params: Attention, L: int) -> Float[np.ndarray, " L"]:
    """The exact impulse memory ``|w . (v(1) - v(0))| / (1 + k e^{s - s0})``, ``k = 0..L-1``
    (module docstring)."""
    L = positive_int("L", L)
    x1, x0 = params.e + params.e0, params.e0
    q = params.Wq @ x0
    scale = np.sqrt(len(params.w))
    s0, s = q @ params.Wk @ x1 / scale, q @ params.Wk @ x0 / scale
    gap = abs(params.w @ params.Wv @ (x1 - x0))
    return gap / (1 + np.arange(L) * np.exp(s - s0))
