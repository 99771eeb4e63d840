"""The stored CPU run of the ODE-flow rows of Orvieto et al. (ICML 2024; Figs. 5, 14-16): every
experiment of :data:`lrnn_core.orvieto.ode_plans.EXPERIMENTS` at the sizes of
:data:`~lrnn_core.orvieto.ode_plans.CPU_PLAN` (what learns on a 2-core CPU, too long for
the website build), with the two baselines on the same test sets, stored with its provenance.

    nice .venv/bin/python scripts/ode_cpu_runs.py [--out results/orvieto_ode_cpu.json]
        [--experiments "LZ MLP" ...] [--merge part1.json part2.json]

The file is rewritten after every experiment (``provenance["done"]`` lists the finished ones).
``--experiments`` runs a subset (e.g. in a second process on a shared machine); ``--merge``
joins such parts into ``--out`` (rows and baselines; the provenance of each part is kept).
The chapter ``book/orvieto-universality/ode-flows.md`` loads it (labelled as stored), checks it
against a short live run, and ``tests/test_results_files.py`` checks every row.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import jax
import numpy as np

from lrnn_core.orvieto.ode_data import AMPLITUDE, OUTPUT_SCALE, baselines, make_dataset
from lrnn_core.orvieto.ode_model import PHASE
from lrnn_core.orvieto.ode_plans import CPU_PLAN, EXPERIMENTS, run_plan
from lrnn_core.orvieto.ode_sweep import Sweep

ROOT = Path(__file__).resolve().parents[1]
CLAIMS = {"PT": "Orvieto Fig 5", "LV": "Orvieto Fig 15", "LZ": "Orvieto Fig 16"}
DATA_SEED = 0
ORDER = ("PT MLP", "PT linear", "LV MLP", "LV linear", "LZ linear", "LZ MLP")


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
    provenance["command"] = " && ".join(part["provenance"]["command"] for part in loaded)
    result = {"provenance": provenance, "rows": rows, "baselines": {}}
    for part in loaded:
        result["baselines"] |= part["baselines"]
        result |= {k: v for k, v in part.items() if k not in result}
    out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"merged {len(parts)} parts, {len(rows)} rows, into {out}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "results" / "orvieto_ode_cpu.json"))
    parser.add_argument("--experiments", nargs="+", choices=ORDER, default=list(ORDER))
    parser.add_argument("--merge", nargs="+", type=Path, help="join these parts into --out")
    args = parser.parse_args()
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    if args.merge:
        merge(args.merge, out)
        return
    commit = git("rev-parse", "HEAD")
    start = time.perf_counter()
    provenance: dict[str, Any] = {
        "commit": commit,
        "dirty": bool(git("status", "--porcelain", "--untracked-files=no")),
        "command": shlex.join(["python", *sys.argv]),
        "device": jax.devices()[0].device_kind,
        "machine": f"{platform.platform()}, {os.cpu_count()} CPUs, {platform.processor()}",
        "load_average_at_start": os.getloadavg()[0],
        "jax_version": jax.__version__,
        "seeds": list(CPU_PLAN.seeds),
        "lrs": list(CPU_PLAN.lrs),
        "sizes": {s: getattr(CPU_PLAN, s)._asdict() for s in ("PT", "LV", "LZ")},
        "optimizer": "Adam, rate on a cosine from lr to 0, no weight decay",
        "amplitude": AMPLITUDE,
        "output_scale": OUTPUT_SCALE,
        "max_phase": PHASE,
        "scan_method": CPU_PLAN.scan_method,
        "r_min": 0.999,
        "r_max": 1.0,
        "data_seed": DATA_SEED,
        "done": [],
    }
    result: dict[str, Any] = {"provenance": provenance, "rows": [], "baselines": {}}

    def on_done(key: str, sw: Sweep) -> None:
        result["rows"] += rows_of(key, sw, commit)
        if key == "PT MLP":
            pred = sw.predict(data_ref["PT"].v_test[:2], 0)
            result["pt_examples"] = {"index": [0, 1], "prediction": pred.tolist()}
        provenance["done"].append(key)
        provenance["wall_s"] = time.perf_counter() - start
        out.write_text(json.dumps(result, indent=1) + "\n")
        print(f"{key}: {sw.wall_s:.0f} s, test MSE {sw.test_mse.ravel()}", flush=True)

    systems = {EXPERIMENTS[key][0] for key in args.experiments}
    data_ref = {
        name: make_dataset(name, sizes.n_train, sizes.n_test, seed=DATA_SEED + i, L=sizes.L)
        for i, (name, sizes) in enumerate(zip(("PT", "LV", "LZ"), CPU_PLAN[:3], strict=True))
        if name in systems
    }
    for name, d in data_ref.items():
        result["baselines"][name] = baselines(d) | {"dropped": d.dropped}
    print(f"data and baselines: {time.perf_counter() - start:.0f} s", flush=True)
    run_plan(
        CPU_PLAN,
        data_seed=DATA_SEED,
        experiments=args.experiments,
        on_done=on_done,
        data=data_ref,
    )
    provenance["wall_s"] = time.perf_counter() - start
    out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {len(result['rows'])} rows to {out} in {provenance['wall_s']:.0f} s")


if __name__ == "__main__":
    main()
