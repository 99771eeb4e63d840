"""Tests of lrnn_core.wang_li_li.reparam_report: the printed numbers and the claim-table rows of
made-up checks, read back from the text."""

import numpy as np

from lrnn_core.wang_li_li import reparam_report as report
from lrnn_core.wang_li_li.reparam_checks import (
    BiasCheck,
    Fig4Check,
    Fig7Check,
    Fig8Check,
    TailCheck,
    WindowCheck,
)
from lrnn_core.wang_li_li.reparam_mnist import MnistStatus, MnistVerdicts

BETAS = np.array([0.0, 1e-3, 1.0])


def test_fmt_and_the_maps_reports():
    assert report.fmt(0.012345) == "0.012" and report.fmt(1234.0) == "1.2e+03"
    eig = {"direct": np.array([-1.0, 0.0, 1.0, 2.0]), "exp": -np.ones(4)}
    assert report.unstable_report(eig).split("\n") == [
        "direct   : fraction of raw values giving an unstable eigenvalue (lambda >= 0): 0.750",
        "exp      : fraction of raw values giving an unstable eigenvalue (lambda >= 0): 0.000",
    ]
    # 2 sqrt(1/0.25 - 0) 0.25^2 = 0.25
    assert report.sensitivity_report([0.25], eps=(0.0,)).endswith(": 0.25")
    moved = report.moved_report({"exp": np.array([-0.5, -2.0])}, -1.0, 0.1)
    assert moved == "exp      : lambda = -1.0 perturbed by +-0.1 in raw coordinates -> [-0.5 -2. ]"


def _fig4(holds=True, control=False):
    growth = {p: np.array([[1.0, 3.0], [1.0, 5.0]]) for p in ("direct", "exp", "softplus")}
    growth["inverse"] = np.array([[1.0, 1.5], [1.0, 2.0]])
    past, yes = np.array([False, True]), np.array([False, True])
    ratio = np.array([1.0, 40.0])
    return Fig4Check(growth, past, yes, yes, holds, yes, ~yes, control, ratio)


def test_fig4_report_and_row():
    text = report.fig4_report(_fig4(), [2, 32], BETAS, 10)
    assert "median over 10 sets, at beta = 0.001 ... 1: 1, 4" in text  # median of 3 and 5
    assert "widest: lowest direct / highest stable 40;" in text
    assert "chance under no difference 1e-09 per beta" in text  # 1 / C(40, 10)
    assert text.endswith("passes the check: False")
    row = report.fig4_row(_fig4(), [2, 32], BETAS, 10)
    assert row["claim"] == "WLL Fig 4"
    assert row["holds"] and "direct up to 4, exp ≤ 4, softplus ≤ 4, inverse ≤ 1.8" in row["ours"]
    assert "direct/stable ≥ 40)" in row["ours"]
    assert "direct sets 1-5 against direct sets 6-10" in row["negative_control"]


def test_nonlinear_reports_and_rows():
    E = {("tanh", "direct"): np.array([[0.01, 0.5], [0.02, 0.5]])}
    assert "E_m(0) / target variance = 0.1, 0.2   (target variance 0.1;" in report.e0_report(E, 0.1)
    window = WindowCheck(
        0.001, 0.01, np.array([False, False, True]), 1, {"hardtanh": True, "tanh": False},
        {"tanh": np.array([True, True, False])}, {"tanh": np.array([True, True, True])},
        {("tanh", "direct"): True, ("tanh", "exp"): False},
    )  # fmt: skip
    text = report.window_report(window, np.array([0.0, 0.001, 0.005]), {"tanh": ("direct", "exp")})
    assert text.startswith("crossing window: 0.001 < beta <= 0.01: 0.005; below it: beta = 0.001")
    assert (
        "growth [False], widest [ True]; below it, widest above narrowest: direct True, exp False"
        in text
    )
    stable = {
        (a, p): np.array([2.0, 3.0]) for a in ("hardtanh", "tanh") for p in ("exp", "softplus")
    }
    frozen = {k: np.array([1.1, 1.2]) for k in stable}
    bias = BiasCheck(np.array([1.0, 8.0]), 8.0, stable, frozen)
    text = report.bias_report(bias, np.array([0.0, 0.001, 0.005]), 1, 10)
    assert "predicted growth in m 8;" in text and "tanh softplus 2;" in text
    assert text.endswith("tanh softplus 1.1")
    fig8 = Fig8Check(True, True, True, True)
    assert report.fig8_report(fig8) == "stable bounded True, direct grows True, fit True"
    row = report.fig8_row(fig8, bias, window, np.array([0.0, 0.001, 0.005]), 10)
    assert row["status"] == "weaker" and row["negative_control"].endswith("rejected")
    assert "stable median growth 2–2, bias-only prediction 8" in row["ours"]
    assert (
        "hardtanh True, tanh False; book's ablation with b fixed: stable growth ≤ 1.1"
        in row["ours"]
    )
    no = report.fig8_row(Fig8Check(False, True, False, True), bias, window, BETAS, 10)
    assert no["status"] == "not reproduced" and no["negative_control"] is None
    fig7 = Fig7Check(np.array([[0.5, 0.25]]), False, True, False)
    row = report.fig7_row(fig7, 0.5, True, 10)
    assert "E(0)/Var 0.5–1, worse than the narrowest linear fit: True" in row["ours"]
    assert not row["holds"]
    tail = TailCheck(np.array([50.0, 0.5]), 2.0, np.array([True, False]))
    assert report.tail_report("tanh", tail, 0.5) == (
        "tanh    : tail memory / target tail: direct draws [100.   1.] (crossed 0: [ True False]),"
        " stable (worst) 4.0"
    )


def _per_seed():
    acc = {"softplus": [70.0, 72.0], "direct": [60.0, 62.0], "untrained": [10.0, 12.0]}
    return {
        p: {"acc": np.array(a), "loss": np.array([1.0, 1.2]), "area": np.array([2.0, 2.0])}
        for p, a in acc.items()
    }


def _mnist():
    verdicts = MnistVerdicts(
        {("acc", "softplus"): ("better", 10.0, 1.0), ("loss", "softplus"): ("tie", 0.0, 0.5),
         ("area", "softplus"): ("tie", 0.0, 0.1)},
        {k: ("worse", -50.0, 1.0) for k in ("acc", "loss", "area")},
    )  # fmt: skip
    status = MnistStatus(True, "weaker", True, "weaker", False, False, (True, "weaker"),
                         (True, "weaker"))  # fmt: skip
    return verdicts, status


def test_mnist_reports_and_rows():
    untrained = np.array([[2.3, 0.1], [2.3, 0.125]])
    text = report.mnist_baselines_report({"linear": 0.25}, untrained)
    assert (
        text
        == "test error of the baselines: linear 0.2500; untrained networks: accuracy [10.  12.5] %"
    )
    paper = {"softplus": (0.89, 0.0004, 71.36, 0.03), "direct": (0.92, 0.01, 68.47, 0.06)}
    md = report.table1_markdown(_per_seed(), paper, "ci")
    assert md.startswith("**Table 1** (scale: ci; mean over 2 seeds, standard error in brackets)")
    assert (
        "| softplus | 0.89 (0.0004) | 1.1000 (0.1000) | 71.36 (0.03) | 71.00 (1.00) "
        "| 2.0000 (0.0000) |" in md
    )
    verdicts, status = _mnist()
    text = report.verdicts_report(verdicts)
    assert "acc  softplus  - direct (> 0 = better): +10.0000, t*se 1.0000 -> better" in text
    assert "area untrained - trained direct: -50.0000, t*se 1.0000 -> worse" in text
    assert report.verdict_summary(verdicts, "acc") == "better: softplus"
    text = report.mnist_status_report(verdicts, status)
    assert text.startswith("Fig 9: tie: softplus -> weaker; Table 1: accuracy better: softplus")
    assert text.endswith("Table 1 False -> rows weaker, weaker")
    fig9, table1 = report.mnist_rows(
        _per_seed(), verdicts, status, paper, error=0.3, baselines={"linear": 0.25}, margin=1.1
    )
    assert "softplus 2.000, direct 2.000; worst test error 0.300 (margin 1.1)" in fig9["ours"]
    assert fig9["ours"].endswith("by the margin: True") and fig9["error"] == 0.3
    assert "softplus 1.1000 / 71.00 ± 1.00 %" in table1["ours"]
    assert table1["paper"] == "test loss / accuracy: softplus 0.89 / 71.36 %, direct 0.92 / 68.47 %"
    assert table1["negative_control"].endswith("(test accuracy and loss): passes: False")
    assert (fig9["claim"], table1["claim"]) == ("WLL Fig 9 (App. E)", "WLL Table 1 (App. E)")
