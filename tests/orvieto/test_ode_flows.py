"""Learning controlled ODE flows (Orvieto et al., ICML 2024, §4.2, App. E.3; Figs. 5, 13-16): the
data sets and baselines, the model against a NumPy recurrence, the vectorised sweep (frozen
Lambda, per-run rates, the cosine schedule, sharding), the run plans, the stored runs and their
provenance, the measures the chapter's rules use, and the sensitivity measures of Fig. 13."""

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

from lrnn_core.orvieto import ode_flows as flows
from lrnn_core.orvieto.ode_flows import (
    AMPLITUDE,
    CI_PLAN,
    CPU_PLAN,
    EXPERIMENTS,
    MARGIN,
    OUTPUT_SCALE,
    PAPER_MSE,
    PAPER_PLAN,
    PHASE,
    ModelConfig,
    Plan,
    SystemSizes,
    _optimizer,
    baselines,
    best,
    filter_prediction,
    gain,
    load_paper_results,
    load_stored_run,
    lobe_change_share,
    make_dataset,
    make_model,
    model_mse,
    mse_rows,
    nonlinearity,
    ordered,
    perturbed_outputs,
    provenance,
    provenance_mismatches,
    r2,
    relative_change,
    run_plan,
    seed_spread,
    sensitivity_run,
    superseded,
    sweep,
    with_constant,
)
from lrnn_core.orvieto.odes import low_frequency_inputs, ode, solve

SMALL = {"seeds": [3, 4], "epochs": 2, "batch_size": 8}


@pytest.fixture(scope="module")
def lv():
    return make_dataset("LV", 16, 8, seed=0, L=64)


# --- data sets and baselines ---


def test_dataset_outputs_are_the_scaled_first_coordinate():
    d = make_dataset("LZ", 3, 2, seed=5, L=64)
    rng = np.random.default_rng(5)
    v = low_frequency_inputs(rng, 8, 64, amplitude=1.0)  # the first draw of make_dataset
    y = OUTPUT_SCALE["LZ"] * solve(ode("LZ")._replace(L=64), v)
    np.testing.assert_allclose(d.v_train, v[:3], rtol=1e-6)
    np.testing.assert_allclose(d.y_test, y[3:5], rtol=1e-5, atol=1e-6)
    assert OUTPUT_SCALE["LZ"] == 0.1 and d.dropped == 0.0


def test_baselines_are_the_core_baselines_on_the_test_set(lv):
    from lrnn_core.core.baselines import causal_filter_mse, ignores_input_mse, linear_mses

    b = baselines(lv)
    assert b["ignores input"] == ignores_input_mse(lv.y_train, lv.y_test)
    filt = causal_filter_mse(lv.v_train, lv.y_train, lv.v_test, lv.y_test)
    assert b["time-invariant filter"] == filt
    lin = linear_mses(lv.v_train, lv.y_train, lv.v_test, lv.y_test)
    assert b["time-varying map"] == lin["time-varying map"]
    # "linear" is the better of the two linear maps; the rule sees it and "ignores input"
    assert b["linear"] == min(filt, lin["time-varying map"])
    assert flows.rule_baselines(b) == {"ignores input": b["ignores input"], "linear": b["linear"]}
    # the filter's predictions give the same test error
    pred = filter_prediction(lv.v_train, lv.y_train, lv.v_test)
    assert np.mean((pred - lv.y_test) ** 2) == pytest.approx(filt, rel=1e-9)
    with pytest.raises(TypeError, match="Dataset"):
        baselines({"v": 1})


def test_stored_baselines_read_old_and_new_entries():
    old = {"ignores input": 0.5, "linear": 0.2, "dropped": 0.0}  # "linear": the filter
    assert flows.stored_baselines(old) == {
        "ignores input": 0.5, "time-invariant filter": 0.2, "linear": 0.2,
    }  # fmt: skip
    added = old | {"time-varying map": 0.05, "digest": {}}
    assert flows.stored_baselines(added) == {
        "ignores input": 0.5, "time-invariant filter": 0.2, "time-varying map": 0.05,
        "linear": 0.05,
    }  # fmt: skip
    new = {"ignores input": 0.5, "time-invariant filter": 0.2, "time-varying map": 0.3}
    assert flows.stored_baselines(new | {"linear": 0.2})["linear"] == 0.2


def test_first_pairs_are_make_datasets_first_training_pairs():
    sizes = SystemSizes(L=64, n_train=12, n_test=4, N=4, D=4, epochs=1, batch_size=4)
    full = make_dataset("LV", 12, 4, seed=3, L=64, amplitude=AMPLITUDE["LV"])
    few = flows.first_pairs("LV", sizes, seed=3, k=3)
    np.testing.assert_array_equal(few.v_train, full.v_train[:3])
    np.testing.assert_allclose(few.y_train, full.y_train[:3], rtol=1e-6)
    d, d_few = flows.digest(full, 3), flows.digest(few, 3)
    assert len(d["v"]) == 3 and len(d["y"][0]) == 8
    assert d["v"][1][-1] == float(full.v_train[1, 63]) and d["y"][2][0] == float(full.y_train[2, 0])
    np.testing.assert_allclose(d_few["y"], d["y"], rtol=1e-6)
    with pytest.raises(ValueError, match="fewer than k"):
        flows.first_pairs("LV", sizes, seed=3, k=13)


def test_regenerate_draws_the_provenances_data():
    sizes = {"L": 64, "n_train": 6, "n_test": 2}
    prov = {"data_seed": 5, "sizes": {"LV": sizes}}
    prov["superseded"] = {"LV": {"sizes": sizes | {"n_train": 4}}}
    run = _run(prov)
    again = flows.regenerate(run, "LV")
    want = make_dataset("LV", 6, 2, seed=6, L=64)  # LV is system 1: data_seed + 1
    np.testing.assert_array_equal(again.v_train, want.v_train)
    first = flows.regenerate(run, "LV", first_run=True)
    assert first.v_train.shape == (4, 64)


def test_unknown_system_raises():
    with pytest.raises(ValueError, match="system must be one of"):
        make_dataset("VdP", 2, 2, seed=0)


# --- the model ---


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


def test_model_mse_is_the_mean_squared_error_of_the_predictions():
    model = make_model(ModelConfig(3, 5), nnx.Rngs(2))
    v = jnp.asarray(np.random.default_rng(3).standard_normal((2, 7)), jnp.float32)
    y = jnp.arange(14.0, dtype=jnp.float32).reshape(2, 7) / 10
    graphdef, params, rest = nnx.split(model, nnx.Param, ...)
    want = np.mean((np.asarray(model(with_constant(v))[..., 0], np.float64) - np.asarray(y)) ** 2)
    assert float(model_mse(graphdef, rest, params, v, y)) == pytest.approx(want, rel=1e-5)
    np.testing.assert_array_equal(with_constant(jnp.zeros((1, 2)))[0], [[0.0, 1.0], [0.0, 1.0]])


# --- the sweep ---


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
    from lrnn_core.orvieto.ode_flows import ModelConfig, _shard_runs, make_dataset, sweep
    assert jax.device_count() == 2, jax.devices()
    assert len(_shard_runs(jnp.zeros(8), 8).sharding.device_set) == 2
    lv = make_dataset("LV", 16, 8, seed=0, L=64)
    sw = sweep(ModelConfig(4, 0), lv, lrs=[0.01, 0.003], seeds=[3, 4], epochs=2, batch_size=8)
    print(json.dumps({"test": sw.test_mse.tolist(), "train": sw.train_loss.tolist()}))
    """
)


def test_sharded_over_two_cpu_devices_gives_the_one_device_numbers(lv_sweep):
    # unoptimised, as the unit tests are compiled (tests/conftest.py)
    flags = "--xla_force_host_platform_device_count=2 --xla_backend_optimization_level=0"
    env = dict(os.environ, XLA_FLAGS=flags)
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


# --- run plans ---


def test_run_plan_runs_the_named_experiments_on_given_data(lv):
    plan = Plan(
        *[SystemSizes(L=64, n_train=16, n_test=8, N=4, D=8, epochs=2, batch_size=8)] * 3,
        seeds=(3,),
        lrs=(0.01,),
    )
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


def test_plans_hold_the_stated_sizes():
    assert PAPER_PLAN.LZ == SystemSizes(
        L=512, n_train=10_000, n_test=1_000, N=256, D=1024, epochs=1000, batch_size=32
    )
    assert PAPER_PLAN.seeds == (1, 2, 3, 4, 5, 6) and PAPER_PLAN.lrs == (0.001, 0.003, 0.01)
    assert CPU_PLAN.LZ.n_train == 4096 and CPU_PLAN.PT.epochs == 100
    assert CPU_PLAN.rates("LZ") == (1e-2,) and CPU_PLAN.rates("LV") == CPU_PLAN.lrs == (3e-3,)
    with pytest.raises(ValueError, match="system must be one of"):
        CPU_PLAN.rates("VdP")
    assert CPU_PLAN.seeds == (1, 2, 3) and CPU_PLAN.scan_method == "inplace"
    ci = SystemSizes(L=256, n_train=128, n_test=32, N=16, D=32, epochs=60, batch_size=16)
    assert CI_PLAN.PT == CI_PLAN.LV == CI_PLAN.LZ == ci
    assert CI_PLAN.seeds == (1,) and CI_PLAN.lrs == (3e-3,)
    # 2 * 6 experiments minus PT's single mode (PT MLP, PT linear: Lambda trained only)
    assert sum(len(e[3]) for e in EXPERIMENTS.values()) == 10


# --- stored runs ---


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


PROV = {"commit": "a", "command": "c", "device": "d", "jax_version": "0", "seeds": [1, 2]}
PROV |= {"wall_s": 1.0}


def _write(path, systems):
    rows = []
    for i, (key, (system, _, _, modes)) in enumerate(EXPERIMENTS.items()):
        if system not in systems:
            continue
        for m in modes:
            best = 0.01 * (i + 1) / (2 if m else 1)
            rows.append(
                {"claim": "c", "commit": "a", "experiment": key, "trained_lambda": m}
                | {"best": best, "median": 2 * best, "min": best, "max": 4 * best}
            )
    base = {s: {"ignores input": 0.5, "linear": 0.2, "dropped": 0.0} for s in systems}
    path.write_text(json.dumps({"provenance": PROV, "rows": rows, "baselines": base}))


def test_stored_run_is_keyed_by_experiment_and_mode(tmp_path):
    path = tmp_path / "r.json"
    _write(path, ("PT", "LV"))
    run = load_stored_run(path)
    assert run.have == {"PT": True, "LV": True, "LZ": False}
    assert run.rows["LV MLP", True]["best"] == pytest.approx(0.015)
    # "dropped" left out; "linear" of a file without the time-varying map is the filter
    assert run.baselines["PT"] == {
        "ignores input": 0.5, "time-invariant filter": 0.2, "linear": 0.2,
    }  # fmt: skip
    assert run.stored["PT"]["dropped"] == 0.0
    assert run.provenance == PROV
    empty = load_stored_run(tmp_path / "none.json")
    assert empty.rows == {} and not any(empty.have.values()) and empty.provenance == {}


def test_mse_rows_hold_the_numbers_the_paper_and_the_factor_below_the_better_baseline(tmp_path):
    path = tmp_path / "r.json"
    _write(path, ("PT", "LV"))
    rows = mse_rows(load_stored_run(path))
    assert len(rows) == 6  # PT: 2 rows, LV: 4 rows
    # LV MLP, trained: best 0.015, median 0.03, range 0.015-0.06, 0.2 / 0.015 = 13.3
    lv = next(r for r in rows if (r["experiment"], r["Λ trained"]) == ("LV MLP", True))
    assert lv == {
        "experiment": "LV MLP", "Λ trained": True, "paper": 0.0003543, "best": 0.015,
        "median": 0.03, "min": 0.015, "max": 0.06, "ignores input": 0.5,
        "time-invariant filter": 0.2, "linear": 0.2, "× below": pytest.approx(0.2 / 0.015),
    }  # fmt: skip
    assert [r["paper"] for r in rows[:2]] == [
        pytest.approx(0.0017),
        pytest.approx(np.nan, nan_ok=True),
    ]


BASE = {"ignores input": 0.1, "linear": 0.02}


def _run(provenance, rows=None):
    """A complete stored run with ``provenance``, every system's baselines BASE."""
    systems = ("PT", "LV", "LZ")
    return flows.StoredRun(
        provenance, rows or {}, dict.fromkeys(systems, BASE), dict.fromkeys(systems, True)
    )


def test_provenance_mismatches_name_what_differs_from_the_plan():
    sizes = {s: getattr(CPU_PLAN, s)._asdict() for s in ("PT", "LV", "LZ")}
    prov = {"sizes": sizes, "amplitude": AMPLITUDE, "max_phase": PHASE, "seeds": [1, 2, 3]}
    prov |= {"scan_method": "inplace", "lrs": [3e-3], "system_lrs": {"LZ": [1e-2]}}
    assert provenance_mismatches(_run(prov), CPU_PLAN) == []
    empty = flows.StoredRun({}, {}, {}, dict.fromkeys(("PT", "LV", "LZ"), False))
    assert provenance_mismatches(empty, CPU_PLAN) == []
    bad = _run(prov | {"seeds": [1], "max_phase": 1.0})
    assert provenance_mismatches(bad, CPU_PLAN) == ["amplitude or max_phase", "seeds"]
    slow = _run(prov | {"system_lrs": {}})  # Lorenz at 3e-3, not 1e-2
    assert provenance_mismatches(slow, CPU_PLAN) == ["LZ learning rates"]
    assert provenance_mismatches(_run(prov), CI_PLAN)[:3] == ["PT", "LV", "LZ"]


def test_provenance_names_the_run_its_entries_and_the_load_of_each_part():
    parts = [{"load_average_at_start": 1.5}, {"load_average_at_start": 2.0}]
    got = provenance(_run({"commit": "a", "parts": parts}))
    assert got["plan"] == "cpu" and got["complete"]["LZ"] and got["epochs, paper's"] == {}
    assert got["commit"] == "a" and got["dirty"] is None
    assert got["load average at the start of each part"] == [1.5, 2.0]
    gpu = {"plan": "paper", "device": "H100", "sizes": {"LV": {"epochs": 14}}}
    gpu = _run(gpu | {"load_average_at_start": 0.5})  # one part: the provenance itself
    assert provenance(gpu)["plan"] == "paper" and provenance(gpu)["device"] == "H100"
    assert provenance(gpu)["epochs, paper's"] == {"LV": (14, 200)}
    assert provenance(gpu)["load average at the start of each part"] == [0.5]
    assert provenance(_run({}))["load average at the start of each part"] == []


def test_superseded_names_the_first_run_and_the_rerun():
    old_rows = [
        {"experiment": "LV MLP", "trained_lambda": m, "best": b, "lr": 0.003}
        for m, b in ((False, 1), (True, 0.005))
    ]
    before, after = {"epochs": 100, "n_train": 512}, {"epochs": 200, "n_train": 1024}
    first = {"commit": "a" * 40, "sizes": {"LV": before}}
    rerun = {"commit": "b" * 40, "sizes": {"LV": after}, "command": "python x.py"}
    old = {"why": "fell short", "sizes": before, "commit": "a" * 40, "rows": old_rows}
    old["baselines"] = BASE | {"dropped": 0}  # "dropped" is no baseline
    prov = {"sizes": {"LV": after}, "parts": [first, rerun], "superseded": {"LV": old}}
    rows = {("LV MLP", True): {"lr": 0.01}}
    assert superseded(_run(prov, rows)) == {
        "LV": {
            "first run": (100, 512, 0.003),  # epochs, trajectories, rate
            "commit": "aaaaaaaaaa",
            "MLP (Λ trained) best": 0.005,
            "× below the better baseline": pytest.approx(4.0),
            "margin": MARGIN["LV"],
            "why": "fell short",
            "rerun": (200, 1024, 0.01),
            "rerun commit": "bbbbbbbbbb",
            "command": "python x.py",
        }
    }
    assert superseded(_run({})) == {}


# --- measures of the claims ---


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


def test_ordered():
    assert ordered(ROWS, HAVE, "MLP", "linear") and not ordered(ROWS, HAVE, "linear", "MLP")
    assert not ordered(ROWS, HAVE | {"LZ": False}, "MLP", "linear")


# --- sensitivity (Fig. 13) ---


def test_relative_change_matches_its_definition():
    y = np.array([[0.0, 1.0, 2.0], [1.0, 1.0, 1.0]])
    y2 = y + np.array([[0.0, 0.5, 0.0], [0.1, -0.2, 0.0]])
    np.testing.assert_allclose(relative_change(y, y2), np.array([0.5, 0.2]) / np.std(y))


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


def test_perturbed_outputs_solve_v_and_v_plus_relative_w():
    y, y2 = perturbed_outputs("LV", 2, 1e-3, seed=4, amplitude=0.05)
    draws = low_frequency_inputs(np.random.default_rng(4), 4, ode("LV").L, amplitude=0.05)
    np.testing.assert_allclose(y, solve(ode("LV"), draws[:2]), rtol=1e-12)
    np.testing.assert_allclose(y2, solve(ode("LV"), draws[:2] + 1e-3 * draws[2:]), rtol=1e-12)
    with pytest.raises(ValueError, match="relative"):
        perturbed_outputs("LV", 2, 0.0, seed=4)


def test_sensitivity_run_is_the_pairs_of_both_systems_and_their_changes(monkeypatch):
    calls = []

    def fake_pairs(system, n, relative, *, seed, amplitude=None):
        calls.append((system, n, relative, seed, amplitude))
        y = np.arange(1.0, 1.0 + 2 * n * 4).reshape(2 * n, 4)[:n] * (1 if system == "LZ" else 2)
        return y, y + relative * np.arange(4.0)

    monkeypatch.setattr(flows, "perturbed_outputs", fake_pairs)
    monkeypatch.setattr(flows, "solve", lambda spec, v: np.full(v.shape, 3.0))
    sens = sensitivity_run(1e-3, 2, 1, seed=5, control_seed=6, control_amplitude=0.05)
    assert calls == [("LZ", 2, 1e-3, 5, None), ("LV", 1, 1e-3, 6, 0.05)]
    y = np.arange(1.0, 9.0).reshape(2, 4)
    np.testing.assert_array_equal(sens["y"], y)
    np.testing.assert_array_equal(sens["y2"], y + 1e-3 * np.arange(4.0))
    np.testing.assert_array_equal(sens["y_free"], [3.0] * 4)  # v = 0, one trajectory
    np.testing.assert_allclose(sens["change"], 3e-3 / np.std(y))
    np.testing.assert_allclose(sens["lv_change"], 3e-3 / np.std(2 * np.arange(1.0, 5.0)))
