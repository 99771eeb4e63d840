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
    Plan,
    SystemSizes,
    _optimizer,
    baselines,
    beats,
    claim_status,
    filter_prediction,
    load_paper_results,
    lobe_change_share,
    make_dataset,
    make_model,
    nonlinearity,
    relative_change,
    run_plan,
    sweep,
    with_constant,
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
    got = np.asarray(model(with_constant(jnp.asarray(v)))[..., 0])
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


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


def test_baselines_are_the_core_baselines_on_the_test_set(lv):
    from lrnn_core.core.baselines import causal_filter_mse, ignores_input_mse

    b = baselines(lv)
    assert b["ignores input"] == ignores_input_mse(lv.y_train, lv.y_test)
    assert b["linear"] == causal_filter_mse(lv.v_train, lv.y_train, lv.v_test, lv.y_test)
    # the filter's predictions give the same test error
    pred = filter_prediction(lv.v_train, lv.y_train, lv.v_test)
    assert np.mean((pred - lv.y_test) ** 2) == pytest.approx(b["linear"], rel=1e-9)
    with pytest.raises(TypeError, match="Dataset"):
        baselines({"v": 1})


def test_beats_is_error_times_margin_below_the_better_baseline():
    base = {"ignores input": 0.1, "linear": 0.02}
    assert beats(0.002, base, 10.0) and not beats(0.0021, base, 10.0)
    assert beats(0.02, base, 1.0) and not beats(0.03, base, 1.0)
    with pytest.raises(ValueError, match="margin"):
        beats(0.1, base, -1.0)
    with pytest.raises(ValueError, match="at least one"):
        beats(0.1, {}, 2.0)


def test_claim_status_from_the_two_checks():
    assert claim_status(True, True) == "reproduced"
    assert claim_status(True, False) == "reproduced"
    assert claim_status(False, True) == "weaker"
    assert claim_status(False, False) == "not reproduced"
    with pytest.raises(TypeError):
        claim_status(1, True)


def test_lobe_change_share_is_the_share_of_steps_on_the_other_lobe():
    ref = np.array([1.0, 2.0, 3.0, -1.0])
    y = np.array([[1.0, 2.0, 3.0, -2.0], [1.0, -2.0, 3.0, -1.0], [-1.0, -2.0, 3.0, 1.0]])
    assert lobe_change_share(y, ref) == pytest.approx(4 / 12)
    assert lobe_change_share(ref[None], ref) == 0.0
    # one reference per row
    assert lobe_change_share(y, y[[0, 0, 0]]) == pytest.approx(4 / 12)
    with pytest.raises(ValueError, match="y_ref must have shape"):
        lobe_change_share(y, ref[:3])


def test_nonlinearity_is_the_second_over_the_first_difference():
    from lrnn_core.orvieto.odes import low_frequency_inputs

    second, share = nonlinearity("PT", 0.5, 4, seed=2, L=64)
    spec = ode("PT")._replace(L=64)
    v = low_frequency_inputs(np.random.default_rng(2), 4, 64, amplitude=0.5)
    y = solve(spec, np.concatenate([0 * v[:1], v, 2 * v]))
    y0, y1, y2 = y[:1], y[1:5], y[5:]
    want = np.linalg.norm(y2 - 2 * y1 + y0) / np.linalg.norm(2 * (y1 - y0))
    assert second == pytest.approx(want, rel=1e-6)
    assert share == pytest.approx(np.var(y1 - y1.mean(0)) / np.var(y1), rel=1e-6)
    # a smaller amplitude is closer to linear (the PT map is smooth)
    assert nonlinearity("PT", 0.05, 4, seed=2, L=64)[0] < second / 3


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


def test_run_plan_runs_the_named_experiments_on_given_data(lv):
    plan = Plan(*[SystemSizes(64, 16, 8, 4, 8, 2, 8)] * 3, seeds=(3,), lrs=(0.01,))
    done = []
    data, sweeps = run_plan(
        plan,
        data_seed=0,
        experiments=["LV linear"],
        data={"LV": lv},
        on_done=lambda key, sw: done.append((key, sw.test_mse.shape)),
    )
    assert list(data) == ["LV"] and data["LV"] is lv
    assert done == [("LV linear", (1, 1, 2))] and list(sweeps) == ["LV linear"]
    with pytest.raises(ValueError, match="experiment must be one of"):
        run_plan(plan, data_seed=0, experiments=["VdP MLP"])
