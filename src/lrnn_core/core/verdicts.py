"""The verdicts every claim row is given: how far a trained model's error lies below its
baselines, whether it beats them by the margin its chapter fixed, and the row's status.

* :func:`times_below`: ``min_b e_b / e``, how many times the error ``e`` lies below the better of
  the baseline errors ``e_b`` (the input-ignoring predictor and the best linear map,
  :mod:`lrnn_core.core.baselines`, on the same test set).
* :func:`beats`: the margin rule of every trained row, ``e * margin <= min_b e_b``.
* :func:`row_status`: ``"reproduced"`` when the checked claim holds and is the paper's full claim,
  ``"weaker"`` when it holds only in a weaker form, ``"not reproduced"`` when it fails.
* :class:`Row`: the keyword arguments of a paper-versus-ours row, as every chapter adds it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TypedDict

from lrnn_core.core.validate import check_flag, real_number

__all__ = ["Row", "beats", "row_status", "times_below"]


class _RowRequired(TypedDict):
    """The keys every row states: its claim id, the paper's value, ours, whether it holds (a base
    class, as Python 3.11 does not see ``Required`` under postponed annotations)."""

    claim: str
    paper: str
    ours: str
    holds: bool


class Row(_RowRequired, total=False):
    """The keyword arguments of a paper-versus-ours row (``ClaimTable.add(**row)``)."""

    status: str | None
    error: float | None
    baselines: Mapping[str, float] | None
    margin: float | None
    negative_control: str | None


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
