"""Stored results of the controlled-ODE experiments of Orvieto et al. (ICML 2024, §4.2, App.
E.3): the files of ``scripts/ode_runs.py`` (the CPU plan, or the paper's sizes on a GPU), read
and checked, and the Markdown tables the chapter shows of them (test MSEs with the factor
``min(baselines) / error`` by which each lies below the better baseline)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from lrnn_core.core.verdicts import times_below
from lrnn_core.orvieto.ode_plans import EXPERIMENTS, PAPER_PLAN
from lrnn_core.orvieto.odes import SYSTEMS

__all__ = [
    "StoredRun",
    "comparison_table",
    "control_text",
    "load_paper_results",
    "label",
    "load_stored_run",
    "readouts",
    "stored_table",
]


class StoredRun(NamedTuple):
    """A stored run: its ``provenance``; ``rows`` keyed ``(experiment, Lambda trained)``;
    ``baselines`` per system ("ignores input", "linear"); ``have`` per system: every experiment
    and mode of the system is stored, with its baselines."""

    provenance: dict[str, Any]
    rows: dict[tuple[str, bool], dict[str, Any]]
    baselines: dict[str, dict[str, float]]
    have: dict[str, bool]


def load_paper_results(path: str | Path) -> dict[str, Any]:
    """Read a results file of ``scripts/ode_runs.py``: ``{"provenance": {...}, "rows": [...]}``.

    ValueError unless the provenance names ``commit``, ``command``, ``device``, ``jax_version``,
    ``seeds`` and ``wall_s``, and every row names a ``claim``, a ``commit`` and finite numbers
    ``best``, ``median``, ``min``, ``max``.
    """
    data = json.loads(Path(path).read_text())
    if not isinstance(data, dict) or not {"provenance", "rows"} <= set(data):
        raise ValueError(f"{path}: expected an object with 'provenance' and 'rows'")
    missing = {"commit", "command", "device", "jax_version", "seeds", "wall_s"} - set(
        data["provenance"]
    )
    if missing:
        raise ValueError(f"{path}: provenance lacks {sorted(missing)}")
    for i, row in enumerate(data["rows"]):
        need = {"claim", "commit", "best", "median", "min", "max"}
        if not need <= set(row):
            raise ValueError(f"{path}: row {i} lacks {sorted(need - set(row))}")
        if not all(np.isfinite(float(row[k])) for k in ("best", "median", "min", "max")):
            raise ValueError(f"{path}: row {i} has non-finite numbers")
    return data


def load_stored_run(path: str | Path) -> StoredRun:
    """The stored run at ``path`` (:func:`load_paper_results` checks it), or an empty run
    (``have`` False for every system) if there is no file."""
    path = Path(path)
    empty = {"provenance": {}, "rows": [], "baselines": {}}
    stored = load_paper_results(path) if path.exists() else empty
    rows = {(r["experiment"], r["trained_lambda"]): r for r in stored["rows"]}
    base = {
        s: {k: b[k] for k in ("ignores input", "linear")} for s, b in stored["baselines"].items()
    }
    have = {
        s: s in base
        and all((k, m) in rows for k, e in EXPERIMENTS.items() if e[0] == s for m in e[3])
        for s in SYSTEMS
    }
    return StoredRun(stored["provenance"], rows, base, have)


def label(run: StoredRun) -> str:
    """What a row calls ``run``: "stored CPU run", or, for a run of the paper's plan, "stored GPU
    run at the paper's sizes" with its device and its epochs per system beside the paper's."""
    prov = run.provenance
    if prov.get("plan", "cpu") == "cpu":
        return "stored CPU run"
    epochs = ", ".join(
        f"{s} {prov['sizes'][s]['epochs']} of {getattr(PAPER_PLAN, s).epochs}"
        for s in prov["sizes"]
    )
    return f"stored GPU run at the paper's sizes ({prov['device']}; epochs: {epochs})"


def stored_table(run: StoredRun) -> str:
    """Markdown: every stored row with best, median, range, both baselines and the factor below
    the better baseline."""
    lines = [
        "| experiment | Λ | best | median | range | ignores input | linear | × below |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for (key, trained), r in run.rows.items():
        b = run.baselines[key.split()[0]]
        lines.append(
            f"| {key} | {'trained' if trained else 'frozen'} | {r['best']:.3g} | "
            f"{r['median']:.3g} | {r['min']:.3g}–{r['max']:.3g} | "
            f"{b['ignores input']:.3g} | {b['linear']:.3g} | "
            f"{times_below(r['best'], b):.3g} |"
        )
    return "\n".join(lines)


def comparison_table(run: StoredRun, paper_mse: dict[tuple[str, str, bool], float]) -> str:
    """Markdown: the paper's best-of-seeds test MSE beside ours (best, median, range, factor
    below the better baseline) for every entry of ``paper_mse`` whose system is stored."""
    lines = [
        "| system | readout | Λ | paper (best) | ours: best (median, range) | × below |",
        "|---|---|---|---|---|---|",
    ]
    for (s, r, m), p in paper_mse.items():
        if not run.have[s]:
            continue
        o = run.rows[f"{s} {r}", m]
        lines.append(
            f"| {s} | {r} | {'trained' if m else 'frozen'} | {p:g} | {o['best']:.3g} "
            f"({o['median']:.3g}, {o['min']:.3g}–{o['max']:.3g}) | "
            f"{times_below(o['best'], run.baselines[s]):.3g} |"
        )
    return "\n".join(lines)


def readouts(rows: dict[tuple[str, bool], dict[str, Any]], system: str) -> str:
    """``"linear/frozen e; linear/trained e; MLP/frozen e; MLP/trained e"``: best test MSEs."""
    return "; ".join(
        f"{r}/{'trained' if m else 'frozen'} {rows[f'{system} {r}', m]['best']:.3g}"
        for r in ("linear", "MLP")
        for m in (False, True)
    )


def control_text(lin: float, base: dict[str, float]) -> str:
    """The negative-control entry of a Fig. 15/16 row: the linear readout (Lambda trained)."""
    return (
        f"LRU + linear readout (Λ trained), test {lin:.3g} "
        f"({times_below(lin, base):.2g}× below the better baseline): rejected"
    )
