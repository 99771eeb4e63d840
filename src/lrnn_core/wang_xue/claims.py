"""The claim checks of the two Wang & Xue chapters, as functions that return False for an object
without the claimed property (NeurIPS 2023; formulas lost in the text version, rebuilt from the
words). Each chapter applies the same function to its models and to a negative control.

* **Thm. 3.13** (memory of stacked SSMs). For a stack of ``D`` layers
  ``h_k = Lam h_{k-1} + B z_k``, ``z'_k = sigma(C h_k + b)`` with ``b = 0``, ``sigma(0) = 0``,
  ``sigma`` Lipschitz with constant ``K_sigma`` and ``|Lam_ii| <= r_l < 1``, read by
  ``y_k = W z^D_k``, the Heaviside increments ``d^l_k = z^l_k - z^l_{k-1}`` (``z_{-1} = 0``) obey
  the induction of Props. 3.11-3.12::

      |d^0_k| = |x| [k = 0],
      ||d^l_k|| <= K_sigma ||C_l|| ||B_l|| sum_{j=0}^{k} r_l^j ||d^{l-1}_{k-j}||,
      m_k = |W d^D_k| / |x| <= ||W|| beta^D_k                  (:func:`stack_memory_bound`)

  (spectral norms). The bound ``beta^D_k`` is at most ``G binom(k + D - 1, D - 1) r^k`` with
  ``G = ||W|| prod_l K_sigma ||C_l|| ||B_l||`` and ``r = max_l r_l``: the theorem's
  ``c e^{-beta k}`` for every ``beta < -ln r``. :func:`within_bound` checks ``m_k <= beta_k`` at
  every ``k`` up to the round-off ``1e3 eps sum_j m_j`` of a difference of outputs.
* **Fig. 5** (exponential decay of a measured memory). A log-linear fit alone is no evidence:
  ``(1 + 0.1 k)^{-1.1}`` (:func:`power_law_memory`) fits ``[250, 500]`` with R^2 0.99.
  :func:`decays_at_rate` asks the memory to decay at least at half the rate theory gives it,
  read by a log-linear fit of its upper envelope ``max_{j >= k} m_j`` (an oscillating memory is
  read by its peaks): for a stack the rate ``-ln r`` of its slowest layer, for a tanh RNN the
  rate ``-ln rho(J)`` of the linearisation ``J = diag(1 - h*^2) W`` at the fixed point ``h*`` of
  the constant input (:func:`tanh_rnn_rate`). A finite window sees transients, the polynomial
  factor of near-degenerate eigenvalues and the envelope's staircase, which slow the apparent
  rate (0.72-1.19 over 24 random RNNs), hence the half; a power law decays on such windows at
  under a tenth of the rate.
* **Fig. 6** (a known rate): :func:`tail_matches_rate`, R^2 of the log-linear tail above 0.999
  and its rate within 2% of the theory's.
* **Table 1**, TCN: :func:`finite_support`, zero beyond the receptive field and not before.
* **App. A**: :func:`matches_closed_form`, sup distance at most a tolerance.
* **Prop. 3.2**: :func:`in_exponential_span`, a kernel matched to ``tol`` by a least-squares sum
  of ``n`` exponentials with fixed rates ``step, 2 step, ..., n step``.

NumPy float64.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

import numpy as np
import scipy.linalg
import scipy.special
from jaxtyping import ArrayLike, Float

from lrnn_core.core.memory import fit_decay, upper_envelope
from lrnn_core.core.stacked import StackedSSM
from lrnn_core.core.validate import (
    as_float64,
    check_finite,
    check_shape,
    positive_int,
    positive_number,
    real_number,
)

__all__ = [
    "LIPSCHITZ",
    "BoundCheck",
    "best_converged",
    "binomial_envelope",
    "decays_at_rate",
    "finite_support",
    "in_exponential_span",
    "matches_closed_form",
    "power_law_memory",
    "stack_memory_bound",
    "tail_matches_rate",
    "tanh_rnn_rate",
    "within_bound",
]

#: Lipschitz constants of the activations of :mod:`lrnn_core.core.stacked`.
LIPSCHITZ = {"tanh": 1.0, "relu": 1.0, "hardtanh": 1.0, "sigmoid": 0.25, "identity": 1.0}
#: :func:`decays_at_rate`: smallest accepted ratio of the fitted to the linearisation's rate.
MIN_RNN_RATIO = 0.5


def _memory(name: str, m: ArrayLike) -> np.ndarray:
    m = as_float64(name, m)
    check_shape(name, m, (None,))
    check_finite(name, m)
    if m.size < 3 or np.any(m < 0):
        raise ValueError(f"{name} must be a non-negative 1-D memory of length >= 3")
    return m


def power_law_memory(
    k: Float[ArrayLike, " L"], *, a: float = 0.1, p: float = 1.1
) -> Float[np.ndarray, " L"]:
    """``(1 + a k)^{-p}``: a memory that decays as a power law, the negative control of every
    exponential-memory check (Wang, Li & Li's slow kernel)."""
    k = as_float64("k", k)
    check_finite("k", k)
    if np.any(k < 0):
        raise ValueError("k must be non-negative steps")
    return (1 + positive_number("a", a) * k) ** -positive_number("p", p)


def stack_memory_bound(model: StackedSSM, L: int) -> Float[np.ndarray, " L"]:
    """The Thm. 3.13 induction bound ``||W|| beta^D_k``, ``k = 0..L-1``, on the Heaviside memory of
    ``model`` (module docstring).

    Needs a stack whose zero input is a rest point: every bias zero and ``sigma(0) = 0`` (tanh,
    relu, hardtanh, identity), no residual connections.
    """
    if not isinstance(model, StackedSSM):
        raise TypeError(f"model must be a StackedSSM, got {type(model).__name__}")
    L = positive_int("L", L)
    beta = np.zeros(L)
    beta[0] = 1.0
    for i, layer in enumerate(model.layers):
        if layer.activation == "sigmoid" or layer.residual:
            raise ValueError(f"layer {i}: the bound needs sigma(0) = 0 and no residual")
        if np.any(np.asarray(layer.b[...]) != 0):
            raise ValueError(f"layer {i}: the bound needs zero biases (the rest point y(0) = 0)")
        gain = LIPSCHITZ[layer.activation] * np.linalg.norm(np.asarray(layer.B[...], float), 2)
        if layer.mixing:
            gain *= np.linalg.norm(np.asarray(layer.C[...], float), 2)
        r = float(np.max(np.asarray(layer.eigenvalues(), float)))
        beta = gain * np.convolve(r ** np.arange(L), beta)[:L]
    if np.any(np.asarray(model.w[...]) != 0):
        raise ValueError("the bound needs a zero readout bias")
    return np.linalg.norm(np.asarray(model.W[...], float), 2) * beta


def binomial_envelope(gain: float, r: float, depth: int, k: ArrayLike) -> np.ndarray:
    """``gain binom(k + D - 1, D - 1) r^k``: the closed-form envelope of :func:`stack_memory_bound`
    (a ``D``-fold convolution of ``r^k``), ``gain`` the product of the norms."""
    r = real_number("r", r, low=0.0, high=1.0)
    depth = positive_int("depth", depth)
    k = as_float64("k", k)
    return positive_number("gain", gain) * scipy.special.comb(k + depth - 1, depth - 1) * r**k


class BoundCheck(NamedTuple):
    """``holds``: the memory is below the bound at every step (up to ``floor``); ``ratio``:
    ``max_k (m_k - floor) / bound_k``."""

    holds: bool
    ratio: float
    floor: float


def within_bound(m: Float[ArrayLike, " L"], bound: Float[ArrayLike, " L"]) -> BoundCheck:
    """Thm. 3.13, "for all": ``m_k <= bound_k + floor`` at every ``k``, with
    ``floor = 1e3 eps sum_j m_j`` (the round-off of a difference of outputs of size at most
    ``sum_j m_j``)."""
    m, bound = _memory("m", m), as_float64("bound", bound)
    check_shape("bound", bound, m.shape)
    if np.any(~(bound > 0)):
        raise ValueError("bound must be positive at every step")
    floor = 1e3 * np.finfo(float).eps * float(m.sum())
    ratio = float(np.max((m - floor) / bound))
    return BoundCheck(holds=ratio <= 1.0, ratio=ratio, floor=floor)


def tanh_rnn_rate(
    W: Float[ArrayLike, "N N"], B: Float[ArrayLike, " N"], b: Float[ArrayLike, " N"], x: float = 1.0
) -> float:
    """``-ln rho(J)``, ``J = diag(1 - h*^2) W``, at the fixed point ``h* = tanh(W h* + B x + b)``
    (found by iteration from 0; ValueError if it does not converge): the asymptotic decay rate per
    step of the Heaviside memory of the RNN ``h_k = tanh(W h_{k-1} + B u_k + b)``."""
    W, B, b = as_float64("W", W), as_float64("B", B), as_float64("b", b)
    check_shape("W", W, (None, None))
    N = W.shape[0]
    check_shape("W", W, (N, N))
    check_shape("B", B, (N,))
    check_shape("b", b, (N,))
    for name, v in (("W", W), ("B", B), ("b", b)):
        check_finite(name, v)
    x = real_number("x", x)
    h = np.zeros(N)
    for _ in range(10_000):
        h, previous = np.tanh(W @ h + B * x + b), h
        if np.max(np.abs(h - previous)) < 1e-15:
            break
    else:
        raise ValueError("the RNN has no attracting fixed point under the constant input")
    radius = float(np.max(np.abs(np.linalg.eigvals((1 - h**2)[:, None] * W))))
    return -np.log(radius)


def decays_at_rate(
    m: Float[ArrayLike, " L"], k: Float[ArrayLike, " L"], window: tuple[float, float], rate: float
) -> tuple[bool, float]:
    """Fig. 5: ``(holds, fitted / rate)``; holds when the log-linear fit of the upper envelope on
    ``window`` decays at least :data:`MIN_RNN_RATIO` times ``rate`` (module docstring)."""
    m, k = _memory("m", m), as_float64("k", k)
    check_shape("k", k, m.shape)
    fitted = fit_decay(upper_envelope(m), k, tail=window).rate / positive_number("rate", rate)
    return bool(fitted >= MIN_RNN_RATIO), float(fitted)


def tail_matches_rate(
    m: Float[ArrayLike, " L"],
    k: Float[ArrayLike, " L"],
    window: tuple[float, float],
    rate: float,
    *,
    min_r2: float = 0.999,
    rtol: float = 0.02,
) -> bool:
    """Fig. 6: the log-linear fit of ``m`` on ``window`` has R^2 above ``min_r2`` and a rate within
    ``rtol`` of ``rate`` (that of the slowest eigenvalue)."""
    m, k = _memory("m", m), as_float64("k", k)
    check_shape("k", k, m.shape)
    fit = fit_decay(m, k, tail=window)
    rate = positive_number("rate", rate)
    return bool(fit.r2 > min_r2 and abs(fit.rate / rate - 1) < positive_number("rtol", rtol))


def finite_support(m: Float[ArrayLike, " L"], R: int) -> bool:
    """Table 1, TCN: ``m_k = 0`` for every ``k >= R`` and ``m_{R-1} > 0`` (support exactly
    ``R`` steps, the receptive field)."""
    m, R = _memory("m", m), positive_int("R", R)
    if R >= m.size:
        raise ValueError(f"R={R} must be shorter than the memory ({m.size} steps)")
    return bool(np.all(m[R:] == 0) and m[R - 1] > 0)


def matches_closed_form(
    m: Float[ArrayLike, " L"], closed: Float[ArrayLike, " L"], tol: float
) -> bool:
    """App. A: ``max_k |m_k - closed_k| <= tol``."""
    m, closed = _memory("m", m), as_float64("closed", closed)
    check_shape("closed", closed, m.shape)
    return bool(np.max(np.abs(m - closed)) <= positive_number("tol", tol))


def in_exponential_span(
    rho: Float[ArrayLike, " T"],
    t: Float[ArrayLike, " T"],
    n: int,
    *,
    step: float = 0.1,
    tol: float = 1e-6,
) -> tuple[bool, float]:
    """Prop. 3.2: ``(error <= tol, error)`` for the relative sup error of the least-squares fit of
    ``rho`` by ``sum_{i=1}^n c_i e^{-i step t}``."""
    rho, t = as_float64("rho", rho), as_float64("t", t)
    check_shape("rho", rho, (None,))
    check_finite("rho", rho)
    check_finite("t", t)
    check_shape("t", t, rho.shape)
    rates = positive_number("step", step) * np.arange(1, positive_int("n", n) + 1)
    basis = np.exp(-np.outer(t, rates))
    c = scipy.linalg.lstsq(basis, rho)[0]
    error = float(np.max(np.abs(basis @ c - rho)) / np.max(np.abs(rho)))
    return error <= positive_number("tol", tol), error


def best_converged(
    errors: Mapping[int, float], converged: Mapping[int, bool]
) -> tuple[float, bool]:
    """The error a row of fits is judged on (Fig. 2): the smallest test error among the fits
    whose solver converged, and True; when none converged, the widest fit's error and False (an
    unconverged fit certifies nothing). Both mappings are keyed by the width."""
    if not errors or set(errors) != set(converged):
        raise ValueError(
            f"errors and converged must name the same widths, got {sorted(errors)} and "
            f"{sorted(converged)}"
        )
    certified = [real_number(f"errors[{w}]", e, low=0.0) for w, e in errors.items() if converged[w]]
    if not certified:
        return real_number("errors", errors[max(errors)], low=0.0), False
    return min(certified), True
