"""The ODE chapter's rows and printouts (Orvieto et al., ICML 2024, §4.2; Figs. 5, 13-16, Thm. 1 /
Prop. 2): provenance checks, each verdict and the claim-table row it builds, on hand-made runs."""

import numpy as np
import pytest

from lrnn_core.orvieto import ode_report as rep
from lrnn_core.orvieto.ode_claims import MARGIN
from lrnn_core.orvieto.ode_data import AMPLITUDE
from lrnn_core.orvieto.ode_model import PHASE
from lrnn_core.orvieto.ode_plans import CI_PLAN, CPU_PLAN, PAPER_PLAN
from lrnn_core.orvieto.ode_results import StoredRun
from lrnn_core.orvieto.ode_sensitivity import Sensitivity
from lrnn_core.orvieto.width_experiments import WIDTH_CI, WidthRun

VALUES = {
    ("PT MLP", True): (0.001, 0.002),
    ("PT linear", True): (0.01, 0.02),
    ("LV MLP", False): (0.004, 0.008),
    ("LV MLP", True): (0.0003, 0.001),
    ("LV linear", False): (0.04, 0.05),
    ("LV linear", True): (0.01, 0.02),
    ("LZ MLP", False): (0.002, 0.003),
    ("LZ MLP", True): (0.0015, 0.002),
    ("LZ linear", False): (0.1, 0.11),
    ("LZ linear", True): (0.09, 0.1),
}
ROWS = {
    k: {
        "best": b,
        "median": m,
        "min": b,
        "max": 2 * m,
        "per_seed": [b, m, 2 * m],
        "final_train_per_seed": [b, 2 * b, 20 * b] if k[0] == "LZ MLP" else [b, b, 2 * b],
        "train_loss_per_seed": [[1.0, b], [1.0, 2 * b], [2.0, 20 * b]],
    }
    for k, (b, m) in VALUES.items()
}
BASE = {"ignores input": 0.1, "linear": 0.02}
RUN = StoredRun(
    {}, ROWS, {s: BASE for s in ("PT", "LV", "LZ")}, dict.fromkeys(("PT", "LV", "LZ"), True)
)
EMPTY = StoredRun({}, {}, {}, dict.fromkeys(("PT", "LV", "LZ"), False))
LIVE = rep.LivePT({"ignores input": 1.0, "linear": 0.7}, {"MLP": 0.5, "linear": 0.6}, "")


def test_provenance_mismatches_name_what_differs_from_the_plan():
    sizes = {s: getattr(CPU_PLAN, s)._asdict() for s in ("PT", "LV", "LZ")}
    prov = {"sizes": sizes, "amplitude": AMPLITUDE, "max_phase": PHASE, "seeds": [1, 2, 3]}
    prov |= {"scan_method": "inplace", "lrs": [3e-3], "system_lrs": {"LZ": [1e-2]}}
    run = RUN._replace(provenance=prov)
    assert rep.provenance_mismatches(run, CPU_PLAN) == []
    assert rep.provenance_mismatches(EMPTY, CPU_PLAN) == []
    bad = run._replace(provenance=prov | {"seeds": [1], "max_phase": 1.0})
    assert rep.provenance_mismatches(bad, CPU_PLAN) == ["amplitude or max_phase", "seeds"]
    slow = run._replace(provenance=prov | {"system_lrs": {}})  # Lorenz at 3e-3, not 1e-2
    assert rep.provenance_mismatches(slow, CPU_PLAN) == ["LZ learning rates"]
    assert rep.provenance_mismatches(run, CI_PLAN)[:3] == ["PT", "LV", "LZ"]
    parts = [{"load_average_at_start": 1.5}, {"load_average_at_start": 2.0}]
    text = rep.provenance_report(run._replace(provenance=prov | {"commit": "a", "parts": parts}))
    assert "  commit: a" in text and f"  dirty: {rep.MISSING}" in text
    assert text.endswith("at the start of each part: [1.5, 2.0]")


def test_superseded_report_names_the_first_run_and_the_rerun():
    old_rows = [
        {"experiment": "LV MLP", "trained_lambda": m, "best": b, "lr": 0.003}
        for m, b in ((False, 1), (True, 0.005))
    ]
    before, after = {"epochs": 100, "n_train": 512}, {"epochs": 200, "n_train": 1024}
    first = {"commit": "a" * 40, "sizes": {"LV": before}}
    rerun = {"commit": "b" * 40, "sizes": {"LV": after}, "command": "python x.py"}
    old = {"why": "fell short", "sizes": before, "commit": "a" * 40, "rows": old_rows}
    old["baselines"] = BASE | {"dropped": 0}
    prov = {"sizes": {"LV": after}, "parts": [first, rerun], "superseded": {"LV": old}}
    rows = RUN.rows | {("LV MLP", True): RUN.rows["LV MLP", True] | {"lr": 0.01}}
    text = rep.superseded_report(RUN._replace(provenance=prov, rows=rows))
    assert text == (
        "LV, superseded run at 100 epochs of 512 trajectories at rate 0.003 (commit "
        "aaaaaaaaaa): MLP (Λ trained) best 0.005, 4× below the better baseline (margin "
        f"{MARGIN['LV']:.4g}); rerun at 200 epochs of 1024 trajectories at rate 0.01 "
        "(commit bbbbbbbbbb, `python x.py`): fell short"
    )
    assert rep.superseded_report(RUN) == ""


def test_plan_report_prints_both_plans_per_system():
    text = rep.plan_report(CPU_PLAN, PAPER_PLAN, CI_PLAN, "ci")
    assert text.splitlines()[0] == f"PT: stored CPU run {CPU_PLAN.PT}"
    assert text.splitlines()[-1].startswith("live run (ci), PT only: SystemSizes(L=256")


def test_pt_verdict_uses_the_stored_run_else_the_live_one():
    v = rep.pt_verdict(RUN, LIVE, "ci")
    # 0.001 * 10.94 <= 0.02: full; the linear readout 0.01 * 10.94 > 0.02: control rejected
    assert (v.holds, v.full, v.weak, v.control, v.err) == (True, True, True, False, 0.001)
    assert v.row["status"] == "reproduced" and v.row["margin"] == MARGIN["PT"]
    assert "R² MLP 0.9900" in v.r2_text and "MLP error 20× below" in v.r2_text
    live = rep.pt_verdict(EMPTY, LIVE, "ci")  # 0.5 > 0.7 / 10.94, but below 0.7
    assert (live.full, live.weak, live.err) == (False, True, 0.5)
    assert live.row["ours"].startswith("live run (ci; no stored CPU run")


def test_fig15_and_fig16_verdicts():
    lv, lz = rep.fig15_verdict(RUN), rep.fig16_verdict(RUN)
    assert (lv.holds, lv.full, lv.control) == (True, True, False)
    assert lv.row["error"] == 0.0003 and "gains from training Λ" in lv.text
    # 0.0015 * 53.2 > 0.02: only the weak form (LV's margin)
    assert (lz.holds, lz.full, lz.control) == (True, False, False)
    assert lz.row["status"] == "weaker"
    missing = rep.fig15_verdict(EMPTY)
    assert missing.text == "" and missing.row["ours"] == rep.MISSING and not missing.holds


def test_fig14_verdict_is_the_spread_of_final_losses():
    v = rep.fig14_verdict(RUN, (1, 2, 3))
    assert (v.holds, v.control) == (True, False)
    assert v.control_spread == pytest.approx(2.0)
    np.testing.assert_array_equal(v.curves, ROWS["LZ MLP", True]["train_loss_per_seed"])
    assert "LZ MLP 20; control (linear, Λ frozen) 2" in v.text


def test_fig13_verdict_from_a_sensitivity_run():
    y = np.array([[1.0, -1.0, 2.0, 2.0]])
    y_free = np.array([1.0, 1.0, 1.0, -1.0])
    sens = Sensitivity(y, y.copy(), y_free, np.array([0.01, 0.02]), np.array([0.001]))
    v = rep.fig13_verdict(sens)
    assert (v.holds, v.control, v.lobes, v.lobes_eps) == (False, False, 0.5, 0.0)
    assert "median relative change 0.015" in v.row["ours"]
    assert "(1 under the old measure)" in v.row["negative_control"]


def test_mse_table_verdict_orders_the_readouts_and_ratios():
    v = rep.mse_table_verdict(RUN, 0.001, True)
    assert v.holds and not v.control
    assert "ours / paper, LV MLP Λ trained: 0.847" in v.text  # 0.0003 / 0.0003543
    assert "9 of 9 within 10×" in v.row["ours"]


def test_width_report_and_verdict():
    errors = {
        0: np.array([0.1, 0.001, 0.0001]),
        3: np.array([0.1, 0.01, 0.001]),
        6: np.array([0.1, 0.1, 0.01]),
    }
    run = WidthRun({0: 0.35, 3: 1.03, 6: 3.0}, {0: 0.0, 3: 0.0, 6: 0.0}, errors)
    v = rep.width_verdict(WIDTH_CI, run)  # eps 5e-3: D = 8, 32, none
    assert v.d_eps == [8, 32, np.inf] and v.holds and not v.control
    assert "D(ε=0.005) = 8, 32, none on the grid" in v.row["ours"]
    text = rep.width_report(WIDTH_CI, run)
    assert "‖ω_j‖ = 1.030 (closed form 1.031)" in text
    assert "{2: 0.1, 8: 0.01, 32: 0.001}" in text


def test_paper_sizes_checks_and_the_note_in_the_rows():
    """The same checks on a run of the paper's plan; its numbers join the CPU rows' text."""
    sizes = {s: {"epochs": 10} for s in ("PT", "LV", "LZ")}
    big = RUN._replace(provenance={"plan": "paper", "device": "GPU", "sizes": sizes})
    c = rep.paper_sizes_checks(big)
    # PT: 0.02 / 0.001 = 20 >= margin 10.9; its linear readout 0.02 / 0.01 = 2 < 10.9
    assert c.pt_learns and not c.pt_control
    # LZ: best MLP 0.0015, 0.02 / 0.0015 = 13.3 < 53.2; LV MLP 0.0003: 66.7 >= 10.9
    assert not c.lz.learns and c.lv.learns
    assert "Lorenz: MLP 13.3×" in c.text and f"(margin {MARGIN['LZ']:.3g})" in c.text
    with pytest.raises(ValueError, match="lacks"):
        rep.paper_sizes_checks(EMPTY)
    assert rep.paper_sizes_note(None, "LZ") == "" and rep.paper_sizes_note(EMPTY, "LZ") == ""
    note = rep.paper_sizes_note(big, "LZ")
    # MLP medians frozen / trained: 0.003 / 0.002 = 1.5
    assert note.endswith(
        "MLP 13.3× below the better baseline (margin 53.2), MLP frozen/trained (medians) 1.5"
    )
    assert rep.fig16_verdict(RUN, big).row["ours"].endswith(note)
    assert rep.fig16_verdict(RUN).row["ours"] + note == rep.fig16_verdict(RUN, big).row["ours"]
