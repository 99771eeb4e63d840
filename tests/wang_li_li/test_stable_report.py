"""The printed lines and rows of the stable-approximation chapter, on hand-made numbers: each
number lands in its place with its format, and each verdict passed in is the one reported."""

import numpy as np

from lrnn_core.core.memory import DecayFit
from lrnn_core.core.verdicts import Row
from lrnn_core.wang_li_li import stable_report as report
from lrnn_core.wang_li_li.ctrnn import CTRNN
from lrnn_core.wang_li_li.fitting import WidthResult
from lrnn_core.wang_li_li.stability_checks import ModelMemory, epochs_gap
from lrnn_core.wang_li_li.stable_experiments import FilterResult, Sizes

SIZES = Sizes(
    n_train=512, n_val=256, max_epochs=20, Ns_nl=(8, 16), Ns_perturbed=(8, 16),
    activations_fig2=("hardtanh",), scales_fig3=(0.5, 6.0), seeds_fig3=2,
)  # fmt: skip
NO_PARAMS = CTRNN(raw=np.zeros(1), B=np.zeros((1, 1)), b=np.zeros(1), C=np.zeros((1, 1)))


def _width(m: int, epochs: list[float], threshold: list[float], best: list[float]) -> WidthResult:
    return WidthResult(m, np.array(threshold), np.array(epochs), np.zeros((2, 1)),
                       np.array(best), NO_PARAMS)  # fmt: skip


def test_linear_fit_lines_and_fig1_row():
    E = {"exponential": np.array([[1e-3, 2e-4], [1e-21, 3e-4]]),
         "polynomial": np.array([[1e-2, 1e-6], [5e-3, 4e3]])}  # fmt: skip
    coef = {"exponential": [1.0, 2.5], "polynomial": [3.0, 1e10]}
    lines = report.linear_fit_lines(E, coef, [2, 32]).splitlines()
    assert lines == [
        "widths: [2, 32]",
        "exponential  largest |c_i|: 1.0e+00 2.5e+00",
        "exponential  E_m(1e-3)    : 2.0e-04 3.0e-04",
        "polynomial   largest |c_i|: 3.0e+00 1.0e+10",
        "polynomial   E_m(1e-3)    : 1.0e-06 4.0e+03",
    ]
    row = report.fig1_row(E["exponential"], E["polynomial"], [2, 32], 10, True, False)
    assert row["holds"] and row.get("status") is None
    assert row["ours"] == (
        "exp: E_32(0) = 1e-21, max_m E_m(1e-3) = 3.0e-04; pol: E_m(1e-3) 1e-06 (m=2) → "
        "4e+03 (m=32) (least squares, 10 draws per β)"
    )
    assert "returns False (rejected)" in row["negative_control"]


def test_fig2_lines_and_row():
    assert report.fig2_protocol(SIZES, 100, "ci").startswith(
        "Fig 2 protocol (ci): widths (8, 16), L=100, train/validation/test = 512/256/256, "
        "at most 20 epochs of 4 steps per width"
    )
    runs = {"tanh": [_width(8, [2, 5], [100, 100], [0.5, 0.25]),
                     _width(16, [3, np.inf], [0.25, 0.125], [0.1, 0.2])]}  # fmt: skip
    mse = {"tanh": np.array([[1.0, 2.0], [3.0, 4.0]])}
    lines = report.epochs_lines(runs, mse, ["exponential", "polynomial"], {
        "exponential": 10, "polynomial": 1000}).splitlines()  # fmt: skip
    assert lines[0] == "tanh, exponential memory (paper: ~10 epochs)"
    assert lines[2] == (
        "  m= 16:     3 epochs to reach 2.500e-01; checkpoint time-weighted 1.000e-01, "
        "plain MSE 2.000e+00"
    )
    assert lines[3] == "tanh, polynomial memory (paper: ~1000 epochs)"
    assert lines[5].startswith("  m= 16:   inf epochs") and lines[5].endswith("4.000e+00")
    needed = {("tanh", "exponential"): np.array([2.0, 3.0]),
              ("tanh", "polynomial"): np.array([5.0, np.inf])}  # fmt: skip
    gaps = {"tanh": epochs_gap([2, 3], [5, np.inf], budget=20, min_gap=10.0)}
    control = epochs_gap([2, 3], [2, 3], budget=20, min_gap=10.0)
    gap = report.gap_lines(gaps, True, control, 100).splitlines()
    assert gap == [
        "tanh: total epochs over the widths, exponential 5, polynomial 26: gap 5.20 "
        "(needs >= 10; decidable at this budget: False)",
        "exponential within 100 epochs at every width: True; control, exponential against "
        "itself: gap 1.00",
    ]
    growth = {("tanh", "exponential"): np.array([0.5, 0.8]),
              ("tanh", "polynomial"): np.array([2.0, 30.0])}  # fmt: skip
    assert report.growth_lines(growth, [8, 16], [0.0, 1e-3, 2e-3]).splitlines()[1] == (
        "tanh, polynomial: E_16(beta)/E_8(beta) from 2 to 30 over beta = 0.001..0.002"
    )
    assert report.growth_verdict_line(True, False, [8, 16]) == (
        "polynomial: E_m(beta) grows from m=8 to m=16 at some beta: True; exponential: "
        "it does not grow at any beta: False"
    )
    row = report.fig2_row(needed, gaps, growth, control, (8, 16), 20, False, "not reproduced")
    assert row["ours"] == (
        "epochs per width (8, 16): tanh exp 2/3; tanh pol 5/inf (budget 20); gap pol/exp "
        "tanh 5.2 (undecidable at this budget), needs >= 10; max over beta of E_16/E_8: "
        "tanh exp 0.8, tanh pol 30"
    )
    assert not row["holds"] and row["status"] == "not reproduced"
    assert row["negative_control"].endswith("epoch gap 1 < 10, rejected by the same gap check")


def test_fig3_lines_and_row():
    assert report.fig3_protocol(SIZES, 100, "ci", 0.01) == (
        "Fig 3 (ci): 4 random tanh targets (width 16), widths (8, 16), L=100, train/validation "
        "512/256, at most 20 epochs per width, stability radius >= 0.01"
    )
    f = FilterResult(
        approximated=np.array([True, True, False]),
        radius=np.array([0.5, 0.0, 0.2]),
        stable=np.array([True, False, True]),
        kept=np.array([True, False, False]),
    )
    assert report.filter_line(f, 0.01) == (
        "of 3 targets: 1 not approximated, 1 with a stability radius below 0.01; rejected by "
        "approximation only 1, by stability only 1, by both 0; kept 1"
    )
    runs = [_width(8, [2, 3, 4], [1, 1, 1], [1, 1, 1])]
    fits = [DecayFit(0.25, 0.0, 0.875), None, None]
    lines = report.target_lines([0.5, 1.0, 6.0], runs, f, [1e-8, 1e-7, 0.5], fits)
    assert lines.splitlines()[0] == (
        "scale 0.5: epochs per width 2; stability radius 0.5; kept=True; memory tail "
        "ratio=1.0e-08, fitted decay rate 0.250 (r2 0.875)"
    )
    assert lines.splitlines()[2].endswith("tail ratio=5.0e-01, fitted decay rate -")
    checks = [ModelMemory(0.5, 0.4, 0.45, 1e-9, True), ModelMemory(3.0, 0.0, 0.1, 1e-3, False)]
    control = ModelMemory(0.0, 0.0, 0.0012, 0.5, False)
    side = report.model_side_lines(checks, control, [0.5, 6.0], 16).splitlines()
    assert side[0] == (
        "target 0 (scale 0.5), m=16: radius 0.500, predicted rate 0.400, fitted 0.450, tail 1e-09"
    )
    assert side[-1] == (
        "control (a mode at lambda = 0): predicted 0.000, fitted 0.0012, tail 0.5: passes "
        "the check: False"
    )
    assert report.contracting_line(checks[:1], checks).startswith("1 of 2 checkpoints")
    row = report.fig3_row(checks[:1], checks, f, fits, [1e-8, 1e-7, 0.5], control, (8, 16), 20,
                          True, False, True, "weaker")  # fmt: skip
    assert row["ours"].startswith(
        "model side (asserted): the memory of every contracting widest checkpoint (1 of 2) "
        "decays at >= 0.9 x its predicted rate (0.400-0.400); filter: 1/3 kept (tail rates "
        "0.25-0.25), 0 non-decaying kept; rejected by approximation only 1"
    )
    assert row["ours"].endswith("stability binds False: the filter does not test the claim here")
    assert row["status"] == "weaker" and "tail ratio 0.5," in row["negative_control"]


def test_app_c_thm39_and_fig12_rows():
    E = {(1.0, 0.1): np.array([[0.0, 1e-9], [0.0, 2e-2]]),
         (0.1, 0.1): np.array([[0.0, 3e-4], [0.0, 1e-4]])}  # fmt: skip
    assert report.rescaling_lines(E, [2, 32]).splitlines() == [
        "s=1     target rate 0.1  : E_m(1e-3) for m=[2, 32]: 1.0e-09 2.0e-02",
        "s=0.1   target rate 0.1  : E_m(1e-3) for m=[2, 32]: 3.0e-04 1.0e-04",
    ]
    row = report.app_c_row({(0.1, 0.1): 0.5, (0.1, 0.01): 2e7}, 3.0, [2, 32], True)
    assert row["ours"].endswith("on exp(-0.1t) 5.0e-01, on exp(-0.01t) 2.0e+07")
    assert row["negative_control"].startswith("a faster target exp(-t) at s = 0.1: growth 3.0e+00")
    row = report.thm39_row(True, False, "weaker", True, "weaker")
    assert row["ours"].endswith(
        "Fig 1 (linear case) holds, Fig 2 does not hold as stated, Fig 3 weaker"
    )
    assert row["holds"] and row["status"] == "weaker"
    assert not report.fig12_row(False)["holds"]
    assert report.fig12_row(False)["ours"].startswith("not reproduced")


def test_rows_are_the_keywords_of_a_claim_table_row():
    row = report.fig12_row(False)
    assert set(row) == {"claim", "paper", "ours", "holds"}  # no status: from holds
    assert row["claim"] == "WLL Fig 12 (App. I.2)"
    assert set(row) <= Row.__required_keys__ | Row.__optional_keys__
