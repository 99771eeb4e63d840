"""The stored runs of the ODE-flow rows of Orvieto et al. (ICML 2024; Figs. 5, 14-16): every
experiment of :data:`lrnn_core.orvieto.ode_flows.EXPERIMENTS` at the sizes of a plan, with the
two baselines on the same test sets, stored with its provenance.

    nice .venv/bin/python scripts/ode_runs.py   # CPU_PLAN -> results/orvieto_ode_cpu.json
    python scripts/ode_runs.py --plan paper --seeds 1 2 3 --lrs 0.003 --budget-s 450 \
        --experiments "LZ MLP" "LZ linear" --out part.json   # on a GPU, see below
    python scripts/ode_runs.py --merge part1.json part2.json --out results/orvieto_ode_gpu.json

``--plan cpu`` (:data:`~lrnn_core.orvieto.ode_flows.CPU_PLAN`: what learns on a 2-core CPU, too long
for the website build) or ``paper`` (:data:`~lrnn_core.orvieto.ode_flows.PAPER_PLAN`: the paper's
sizes); ``--seeds`` and ``--lrs`` replace the plan's (``--lrs`` for every system).
``--budget-s`` fits the epochs into a wall-clock budget counted from the start of the process: after
the data, every listed experiment is timed (:func:`step_cost`: the cost of a step and of compiling),
and each system gets the largest number of epochs (at most the plan's) whose estimated time,
compilation included, fits ``SAFETY`` of what is left; the timings and the rule go into the
provenance. No test error is looked at to choose it. The file is rewritten after every experiment
(``provenance["done"]`` lists the finished ones).
``--experiments`` runs a subset (e.g. one process per system side by side on one GPU); ``--merge``
joins such parts into ``--out`` (rows and baselines; the provenance of each part is kept);
``--add-linear`` draws the data of ``--out`` again, checks its stored baselines and adds the
time-varying linear map's MSE, a digest of the data and the per-trajectory errors
(:func:`add_linear`);
``--replace rerun.json --why "..."`` puts a rerun of some systems into ``--out``, keeping the rows
it replaces under ``provenance["superseded"]``. The
chapter ``book/orvieto-universality/ode-flows.md`` loads the files (labelled as stored) and checks
them, and ``tests/test_results_files.py`` checks every row.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import jax
import numpy as np

from lrnn_core.orvieto.ode_flows import (
    AMPLITUDE,
    CPU_PLAN,
    EXPERIMENTS,
    OUTPUT_SCALE,
    PAPER_PLAN,
    PHASE,
    Dataset,
    ModelConfig,
    Plan,
    Sweep,
    baselines,
    digest,
    load_stored_run,
    make_dataset,
    regenerate,
    run_plan,
    sweep,
    trajectory_errors,
)

ROOT = Path(__file__).resolve().parents[1]
CLAIMS = {"PT": "Orvieto Fig 5", "LV": "Orvieto Fig 15", "LZ": "Orvieto Fig 16"}
DATA_SEED = 0
ORDER = ("PT MLP", "PT linear", "LV MLP", "LV linear", "LZ linear", "LZ MLP")
PLANS = {"cpu": CPU_PLAN, "paper": PAPER_PLAN}
OUT = {"cpu": "orvieto_ode_cpu.json", "paper": "orvieto_ode_paper.json"}
PROBE_STEPS = 220  # steps of the longer timing run of --budget-s
SAFETY = 0.8  # share of the time left that the estimate may fill
RESERVE_S = 30.0  # kept for the test errors and writing the file


def git(*args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.strip()


def rows_of(key: str, sw: Sweep, commit: str) -> list[dict[str, Any]]:
    """One row per mode (Λ frozen / trained) of one experiment."""
    system = EXPERIMENTS[key][0]
    rows = []
    for m, trained in enumerate(sw.modes):
        per_seed = np.nanmin(sw.test_mse[..., m], axis=1)
        rows.append(
            {
                "claim": CLAIMS[system],
                "experiment": key,
                "trained_lambda": bool(trained),
                "commit": commit,
                **sw.summary(m),
                "per_seed": per_seed.tolist(),
                "final_train_per_seed": sw.train_loss[:, 0, m, -1].tolist(),
                "train_loss_per_seed": sw.train_loss[:, 0, m, :].tolist(),
                "seconds": sw.wall_s,
            }
        )
    return rows


def step_cost(key: str, plan: Plan, data: Dataset, seeds: list[int]) -> tuple[float, float]:
    """``(seconds per step, seconds of compilation)`` of experiment ``key`` at ``plan``'s sizes.

    One-epoch sweeps on the first ``P`` batches of the training data, each run twice with the
    persistent compilation cache on (the second run compiles nothing), for ``P = PROBE_STEPS``
    and ``P // 10`` (at most what the data holds): the step cost is the difference of the second
    runs over the difference of steps, the compilation the first run less the second."""
    system, linear, max_phase, modes = EXPERIMENTS[key]
    sizes = getattr(plan, system)
    config = ModelConfig(
        sizes.N, 0 if linear else sizes.D, max_phase=max_phase, scan_method=plan.scan_method
    )
    long = min(PROBE_STEPS, len(data.v_train) // sizes.batch_size)
    wall = {}
    for steps in (max(1, long // 10), long):
        n = steps * sizes.batch_size
        part = data._replace(v_train=data.v_train[:n], y_train=data.y_train[:n])
        for attempt in (0, 1):
            t = time.perf_counter()
            sweep(config, part, seeds=seeds, lrs=plan.rates(system), epochs=1,
                  batch_size=sizes.batch_size, modes=modes)  # fmt: skip
            wall[steps, attempt] = time.perf_counter() - t
    short = max(1, long // 10)
    per_step = max((wall[long, 1] - wall[short, 1]) / max(long - short, 1), 1e-6)
    return per_step, max(wall[long, 0] - wall[long, 1], 0.0)


def fit_epochs(
    costs: dict[str, tuple[float, float]], steps_per_epoch: int, left_s: float, most: int
) -> int:
    """The largest number of epochs, at most ``most`` and at least 1, such that every experiment
    of ``costs`` (seconds per step, seconds of compilation), run one after the other, fits
    ``SAFETY * (left_s - RESERVE_S)``."""
    per_epoch = sum(c[0] for c in costs.values()) * steps_per_epoch
    fixed = sum(c[1] for c in costs.values())
    return int(min(most, max(1, (SAFETY * (left_s - RESERVE_S) - fixed) // per_epoch)))


def merge(parts: list[Path], out: Path) -> None:
    """Join the rows and baselines of ``parts`` (each a file of this script) into ``out``; the
    provenance is the first part's, with ``parts`` (every part's provenance), ``done`` (the union),
    ``sizes`` (each system's from the part that ran it) and ``wall_s`` (the longest part)
    replaced."""
    loaded = [json.loads(p.read_text()) for p in parts]
    rows = [row for part in loaded for row in part["rows"]]
    keys = [(r["experiment"], r["trained_lambda"]) for r in rows]
    if len(set(keys)) != len(keys):
        raise ValueError(f"the parts repeat experiments: {sorted(keys)}")
    provenance = dict(loaded[0]["provenance"])
    # each system's sizes from the part that ran it
    provenance["sizes"] = {
        system: part["provenance"]["sizes"][system]
        for part in loaded
        for system in part["baselines"]
    }
    provenance["parts"] = [part["provenance"] for part in loaded]
    provenance["done"] = [key for part in loaded for key in part["provenance"]["done"]]
    provenance["wall_s"] = max(part["provenance"]["wall_s"] for part in loaded)
    provenance["command"] = shlex.join(["python", *sys.argv])  # the parts' are in "parts"
    result = {"provenance": provenance, "rows": rows, "baselines": {}}
    for part in loaded:
        result["baselines"] |= part["baselines"]
        result |= {k: v for k, v in part.items() if k not in result}
    out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"merged {len(parts)} parts, {len(rows)} rows, into {out}")


def replace(new: Path, out: Path, why: str) -> None:
    """Rerun systems: the rows and baselines in ``out`` of every system that ``new`` (a file of
    this script) ran are replaced by ``new``'s. The old ones move to
    ``provenance["superseded"][system]`` with their sizes, commit and ``why``; ``new``'s
    provenance joins ``provenance["parts"]`` and its sizes replace the system's."""
    old, part = json.loads(out.read_text()), json.loads(new.read_text())
    systems = set(part["baselines"])
    prov = dict(old["provenance"])
    first = {k: v for k, v in prov.items() if k not in ("parts", "superseded")}
    superseded = dict(prov.get("superseded", {}))
    for system in sorted(systems):
        superseded[system] = {
            "why": why,
            "sizes": prov["sizes"][system],
            "lrs": prov.get("system_lrs", {}).get(system, prov["lrs"]),
            "commit": prov["commit"],
            "rows": [r for r in old["rows"] if EXPERIMENTS[r["experiment"]][0] == system],
            "baselines": old["baselines"][system],
        }
    rows = [r for r in old["rows"] if EXPERIMENTS[r["experiment"]][0] not in systems]
    rows = sorted(
        rows + part["rows"], key=lambda r: (ORDER.index(r["experiment"]), r["trained_lambda"])
    )
    prov["sizes"] = prov["sizes"] | {s: part["provenance"]["sizes"][s] for s in systems}
    # each rerun system's rate grid, named in system_lrs where it is not the file's lrs
    rates = {s: part["provenance"].get("system_lrs", {}).get(s, part["provenance"]["lrs"])
             for s in systems}  # fmt: skip
    kept = {s: r for s, r in prov.get("system_lrs", {}).items() if s not in systems}
    prov["system_lrs"] = kept | {s: r for s, r in rates.items() if r != prov["lrs"]}
    prov["parts"] = prov.get("parts", [first]) + [part["provenance"]]
    prov["superseded"] = superseded
    prov["done"] = [k for k in ORDER if any(r["experiment"] == k for r in rows)]
    result = old | {"provenance": prov, "rows": rows}
    result["baselines"] = old["baselines"] | part["baselines"]
    out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"replaced {sorted(systems)} in {out} by {new}")


def add_linear(out: Path) -> None:
    """Check a stored file's data and add the time-varying linear map: each system's data set (and
    its superseded first run's) is drawn again from the provenance's data seed and sizes; its
    "ignores input" and filter baselines must equal the stored ones to rounding; the
    "time-varying map" MSE and the data's ``digest`` are added beside them (no stored number
    changes), with ``provenance["added"]`` saying what, by which command and commit."""
    run, result = load_stored_run(out), json.loads(out.read_text())
    for system in run.baselines:
        for first in (False, True) if system in run.provenance.get("superseded", {}) else (False,):
            data = regenerate(run, system, first_run=first)
            prov = result["provenance"]
            entry = prov["superseded"][system] if first else result
            entry = entry["baselines"] if first else entry["baselines"][system]
            new = baselines(data)
            for old_key, key in (("ignores input", "ignores input"),
                                 ("linear", "time-invariant filter")):  # fmt: skip
                if not np.isclose(new[key], entry[old_key], rtol=1e-9, atol=0):
                    raise ValueError(f"{system}: {key} {new[key]} != stored {entry[old_key]}")
            entry["time-varying map"] = new["time-varying map"]
            if not first:
                entry["digest"] = digest(data)
                entry["per-trajectory test MSE"] = trajectory_errors(data)
            print(system, "first run" if first else "", new, flush=True)
    result["provenance"]["added"] = {
        "what": "per system: the time-varying map's test MSE, the data's digest (the first 4 "
        "training pairs at 8 steps) and both linear maps' test MSE per test trajectory, computed "
        "on the data drawn again, whose two stored baselines it reproduced to rounding; no "
        "stored number changed",
        "command": shlex.join(["python", *sys.argv]),
        "commit": git("rev-parse", "HEAD"),
        "dirty": bool(git("status", "--porcelain", "--untracked-files=no")),
    }
    out.write_text(json.dumps(result, indent=1) + "\n")


def main() -> None:
    start_wall = time.perf_counter()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plan", choices=tuple(PLANS), default="cpu")
    parser.add_argument("--out", help="default: results/orvieto_ode_<plan>.json")
    parser.add_argument("--experiments", nargs="+", choices=ORDER, default=list(ORDER))
    parser.add_argument("--seeds", nargs="+", type=int, help="replace the plan's seeds")
    parser.add_argument("--lrs", nargs="+", type=float, help="replace the plan's rates")
    parser.add_argument("--budget-s", type=float, help="fit the epochs into this wall time")
    parser.add_argument("--commit", help="the commit of a tree without git (git archive)")
    parser.add_argument("--merge", nargs="+", type=Path, help="join these parts into --out")
    parser.add_argument("--replace", type=Path, help="a rerun of some systems to put into --out")
    parser.add_argument("--why", help="with --replace: why the systems were rerun")
    parser.add_argument("--add-linear", action="store_true", help="check --out's data, add the "
                        "time-varying map")  # fmt: skip
    args = parser.parse_args()
    out = Path(args.out or ROOT / "results" / OUT[args.plan])
    out.parent.mkdir(parents=True, exist_ok=True)
    if args.merge:
        merge(args.merge, out)
        return
    if args.add_linear:
        add_linear(out)
        return
    if args.replace:
        if not args.why:
            parser.error("--replace needs --why")
        replace(args.replace, out, args.why)
        return
    plan = PLANS[args.plan]
    plan = plan._replace(seeds=tuple(args.seeds or plan.seeds))
    if args.lrs:  # one grid for every system
        plan = plan._replace(lrs=tuple(args.lrs), system_lrs={})
    commit = args.commit or git("rev-parse", "HEAD")
    dirty = None if args.commit else bool(git("status", "--porcelain", "--untracked-files=no"))
    systems = [
        s for s in ("PT", "LV", "LZ") if any(EXPERIMENTS[k][0] == s for k in args.experiments)
    ]
    provenance: dict[str, Any] = {
        "commit": commit,
        "dirty": dirty,
        "command": shlex.join(["python", *sys.argv]),
        "plan": args.plan,
        "device": jax.devices()[0].device_kind,
        "machine": f"{platform.platform()}, {os.cpu_count()} CPUs, {platform.processor()}",
        "load_average_at_start": os.getloadavg()[0],
        "jax_version": jax.__version__,
        "seeds": list(plan.seeds),
        "lrs": list(plan.lrs),
        "system_lrs": {s: list(plan.rates(s)) for s in systems if s in plan.system_lrs},
        "sizes": {s: getattr(plan, s)._asdict() for s in systems},
        "optimizer": "Adam, rate on a cosine from lr to 0, no weight decay",
        "amplitude": AMPLITUDE,
        "output_scale": OUTPUT_SCALE,
        "max_phase": PHASE,
        "scan_method": plan.scan_method,
        "r_min": 0.999,
        "r_max": 1.0,
        "data_seed": DATA_SEED,
        "done": [],
    }
    result: dict[str, Any] = {"provenance": provenance, "rows": [], "baselines": {}}
    data_ref = {
        name: make_dataset(name, sizes.n_train, sizes.n_test, seed=DATA_SEED + i, L=sizes.L)
        for i, (name, sizes) in enumerate(zip(("PT", "LV", "LZ"), plan[:3], strict=True))
        if name in systems
    }
    print(f"data: {time.perf_counter() - start_wall:.0f} s", flush=True)
    # the baselines (numpy, on the CPU) run in a thread beside the training
    pool = ThreadPoolExecutor(max_workers=1)
    pending = {name: pool.submit(baselines, d) for name, d in data_ref.items()}
    if args.budget_s is not None:
        jax.config.update("jax_compilation_cache_dir", tempfile.mkdtemp())
        jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
        jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
        timing = {}
        for system in systems:
            keys = [k for k in args.experiments if EXPERIMENTS[k][0] == system]
            costs = {k: step_cost(k, plan, data_ref[system], list(plan.seeds)) for k in keys}
            sizes = getattr(plan, system)
            left = args.budget_s - (time.perf_counter() - start_wall)
            epochs = fit_epochs(costs, sizes.n_train // sizes.batch_size, left, sizes.epochs)
            plan = plan._replace(**{system: sizes._replace(epochs=epochs)})
            timing[system] = {"seconds_per_step": {k: c[0] for k, c in costs.items()},
                              "compile_s": {k: c[1] for k, c in costs.items()},
                              "left_s": left, "epochs": epochs}  # fmt: skip
            print(f"{system}: {timing[system]}", flush=True)
        provenance["budget_s"] = args.budget_s
        provenance["epochs_rule"] = (
            f"largest epochs <= the plan's whose estimated time fits {SAFETY} of the budget "
            f"left less {RESERVE_S} s (step cost timed on {PROBE_STEPS // 10} and "
            f"{PROBE_STEPS} steps, compiled once each)"
        )
        provenance["timing"] = timing
        provenance["sizes"] = {s: getattr(plan, s)._asdict() for s in systems}

    def on_done(key: str, sw: Sweep) -> None:
        result["rows"] += rows_of(key, sw, commit)
        if key == "PT MLP":
            pred = sw.predict(data_ref["PT"].v_test[:2], 0)
            result["pt_examples"] = {"index": [0, 1], "prediction": pred.tolist()}
        provenance["done"].append(key)
        provenance["wall_s"] = time.perf_counter() - start_wall
        out.write_text(json.dumps(result, indent=1) + "\n")
        print(f"{key}: {sw.wall_s:.0f} s, test MSE {sw.test_mse.ravel()}", flush=True)

    run_plan(
        plan,
        data_seed=DATA_SEED,
        experiments=[k for k in ORDER if k in args.experiments],
        on_done=on_done,
        data=data_ref,
    )
    for name, future in pending.items():
        result["baselines"][name] = future.result() | {"dropped": data_ref[name].dropped}
    provenance["wall_s"] = time.perf_counter() - start_wall
    out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {len(result['rows'])} rows to {out} in {provenance['wall_s']:.0f} s")


if __name__ == "__main__":
    main()
