"""Stored CPU run of Orvieto et al. Fig. 4 (learned reconstruction from the last LRU state).

Trains every (data set, N, decoder) cell listed below with
:func:`lrnn_core.orvieto.reconstruction.fig4_cell` and writes
``results/orvieto_fig4_cpu.json`` after every cell (provenance: commit, command, device, machine,
JAX version, seeds, wall time, every hyperparameter). The chapter
``book/orvieto-universality/learned-reconstruction.md`` loads it and checks it against a short
live run. Usage (from the repository root; about 40 minutes on an idle 2-core CPU):

    nice .venv/bin/python scripts/reconstruction_cpu_runs.py

``--plan gpu`` runs the same driver on a GPU at larger sizes (all 60k MNIST training images, three
seeds as the paper's "mean of 3 runs") and writes ``results/orvieto_fig4_gpu.json``: ``--steps``
optimiser steps in every cell (default 93 750, the paper's 100 epochs of 60k in batches of 64),
``--cells`` in the order given, a cell started only while ``--budget-s`` seconds have not passed.
On an H100 (JAX 0.11) a step of MNIST, N = 64, linear decoder, three seeds took 1.8 ms and each
cell about 14 s to compile.

    python scripts/reconstruction_cpu_runs.py --plan gpu --steps 9370 \
        --cells MNIST:64,MNIST:1024,MNIST:256

The paper's budget at the two ends of the N axis (``results/orvieto_fig4_gpu_100ep.json``): one
process per cell and decoder, ``--steps 93750 --cells MNIST:64 --heads linear`` (and ``MLP``, and
``MNIST:1024``), about 200 s each on an H100 with two side by side, joined with ``--merge``.

``scripts/reconstruction_gpu_parts.sh`` runs cells side by side, one process each.

Cells run in separate processes (or sessions) write one file each (``--out``); ``--merge`` joins
them into ``--out`` with :func:`merge_results` (each row keeps its commit; the parts must share
every hyperparameter). ``--lr`` and ``--heads`` change the plan for a sensitivity probe (a file
the chapter refuses, since its rate differs).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import platform
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import jax

from lrnn_core.data.mnist import mnist_sequences
from lrnn_core.data.pathfinder import pathfinder_images
from lrnn_core.orvieto.reconstruction import (
    BASELINE_SEED,
    HEADS,
    PATHFINDER_DRAW,
    fig4_cell,
    save_results,
)

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "results" / "orvieto_fig4_cpu.json"
HYPER = {
    "n_train": 2048,  # training images per data set (paper: all of them)
    "n_test": 512,  # held-out images (error and baselines)
    "epochs": 20,  # passes over n_train (paper: 100)
    "batch_size": 64,
    "lr": 1e-2,  # lru_optimizer: Adam(W), cosine decay; recurrent parameters at lr / 2
    "D": 2048,  # MLP hidden units (the paper's)
    "r_min": 0.9,
    "r_max": 0.999,  # ring initialisation of the trained LRU (the paper's)
    "baseline_ring": [0.999, 1.0],  # eigenvalues of the untrained Vandermonde inverse
    "pathfinder": PATHFINDER_DRAW,
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
#: the GPU plan: the CPU plan's fields, overridden (steps and epochs set from --steps)
GPU_HYPER = HYPER | {
    "n_train": 60_000,  # every MNIST training image (the paper's)
    "n_test": 2048,
    "pf_train": 2048,
    "epochs": None,
    "steps": None,  # optimiser steps per cell, the same for every cell (--steps)
}
GPU_SEEDS = [0, 1, 2]  # the paper: "mean of 3 runs"
GPU_CELLS = [
    *CELLS,
    ("MNIST", 128),
    ("MNIST", 512),
    ("PathFinder substitute", 128),
    ("PathFinder substitute", 512),
]


def pathfinder_split(k: int, m: int) -> tuple:
    """The PathFinder substitute's first ``k`` images for training, the next ``m`` held out."""
    pf, _, _ = pathfinder_images(k + m, seed=0)
    return pf[:k], pf[k:]


def merge_results(parts: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Join results files of one plan run in parts (cells in separate processes or sessions).

    The parts must share the seeds and every hyperparameter but ``epochs`` where that is a dict
    per data set (the GPU plan's; joined), and no cell may repeat; each row keeps its ``commit``.
    The joined provenance is the first part's with ``parts`` (every part's provenance),
    ``commit`` (the last part's), ``command`` (the parts' commands joined by `` && ``),
    ``wall_s`` (the sum of the parts': process seconds, not the elapsed time of parts run side by
    side) and ``cells_done`` (the rows) replaced. ValueError if the parts disagree.
    """
    if not parts:
        raise ValueError("need at least one part")
    provs = [dict(p["provenance"]) for p in parts]
    per_set = all(isinstance(p["hyperparameters"]["epochs"], dict) for p in provs)
    drop = {"epochs"} if per_set else set()
    hypers = [{k: v for k, v in p["hyperparameters"].items() if k not in drop} for p in provs]
    for i, (prov, hyper) in enumerate(zip(provs, hypers, strict=True)):
        if hyper != hypers[0] or prov["seeds"] != provs[0]["seeds"]:
            raise ValueError(f"part {i} has other hyperparameters or seeds than part 0")
    rows = [row for p in parts for row in p["rows"]]
    cells = [(r["data"], r["N"], r["head"]) for r in rows]
    if len(set(cells)) != len(cells):
        raise ValueError(f"the parts repeat cells: {sorted(cells)}")
    epochs = provs[0]["hyperparameters"]["epochs"]
    if per_set:
        epochs = {k: v for prov in provs for k, v in prov["hyperparameters"]["epochs"].items()}
    provenance = provs[0] | {
        "parts": provs,
        "commit": provs[-1]["commit"],
        "command": " && ".join(prov["command"] for prov in provs),
        "wall_s": sum(prov["wall_s"] for prov in provs),
        "cells_done": len(rows),
        "hyperparameters": provs[0]["hyperparameters"] | {"epochs": epochs},
    }
    return {"provenance": provenance, "rows": rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plan", choices=("cpu", "gpu"), default="cpu")
    parser.add_argument("--out", type=Path, help="default results/orvieto_fig4_<plan>.json")
    parser.add_argument("--budget-s", type=float, default=1e9, help="gpu plan: seconds")
    parser.add_argument("--steps", type=int, default=93_750, help="gpu plan: steps per cell")
    parser.add_argument("--cells", help='gpu plan: e.g. "MNIST:64,MNIST:1024" (default all)')
    parser.add_argument("--commit", help="the commit run (where the copy has no .git)")
    parser.add_argument("--lr", type=float, help="a learning rate other than the plan's")
    parser.add_argument("--heads", default=",".join(HEADS), help='e.g. "MLP" (default both)')
    parser.add_argument("--merge", nargs="+", type=Path, help="join these parts into --out")
    args = parser.parse_args()
    if args.merge:
        parts = [json.loads(p.read_text()) for p in args.merge]
        merged = merge_results(parts)
        save_results(args.out, merged["provenance"], merged["rows"])
        print(f"merged {len(parts)} parts, {len(merged['rows'])} rows, into {args.out}")
        return
    start = time.perf_counter()
    gpu = args.plan == "gpu"
    hyper, seeds, cells = (GPU_HYPER, GPU_SEEDS, GPU_CELLS) if gpu else (HYPER, SEEDS, CELLS)
    hyper = dict(hyper) | ({"lr": args.lr} if args.lr else {})
    heads = args.heads.split(",")
    if not set(heads) <= set(HEADS):
        raise SystemExit(f"--heads must name decoders of {HEADS}, got {args.heads!r}")
    out = args.out or ROOT / "results" / f"orvieto_fig4_{args.plan}.json"
    commit = (
        args.commit
        or subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout.strip()
    )
    n, m = hyper["n_train"], hyper["n_test"]
    if gpu and args.cells:
        cells = [(d, int(N)) for d, N in (c.rsplit(":", 1) for c in args.cells.split(","))]
    # the PathFinder substitute is slow to draw (pure NumPy): drawn in a second process meanwhile,
    # only if a cell needs it
    pool = multiprocessing.get_context("spawn").Pool(1)
    if any(name != "MNIST" for name, _ in cells):
        pf = pool.apply_async(pathfinder_split, (hyper["pf_train"], m))
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
        "seeds": seeds,
        "hyperparameters": hyper,
    }
    if gpu:
        batches = {"MNIST": n // hyper["batch_size"]}
        batches["PathFinder substitute"] = hyper["pf_train"] // hyper["batch_size"]
        hyper["steps"] = args.steps
        # epochs per data set of the cells asked for (not of data sets no cell uses)
        hyper["epochs"] = {
            k: max(args.steps // b, 1) for k, b in batches.items() if k in dict(cells)
        }
    rows = []
    for name, N in cells:
        if gpu and time.perf_counter() - start > args.budget_s:
            break
        if name not in data:
            data[name] = pf.get()
        train_u, test_u = data[name]
        epochs = hyper["epochs"][name] if gpu else hyper["epochs"]
        for head in heads:
            row = fig4_cell(
                train_u,
                test_u,
                N,
                head,
                D=hyper["D"],
                epochs=epochs,
                lr=hyper["lr"],
                batch_size=hyper["batch_size"],
                seeds=seeds,
                baseline_seed=BASELINE_SEED + N,  # recomputed by the chapter
            )
            rows.append({"claim": "Orvieto Fig 4", "commit": commit, "data": name} | row)
            provenance["wall_s"] = time.perf_counter() - start
            provenance["cells_done"] = len(rows)
            save_results(out, provenance, rows)
            print(
                f"{name} N={N} {head}: test {row['best']:.2e} train {row['train_mse'][0]:.2e} "
                f"{row['baselines']} ({row['wall_s']:.0f} s)",
                flush=True,
            )
    pool.terminate()  # a PathFinder draw not needed by the cells run is dropped


if __name__ == "__main__":
    main()
