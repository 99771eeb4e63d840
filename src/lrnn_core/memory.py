"""Memory-function probes of causal sequence maps (Wang, Li & Li, ICLR 2024, Def. 3.1, Apps. F-H).

The text version of the paper lost the formulas; this is the reconstruction used throughout the book,
from the verbal definitions and the authors' code (github radarFudan/Curse-of-memory,
``src/memoryfunction.py``: feed a constant input and take ``|y_{k+1} - y_k|``):

* Heaviside memory (Def. 3.1, eqs. 6-7): for ``u^x_t = x 1[t >= 0]``,
  ``M(t) = sup_x |d/dt H_t(u^x)| / |x|``. For a linear functional ``H_t(u^x) = x int_0^t rho`` so
  ``M = |rho|`` (eq. 6).
* Impulse memory (App. F, eqs. 121-122): the output itself under an impulse at ``t = 0``, divided by
  its size; ``|rho|`` again for linear functionals.
* Reversed memory (App. G, eqs. 128-129): the time derivative of the output under ``u^x_t = x 1[t < 0]``
  (the input is switched *off* at ``t = 0``); ``|rho|`` for linear functionals.

Discretisation on ``t_k = k dt`` (``k = 0..T-1``). ``model`` maps a real input sequence of shape
``(T,)`` to the output sequence, shape ``(T,)`` or ``(T, 1)``, causally (``y_k`` depends on
``u_0..u_k``). To remove the free response of a model with biases started at rest from ``h = 0``
(which the paper avoids by starting at ``t = -inf``), every probe subtracts the output under the zero
input, ``z = y(u^x) - y(0)``. Then, with ``z_{-1} = 0``:

* Heaviside: ``u_k = x``;                         ``m_k = |z_k - z_{k-1}| / (|x| dt)``.
* impulse:   ``u_0 = x``, ``u_k = 0`` after;       ``m_k = |z_k| / (|x| dt)`` (an impulse of area ``x dt``).
* reversed:  ``u = x`` for ``warmup`` steps, then 0; ``m_k = |z_{W+k} - z_{W+k-1}| / (|x| dt)``.

For the rectangle-rule functional ``y_k = dt sum_j rho_j u_{k-j}`` (:func:`lrnn_core.targets.linear_functional`)
the Heaviside and impulse probes return ``|rho_k|`` exactly and the reversed probe
``|rho_k - rho_{k+W}|``; for a discretised continuous-time model they approach ``|rho(t_k)|`` as
``dt -> 0``. ``x`` may be a list of amplitudes: the probe returns the maximum over them (the sup of
Def. 3.1 over a finite set).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from lrnn_core.validate import check_finite, positive_int

__all__ = [
    "DecayFit",
    "decay_rate",
    "fit_decay",
    "heaviside_memory",
    "impulse_memory",
    "reversed_memory",
    "tail_ratio",
]

Model = Callable[[jax.Array], Any]



def _amplitudes(x: float | Sequence[float]) -> np.ndarray:
    amps = np.atleast_1d(np.asarray(x, dtype=float))
    if amps.ndim != 1 or amps.size == 0:
        raise ValueError(f"x must be a nonzero number or a 1-D list of them, got {x!r}")
    if not np.all(np.isfinite(amps)) or np.any(amps == 0):
        raise ValueError(f"x must hold finite nonzero amplitudes, got {x!r}")
    return amps


def _step(dt: Any) -> float:
    if isinstance(dt, bool) or not np.isscalar(dt) or not np.isreal(dt):
        raise TypeError(f"dt must be a real number, got {dt!r}")
    if not (np.isfinite(dt) and dt > 0):
        raise ValueError(f"dt must be a positive finite number, got {dt!r}")
    return float(dt)


def _run(model: Model, u: np.ndarray) -> np.ndarray:
    """``model(u)`` as a float NumPy array of shape ``(len(u),)``, with a clear error otherwise."""
    if not callable(model):
        raise TypeError(
            f"model must be callable (input (T,) -> output (T,)), got {type(model).__name__}"
        )
    y = np.asarray(model(jnp.asarray(u, jnp.result_type(float))))
    if y.shape == u.shape + (1,):
        y = y[..., 0]
    if y.shape != u.shape:
        raise ValueError(
            f"model must map an input of shape {u.shape} to ({len(u)},) or ({len(u)}, 1), got {y.shape}"
        )
    if np.iscomplexobj(y):
        raise TypeError(f"model must return a real output, got dtype {y.dtype}")
    check_finite("model output", y)
    return y


def _response(model: Model, pattern: np.ndarray, amp: float) -> np.ndarray:
    """``y(amp * pattern) - y(0)``: the part of the output caused by the input."""
    return _run(model, amp * pattern) - _run(model, np.zeros_like(pattern))


def _probe(
    model: Model,
    pattern: np.ndarray,
    amps: np.ndarray,
    dt: float,
    read: Callable[[np.ndarray], np.ndarray],
) -> np.ndarray:
    """Max over amplitudes of ``read(z) / (|x| dt)``."""
    return np.max([read(_response(model, pattern, a)) / (abs(a) * dt) for a in amps], axis=0)


def heaviside_memory(
    model: Model, T: int, *, x: float | Sequence[float] = 1.0, dt: float = 1.0
) -> np.ndarray:
    """Memory function ``m_k = |z_k - z_{k-1}| / (|x| dt)`` under ``u = x 1[k >= 0]`` (WLL Def. 3.1).

    ``z = y(u) - y(0)``, ``z_{-1} = 0``; maximum over the amplitudes ``x``. Returns shape ``(T,)``.
    """
    T, dt, amps = positive_int("T", T), _step(dt), _amplitudes(x)
    return _probe(model, np.ones(T), amps, dt, lambda z: np.abs(np.diff(z, prepend=0.0)))


def impulse_memory(
    model: Model, T: int, *, x: float | Sequence[float] = 1.0, dt: float = 1.0
) -> np.ndarray:
    """Memory function ``m_k = |z_k| / (|x| dt)`` under an impulse ``u_0 = x`` (WLL App. F).

    The impulse has height ``x`` for one step (area ``x dt``); ``z = y(u) - y(0)``. Returns ``(T,)``.
    """
    T, dt, amps = positive_int("T", T), _step(dt), _amplitudes(x)
    pattern = np.zeros(T)
    pattern[0] = 1.0
    return _probe(model, pattern, amps, dt, np.abs)


def reversed_memory(
    model: Model,
    T: int,
    *,
    x: float | Sequence[float] = 1.0,
    dt: float = 1.0,
    warmup: int | None = None,
) -> np.ndarray:
    """Memory function under the reversed input ``u = x`` for ``warmup`` steps, then 0 (WLL App. G).

    ``m_k = |z_{W+k} - z_{W+k-1}| / (|x| dt)`` for ``k = 0..T-1`` with ``W = warmup`` (default ``T``)
    standing in for the infinite past; for a linear functional ``m_k = |rho_k - rho_{k+W}|``.
    """
    T, dt, amps = positive_int("T", T), _step(dt), _amplitudes(x)
    W = T if warmup is None else positive_int("warmup", warmup)
    pattern = np.concatenate([np.ones(W), np.zeros(T)])
    return _probe(model, pattern, amps, dt, lambda z: np.abs(np.diff(z))[W - 1 :])


class DecayFit(NamedTuple):
    """Least-squares fit ``log m(t) ~ log_amplitude - rate t`` on the tail; ``r2``: its R^2 (1 = log-linear)."""

    rate: float
    log_amplitude: float
    r2: float


def _tail_mask(t: np.ndarray, tail: float | tuple[float, float]) -> np.ndarray:
    bad = f"tail must be a fraction in (0, 1] or a window (t_start, t_stop), got {tail!r}"
    if isinstance(tail, tuple):
        start, stop = (float(v) for v in tail)
        if not start < stop:
            raise ValueError(bad)
        return (t >= start) & (t <= stop)
    if not 0 < tail <= 1:
        raise ValueError(bad)
    return np.arange(t.size) >= int(np.floor((1 - tail) * t.size))


def fit_decay(
    memory: Any, t: Any, *, tail: float | tuple[float, float] = 0.5, floor: float | None = None
) -> DecayFit:
    """Fit an exponential tail ``m(t) ~ A e^{-rate t}`` to ``memory`` (a log-linear least-squares fit).

    ``tail``: the last fraction of the points, or a window ``(t_start, t_stop)``. Points at or below
    ``floor`` (default: ``1e3 * eps * max(memory)``, the round-off level of a difference of outputs)
    are left out. ``rate > 0`` means decay (Def. 3.2: exponentially decaying memory, ``m <= c e^{-rate t}``).
    """
    m = np.asarray(memory, dtype=float)
    t = np.asarray(t, dtype=float)
    if m.ndim != 1 or t.shape != m.shape:
        raise ValueError(
            f"memory and t must be 1-D of the same length, got shapes {m.shape} and {t.shape}"
        )
    check_finite("memory", m)
    check_finite("t", t)
    if np.any(m < 0):
        raise ValueError("memory must be non-negative (a memory function is an absolute value)")
    if floor is None:
        given = np.asarray(memory).dtype
        floor = 1e3 * np.finfo(given if given.kind == "f" else float).eps * m.max()
    keep = _tail_mask(t, tail) & (m > floor)
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


def decay_rate(
    memory: Any, t: Any, *, tail: float | tuple[float, float] = 0.5, floor: float | None = None
) -> float:
    """The fitted exponent ``rate`` of ``memory ~ A e^{-rate t}`` on the tail (see :func:`fit_decay`)."""
    return fit_decay(memory, t, tail=tail, floor=floor).rate


def tail_ratio(memory: Any, *, tail: float = 0.1) -> float:
    """``max(memory over the last `tail` fraction) / max(memory)``: near 0 for decayed memory, O(1) if not."""
    m = np.asarray(memory, dtype=float)
    if m.ndim != 1 or m.size == 0:
        raise ValueError(f"memory must be a non-empty 1-D array, got shape {m.shape}")
    check_finite("memory", m)
    if not 0 < tail <= 1:
        raise ValueError(f"tail must be a fraction in (0, 1], got {tail!r}")
    peak = m.max()
    if peak <= 0:
        raise ValueError("memory is identically zero: the model does not respond to the input")
    start = min(int(np.floor((1 - tail) * m.size)), m.size - 1)
    return float(m[start:].max() / peak)
