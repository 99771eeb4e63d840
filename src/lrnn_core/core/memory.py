"""Memory-function probes of causal sequence maps (Wang, Li & Li, ICLR 2024, Def. 3.1, Apps. F-H).

Why in ``core``: the probes know no paper's model, only a causal map from an input sequence to an
output sequence, and more than one part of the book uses them (the Wang-Li-Li part and the later
Wang & Xue part); paper packages must not import each other, so the shared probes live here.

The text version of the paper lost the formulas; this is the reconstruction used throughout the
book, from the verbal definitions and the authors' code (github radarFudan/Curse-of-memory,
``src/memoryfunction.py``: feed a constant input and take ``|y_{k+1} - y_k|``):

* Heaviside memory (Def. 3.1, eqs. 6-7): for ``u^a_t = a 1[t >= 0]``,
  ``M(t) = sup_a |d/dt H_t(u^a)| / |a|``. For a linear functional ``H_t(u^a) = a int_0^t rho`` so
  ``M = |rho|`` (eq. 6). (The paper writes ``x`` for the amplitude ``a``.)
* Impulse memory (App. F, eqs. 121-122): the output itself under an impulse at ``t = 0``, divided
  by its size; ``|rho|`` again for linear functionals.
* Reversed memory (App. G, eqs. 128-129): the time derivative of the output under
  ``u^a_t = a 1[t < 0]`` (the input is switched *off* at ``t = 0``); ``|rho|`` for linear
  functionals.

Discretisation on ``t_k = k dt`` (``k = 0..L-1``). ``model`` maps a real input sequence of shape
``(L,)`` to the output sequence, shape ``(L,)`` or ``(L, 1)``, causally (``y_k`` depends on
``u_0..u_k``). To remove the free response of a model with biases started at rest from ``x = 0``
(which the paper avoids by starting at ``t = -inf``), every probe subtracts the output under the
zero input, ``z = y(u^a) - y(0)``. Then, with ``z_{-1} = 0``:

* Heaviside: ``u_k = a``;                       ``m_k = |z_k - z_{k-1}| / (|a| dt)``.
* impulse:   ``u_0 = a``, ``u_k = 0`` after;     ``m_k = |z_k| / (|a| dt)`` (area ``a dt``).
* reversed:  ``u = a`` for ``warmup`` steps, then 0; ``m_k = |z_{W+k} - z_{W+k-1}| / (|a| dt)``.

For the rectangle-rule functional ``y_k = dt sum_j rho_j u_{k-j}``
(:func:`lrnn_core.core.targets.linear_functional`) the Heaviside and impulse probes return
``|rho_k|`` exactly and the reversed probe ``|rho_k - rho_{k+W}|``; for a discretised
continuous-time model they approach ``|rho(t_k)|`` as ``dt -> 0``. ``amplitude`` may be a list of
amplitudes: the probe returns the maximum over them (the sup of Def. 3.1 over a finite set).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike, Float

from lrnn_core.core.validate import (
    as_float64,
    check_finite,
    check_flag,
    check_not_empty,
    check_shape,
    check_type,
    positive_int,
    positive_number,
    real_number,
)

#: A causal sequence model ``(L,) -> (L,)`` (or ``(L, 1)``) probed by the memory functions.
Model = Callable[[Float[Array, " L"]], ArrayLike]


def _tail_fraction(tail: object) -> float:
    tail = real_number("tail", tail, high=1.0)
    if not tail > 0:
        raise ValueError(f"tail must be a fraction in (0, 1], got {tail!r}")
    return tail


def amplitudes(amplitude: float | Sequence[float]) -> np.ndarray:
    """The probe amplitudes ``a`` of Def. 3.1 as a non-empty 1-D float64 array of finite nonzero
    numbers (one number or a list); ValueError/TypeError naming ``amplitude`` otherwise."""
    amps = np.atleast_1d(as_float64("amplitude", amplitude))
    check_shape("amplitude", amps, (None,))
    check_not_empty("amplitude", amps)
    check_finite("amplitude", amps)
    if np.any(amps == 0):
        raise ValueError(f"amplitude must hold nonzero amplitudes, got {amplitude!r}")
    return amps


def _run(model: Model, u: np.ndarray) -> np.ndarray:
    """``model(u)`` as a float NumPy array of shape ``(len(u),)``, with a clear error otherwise."""
    check_type("model", model, callable, what="callable (input (L,) -> output (L,))")
    y = np.asarray(model(jnp.asarray(u, jnp.result_type(float))))
    if y.shape == u.shape + (1,):
        y = y[..., 0]
    if y.shape != u.shape:
        raise ValueError(
            f"model must map an input of shape {u.shape} to ({len(u)},) or ({len(u)}, 1), "
            f"got {y.shape}"
        )
    if np.iscomplexobj(y):
        raise TypeError(f"model must return a real output, got dtype {y.dtype}")
    check_finite("model output", y)
    return y


def _response(model: Model, pattern: np.ndarray, amp: float, subtract: bool = True) -> np.ndarray:
    """``y(amp * pattern) - y(0)``: the part of the output caused by the input (``y(amp *
    pattern)`` itself when ``subtract`` is false)."""
    y = _run(model, amp * pattern)
    return y - _run(model, np.zeros_like(pattern)) if subtract else y


def _probe(
    model: Model,
    pattern: np.ndarray,
    amps: np.ndarray,
    dt: float,
    read: Callable[[np.ndarray], np.ndarray],
    subtract: bool = True,
) -> np.ndarray:
    """Max over amplitudes of ``read(z) / (|a| dt)``."""
    return np.max(
        [read(_response(model, pattern, a, subtract)) / (abs(a) * dt) for a in amps], axis=0
    )


def heaviside_memory(
    model: Model,
    L: int,
    *,
    amplitude: float | Sequence[float] = 1.0,
    dt: float = 1.0,
    subtract_zero_input: bool = True,
) -> np.ndarray:
    """Memory function ``m_k = |z_k - z_{k-1}| / (|a| dt)`` under ``u = a 1[k >= 0]`` (WLL Def. 3.1,
    eqs. 6-7).

    ``z = y(u) - y(0)``, ``z_{-1} = 0``; maximum over the amplitudes ``a``. Returns shape ``(L,)``.
    ``subtract_zero_input=False`` takes ``z = y(u)`` as the authors' code does
    (``src/memoryfunction.py``); then ``m_0 = |y_0| / (|a| dt)``.
    """
    L, dt, amps = positive_int("L", L), positive_number("dt", dt), amplitudes(amplitude)
    subtract = check_flag("subtract_zero_input", subtract_zero_input)
    return _probe(model, np.ones(L), amps, dt, lambda z: np.abs(np.diff(z, prepend=0.0)), subtract)


def impulse_memory(
    model: Model, L: int, *, amplitude: float | Sequence[float] = 1.0, dt: float = 1.0
) -> np.ndarray:
    """Memory function ``m_k = |z_k| / (|a| dt)`` under an impulse ``u_0 = a`` (WLL App. F,
    eqs. 121-122).

    The impulse has height ``a`` for one step (area ``a dt``); ``z = y(u) - y(0)``. Returns
    ``(L,)``.
    """
    L, dt, amps = positive_int("L", L), positive_number("dt", dt), amplitudes(amplitude)
    pattern = np.zeros(L)
    pattern[0] = 1.0
    return _probe(model, pattern, amps, dt, np.abs)


def reversed_memory(
    model: Model,
    L: int,
    *,
    amplitude: float | Sequence[float] = 1.0,
    dt: float = 1.0,
    warmup: int | None = None,
) -> np.ndarray:
    """Memory function under the reversed input ``u = a`` for ``warmup`` steps, then 0 (WLL
    App. G, eqs. 128-129).

    ``m_k = |z_{W+k} - z_{W+k-1}| / (|a| dt)`` for ``k = 0..L-1`` with ``W = warmup`` (default
    ``L``) standing in for the infinite past; for a linear functional ``m_k = |rho_k - rho_{k+W}|``.
    """
    L, dt, amps = positive_int("L", L), positive_number("dt", dt), amplitudes(amplitude)
    W = L if warmup is None else positive_int("warmup", warmup)
    pattern = np.concatenate([np.ones(W), np.zeros(L)])
    return _probe(model, pattern, amps, dt, lambda z: np.abs(np.diff(z))[W - 1 :])


class DecayFit(NamedTuple):
    """Least-squares fit ``log m(t) ~ log_amplitude - rate t`` on the tail; ``r2``: its R^2
    (1 = log-linear)."""

    rate: float
    log_amplitude: float
    r2: float


def tail_window(t: np.ndarray, tail: float | tuple[float, float]) -> np.ndarray:
    """The points of ``t`` in the tail: the last fraction ``tail`` in (0, 1] of them, or the window
    ``tail = (t_start, t_stop)``; ValueError/TypeError naming ``tail`` otherwise."""
    if isinstance(tail, tuple):
        check_shape("tail", np.asarray(tail), (2,))
        start, stop = real_number("tail[0]", tail[0]), real_number("tail[1]", tail[1])
        if not start < stop:
            raise ValueError(
                f"tail must be a window (t_start, t_stop) with t_start < t_stop, got {tail!r}"
            )
        return (t >= start) & (t <= stop)
    tail = _tail_fraction(tail)
    return np.arange(t.size) >= int(np.floor((1 - tail) * t.size))


def roundoff_floor(memory: Float[ArrayLike, " L"]) -> float:
    """``1e3 * eps * max(memory)``, with ``eps`` of the memory's float type (float64 otherwise):
    the round-off level of a difference of two outputs, below which a memory is noise."""
    given = np.asarray(memory).dtype
    m = as_float64("memory", memory)
    return float(1e3 * np.finfo(given if given.kind == "f" else float).eps * m.max())


def fit_decay(
    memory: Float[ArrayLike, " L"],
    t: Float[ArrayLike, " L"],
    *,
    tail: float | tuple[float, float] = 0.5,
    floor: float | None = None,
) -> DecayFit:
    """Fit an exponential tail ``m(t) ~ A e^{-rate t}`` to ``memory`` (log-linear least squares;
    WLL Def. 3.2: exponentially decaying memory, ``m <= c e^{-rate t}``).

    ``tail``: the last fraction of the points, or a window ``(t_start, t_stop)``. Points at or below
    ``floor`` (default: ``1e3 * eps * max(memory)``, the round-off level of a difference of
    outputs) are left out. ``rate > 0`` means decay.
    """
    m = as_float64("memory", memory)
    t = as_float64("t", t)
    if m.ndim != 1 or t.shape != m.shape:
        raise ValueError(
            f"memory and t must be 1-D of the same length, got shapes {m.shape} and {t.shape}"
        )
    check_finite("memory", m)
    check_finite("t", t)
    if np.any(m < 0):
        raise ValueError("memory must be non-negative (a memory function is an absolute value)")
    if floor is None:
        floor = roundoff_floor(memory)
    else:
        floor = real_number("floor", floor, low=0.0)
    keep = tail_window(t, tail) & (m > floor)
    if keep.sum() < 3:
        raise ValueError(
            f"only {int(keep.sum())} points of the tail lie above floor={floor:.3g}: "
            "shorten the tail window or lower the floor"
        )
    tk, logm = t[keep], np.log(m[keep])
    slope, intercept = np.polyfit(tk, logm, 1)
    resid = logm - (intercept + slope * tk)
    spread = np.sum((logm - logm.mean()) ** 2)
    r2 = 1.0 - np.sum(resid**2) / spread if spread > 0 else 1.0
    return DecayFit(rate=float(-slope), log_amplitude=float(intercept), r2=float(r2))


def upper_envelope(memory: Float[ArrayLike, " L"]) -> Float[np.ndarray, " L"]:
    """``max_{j >= k} m_j``: a memory read by its peaks, the smallest non-increasing function above
    it (WLL Def. 3.2 and Wang & Xue Thm 3.13 bound the memory by ``c e^{-beta t}``: an
    oscillation or a cancellation dip below that bound is not a faster decay)."""
    m = as_float64("memory", memory)
    check_shape("memory", m, (None,))
    return np.maximum.accumulate(m[::-1])[::-1]


def tail_ratio(memory: Float[ArrayLike, " L"], *, tail: float = 0.1) -> float:
    """``max(memory over the last `tail` fraction) / max(memory)``: near 0 for decayed memory
    (WLL Def. 3.2), O(1) if not."""
    m = as_float64("memory", memory)
    check_shape("memory", m, (None,))
    check_not_empty("memory", m)
    check_finite("memory", m)
    tail = _tail_fraction(tail)
    peak = m.max()
    if peak <= 0:
        raise ValueError("memory is identically zero: the model does not respond to the input")
    start = min(int(np.floor((1 - tail) * m.size)), m.size - 1)
    return float(m[start:].max() / peak)
