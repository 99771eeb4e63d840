"""The claim checks of the controlled-ODE rows of Orvieto et al. (ICML 2024, §4.2, App. E.3;
Figs. 5, 14-16): the paper's test MSEs, the margins derived from them, and the checks each row
asserts. ``rows`` maps ``(experiment, Lambda trained)`` to a stored row (best, median, per-seed
numbers; :mod:`lrnn_core.orvieto.ode_results`), ``base`` a system's two baselines."""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from lrnn_core.core.verdicts import beats

__all__ = [
    "LAMBDA_FACTOR",
    "MARGIN",
    "PAPER_MSE",
    "PAPER_PT_TEST",
    "SPREAD",
    "LVChecks",
    "LZChecks",
    "best",
    "gain",
    "lv_checks",
    "lz_checks",
    "ordered",
    "pt_errors",
    "r2",
    "ratios_to_paper",
    "seed_spread",
]

Rows = dict[tuple[str, bool], dict[str, Any]]

#: The paper's best-of-seeds test MSEs (Figs. 15, 16; frozen/trained assignment inferred), keyed
#: ``(system, readout, Lambda trained)``.
PAPER_MSE: dict[tuple[str, str, bool], float] = {
    ("LV", "linear", False): 0.04314,
    ("LV", "linear", True): 0.002055,
    ("LV", "MLP", False): 0.003943,
    ("LV", "MLP", True): 0.0003543,
    ("LZ", "linear", False): 0.1108,
    ("LZ", "linear", True): 0.1108,
    ("LZ", "MLP", False): 0.002083,
    ("LZ", "MLP", True): 0.001487,
}

#: The paper's PT test MSE (Fig. 5, MLP readout, Lambda trained).
PAPER_PT_TEST: float = 0.0017

#: Margin ``m`` per system: the paper's linear over MLP readout, both with Lambda frozen; PT
#: (no linear model printed) takes LV's.
MARGIN: dict[str, float] = {
    s: PAPER_MSE[s, "linear", False] / PAPER_MSE[s, "MLP", False] for s in ("LV", "LZ")
}
MARGIN["PT"] = MARGIN["LV"]

#: "Training Lambda helps": medians at least this factor apart; "matters little": within it.
LAMBDA_FACTOR: float = 2.0

#: Fig. 14 "huge variation": final training losses over seeds span at least this factor.
SPREAD: float = 10.0


def r2(error: float, base: dict[str, float]) -> float:
    """``R^2`` of the input-driven part ``y - ybar``: ``1 - error / error_ignores_input``."""
    return 1 - error / base["ignores input"]


def best(rows: Rows, key: str) -> float:
    """The best test MSE of experiment ``key`` over both modes (Lambda frozen, trained)."""
    return min(rows[key, m]["best"] for m in (False, True))


def gain(rows: Rows, key: str) -> float:
    """Median test MSE with Lambda frozen over the median with Lambda trained."""
    return rows[key, False]["median"] / rows[key, True]["median"]


def seed_spread(rows: Rows, key: str, trained: bool) -> float:
    """Largest over smallest final training loss across seeds (Fig. 14)."""
    final = np.asarray(rows[key, trained]["final_train_per_seed"])
    return float(final.max() / final.min())


def pt_errors(
    rows: Rows,
    base: dict[str, float] | None,
    stored: bool,
    live: dict[str, float],
    live_base: dict[str, float],
) -> tuple[dict[str, float], float, float]:
    """``(baselines, MLP error, linear-readout error)`` of PT (Lambda trained): the stored run's
    if ``stored``, else the live run's (``live`` maps "MLP", "linear" to best test MSEs)."""
    if stored:
        return base, rows["PT MLP", True]["best"], rows["PT linear", True]["best"]
    return live_base, live["MLP"], live["linear"]


class LVChecks(NamedTuple):
    """Fig. 15 (LV): MLP error (Lambda trained) and linear-readout error; whether the MLP beats
    the baselines by the margin, is the best of the four, and whether training Lambda gains at
    least :data:`LAMBDA_FACTOR` on both readouts; the control (linear readout) check."""

    err: float
    lin: float
    learns: bool
    first: bool
    helps: bool
    control: bool


def lv_checks(rows: Rows, base: dict[str, float]) -> LVChecks:
    """The Fig. 15 checks on the stored LV rows."""
    err, lin = rows["LV MLP", True]["best"], rows["LV linear", True]["best"]
    return LVChecks(
        err=err,
        lin=lin,
        learns=beats(err, base, MARGIN["LV"]),
        first=err == min(best(rows, "LV MLP"), best(rows, "LV linear")),
        helps=min(gain(rows, "LV MLP"), gain(rows, "LV linear")) >= LAMBDA_FACTOR,
        control=beats(lin, base, MARGIN["LV"]),
    )


class LZChecks(NamedTuple):
    """Fig. 16 (Lorenz): best MLP error and linear-readout error (Lambda trained); the MLP beats
    the baselines by Lorenz's margin (full) or LV's (weak); the MLP medians within
    :data:`LAMBDA_FACTOR`; the control (linear readout, LV's margin)."""

    err: float
    lin: float
    learns: bool
    weak: bool
    little: bool
    control: bool


def lz_checks(rows: Rows, base: dict[str, float]) -> LZChecks:
    """The Fig. 16 checks on the stored Lorenz rows."""
    err, lin = best(rows, "LZ MLP"), rows["LZ linear", True]["best"]
    return LZChecks(
        err=err,
        lin=lin,
        learns=beats(err, base, MARGIN["LZ"]),
        weak=beats(err, base, MARGIN["LV"]),
        little=1 / LAMBDA_FACTOR < gain(rows, "LZ MLP") < LAMBDA_FACTOR,
        control=beats(lin, base, MARGIN["LV"]),
    )


def ordered(rows: Rows, have: dict[str, bool], readout: str, other: str) -> bool:
    """``readout`` beats ``other`` on every system: best over modes on LV and LZ, Lambda
    trained on PT; False unless every system is stored."""
    if not all(have.values()):
        return False
    first = all(best(rows, f"{s} {readout}") < best(rows, f"{s} {other}") for s in ("LV", "LZ"))
    return first and rows[f"PT {readout}", True]["best"] < rows[f"PT {other}", True]["best"]


def ratios_to_paper(
    rows: Rows, have: dict[str, bool], pt_err: float
) -> dict[tuple[str, str, bool], float]:
    """Ours over the paper's test MSE, for every entry of :data:`PAPER_MSE` whose system is
    stored, and for PT's MLP (``pt_err`` over :data:`PAPER_PT_TEST`)."""
    ratios = {
        k: rows[f"{k[0]} {k[1]}", k[2]]["best"] / p for k, p in PAPER_MSE.items() if have[k[0]]
    }
    ratios["PT", "MLP", True] = pt_err / PAPER_PT_TEST
    return ratios
