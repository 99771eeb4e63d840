"""Stored ODE results of Orvieto et al. (ICML 2024, §4.2): provenance and row checks, the
stored run keyed by experiment and mode, the chapter's tables."""

import json

import jax
import pytest

from lrnn_core.orvieto.ode_plans import EXPERIMENTS
from lrnn_core.orvieto.ode_results import (
    comparison_table,
    control_text,
    label,
    load_paper_results,
    load_stored_run,
    readouts,
    stored_table,
)


def test_load_paper_results_checks_provenance_and_rows(tmp_path):
    prov = {"commit": "a", "command": "c", "device": "d", "jax_version": jax.__version__}
    prov |= {"seeds": [1], "wall_s": 1.0}
    row = {"claim": "Orvieto Fig 5", "commit": "a", "best": 1, "median": 2, "min": 1, "max": 3}
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"provenance": prov, "rows": [row]}))
    assert load_paper_results(path)["rows"][0]["best"] == 1
    path.write_text(json.dumps({"provenance": {"commit": "a"}, "rows": []}))
    with pytest.raises(ValueError, match="provenance lacks"):
        load_paper_results(path)
    path.write_text(json.dumps({"provenance": prov, "rows": [row | {"best": float("nan")}]}))
    with pytest.raises(ValueError, match="non-finite"):
        load_paper_results(path)


PROV = {"commit": "a", "command": "c", "device": "d", "jax_version": "0", "seeds": [1, 2]}
PROV |= {"wall_s": 1.0}


def _write(path, systems):
    rows = []
    for i, (key, (system, _, _, modes)) in enumerate(EXPERIMENTS.items()):
        if system not in systems:
            continue
        for m in modes:
            best = 0.01 * (i + 1) / (2 if m else 1)
            rows.append(
                {"claim": "c", "commit": "a", "experiment": key, "trained_lambda": m}
                | {"best": best, "median": 2 * best, "min": best, "max": 4 * best}
            )
    base = {s: {"ignores input": 0.5, "linear": 0.2, "dropped": 0.0} for s in systems}
    path.write_text(json.dumps({"provenance": PROV, "rows": rows, "baselines": base}))


def test_stored_run_is_keyed_by_experiment_and_mode(tmp_path):
    path = tmp_path / "r.json"
    _write(path, ("PT", "LV"))
    run = load_stored_run(path)
    assert run.have == {"PT": True, "LV": True, "LZ": False}
    assert run.rows["LV MLP", True]["best"] == pytest.approx(0.015)
    assert run.baselines["PT"] == {"ignores input": 0.5, "linear": 0.2}  # "dropped" left out
    assert run.provenance == PROV
    empty = load_stored_run(tmp_path / "none.json")
    assert empty.rows == {} and not any(empty.have.values()) and empty.provenance == {}


def test_tables_show_the_numbers_and_the_factor_below_the_better_baseline(tmp_path):
    path = tmp_path / "r.json"
    _write(path, ("PT", "LV"))
    run = load_stored_run(path)
    table = stored_table(run).splitlines()
    assert len(table) == 2 + 6  # PT: 2 rows, LV: 4 rows
    # LV MLP, trained: best 0.015, median 0.03, range 0.015-0.06, 0.2 / 0.015 = 13.3
    assert "| LV MLP | trained | 0.015 | 0.03 | 0.015–0.06 | 0.5 | 0.2 | 13.3 |" in table
    paper = {("LV", "MLP", True): 0.0003543, ("LZ", "MLP", True): 0.001487}
    rows = comparison_table(run, paper).splitlines()
    assert rows[2:] == ["| LV | MLP | trained | 0.0003543 | 0.015 (0.03, 0.015–0.06) | 13.3 |"]
    assert readouts(run.rows, "LV") == (
        "linear/frozen 0.04; linear/trained 0.02; MLP/frozen 0.03; MLP/trained 0.015"
    )
    assert label(run) == "stored CPU run"  # no "plan" in the provenance: the CPU plan
    gpu = run._replace(
        provenance={"plan": "paper", "device": "H100", "sizes": {"LV": {"epochs": 14}}}
    )
    want = "stored GPU run at the paper's sizes (H100; epochs: LV 14 of 200)"
    assert label(gpu) == want


def test_control_text_names_the_factor_below_the_better_baseline():
    text = control_text(0.05, {"ignores input": 0.5, "linear": 0.2})
    assert (
        text
        == "LRU + linear readout (Λ trained), test 0.05 (4× below the better baseline): rejected"
    )
