import json

import jax
import numpy as np
import pytest
from flax import nnx

from lrnn_core.core.eigenvalues import ring_init
from lrnn_core.core.lru import LRU
from lrnn_core.orvieto.memorisation import reconstruct_from_last_state
from lrnn_core.orvieto.reconstruction_experiments import (
    cell_summary,
    fig4_cell,
    fig4_grid,
    fig4_orderings,
    fixed_lru_linear_mse,
    last_state_gap,
    linear_train_vs_bound,
    load_fig4_results,
    mean_image_mse,
    merge_results,
    pca_bound,
    pca_projection_mse,
    results_file,
    save_results,
    vandermonde_baseline,
    vandermonde_examples,
)


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


def _errors(lin, mlp, Ns=(64, 256, 1024)):
    return {("linear", N): a for N, a in zip(Ns, lin, strict=True)} | {
        ("MLP", N): b for N, b in zip(Ns, mlp, strict=True)
    }


def test_orderings_on_hand_made_numbers():
    kw = dict(step=1.25, small=1.25, tenfold=10.0)
    paper_like = _errors([0.05, 0.01, 1e-4], [0.02, 0.005, 2e-4])
    assert fig4_orderings(paper_like, [64, 256, 1024], **kw) == {
        "falls": True,
        "mlp_small": True,
        "linear_large": True,
        "tenfold": True,
    }
    # each negation is caught by its own flag
    flat = _errors([0.05, 0.045, 1e-4], [0.02, 0.005, 2e-4])  # linear falls by only 1.1x
    assert not fig4_orderings(flat, [64, 256, 1024], **kw)["falls"]
    close = _errors([0.024, 0.01, 1e-4], [0.02, 0.005, 2e-4])  # ratio 1.2 < 1.25
    assert not fig4_orderings(close, [64, 256, 1024], **kw)["mlp_small"]
    mlp_wins = _errors([0.05, 0.01, 3e-4], [0.02, 0.005, 2e-4])
    assert not fig4_orderings(mlp_wins, [64, 256, 1024], **kw)["linear_large"]
    shallow = _errors([0.05, 0.01, 4e-3], [0.02, 0.005, 3e-3])  # 0.02 / 0.003 < 10
    assert not fig4_orderings(shallow, [64, 256, 1024], **kw)["tenfold"]
    # the required fall scales with the move in N: step per fourfold N, its root per doubling
    lin, mlp = [0.05, 0.044, 0.038], [0.02, 0.0175, 0.0155]  # falls 1.129x ... 1.158x
    doubling = _errors(lin, mlp, (64, 128, 256))
    assert fig4_orderings(doubling, [64, 128, 256], **kw)["falls"]  # need 1.25**0.5 = 1.118
    assert not fig4_orderings(_errors(lin, mlp), [64, 256, 1024], **kw)["falls"]  # need 1.25
    ends = (64, 1024)  # a 16-fold move needs 1.25**2 = 1.5625
    assert fig4_orderings(_errors([0.05, 0.03], [0.02, 0.012], ends), ends, **kw)["falls"]
    assert not fig4_orderings(_errors([0.05, 0.035], [0.02, 0.012], ends), ends, **kw)["falls"]
    # the input-ignoring control: the same error at every N
    constant = _errors([0.06] * 3, [0.06] * 3)
    out = fig4_orderings(constant, [64, 256, 1024], **kw)
    assert not out["falls"] and not out["tenfold"] and not out["mlp_small"]


def test_orderings_reject_bad_input():
    with pytest.raises(ValueError, match="lacks"):
        fig4_orderings({("linear", 64): 1.0}, [64, 256], step=1.25, small=1.25)
    with pytest.raises(ValueError, match="two state sizes"):
        fig4_orderings({}, [64], step=1.25, small=1.25)


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


def test_merge_results_joins_parts_and_refuses_disagreeing_ones():
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


def test_fig4_grid_is_fig4_cell_at_every_cell_and_reports_each():
    rng = np.random.default_rng(3)
    train, test = rng.random((32, 8)), rng.random((8, 8))
    kw = dict(D=4, epochs=1, lr=1e-2, batch_size=16, seeds=[0])
    lines = []
    cells = fig4_grid(train, test, [2, 4], baseline_seeds={2: 7, 4: 9}, report=lines.append, **kw)
    assert list(cells) == [("linear", 2), ("MLP", 2), ("linear", 4), ("MLP", 4)]
    one = fig4_cell(train, test, 4, "MLP", baseline_seed=9, **kw)
    assert cells["MLP", 4]["test_mse"] == pytest.approx(one["test_mse"], rel=1e-6)
    assert cells["MLP", 4]["baselines"] == one["baselines"]
    assert "run" in cells["linear", 2]
    assert lines == [cell_summary(h, N, cells[h, N]) for h, N in cells]
    c = {"median": 0.0123, "train_mse": [0.001, 0.003], "wall_s": 4.6,
         "baselines": {"ignores input": 0.05, "linear": 0.25}}  # fmt: skip
    assert cell_summary("MLP", 64, c) == (
        "N =   64, MLP   : held-out 1.23e-02 (train 2.00e-03); mean image 5.00e-02, "
        "Vandermonde 2.50e-01 (5 s)"
    )


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


def test_linear_train_vs_bound_pairs_the_median_with_pca_bound():
    train = np.random.default_rng(6).random((30, 8))
    live = {"A": {("linear", 1): {"train_mse": [0.5, 0.1, 0.2]}}}
    out = linear_train_vs_bound(live, {"A": train}, [1])
    assert out == {("A", 1): (0.2, pca_bound(train, [1])[1])}


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
