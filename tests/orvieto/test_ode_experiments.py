"""The ODE-flow experiments of Orvieto et al. (ICML 2024, §4.2, App. E.3): the model against a
NumPy recurrence, frozen Lambda, per-run learning rates, sharding over two devices."""

import json
import os
import subprocess
import sys
import textwrap

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from flax import nnx

from lrnn_core.orvieto.ode_experiments import (
    OUTPUT_SCALE,
    ModelConfig,
    _plain_forward,
    _with_constant,
    load_paper_results,
    make_dataset,
    make_model,
    relative_change,
    sweep,
)
from lrnn_core.orvieto.odes import low_frequency_inputs, ode, solve

SMALL = {"seeds": [3, 4], "epochs": 2, "batch_size": 8}


@pytest.fixture(scope="module")
def lv():
    return make_dataset("LV", 16, 8, seed=0, L=64)


@pytest.fixture(scope="module")
def lv_sweep(lv):
    return sweep(ModelConfig(4, 0), lv, lrs=[0.01, 0.003], **SMALL)


def test_dataset_outputs_are_the_scaled_first_coordinate():
    d = make_dataset("LZ", 3, 2, seed=5, L=64)
    rng = np.random.default_rng(5)
    v = low_frequency_inputs(rng, 8, 64, amplitude=1.0)  # the first draw of make_dataset
    y = OUTPUT_SCALE["LZ"] * solve(ode("LZ")._replace(L=64), v)
    np.testing.assert_allclose(d.v_train, v[:3], rtol=1e-6)
    np.testing.assert_allclose(d.y_test, y[3:5], rtol=1e-5, atol=1e-6)
    assert OUTPUT_SCALE["LZ"] == 0.1 and d.dropped == 0.0


def test_model_is_the_recurrence_with_a_constant_channel():
    """Predictions equal x_k = lam x_{k-1} + gamma B [v_k, 1], y_k = W [Re x, Im x] + b in NumPy."""
    model = make_model(ModelConfig(3, 0), nnx.Rngs(0))
    v = np.random.default_rng(1).standard_normal((2, 20)).astype(np.float32)
    lam = np.asarray(model.lru.eigenvalues(), np.complex128)
    lru = model.lru
    B = (np.asarray(lru.B_re[...]) + 1j * np.asarray(lru.B_im[...])) * np.exp(
        np.asarray(lru.gamma_log[...])
    )[:, None]
    layer = model.head.layers[0]
    W, b = np.asarray(layer.kernel[...]), np.asarray(layer.bias[...])
    want = np.zeros_like(v, dtype=np.float64)
    for n in range(2):
        x = np.zeros(3, complex)
        for k in range(20):
            x = lam * x + B @ np.array([v[n, k], 1.0])
            want[n, k] = (np.concatenate([x.real, x.imag]) @ W + b)[0]
    got = np.asarray(model(_with_constant(jnp.asarray(v)))[..., 0])
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    # the hand-written lax.scan model of the timing comparison computes the same thing
    p = {
        "nu": lru.nu_log[...],
        "theta": lru.theta_log[...],
        "B_re": lru.B_re[...],
        "B_im": lru.B_im[...],
        "W2": W,
        "b2": b,
    }
    np.testing.assert_allclose(_plain_forward(p, jnp.asarray(v)), want, rtol=1e-4, atol=1e-5)


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
    pred = lv_sweep.model(i, j, 1)(_with_constant(jnp.asarray(lv.v_test)))[..., 0]
    mse = np.mean((np.asarray(pred, np.float64) - lv.y_test) ** 2)
    assert lv_sweep.test_mse[i, j, 1] == pytest.approx(mse, rel=1e-4)
    s = lv_sweep.summary(1)
    assert s["best"] == pytest.approx(lv_sweep.test_mse[..., 1].min())
    assert s["min"] <= s["median"] <= s["max"]


_TWO_DEVICES = textwrap.dedent(
    """
    import json, jax, jax.numpy as jnp
    from lrnn_core.orvieto.ode_experiments import ModelConfig, _shard_runs, make_dataset, sweep
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


def test_relative_change_matches_its_definition():
    y = np.array([[0.0, 1.0, 2.0], [1.0, 1.0, 1.0]])
    y2 = y + np.array([[0.0, 0.5, 0.0], [0.1, -0.2, 0.0]])
    np.testing.assert_allclose(relative_change(y, y2), np.array([0.5, 0.2]) / np.std(y))


def test_load_paper_results_checks_provenance_and_rows(tmp_path):
    prov = {"commit": "a", "command": "c", "device": "d", "jax_version": jax.__version__}
    prov |= {"seeds": [1], "wall_s": 1.0}
    row = {"claim": "Orvieto Fig 5", "commit": "a", "best": 1, "median": 2, "min": 1, "max": 3}
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"provenance": prov, "rows": [row]}))
    assert load_paper_results(path)["rows"][0]["best"] == 1
    path.write_text(json.dumps({"provenance": {"commit": "a"}, "rows": []}))
    with pytest.raises(ValueError, match="provenance lacks"):
        load_paper_results(path)
    path.write_text(json.dumps({"provenance": prov, "rows": [row | {"best": float("nan")}]}))
    with pytest.raises(ValueError, match="non-finite"):
        load_paper_results(path)


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
    with pytest.raises(ValueError, match="system must be one of"):
        make_dataset("VdP", 2, 2, seed=0)
