"""The ODE claim checks of Orvieto et al. (ICML 2024, §4.2; Figs. 5, 14-16): margins from the
paper's numbers and each row's checks on hand-made stored rows."""

import pytest

from lrnn_core.orvieto.ode_claims import (
    MARGIN,
    PAPER_MSE,
    best,
    gain,
    lv_checks,
    lz_checks,
    ordered,
    pt_errors,
    r2,
    ratios_to_paper,
    seed_spread,
)


def _rows(values):
    """Rows keyed (experiment, trained) from {(key, trained): (best, median)}."""
    return {
        k: {"best": b, "median": m, "final_train_per_seed": [b, 2 * b, 20 * b]}
        for k, (b, m) in values.items()
    }


ROWS = _rows(
    {
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
)
HAVE = {"PT": True, "LV": True, "LZ": True}


def test_margins_are_the_papers_linear_over_mlp_readout_with_lambda_frozen():
    assert MARGIN["LV"] == pytest.approx(0.04314 / 0.003943)
    assert MARGIN["LZ"] == pytest.approx(0.1108 / 0.002083)
    assert MARGIN["PT"] == MARGIN["LV"] and list(MARGIN) == ["LV", "LZ", "PT"]
    assert len(PAPER_MSE) == 8


def test_r2_best_gain_and_seed_spread():
    base = {"ignores input": 0.1, "linear": 0.02}
    assert r2(0.01, base) == pytest.approx(0.9)
    assert best(ROWS, "LZ MLP") == 0.0015
    assert gain(ROWS, "LV MLP") == pytest.approx(8.0)
    assert seed_spread(ROWS, "LZ MLP", True) == pytest.approx(20.0)


def test_pt_errors_take_the_stored_run_if_there_is_one():
    live, live_base = {"MLP": 0.5, "linear": 0.6}, {"ignores input": 1.0, "linear": 0.7}
    stored_base = {"ignores input": 0.1, "linear": 0.02}
    assert pt_errors(ROWS, stored_base, True, live, live_base) == (stored_base, 0.001, 0.01)
    assert pt_errors(ROWS, stored_base, False, live, live_base) == (live_base, 0.5, 0.6)


def test_lv_and_lz_checks():
    base = {"ignores input": 0.1, "linear": 0.02}
    lv = lv_checks(ROWS, base)
    # 0.0003 * 10.94 <= 0.02; best of four; gains 8 and 2.5 >= 2; 0.01 * 10.94 > 0.02
    assert (lv.err, lv.lin) == (0.0003, 0.01)
    assert lv.learns and lv.first and lv.helps and not lv.control
    lz = lz_checks(ROWS, base)
    # 0.0015 * 53.2 > 0.02 (not the full margin), 0.0015 * 10.94 <= 0.02; gain 1.5 in (1/2, 2)
    assert (lz.err, lz.lin) == (0.0015, 0.09)
    assert not lz.learns and lz.weak and lz.little and not lz.control


def test_ordered_and_ratios_to_paper():
    assert ordered(ROWS, HAVE, "MLP", "linear") and not ordered(ROWS, HAVE, "linear", "MLP")
    assert not ordered(ROWS, HAVE | {"LZ": False}, "MLP", "linear")
    ratios = ratios_to_paper(ROWS, HAVE | {"LZ": False}, 0.0034)
    assert set(ratios) == {k for k in PAPER_MSE if k[0] == "LV"} | {("PT", "MLP", True)}
    assert ratios["LV", "linear", False] == pytest.approx(0.04 / 0.04314)
    assert ratios["PT", "MLP", True] == pytest.approx(2.0)
