"""The vectorised ODE sweep of Orvieto et al. (ICML 2024, §4.2, App. E.3): frozen Lambda,
per-run learning rates, the cosine schedule, sharding over two devices."""

import json
import os
import subprocess
import sys
import textwrap

import jax.numpy as jnp
import numpy as np
import pytest
from flax import nnx

from lrnn_core.orvieto.ode_data import make_dataset
from lrnn_core.orvieto.ode_model import ModelConfig, make_model, with_constant
from lrnn_core.orvieto.ode_sweep import _optimizer, sweep

SMALL = {"seeds": [3, 4], "epochs": 2, "batch_size": 8}


@pytest.fixture(scope="module")
def lv():
    return make_dataset("LV", 16, 8, seed=0, L=64)


@pytest.fixture(scope="module")
def lv_sweep(lv):
    return sweep(ModelConfig(4, 0), lv, lrs=[0.01, 0.003], **SMALL)


def test_frozen_lambda_stays_at_its_initialisation_and_trained_lambda_moves(lv_sweep):
    for i, seed in enumerate(lv_sweep.seeds):
        init = make_model(lv_sweep.config, nnx.Rngs(seed)).lru
        for j in range(len(lv_sweep.lrs)):
            frozen = lv_sweep.model(i, j, 0).lru
            trained = lv_sweep.model(i, j, 1).lru
            np.testing.assert_array_equal(frozen.nu_log[...], init.nu_log[...])
            np.testing.assert_array_equal(frozen.theta_log[...], init.theta_log[...])
            assert np.abs(trained.theta_log[...] - init.theta_log[...]).max() > 1e-6
            # B and the readout are trained in both modes
            assert np.abs(frozen.B_re[...] - init.B_re[...]).max() > 1e-6


def test_each_run_of_the_sweep_equals_the_same_run_alone(lv, lv_sweep):
    """The vmapped sweep of rates 0.01 and 0.003 gives, for 0.003, what a sweep of 0.003 gives."""
    alone = sweep(ModelConfig(4, 0), lv, lrs=[0.003], **SMALL)
    np.testing.assert_allclose(alone.test_mse[:, 0], lv_sweep.test_mse[:, 1], rtol=2e-5)
    np.testing.assert_allclose(alone.train_loss[:, 0], lv_sweep.train_loss[:, 1], rtol=2e-5)
    assert not np.allclose(lv_sweep.test_mse[:, 0], lv_sweep.test_mse[:, 1])
    # the recorded test MSE is the mean squared error of the returned parameters
    i, j = 1, 0
    pred = lv_sweep.model(i, j, 1)(with_constant(jnp.asarray(lv.v_test)))[..., 0]
    mse = np.mean((np.asarray(pred, np.float64) - lv.y_test) ** 2)
    assert lv_sweep.test_mse[i, j, 1] == pytest.approx(mse, rel=1e-4)
    s = lv_sweep.summary(1)
    assert s["best"] == pytest.approx(lv_sweep.test_mse[..., 1].min())
    assert s["min"] <= s["median"] <= s["max"]


_TWO_DEVICES = textwrap.dedent(
    """
    import json, jax, jax.numpy as jnp
    from lrnn_core.orvieto.ode_data import make_dataset
    from lrnn_core.orvieto.ode_model import ModelConfig
    from lrnn_core.orvieto.ode_sweep import _shard_runs, sweep
    assert jax.device_count() == 2, jax.devices()
    assert len(_shard_runs(jnp.zeros(8), 8).sharding.device_set) == 2
    lv = make_dataset("LV", 16, 8, seed=0, L=64)
    sw = sweep(ModelConfig(4, 0), lv, lrs=[0.01, 0.003], seeds=[3, 4], epochs=2, batch_size=8)
    print(json.dumps({"test": sw.test_mse.tolist(), "train": sw.train_loss.tolist()}))
    """
)


def test_sharded_over_two_cpu_devices_gives_the_one_device_numbers(lv_sweep):
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=2")
    env["JAX_PLATFORMS"] = "cpu"
    out = subprocess.run(
        [sys.executable, "-c", _TWO_DEVICES], env=env, capture_output=True, text=True, check=True
    )
    two = json.loads(out.stdout.strip().splitlines()[-1])
    np.testing.assert_allclose(two["test"], lv_sweep.test_mse, rtol=1e-5)
    np.testing.assert_allclose(two["train"], lv_sweep.train_loss, rtol=1e-5)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"lrs": []}, ValueError, "must not be empty"),
        ({"lrs": [-1.0]}, ValueError, "learning rate"),
        ({"batch_size": 100}, ValueError, "exceeds"),
    ],
)
def test_bad_sweep_arguments_raise(lv, kwargs, error, match):
    args = {"lrs": [0.01], **SMALL} | kwargs
    with pytest.raises(error, match=match):
        sweep(ModelConfig(4, 0), lv, **args)


def test_learning_rate_decays_on_a_cosine_to_zero():
    params = {"w": jnp.ones(3), "nu_log": jnp.ones(2)}
    tx = _optimizer(10)
    state = tx.init(params)
    state.hyperparams["learning_rate"] = jnp.asarray(0.1)
    grads = {"w": jnp.ones(3), "nu_log": jnp.ones(2)}
    steps = []
    for _ in range(11):
        updates, state = tx.update(grads, state, params)
        steps.append(float(-updates["w"][0]))
    # Adam's first normalised step is 1: the update is the scheduled rate itself
    assert steps[0] == pytest.approx(0.1, rel=1e-3)
    assert steps[5] == pytest.approx(0.1 * 0.5 * (1 + np.cos(np.pi * 5 / 10)), rel=1e-3)
    assert steps[10] == pytest.approx(0.0, abs=1e-9)
    frozen = tx.init(params)
    frozen.hyperparams["train_lambda"] = jnp.asarray(0.0)
    updates, _ = tx.update(grads, frozen, params)
    assert float(updates["nu_log"][0]) == 0.0 and float(updates["w"][0]) != 0.0
