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
another. The negative control of an ordering is the same grid with its draws pooled along the
ordered axis and dealt back at random (:func:`dealt`): the values and their spread are the grid's
own, nothing depends on the cell, and whether the rule accepts it is a matter of chance (at most
``1 / binom(2D, D)`` by the draw-by-draw route, plus ``alpha``), not known before it runs.

Paired runs (the same seeds, initialisations and batches for a candidate and a reference) are
compared on their per-seed differences ``d_s`` (signed so that ``d > 0`` means "candidate
better"), by :func:`paired_difference`: with ``n`` seeds, ``se = std(d, ddof=1) / sqrt(n)`` and
``t* = t_{1 - alpha / n_tests, n - 1}`` (one-sided, Bonferroni over ``n_tests`` comparisons), the
one-sided confidence bounds ``dbar -+ t* se`` and the gap the test detects with probability
``power``, ``(t* + t_{power, n - 1}) se`` (the usual normal-shift approximation of the
non-central t, at the measured ``se``). That last number is the test's power written as a
distance, to be set beside the effect the paper reports.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import NamedTuple

import numpy as np
from jaxtyping import ArrayLike, Float, Int
from scipy import stats

from lrnn_core.core.validate import (
    as_float64,
    check_finite,
    check_flag,
    check_shape,
    nonnegative_int,
    positive_int,
    real_number,
)


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


def dealt(
    values: Float[ArrayLike, "... cells D"], seed: int, *, axis: int = -2
) -> Float[np.ndarray, "... cells D"]:
    """``values`` with the draws (last axis) of the cells along ``axis`` pooled and dealt back at
    random: one permutation per line of cells (every index of the other axes, in C order), from
    ``numpy.random.default_rng(seed)``. A ``(cells, D)`` curve is one line."""
    values = as_float64("values", values)
    check_finite("values", values)
    if (
        values.ndim < 2
        or not -values.ndim <= axis < values.ndim
        or axis % values.ndim == values.ndim - 1
    ):
        raise ValueError(
            f"values must be (..., cells, draws), axis a cell axis; got {values.shape}, {axis}"
        )
    rng = np.random.default_rng(nonnegative_int("seed", seed))
    lines = np.moveaxis(values, axis, -2)  # [..., cell, draw]
    flat = lines.reshape(-1, lines.shape[-2] * lines.shape[-1])
    out = np.stack([rng.permutation(line) for line in flat]).reshape(lines.shape)
    return np.moveaxis(out, -2, axis)


class PairedDifference(NamedTuple):
    """:func:`paired_difference`: the mean per-seed difference ``mean`` (``> 0``: candidate
    better), its standard error ``se``, the one-sided confidence bounds ``lower`` and ``upper``
    (``mean -+ t* se``) and ``detectable``, the gap found with probability ``power``."""

    mean: float
    se: float
    lower: float
    upper: float
    detectable: float

    @property
    def worse(self) -> bool:
        """The candidate is significantly worse: ``upper < 0``."""
        return self.upper < 0

    @property
    def better(self) -> bool:
        """The candidate is significantly better: ``lower > 0``."""
        return self.lower > 0


def paired_difference(
    candidate: Float[ArrayLike, " n"],
    reference: Float[ArrayLike, " n"],
    *,
    higher_is_better: bool,
    n_tests: int = 1,
    alpha: float = 0.05,
    power: float = 0.8,
) -> PairedDifference:
    """Paired comparison of ``candidate`` with ``reference``, one value per seed (module
    docstring): ``d = candidate - reference`` (negated unless ``higher_is_better``), one-sided
    bounds at family-wise level ``alpha`` over ``n_tests`` comparisons, and the gap detected with
    probability ``power``."""
    higher_is_better = check_flag("higher_is_better", higher_is_better)
    cand, ref = as_float64("candidate", candidate), as_float64("reference", reference)
    check_shape("candidate", cand, (None,))  # one value per seed
    check_shape("reference", ref, cand.shape)
    check_finite("candidate", cand)
    check_finite("reference", ref)
    if cand.size < 2:
        raise ValueError("candidate and reference need n >= 2 seeds for a standard error")
    n_tests = positive_int("n_tests", n_tests)
    alpha = real_number("alpha", alpha, low=0.0, high=0.5)
    power = real_number("power", power, low=0.5, high=1.0)
    if alpha == 0.0 or power == 1.0:
        raise ValueError("alpha must be in (0, 0.5] and power in [0.5, 1)")
    d = (cand - ref) * (1.0 if higher_is_better else -1.0)
    dbar, se = float(d.mean()), float(d.std(ddof=1) / math.sqrt(d.size))
    t_crit = float(stats.t.ppf(1 - alpha / n_tests, d.size - 1))
    t_power = float(stats.t.ppf(power, d.size - 1))
    return PairedDifference(
        dbar, se, dbar - t_crit * se, dbar + t_crit * se, (t_crit + t_power) * se
    )
