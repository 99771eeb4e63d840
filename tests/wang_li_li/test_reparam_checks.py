"""Tests of lrnn_core.wang_li_li.reparam_checks on numbers: made-up E_m(beta) sets where the
answer is known by hand (direct far above stable, a control that must fail), the crossing window
of hand-built models, the bias prediction against bias_response_error."""

import numpy as np
import pytest

from lrnn_core.wang_li_li import reparam_checks as checks
from lrnn_core.wang_li_li.ctrnn import CTRNN
from lrnn_core.wang_li_li.perturbation import bias_response_error

BETAS = np.array([0.0, 1e-3, 1.0])  # widths (2, 32): only beta = 1 is past 32^-1.5


def _sets(narrow, widest):
    """(sets, 2 widths, 3 betas): the narrow model at ``narrow``, the widest at ``widest``."""
    widest = np.asarray(widest, float)
    E = np.empty((len(widest), 2, 3))
    E[:, 0], E[:, 1] = narrow, widest[:, None]
    return E


def test_fig4_check_direct_far_above_stable_and_the_control_fails():
    direct = _sets(1.0, 100.0 + np.arange(10))
    stable = _sets(1.0, 1.0 + 0.01 * np.arange(10))
    sets = {"direct": direct, "exp": stable, "softplus": stable, "inverse": stable}
    c = checks.fig4_check(sets, [2, 32], BETAS)
    np.testing.assert_array_equal(c.past, [False, True])
    np.testing.assert_allclose(c.growth["direct"][:, 1], 100.0 + np.arange(10))
    assert c.holds and c.growth_above[1] and c.widest_above[1]
    # direct sets 1-5 (100..104) are not above sets 6-10 (105..109)
    assert not c.control and not c.control_widest[1]
    assert c.widest_ratio[1] == pytest.approx(100.0 / 1.09)
    # a stable value above the lowest direct one breaks the separation
    high = stable.copy()
    high[3, 1] = 150.0
    assert not checks.fig4_check({**sets, "exp": high}, [2, 32], BETAS).holds


def _model(lam):
    n = len(lam)
    return CTRNN(raw=np.asarray(lam), B=np.ones((n, 1)), b=np.zeros(n), C=np.ones((1, n)))


def test_window_check_by_hand():
    betas = np.array([0.0, 5e-4, 5e-3, 5e-2, 0.5])
    models = [_model([-0.5, -0.01]), _model([-0.5, -0.1, -0.001])]
    grow = np.ones((4, 2, 5))
    grow[:, 1] = 10.0 + np.arange(4)[:, None]  # widest above narrowest everywhere
    flat = np.ones((4, 2, 5)) + 0.01 * np.arange(4)[:, None, None]
    sets = {("tanh", "direct"): grow, ("tanh", "exp"): flat}
    c = checks.window_check(sets, models, betas, {"tanh": ("direct", "exp")})
    assert (c.lo, c.hi, c.j_below) == (pytest.approx(0.001), pytest.approx(0.01), 1)
    np.testing.assert_array_equal(c.window, [False, False, True, False, False])
    assert c.above["tanh"] and c.grows["tanh", "direct"] and not c.grows["tanh", "exp"]


def test_bias_check_is_bias_response_error_per_width():
    models = [_model([-0.5, -0.1]), _model([-0.5, -0.1, -0.01])]
    growth = np.ones((3, 2, 3))
    growth[:, 1] = 4.0
    sets = {(a, p): growth for a in ("hardtanh", "tanh") for p in ("exp", "softplus")}
    frozen = {k: growth[0] * 0.5 + np.array([[0.0], [1.0]]) for k in sets}
    c = checks.bias_check(models, sets, frozen, L=20, dt=1.0, seed=3)
    want = [
        bias_response_error(m.raw, m.C[0], 20, dt=1.0, rng=np.random.default_rng(3)) for m in models
    ]
    np.testing.assert_allclose(c.prediction, want)
    assert c.growth == pytest.approx(want[1] / want[0]) and c.growth > 1  # slower mode
    np.testing.assert_allclose(c.stable["tanh", "exp"], [4.0, 4.0])
    np.testing.assert_allclose(c.frozen["tanh", "exp"], [6.0, 6.0])  # (2 + 1) / 0.5


def test_fig7_check_fit_and_never_cross(monkeypatch):
    first = {
        ("relu", "direct"): np.array([[0.5, 1.0], [0.6, 1.0]]),
        ("relu", "softplus"): np.array([[0.5, 1.0], [0.6, 1.0]]),
        ("tanh", "direct"): np.array([[0.1, 1.0], [0.01, 1.0]]),
    }
    monkeypatch.setattr(checks, "crossed_zero", lambda *a, **k: np.zeros((2, 3), bool))
    models = {k: [None, None] for k in first}
    c = checks.fig7_check(first, models, BETAS, True, key=None, draws=3, perturbed="all")
    np.testing.assert_array_equal(c.relu_e0, [[0.5, 0.6], [0.5, 0.6]])
    assert not c.relu_fits and c.never_cross and not c.holds  # worse than 0.1
    monkeypatch.setattr(checks, "crossed_zero", lambda *a, **k: np.ones((2, 3), bool))
    assert not checks.fig7_check(
        first, models, BETAS, True, key=None, draws=3, perturbed="all"
    ).never_cross


def test_fig8_check_and_same_fit():
    grows = {
        (a, p): p == "direct" for a in ("hardtanh", "tanh") for p in checks.STABLE + ("direct",)
    }
    e0 = np.array([[1.0, 2.0], [1.0, 2.0]])
    first = {(a, p): e0 for (a, p) in grows}
    c = checks.fig8_check(grows, first)
    assert c.stable_bounded and c.direct_grows and c.holds and c.same_fit
    first["tanh", "exp"] = e0 * 1.02  # fits 2 % worse
    assert not checks.fig8_check({**grows, ("tanh", "exp"): True}, first).same_fit
    assert not checks.fig8_check({**grows, ("tanh", "exp"): True}, first).holds


def test_tail_check_by_hand():
    memories = {
        ("tanh", "direct"): np.array([[1.0, 1.0, 1.0], [0.0, 5.0, 3.0], [0.0, 0.1, 0.2]]),
        **{
            ("tanh", p): np.array([[1, 1, 1], [0, 0.5, 0.4]])
            for p in ("exp", "softplus", "inverse")
        },
    }
    crossed = {("tanh", "direct"): np.array([True, False])}
    c = checks.tail_check(memories, crossed, "tanh", tail=2)
    np.testing.assert_array_equal(c.direct, [5.0, 0.2])
    assert c.stable == 0.5
    np.testing.assert_array_equal(c.crossed, [True, False])
