"""The exponential-memory claim checks on memories with known rates, and their negative controls."""

import numpy as np
import pytest

from lrnn_core.wang_xue.claims import power_law_memory
from lrnn_core.wang_xue.memory_checks import (
    PAPER_PATTERN,
    appa_checks,
    fig5_checks,
    fig6_checks,
    steps_to,
    table1_checks,
)
from lrnn_core.wang_xue.memory_experiments import (
    RNNMemory,
    S4Memory,
    StackMemory,
    Table1Memories,
    TwoLayerProbe,
    stack_window,
)
from lrnn_core.wang_xue.two_layer import two_layer_memory

L = 500
K = np.arange(L, dtype=float)


def _stack(r, depth=1):
    slow = -np.log(r)
    return StackMemory(depth, r**K, stack_window(slow, L), 2 * r**K, slow)


def test_steps_to_counts_from_the_peak():
    assert steps_to(0.5 ** np.arange(40.0)) == 20  # 2^-20 < 1e-6 < 2^-19
    assert steps_to(np.r_[0.1, 0.5 ** np.arange(40.0)]) == 21
    assert steps_to(np.ones(10)) == 10  # never below: the length


def test_fig5_accepts_exponentials_at_their_rate_and_rejects_the_power_law():
    stacks = [_stack(0.9, 1), _stack(0.8, 2)]
    rnns = [RNNMemory(0.7**K, -np.log(0.7))]
    got = fig5_checks(stacks, rnns, power_law_memory(K))
    assert got.holds and got.thm_holds
    assert [c[1] for c in got.stacks] == pytest.approx([1.0, 1.0], rel=1e-6)
    assert [b.ratio for b in got.bounds] == pytest.approx([0.5, 0.5], rel=1e-9)
    assert not any(c[0] for c in got.control_stacks) and not got.control_rnn[0]
    assert not any(c.holds for c in got.control_bounds)
    assert got.control_fit.r2 > 0.99  # a log-linear fit alone does not reject it
    text = got.rates_text().splitlines()
    assert text[0] == (
        f"depth 1: slowest layer rate {-np.log(0.9):.4f}, fitted / slowest 1.000; "
        "max m/bound 5.00e-01"
    )
    assert text[-1] == "RNNs, fitted / linearised rate: ['1.00']"
    assert got.summary_text().startswith("fitted / theory rate: stacks 1.00–1.00, RNNs 1.00–1.00")
    row, thm = got.row(), got.thm_row()
    assert (
        row["holds"]
        and "1 RNNs 1.00–1.00" in row["ours"]
        and "< 0.5, rejected" in row["negative_control"]
    )
    assert thm["holds"] and "max m_k / bound_k = 0.500" in thm["ours"]
    assert (row["claim"], thm["claim"]) == ("Wang-Xue Fig 5", "Wang-Xue Thm 3.13 (check)")
    assert "max over 2 stacks of max_k m_k / bound_k: 0.500" in got.thm_text()


def test_fig5_fails_a_stack_above_its_bound_or_slower_than_half_its_rate():
    slow = _stack(0.9)._replace(slow=-3 * np.log(0.9), bound=0.5 * 0.9**K)
    got = fig5_checks([slow], [RNNMemory(0.7**K, -np.log(0.7))], power_law_memory(K))
    assert not got.holds and not got.row()["holds"]
    assert got.stacks[0][1] == pytest.approx(1 / 3, rel=1e-6)
    assert not got.thm_holds and got.bounds[0].ratio == pytest.approx(2.0)


def test_fig6_reads_the_tail_rate_and_rejects_the_power_law():
    dt, t = 0.02, np.arange(1400, dtype=float)
    rate = -np.log((1 - dt / 2) / (1 + dt / 2))
    s4 = S4Memory(N=4, dt=dt, t=t, m=np.exp(-rate * t), rate=rate)
    got = fig6_checks(s4, [0.5 ** np.arange(40.0)], power_law_memory(t))
    assert got.holds and not got.control_holds
    assert got.fit_tail.rate == pytest.approx(rate, rel=1e-9) and got.fit_tail.r2 > 0.999999
    assert got.steps == int(np.ceil(np.log(1e6) / rate)) and got.naive_steps == [20]
    assert (
        got.steps_text()
        == f"steps to 1e-6 of the peak: S4-style layer {got.steps}, naive stacks 20–20"
    )
    assert got.fit_text().startswith(f"S4 (N = 4): tail rate {rate:.5f} (R² 1.00000)")
    assert got.row()["holds"] and "N=4, Δt=0.02" in got.row()["ours"]


def _probe(a, gap, dt, t, offset):
    closed = two_layer_memory(a, a + gap, t)
    return TwoLayerProbe(gap, t, closed + offset, closed, 0.0, offset)


def test_appa_accepts_within_dt_rejects_one_layer_and_a_probe_off_by_2dt():
    a, dt = 0.5, 0.01
    t = dt * np.arange(2000)
    probes = [_probe(a, g, dt, t, dt / 2) for g in (1.0, 0.1, 0.0)]
    got = appa_checks(probes, a, dt, np.exp(-a * t))
    assert got.holds and not any(got.control)
    assert got.control_gap == pytest.approx(
        min(np.abs(np.exp(-a * t) - p.closed).max() for p in probes)
    )
    assert 0 < got.limit_gap <= 1e-3 * np.max(t**2 * np.exp(-a * t)) / 2
    assert got.probe_text().splitlines()[1] == (
        "b - a = 0.1: probe vs discrete closed form 0.0e+00 (relative); vs (38) 5.0e-03 "
        "(bound Δt = 0.01)"
    )
    assert got.limit_text() == f"b - a = 1e-3: largest gap to t e^(-at) {got.limit_gap:.2e}"
    off = appa_checks([_probe(a, 1.0, dt, t, 2 * dt)], a, dt, np.exp(-a * t))
    assert not off.within_dt and not off.holds and not off.row()["holds"]


def _table1(rnn_r=0.8, ssm_r=0.9, tcn=(1.0, 1.0, 1.0, 1.0)):
    att = 1 / (1 + np.arange(400.0))
    return Table1Memories(
        rnn=rnn_r**K, rnn_rate=-np.log(rnn_r), ssm=ssm_r**K, ssm_rate=-np.log(ssm_r),
        ssm_window=stack_window(-np.log(ssm_r), L), tcn=np.r_[tcn, np.zeros(L - len(tcn))],
        R=4, attention=att, attention_closed=att.copy(),
    )  # fmt: skip


def test_table1_reads_each_pattern_and_rejects_its_controls():
    got = table1_checks(_table1(), power_law_memory(K))
    assert got.holds
    assert got.rnn[1] == pytest.approx(1.0, rel=1e-6) and got.ssm[1] == pytest.approx(1.0)
    assert got.tcn_finite and got.attention_exact and not got.attention[0]
    assert got.loglog == pytest.approx(-1.0, abs=0.01)
    assert not got.control_power[0] and not got.control_tcn
    lines = got.pattern_text().splitlines()
    assert len(lines) == 1 + len(PAPER_PATTERN)
    assert lines[3] == (
        "TCN          | low rank                       | finite support: zero after 4 steps "
        "(max beyond: 0e+00)"
    )
    assert got.row()["status"] == "weaker" and "RNN: exponential: 1.00 ×" in got.row()["ours"]
    assert got.row()["claim"] == "Wang-Xue Table 1"


def test_table1_fails_when_the_tcn_leaks_past_its_receptive_field():
    got = table1_checks(_table1(tcn=(1.0, 1.0, 1.0, 1.0, 1e-3)), power_law_memory(K))
    assert not got.tcn_finite and not got.holds
