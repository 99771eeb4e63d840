"""Stored CPU run of Orvieto et al. Fig. 4 (learned reconstruction from the last LRU state).

Trains every (data set, N, decoder) cell listed below with
:func:`lrnn_core.orvieto.reconstruction_experiments.fig4_cell` and writes
``results/orvieto_fig4_cpu.json`` after every cell (provenance: commit, command, device, machine,
JAX version, seeds, wall time, every hyperparameter). The chapter
``book/orvieto-universality/learned-reconstruction.md`` loads it and checks it against a short
live run. Usage (from the repository root; about 40 minutes on an idle 2-core CPU):

    nice .venv/bin/python scripts/reconstruction_cpu_runs.py
"""

from __future__ import annotations

import os
import platform
import subprocess
import sys
import time
from pathlib import Path

import jax

from lrnn_core.data.mnist import mnist_sequences
from lrnn_core.data.pathfinder import pathfinder_images
from lrnn_core.orvieto.reconstruction_experiments import fig4_cell, save_results

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "results" / "orvieto_fig4_cpu.json"
HYPER = {
    "n_train": 2048,  # training images per data set (paper: all of them)
    "n_test": 512,  # held-out images (error and baselines)
    "epochs": 20,  # passes over n_train (paper: 100)
    "batch_size": 64,
    "lr": 1e-2,  # lru_optimizer: Adam(W), cosine decay; recurrent parameters at lr / 2
    "width": 2048,  # MLP hidden units (the paper's)
    "r_min": 0.9,
    "r_max": 0.999,  # ring initialisation of the trained LRU (the paper's)
    "baseline_ring": [0.999, 1.0],  # eigenvalues of the untrained Vandermonde inverse
    "pathfinder": "lrnn_core.data.pathfinder.pathfinder_images defaults, seed 0",
    "pf_train": 1024,  # PathFinder-substitute training images (generated after MNIST)
}
SEEDS = [0]
#: cells in the order they run (the most informative first, so a cut run keeps them)
CELLS = [
    ("MNIST", 64),
    ("MNIST", 256),
    ("MNIST", 1024),
    ("PathFinder substitute", 64),
    ("PathFinder substitute", 256),
    ("PathFinder substitute", 1024),
]


def main() -> None:
    start = time.perf_counter()
    commit = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.strip()
    n, m = HYPER["n_train"], HYPER["n_test"]
    mnist_train, _ = mnist_sequences("train", n)
    mnist_test, _ = mnist_sequences("test", m)
    data = {"MNIST": (mnist_train, mnist_test)}
    provenance = {
        "commit": commit,
        "command": " ".join([Path(sys.executable).name, *sys.argv]),
        "device": str(jax.devices()[0]),
        "machine": f"{platform.node()}, {platform.processor() or platform.machine()}, "
        f"{os.cpu_count()} CPUs, load average at start {os.getloadavg()[0]:.1f}",
        "jax_version": jax.__version__,
        "seeds": SEEDS,
        "hyperparameters": HYPER,
    }
    rows = []
    for name, N in CELLS:
        if name not in data:  # generated only when reached (slow in pure NumPy)
            k = HYPER["pf_train"]
            pf, _, _ = pathfinder_images(k + m, seed=0)
            data[name] = (pf[:k], pf[k:])
        train_u, test_u = data[name]
        for head in ("linear", "MLP"):
            row = fig4_cell(
                train_u,
                test_u,
                N,
                head,
                width=HYPER["width"],
                epochs=HYPER["epochs"],
                lr=HYPER["lr"],
                batch_size=HYPER["batch_size"],
                seeds=SEEDS,
                baseline_seed=1000 + N,
            )
            rows.append({"claim": "Orvieto Fig 4", "commit": commit, "data": name} | row)
            provenance["wall_s"] = time.perf_counter() - start
            provenance["cells_done"] = len(rows)
            save_results(OUT, provenance, rows)
            print(
                f"{name} N={N} {head}: test {row['best']:.2e} train {row['train_mse'][0]:.2e} "
                f"{row['baselines']} ({row['wall_s']:.0f} s)",
                flush=True,
            )


if __name__ == "__main__":
    main()
