"""The memorisation chapter's claim checks, printed lines and row texts."""

import numpy as np

from lrnn_core.orvieto.memorisation import PrefixCheck
from lrnn_core.orvieto.memorisation_experiments import CounterStates
from lrnn_core.orvieto.memorisation_report import (
    channels_line,
    counter_line,
    counter_row,
    fig1_claim_line,
    fig1_row,
    fig1_table,
    float32_line,
    prefix_checks_hold,
    prop1_lines,
    prop1_row,
)

GOOD = PrefixCheck(err=np.array([1e-15, 2e-14]), residual=np.array([3e-15]), cond=10.0)


def test_prefix_checks_hold_needs_all_three_parts():
    assert prefix_checks_hold([GOOD])
    bad_err = PrefixCheck(err=np.array([1e-15, 1e-6]), residual=GOOD.residual, cond=10.0)
    bad_res = PrefixCheck(err=GOOD.err, residual=np.array([1e-7]), cond=10.0)
    bad_cond = PrefixCheck(err=GOOD.err, residual=GOOD.residual, cond=1e9)
    for bad in (bad_err, bad_res, bad_cond):
        assert not prefix_checks_hold([GOOD, bad])


def test_prop1_lines_print_the_worst_values():
    assert prop1_lines({"a": GOOD}, 7) == (
        "a: max_k rel. error 2.0e-14, max |V_k^+ V_k - I_k| 3.0e-15 over 7 values of k, "
        "cond(V_L) = 10"
    )


def test_fig1_table_has_the_pooled_median_min_and_max():
    mse = np.array([[[0.1, 0.3]], [[0.2, 0.4]]])  # 2 draws, one N, 2 digits
    text = fig1_table([128], mse, 2, "ci")
    assert "| 128 | 0.2500 | 0.1000 | 0.4000 |" in text
    assert text.endswith("over 2 test digits x 2 eigenvalue draws (scale: ci)")


def test_rows_carry_the_numbers_and_verdicts():
    row = fig1_row([0.5, 0.25], 8, 10, holds=True, every_step=False, control=False)
    assert "median MSE 0.5000 → 0.2500 (8 digits × 10" in row["ours"]
    assert "128 → 512: True, at every doubling: False" in row["ours"]
    assert row["negative_control"].endswith("accepts it: False (rejected)")
    assert (row["claim"], row["holds"], row["status"]) == ("Orvieto Fig 1", True, "weaker")
    full = fig1_row([0.5, 0.25], 8, 10, holds=True, every_step=True, control=False)
    assert full["status"] == "reproduced"
    failed = fig1_row([0.5, 0.25], 8, 10, holds=False, every_step=True, control=False)
    assert (failed["holds"], failed["status"]) == (False, "not reproduced")
    row = prop1_row([GOOD], 16, 4, [4, 9, 12], [1e-15, 0.3, 0.5], 8, holds=False, control=False)
    assert row["claim"] == "Orvieto Prop 1 / Thm 3 (numerical check)" and not row["holds"]
    assert "every k ≤ L = 16: max rel. error 2.0e-14" in row["ours"]
    assert "rel. error ≥ 0.30 for k > N" in row["ours"]
    row = counter_row(128, 16777216.0, holds=True, control=True)
    assert row["claim"] == "Orvieto §3.1.1 time counter (check)" and row["holds"]
    assert "x at 2^24 + 1 = 16777216, stalled" in row["ours"]
    assert row["negative_control"].endswith("accepted: True (rejected)")


def test_printed_lines():
    line = fig1_claim_line(True, False, np.array([[1.0, 3.0], [2.0, 2.0]]), False)
    assert line.endswith("MSE [2. 2.]): False")
    last = np.array([2.0, 0.5])
    c = CounterStates(*(np.ones(2),) * 5, plain_t=last, shifted_t=last + [2, 0])
    assert counter_line(c) == "without counter: states equal; with counter: x_0 = 2 vs 4"
    count = np.array([1, 2, 3], np.float32)
    assert float32_line(count, True, 0.25).endswith("(0.2 s)")
    assert channels_line([[1, 2], [3]], np.zeros((4, 3))) == "N = 4 (counter + 2 + 1), B: (4, 3)"
