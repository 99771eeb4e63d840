"""Run every ODE-flow row of Orvieto et al. (ICML 2024; Figs. 5, 13-16) at the paper's sizes and
store the numbers (not the weights) with their provenance.

    LRNN_SCALE=paper python scripts/paper_runs.py [--out results/orvieto_ode_paper.json]

Needs a GPU (10k trajectories of length 2048, seeds 1-6 x the rate grid, 200-1000 epochs). The
chapter ``book/orvieto-universality/ode-flows.md`` shows the file, when present, beside its live
run; ``tests/test_results_files.py`` checks that each row names a claim id and a commit.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import jax
import numpy as np

from lrnn_core.bookkit.scale import current_scale
from lrnn_core.orvieto.ode_plans import EXPERIMENTS, PAPER_PLAN, run_plan
from lrnn_core.orvieto.ode_sensitivity import perturbed_outputs, relative_change

ROOT = Path(__file__).resolve().parents[1]
CLAIMS = {"PT": "Orvieto Fig 5", "LV": "Orvieto Fig 15", "LZ": "Orvieto Fig 16"}


def git(*args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "results" / "orvieto_ode_paper.json"))
    args = parser.parse_args()
    if current_scale() != "paper":
        sys.exit("set LRNN_SCALE=paper: this script runs the paper's sizes only")
    commit = git("rev-parse", "HEAD")
    start = time.perf_counter()
    scan = "associative" if jax.default_backend() == "gpu" else "sequential"
    _, sweeps = run_plan(PAPER_PLAN, data_seed=0, scan_method=scan, progress=True)
    rows = []
    for key, sw in sweeps.items():
        system = EXPERIMENTS[key][0]
        for m, trained in enumerate(sw.modes):
            s = sw.summary(m)
            rows.append(
                {
                    "claim": CLAIMS[system],
                    "experiment": f"{key}, Λ {'trained' if trained else 'frozen'}",
                    "commit": commit,
                    **s,
                    "per_seed": np.nanmin(sw.test_mse[..., m], axis=1).tolist(),
                }
            )
    lz = sweeps["LZ MLP"]
    final = lz.train_loss[:, lz.best(1)[1], 1, -1]
    change = relative_change(*perturbed_outputs("LZ", 100, 1e-3, seed=0))
    # "best": the lowest final loss (Fig 14); the largest output change (Fig 13)
    for claim, experiment, values, best in (
        ("Orvieto Fig 14", "LZ MLP, Λ trained: final training loss per seed", final, final.min()),
        ("Orvieto Fig 13", "LZ: max |Δy| / std(y), 1e-3 input perturbation", change, change.max()),
    ):
        rows.append(
            {
                "claim": claim,
                "experiment": experiment,
                "commit": commit,
                "best": float(best),
                "median": float(np.median(values)),
                "min": float(values.min()),
                "max": float(values.max()),
            }
        )
    provenance = {
        "commit": commit,
        "dirty": bool(git("status", "--porcelain", "--untracked-files=no")),
        "command": " ".join(["LRNN_SCALE=paper", "python", *sys.argv]),
        "device": jax.devices()[0].device_kind,
        "jax_version": jax.__version__,
        "seeds": list(PAPER_PLAN.seeds),
        "lrs": list(PAPER_PLAN.lrs),
        "wall_s": time.perf_counter() - start,
    }
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"provenance": provenance, "rows": rows}, indent=1) + "\n")
    print(f"wrote {len(rows)} rows to {out}")


if __name__ == "__main__":
    main()
