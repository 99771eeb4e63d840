import numpy as np
import pytest

from lrnn_core.orvieto.reconstruction_report import (
    TABLE_HEAD,
    bound_lines,
    budget_lines,
    cell_baselines,
    complete_sizes,
    eigenvalue_moves,
    fig4_row,
    headline_cell,
    headline_line,
    index_rows,
    learned_summary,
    live_stored_ratios,
    moves_lines,
    stored_description,
    stored_orderings,
    stored_table_rows,
)


def _row(data, head, N, median, train, mean_image=0.06, vdm=0.1):
    return {
        "data": data, "head": head, "N": N, "best": median / 2, "median": median,
        "train_mse": train, "baselines": {"ignores input": mean_image, "linear": vdm},
        "wall_s": 12.4,
    }  # fmt: skip


def _stored():
    rows = [
        _row("MNIST", "linear", 64, 0.02, [0.01, 0.03]),
        _row("MNIST", "MLP", 64, 0.01, [0.004]),
        _row("MNIST", "linear", 256, 0.005, [0.002]),
        _row("MNIST", "MLP", 256, 0.006, [0.003]),
        _row("MNIST", "MLP", 1024, 0.001, [0.001]),  # no linear cell: a cut run
        _row("PF", "linear", 64, 0.03, [0.02]),
    ]
    return index_rows(rows)


def test_index_and_complete_sizes():
    S = _stored()
    assert S["MNIST", "MLP", 256]["median"] == 0.006 and len(S) == 6
    assert complete_sizes(S, ["MNIST", "PF", "none"]) == {"MNIST": [64, 256], "PF": [], "none": []}


def test_live_stored_ratios_are_ratios_of_training_medians():
    S = _stored()
    live = {"MNIST": {("linear", 64): {"train_mse": [0.04]}, ("MLP", 512): {}}, "PF": {}}
    assert live_stored_ratios(S, live) == {("MNIST", "linear", 64): pytest.approx(0.04 / 0.02)}


def test_cell_baselines_and_margin():
    S = _stored()
    assert cell_baselines(S, "MNIST", "linear", 64) == {"ignores input": 0.06, "linear": 0.1}
    mlp = cell_baselines(S, "MNIST", "MLP", 64)
    assert mlp == {"ignores input": 0.06, "linear": 0.1, "linear decoder, trained": 0.02}


def test_stored_table_rows_numbers_and_learned():
    S = _stored()
    rows, learned = stored_table_rows(S, {"MNIST": [64, 256]}, 2.0)
    assert learned == {
        ("MNIST", "linear", 64): True,  # 0.06 / 0.02 = 3
        ("MNIST", "MLP", 64): True,  # 0.02 / 0.01 = 2
        ("MNIST", "linear", 256): True,
        ("MNIST", "MLP", 256): False,  # the trained linear 0.005 is below it
    }
    assert rows[0] == (
        "| MNIST | 64 | linear | 1.00e-02 / 2.00e-02 | 2.00e-02 | 6.00e-02 | 1.00e-01 | "
        "nan | ×3.00 | 12 |"
    )
    assert rows[3].endswith("5.00e-03 | ×0.83 | 12 |")
    assert TABLE_HEAD.count("|") == 10 + 1 + 11 and TABLE_HEAD.endswith("---|" * 10)


def test_stored_orderings_and_their_control():
    errors = {"linear": [0.05, 0.01, 1e-4], "MLP": [0.02, 0.005, 2e-4]}
    Ns = (64, 256, 1024)
    rows = [_row("D", h, N, e, [e]) for h in errors for N, e in zip(Ns, errors[h], strict=True)]
    S = index_rows(rows)
    checks, control = stored_orderings(S, {"D": [64, 256, 1024]}, ["D"], step=1.25, small=1.25,
                                       tenfold=10.0)  # fmt: skip
    assert checks == {"D": dict(falls=True, mlp_small=True, linear_large=True, tenfold=True)}
    assert control == {"D": dict(falls=False, mlp_small=False, linear_large=True, tenfold=False)}


def test_headline_cell_prefers_the_budget_then_the_grid_then_live():
    S = _stored()
    budget = index_rows([_row("MNIST", "linear", 64, 0.015, [0.01]),
                         _row("MNIST", "MLP", 64, 0.004, [0.002])])  # fmt: skip
    live = {("MLP", 1024): {"median": 0.3, "baselines": {"ignores input": 0.06, "linear": 0.1}},
            ("linear", 1024): {"median": 0.2}}  # fmt: skip
    kw = dict(budget_steps=9000, scale="ci")
    assert headline_cell(S, budget, 64, live, **kw) == (
        "stored, 9000 steps", 0.004, {"ignores input": 0.06, "linear": 0.1,
                                      "linear decoder, trained": 0.015})  # fmt: skip
    assert headline_cell(S, {}, 64, live, **kw)[:2] == ("stored", 0.01)
    # N = 1024 lacks its stored linear cell: the live cell instead
    assert headline_cell(S, {}, 1024, live, **kw) == (
        "live (ci)", 0.3, {"ignores input": 0.06, "linear": 0.1,
                           "linear decoder, trained": 0.2})  # fmt: skip


def test_eigenvalue_moves_on_hand_made_eigenvalues():
    lam0 = np.array([0.9, 0.95j, -0.8, 0.5 + 0.5j])
    lam1 = np.array([0.92, 0.94j * np.exp(0.1j), -0.7, 0.5 + 0.5j])
    m = eigenvalue_moves(lam0[None], lam1[None])
    assert m["mean_mod"][0] == pytest.approx((0.9 + 0.95 + 0.8 + np.sqrt(0.5)) / 4)
    assert m["mean_mod"][1] == pytest.approx((0.92 + 0.94 + 0.7 + np.sqrt(0.5)) / 4)
    steps = sorted([0.02, abs(0.94 * np.exp(0.1j) - 0.95), 0.1, 0.0])
    assert m["median_step"] == pytest.approx((steps[1] + steps[2]) / 2)
    assert m["outward"] == 0.25  # only 0.9 -> 0.92; the last did not move
    assert m["phase"] == pytest.approx(0.0, abs=1e-15)  # median of 0, 0.1, 0, 0
    turned = eigenvalue_moves([1.0, 1j], [np.exp(0.1j), 1j * np.exp(-0.3j)])
    assert turned["phase"] == pytest.approx(0.2)  # median of 0.1 and 0.3
    with pytest.raises(ValueError, match="shapes"):
        eigenvalue_moves(lam0, lam1[:3])


def test_printed_lines_carry_the_numbers():
    moved = {"MLP": eigenvalue_moves(np.array([0.5, 0.5j]), np.array([0.6, 0.5j]))}
    assert moves_lines(moved, 8) == (
        "N = 8, MLP: mean |λ| 0.5000 → 0.5500; 50% moved outwards; "
        "median |Δλ| 5.0e-02, median |Δ arg λ| 0.0e+00 rad"
    )
    assert (
        bound_lines({("A", 4): (0.02, 0.01)}) == "A, N = 4: linear train 2.00e-02 >= bound 1.00e-02"
    )
    assert (
        headline_line("stored", 64, 0.01, {"a": 0.03})
        == "stored: MNIST MLP at N = 64: ×3.00 below a"
    )
    S = _stored()
    lines = budget_lines({("MNIST", "MLP", 64): S["MNIST", "MLP", 64]}, S, 64, 10, 100).split("\n")
    assert lines[0] == "100 steps of 64 per cell; the grid: 10"
    assert lines[1] == (
        "MNIST, N = 64, MLP: held-out 1.00e-02 (best 5.00e-03), train 4.00e-03; "
        "in the grid 1.00e-02"
    )


def test_learned_summary_and_description():
    S = _stored()
    sizes = {"MNIST": [64, 256]}
    checks = {"MNIST": {"falls": True, "tenfold": False}}
    learned = {("MNIST", "linear", 64): True, ("MNIST", "MLP", 64): False}
    lines = learned_summary(S, sizes, learned, checks, 2.0, ["MNIST"]).split("\n")
    assert lines[0] == "MNIST: learned (×2 below the better baseline): ['linear N=64']"
    assert lines[1] == "   not learned: ['MLP N=64']"
    assert lines[2] == "   linear / MLP error by N: {64: '2.00', 256: '0.83'}"
    assert lines[3:5] == [
        "   orderings that hold: ['falls']",
        "   orderings that do not: ['tenfold']",
    ]
    assert lines[5] == "   MLP held-out / train by N: {64: '2.5', 256: '2.0'}"
    text = stored_description(S, sizes, checks, "MNIST")
    assert text == (
        "MNIST, N = [64, 256]: linear 2.0e-02 → 5.0e-03; MLP 1.0e-02 → 6.0e-03; "
        "orderings not shown: ['tenfold']"
    )


def test_fig4_row_texts_verdict_and_evidence():
    S = _stored()
    hyper = {"steps": 10, "batch_size": 64, "n_train": 100, "lr": 0.01, "D": 8}
    control = {"MNIST": {"falls": False, "tenfold": False}}
    row = fig4_row(
        S, {"MNIST": [64, 256]}, {"MNIST": {"falls": True}}, control, data_sets=["MNIST"],
        hyper=hyper, seeds=[0], budget=(100, [64], {"falls": True}),
        headline=(64, "stored", 0.01, {"a": 0.04}), margin=2.0, control_learned=False,
        holds=True, full=False,
    )  # fmt: skip
    assert (row["claim"], row["holds"], row["status"]) == ("Orvieto Fig 4", True, "weaker")
    assert (row["error"], row["baselines"], row["margin"]) == (0.01, {"a": 0.04}, 2.0)
    assert row["ours"].startswith("stored GPU run (10 steps of 64 per cell, 100 MNIST images, ")
    assert "lr 0.01, MLP 8 wide, seeds [0]), held-out MSE: MNIST, N = [64, 256]" in row["ours"]
    assert row["ours"].endswith(
        "Row: MNIST MLP at N = 64 (stored): ×4.00 below a (needs ×2 below the better one)"
    )
    assert row["negative_control"].endswith(
        "baseline: False; MNIST: orderings in N: falls False, tenfold False"
    )
    empty = fig4_row(
        S, {}, {}, {}, data_sets=[], hyper=hyper, seeds=[0], budget=(1, [], {}),
        headline=(64, "live", 0.01, {"a": 0.04}), margin=2.0, control_learned=False,
        holds=False, full=True,
    )  # fmt: skip
    assert (empty["holds"], empty["status"]) == (False, "not reproduced")
    assert "held-out MSE: no complete N-ordering stored." in empty["ours"]
