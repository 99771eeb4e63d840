"""The universality chapter's claim checks, rows and printed lines, on made-up numbers."""

import numpy as np
import pytest

from lrnn_core.wang_xue.tokenwise import TokenFit, TokenwiseRun
from lrnn_core.wang_xue.universality_checks import (
    best_nmse,
    converges_slowly,
    fig1_row,
    fig2_line,
    fig2_row,
    fig3_row,
    fig4_lines,
    fig4_row,
    fixed_rate_lines,
    fixed_rates_need_L,
    free_rate_lines,
    free_rates_need_half_L,
    grid_lines,
    half_length_modes,
    kernel_fit_lines,
    length_ratio,
    nmse_line,
    nonlinear,
    prop32_line,
    prop32_row,
    tokenwise_lines,
    width_helps,
)
from lrnn_core.wang_xue.universality_experiments import FixedRateFit, FreeRateModes

BASE = {"ignores input": 0.5, "linear": 0.2}


def _fit(converged: bool, grad: float = 1e-9) -> TokenFit:
    z = np.zeros(1)
    return TokenFit(z, z, z, 0.0, "tanh", 0.0, grad, converged)


def _run(err: dict, converged: dict, control_err: float = 0.2) -> TokenwiseRun:
    fits = {w: _fit(ok) for w, ok in converged.items()}
    return TokenwiseRun(fits, err, converged, _fit(True), control_err, BASE)


def test_fig1_nonlinear_rule_and_row():
    assert nonlinear(0.02) and not nonlinear(0.01) and not nonlinear(1e-16)
    row = fig1_row(0.237, 5.8e-16)
    assert (
        row["holds"] and "gap 0.24 > 0.01" in row["ours"] and "gap 6e-16" in row["negative_control"]
    )
    assert not fig1_row(1e-3, 1e-16)["holds"]
    assert row["claim"] == "Wang-Xue Fig 1"


def test_fig2_judges_the_best_converged_fit():
    run = _run({1: 1e-2, 2: 1e-5, 4: 1e-9}, {1: True, 2: True, 4: False})
    row = fig2_row(run, 1000.0)
    assert row["error"] == 1e-5 and row["holds"]  # 1e-5 x 1000 <= 0.2; the unconverged 1e-9 ignored
    assert row["baselines"] == BASE and row["margin"] == 1000.0
    assert row["claim"] == "Wang-Xue Fig 2"
    assert "N=1: 1e-02, N=2: 1e-05, N=4: 1e-09" in row["ours"]
    assert "test MSE 0.200" in row["negative_control"] and "×1000" in row["negative_control"]
    assert not fig2_row(run, 1e5)["holds"]
    assert not fig2_row(_run({1: 0.0}, {1: False}), 10.0)["holds"]
    assert fig2_line(run) == "best converged fit: MSE 1.0e-05; converged widths [1, 2]"
    lines = tokenwise_lines(run).splitlines()
    assert lines[0] == "N = 1: test MSE 1.00e-02 (converged: True, gradient 1e-09)"
    assert lines[-1] == f"identity activation: 0.200; baselines {BASE}"


def test_prop32_slow_convergence_and_row():
    e_exp = np.array([0.5, 1e-3, 1e-9])
    e_pol = np.array([0.9, 0.2, 0.1])
    assert converges_slowly(e_pol, e_exp)
    assert not converges_slowly(np.array([0.9, 0.2, 1e-8]), e_exp)  # too close to exp
    assert not converges_slowly(np.array([0.1, 0.2, 0.3]), e_exp)  # does not fall
    errors = {"exp": e_exp, "t exp": np.array([0.4, 0.1, 0.01]), "poly": e_pol}
    Ns = [1, 16, 32]
    assert prop32_line(errors, Ns) == (
        "N=16: exp 1.0e-03, t·exp 1.0e-01, poly 2.0e-01; poly N=1 → N=32: 0.90 → 0.100"
    )
    row = prop32_row(errors, Ns, (True, 1e-9), (False, 0.03))
    assert row["holds"] and "exp 1e-03, t·exp 1e-01, poly 2e-01 (poly N=32: 1e-01)" in row["ours"]
    assert "(error 3e-02 > 1e-6)" in row["negative_control"]
    assert not prop32_row(errors, Ns, (False, 1e-3), (False, 0.03))["holds"]
    assert kernel_fit_lines({"exp": e_exp}) == (
        "exp            sup error / sup |rho|: 5.0e-01 1.0e-03 1.0e-09"
    )


def test_fig3_modes_grow_with_L():
    fixed = [FixedRateFit(4, 0.1, 1e-14, 100.0), FixedRateFit(6, 0.02, 1e-13, 1e4)]
    assert fixed_rates_need_L(fixed)
    assert not fixed_rates_need_L([FixedRateFit(4, 1e-4, 1e-14, 100.0)])  # L-1 enough
    assert not fixed_rates_need_L([FixedRateFit(4, 0.1, 1e-10, 100.0)])  # L not exact
    assert fixed_rate_lines(fixed[:1]) == (
        "L = 4: error with N = L-1: 1.0e-01, N = L: 1.0e-14 (condition number 1.0e+02)"
    )
    free = {4: FreeRateModes(2, 1e-15, 2), 6: FreeRateModes(3, 1e-14, 2)}
    assert half_length_modes({4: 2, 6: 3}) and not half_length_modes({4: 2, 6: 2})
    assert free_rates_need_half_L(free)
    assert not free_rates_need_half_L({4: FreeRateModes(2, 1e-6, 2)})  # Prony not exact
    assert free_rate_lines({4: free[4]}) == (
        "L = 4: free rates need 2 modes (Prony with L/2: error 1e-15); "
        "two-exponential kernel: 2 modes"
    )
    row = fig3_row(fixed, free)
    assert row["holds"] and "error ≥ 2e-02" in row["ours"] and "L=4: 2, L=6: 3" in row["ours"]
    assert row["negative_control"].startswith(
        "a two-exponential kernel needs 2, 2 modes at L = 4, 6"
    )


def _grid():
    r = lambda e, el: {"nmse": e, "nmse_long": el}  # noqa: E731
    return {
        ("a", 1, 4): r(0.2, 0.25), ("a", 1, 16): r(0.02, 0.03),
        ("b", 1, 4): r(0.5, 0.5), ("b", 1, 16): r(0.1, 0.15),
    }  # fmt: skip


def test_fig4_grid_checks_and_row():
    grid = _grid()
    assert best_nmse(grid) == {"a": 0.02, "b": 0.1}
    assert width_helps(grid)
    assert not width_helps({**grid, ("b", 1, 16): {"nmse": 0.6, "nmse_long": 0.6}})
    assert length_ratio(grid) == pytest.approx(1.5)
    assert grid_lines(grid, 4).splitlines()[1] == (
        "a        depth 1 N = 16: NMSE 0.0200 (length 4L: 0.0300)"
    )
    base = {"a": {"ignores input": 1.0, "linear": 0.5}, "b": {"ignores input": 1.0, "linear": 0.6}}
    control = {"a": 0.5, "b": 0.6}
    row = fig4_row(grid, control, base, 5.0, ranks_ok=True, long=4)
    assert row["holds"] and row["error"] == 0.1 and row["baselines"] == base["b"]  # b: 6x, a: 25x
    assert "best NMSE a 0.020, b 0.100; NMSE at 4L ≤ 1.50 × NMSE at L; error: b" in row["ours"]
    assert "NMSE a 0.50, b 0.60, not ×5 below" in row["negative_control"]
    assert not fig4_row(grid, control, base, 10.0, ranks_ok=True, long=4)["holds"]
    assert not fig4_row(grid, control, base, 5.0, ranks_ok=False, long=4)["holds"]
    assert fig4_lines({"a": 0.02}, control, base).startswith(
        "a: best NMSE 0.020; identity activation 0.500; baselines ignores input 1.000, linear"
    )
    assert nmse_line("d", 0.9, {"linear": 1.0}) == "d: NMSE 0.900; baselines linear 1.000"
