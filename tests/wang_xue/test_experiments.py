"""The Fig. 4 driver: delay product, NMSE, baselines, and a short training run."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from lrnn_core.wang_xue import experiments
from lrnn_core.wang_xue.experiments import (
    baseline_nmse,
    delay_product,
    nmse,
    normalised,
    train_grid,
    train_stack,
)


def test_delay_product_and_nmse():
    u = jnp.arange(1.0, 11.0)
    y = np.asarray(delay_product(u, 1, 3))
    np.testing.assert_array_equal(y[:3], 0)
    np.testing.assert_array_equal(y[3:], (np.arange(3, 10) * np.arange(1, 8)))
    assert nmse(np.zeros(4), np.ones(4)) == 1.0
    assert nmse(np.ones(4), np.ones(4)) == 0.0


def test_baselines_of_a_linear_and_a_product_target():
    u_tr = jax.random.normal(jax.random.PRNGKey(0), (512, 16))
    u_te = jax.random.normal(jax.random.PRNGKey(1), (256, 16))
    lin = baseline_nmse(lambda u: jnp.pad(u, ((0, 0), (2, 0)))[:, :16], u_tr, u_te)
    assert lin["linear"] < 1e-6 and lin["ignores input"] > 0.9
    prod = baseline_nmse(delay_product, u_tr, u_te)
    assert prod["linear"] > 0.9  # no linear map predicts u_{k-3} u_{k-7}


def test_training_beats_zero_on_a_linear_target():
    u_te = jax.random.normal(jax.random.PRNGKey(2), (64, 16))
    run = train_stack(
        lambda u: u, depth=1, N=4, L=16, steps=60, seeds=(0,), u_test=u_te,
        activation="identity",
    )  # fmt: skip
    assert run["nmse"] < 0.5 and run["pred"].shape == (16,)


def test_normalised_has_unit_spread_on_the_test_inputs():
    u_te = jax.random.normal(jax.random.PRNGKey(3), (8, 16))
    f = normalised(lambda u: 3 * u + 1, u_te)
    assert float(jnp.std(f(u_te))) == pytest.approx(1.0, rel=1e-5)
    np.testing.assert_allclose(f(jnp.ones(2)), 4 / float(jnp.std(3 * u_te + 1)), rtol=1e-6)
    with pytest.raises(ValueError, match="constant"):
        normalised(lambda u: 0 * u, u_te)


def test_train_grid_runs_every_target_depth_and_width_in_order(monkeypatch):
    calls = []

    def fake(target, **kw):
        calls.append((target, kw))
        return {"nmse": float(len(calls))}

    monkeypatch.setattr(experiments, "train_stack", fake)
    u = np.zeros((2, 4))
    grid = train_grid(
        {"a": "A", "b": "B"}, depths=(1, 2), Ns=(4,), L=4, steps=3, seeds=(7,), u_test=u
    )
    assert list(grid) == [("a", 1, 4), ("a", 2, 4), ("b", 1, 4), ("b", 2, 4)]
    assert [g["nmse"] for g in grid.values()] == [1.0, 2.0, 3.0, 4.0]
    target, kw = calls[2]
    assert target == "B" and kw["depth"] == 1 and kw["N"] == 4 and kw["steps"] == 3
    assert kw["seeds"] == (7,) and kw["L"] == 4 and kw["u_long"] is None
