"""The verdicts every claim row is given: how far a trained model's error lies below its
baselines, whether it beats them by the margin its chapter fixed, and the row's status.

* :func:`times_below`: ``min_b e_b / e``, how many times the error ``e`` lies below the better of
  the baseline errors ``e_b`` (the input-ignoring predictor and the best linear map,
  :mod:`lrnn_core.core.baselines`, on the same test set).
* :func:`beats`: the margin rule of every trained row, ``e * margin <= min_b e_b``.
* :func:`row_status`: ``"reproduced"`` when the checked claim holds and is the paper's full claim,
  ``"weaker"`` when it holds only in a weaker form, ``"not reproduced"`` when it fails.

Orderings over independent draws (a claim that an error or a condition number *falls* along a
grid) are tested on ``D`` independent draws per cell, on ``log10`` of the per-draw values, by
Welch's test: a step from cell ``a`` to cell ``b`` *drops* when

    mean(log10 a) - mean(log10 b) > t_{1 - alpha, nu} * sqrt(s_a^2 / D_a + s_b^2 / D_b)

(``nu`` Welch–Satterthwaite degrees of freedom) and by more than ``atol`` decades; it *rises* under
the mirror condition, and is a *tie* otherwise (:func:`compare`, :func:`step_verdicts`,
:func:`falls`). The false-alarm rate ``alpha`` per comparison is fixed before any run
(:data:`ALPHA`), so the margins come from the spread of the draws and hold for any seed. Values
above a saturation ``cap`` (e.g. ``cond >= 1e30``, beyond what float64 resolves) are set to the
cap first: two saturated cells tie, a saturated cell sits above every resolved one.
:func:`separated` is the rank test at its extreme: every draw of one cell below every draw of
another.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
from jaxtyping import ArrayLike, Float, Int
from scipy import stats

from lrnn_core.core.validate import as_float64, check_finite, check_flag, real_number

__all__ = [
    "ALPHA",
    "beats",
    "compare",
    "falls",
    "row_status",
    "separated",
    "step_verdicts",
    "times_below",
]


def _best(baselines: Mapping[str, float]) -> float:
    """``min_b e_b`` of a non-empty mapping of finite, non-negative baseline errors."""
    if not isinstance(baselines, Mapping) or not baselines:
        raise ValueError(
            f"baselines must be a non-empty mapping of name -> error, got {baselines!r}"
        )
    return min(real_number(f"baselines[{k!r}]", v, low=0.0) for k, v in baselines.items())


def times_below(error: float, baselines: Mapping[str, float]) -> float:
    """``min_b e_b / e``: how many times ``error`` lies below the better baseline (inf at 0)."""
    error = real_number("error", error, low=0.0)
    best = _best(baselines)
    return math.inf if error == 0 else best / error


def beats(error: float, baselines: Mapping[str, float], margin: float) -> bool:
    """The margin rule of a trained row: ``error * margin <= min_b e_b`` (``margin >= 1``)."""
    error = real_number("error", error, low=0.0)
    best = _best(baselines)
    return error * real_number("margin", margin, low=1.0) <= best


def row_status(holds: bool, full: bool) -> str:
    """``"reproduced"`` if ``holds`` and the claim checked is the paper's ``full`` one,
    ``"weaker"`` if it ``holds`` only in a weaker form, else ``"not reproduced"``."""
    holds, full = check_flag("holds", holds), check_flag("full", full)
    if not holds:
        return "not reproduced"
    return "reproduced" if full else "weaker"


#: One-sided false-alarm rate of one comparison of :func:`compare` (fixed before any run).
ALPHA = 1e-3


def _logs(name: str, values: ArrayLike, cap: float) -> np.ndarray:
    x = as_float64(name, values)
    if x.ndim != 1 or x.size < 2:
        raise ValueError(f"{name} must hold at least two draws (a 1-D array), got {x.shape}")
    if np.any(np.isnan(x)) or np.any(x <= 0):
        raise ValueError(f"{name} must hold positive values (errors, condition numbers)")
    return np.log10(np.minimum(x, cap))


def compare(
    a: Float[ArrayLike, " Da"],
    b: Float[ArrayLike, " Db"],
    *,
    alpha: float = ALPHA,
    cap: float = np.inf,
    atol: float = 1e-9,
) -> int:
    """``+1`` if the draws ``a`` lie significantly above ``b`` (a drop from ``a`` to ``b``), ``-1``
    if below (a rise), ``0`` for a tie: Welch's one-sided test on ``log10`` (module docstring),
    with values capped at ``cap`` and differences under ``atol`` decades counted as ties."""
    alpha = real_number("alpha", alpha, low=0.0, high=0.5)
    atol = real_number("atol", atol, low=0.0)
    cap = float(cap)
    la, lb = _logs("a", a, cap), _logs("b", b, cap)
    diff = float(la.mean() - lb.mean())
    va, vb = la.var(ddof=1) / la.size, lb.var(ddof=1) / lb.size
    se = float(np.sqrt(va + vb))
    if se > 0:
        nu = (va + vb) ** 2 / (va**2 / (la.size - 1) + vb**2 / (lb.size - 1))
        margin = float(stats.t.ppf(1 - alpha, nu)) * se
    else:
        margin = 0.0
    margin = max(margin, atol)
    if diff > margin:
        return 1
    if diff < -margin:
        return -1
    return 0


def separated(above: Float[ArrayLike, " Da"], below: Float[ArrayLike, " Db"]) -> bool:
    """Every draw of ``below`` lies under every draw of ``above`` (``max below < min above``).

    For exchangeable draws (no difference) this happens with probability
    ``1 / binom(Da + Db, Da)`` (1/252 for 5 draws each): a rank test at its extreme, which keeps
    its power where the values spread over decades (rounding-level errors), unlike a t-test."""
    a, b = as_float64("above", above).ravel(), as_float64("below", below).ravel()
    if a.size == 0 or b.size == 0:
        raise ValueError("above and below must hold at least one draw each")
    check_finite("above", a)
    check_finite("below", b)
    return bool(b.max() < a.min())


def step_verdicts(
    values: Float[ArrayLike, "K D"], *, alpha: float = ALPHA, cap: float = np.inf
) -> Int[np.ndarray, " K_minus_1"]:
    """:func:`compare` of each cell with the next along axis 0 (``K`` cells of ``D`` draws)."""
    values = as_float64("values", values)
    if values.ndim != 2 or values.shape[0] < 2:
        raise ValueError(f"values must be (cells >= 2, draws), got shape {values.shape}")
    return np.array(
        [compare(values[i], values[i + 1], alpha=alpha, cap=cap) for i in range(len(values) - 1)]
    )


def falls(values: Float[ArrayLike, "K D"], *, alpha: float = ALPHA, cap: float = np.inf) -> bool:
    """A curve over ``K`` cells *falls*: no step rises significantly (:func:`compare`) and the
    last cell lies below the first, significantly (:func:`compare`) or draw by draw
    (:func:`separated`, which keeps its power when the last cell is at rounding level and its
    logarithms spread over decades); values are capped at ``cap`` first."""
    values = as_float64("values", values)
    steps = step_verdicts(values, alpha=alpha, cap=cap)
    capped = np.minimum(values, cap)
    end = compare(values[0], values[-1], alpha=alpha, cap=cap) == 1 or separated(
        capped[0], capped[-1]
    )
    return bool(np.all(steps >= 0) and end)
