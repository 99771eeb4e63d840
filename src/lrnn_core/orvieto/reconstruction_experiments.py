"""Fig. 4 of Orvieto et al. (ICML 2024, §4.2): one (data set, state size ``N``, decoder) cell with
its two baselines, the paper's orderings, and the stored CPU run that the chapter loads.

A cell trains :class:`lrnn_core.orvieto.reconstruction.Reconstructor` (LRU read at ``x_L``, then a
linear or MLP decoder; eq. 4 for ``x_L``) and scores it by the held-out pixel-wise MSE

``error = (1 / (m L)) sum_i sum_k (u_hat_ik - u_ik)^2``

beside two baselines on the same held-out images:

* ``"ignores input"``: the mean training image ``u_bar`` (the best predictor that ignores ``u``);
* ``"linear"``: the *untrained* Vandermonde inverse ``Re(V_L^+ x_L)`` (eq. 5 at ``k = L``,
  ``B = 1``) with eigenvalues drawn once from the ring ``T[0.999, 1]``, a fixed linear decoder
  that needs no training.

The orderings the paper states for each data set and decoder (:func:`fig4_orderings`): the loss
falls with ``N``; at the smallest ``N`` the MLP decoder beats the linear one; at the largest ``N``
the linear decoder is at least as good; the largest ``N`` is at least 10x below the smallest.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple, NotRequired, TypedDict

import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import ArrayLike, Float

from lrnn_core.core.eigenvalues import ring_init
from lrnn_core.core.lru import LRU
from lrnn_core.core.scan import linear_scan
from lrnn_core.core.validate import positive_int, positive_number, seed_list
from lrnn_core.orvieto.memorisation import reconstruct_from_last_state
from lrnn_core.orvieto.reconstruction import (
    ReconstructionRun,
    last_state,
    train_reconstruction,
    vandermonde_mse,
)

__all__ = [
    "HEADS",
    "Fig4Results",
    "Fig4Row",
    "Sizes",
    "cell_summary",
    "fig4_cell",
    "fig4_grid",
    "fig4_orderings",
    "fixed_lru_linear_mse",
    "last_state_gap",
    "linear_train_vs_bound",
    "load_fig4_results",
    "mean_image_mse",
    "merge_results",
    "pca_bound",
    "pca_projection_mse",
    "results_file",
    "save_results",
    "vandermonde_baseline",
    "vandermonde_examples",
]

#: the two decoders: ``"linear"`` (``Omega z + c``) and ``"MLP"`` (one hidden ReLU layer)
HEADS = ("linear", "MLP")


class Sizes(NamedTuple):
    """The sizes of the chapter's live runs at one scale (Fig. 4 and the PathFinder check)."""

    n_train: int  # training images (paper: all 60 000 MNIST training images)
    n_test: int  # held-out images for the error and the baselines (not in the paper)
    epochs: int  # passes over n_train in steps of 64 (paper: 100)
    runs: int  # seeds per Fig. 4 cell (paper: mean of 3 runs)
    Ns: tuple[int, ...]  # Fig. 4: state sizes N (paper: 64 ... 1024)
    pf_train: int  # PathFinder-like training images (paper: LRA PathFinder)


class Fig4Row(TypedDict):
    """One Fig. 4 cell, as :func:`fig4_cell` returns it and ``results/orvieto_fig4_*.json``
    stores it: held-out MSE over the seeds (``best`` = ``min``, ``median``, ``max``), per seed
    ``train_mse`` and ``test_mse``, the two ``baselines`` (``"ignores input"``, ``"linear"``)
    and ``wall_s``; a stored row also names its ``data`` set, ``claim`` and ``commit``, a live
    one may keep its ``run``."""

    N: int
    head: str
    best: float
    median: float
    min: float
    max: float
    train_mse: list[float]
    test_mse: list[float]
    baselines: dict[str, float]
    wall_s: float
    data: NotRequired[str]
    claim: NotRequired[str]
    commit: NotRequired[str]
    run: NotRequired[ReconstructionRun]


class Fig4Results(TypedDict):
    """A results file ``results/orvieto_fig4_*.json``: the run's JSON ``provenance`` (commit,
    command, machine, seeds, hyperparameters, ...) and one :class:`Fig4Row` per cell."""

    provenance: dict[str, Any]
    rows: list[Fig4Row]


def _images(name: str, u: ArrayLike) -> np.ndarray:
    u = np.asarray(u, np.float64)
    if u.ndim != 2 or not np.all(np.isfinite(u)):
        raise ValueError(f"{name} must be a finite (n, L) array, got shape {u.shape}")
    return u


def mean_image_mse(train_u: Float[ArrayLike, "n L"], test_u: Float[ArrayLike, "m L"]) -> float:
    """Held-out MSE of the input-ignoring predictor: the mean training image ``u_bar``,
    ``(1 / (m L)) sum (u_bar_k - u_ik)^2``."""
    train_u, test_u = _images("train_u", train_u), _images("test_u", test_u)
    if train_u.shape[1] != test_u.shape[1]:
        raise ValueError(f"lengths differ: {train_u.shape[1]} and {test_u.shape[1]}")
    return float(np.mean((train_u.mean(axis=0) - test_u) ** 2))


def pca_bound(train_u: Float[ArrayLike, "n L"], Ns: Sequence[int]) -> dict[int, float]:
    """The smallest training MSE of any affine decoder of rank at most ``2N`` (Eckart-Young):
    ``(1/L) sum_{j > 2N} sigma_j^2``, the eigenvalues ``sigma_j^2`` of the training images'
    covariance in decreasing order. A linear decoder of ``[Re x_L; Im x_L]`` is such a map, so no
    trained linear decoder goes below it on its training images (the chapter's eq. lr-pca-bound)."""
    train_u = _images("train_u", train_u)
    Ns = [positive_int("N", N) for N in Ns]
    var = np.linalg.eigvalsh(np.cov(train_u, rowvar=False, bias=True))[::-1]
    return {N: max(float(var[2 * N :].sum() / train_u.shape[1]), 0.0) for N in Ns}


def vandermonde_baseline(
    test_u: Float[ArrayLike, "m L"],
    N: int,
    *,
    seed: int,
    r_min: float = 0.999,
    r_max: float = 1.0,
) -> float:
    """Held-out MSE (mean over images) of the untrained inverse ``Re(V_L^+ x_L)``, ``lambda``
    drawn from ``T[r_min, r_max]`` with ``jax.random.key(seed)``."""
    N = positive_int("N", N)
    lam = np.asarray(ring_init(jax.random.key(seed), N, r_min, r_max))
    return float(np.mean(vandermonde_mse(lam, _images("test_u", test_u))))


def fig4_cell(
    train_u: Float[ArrayLike, "n L"],
    test_u: Float[ArrayLike, "m L"],
    N: int,
    head: str,
    *,
    D: int,
    epochs: int,
    lr: float,
    batch_size: int,
    seeds: Sequence[int],
    baseline_seed: int,
    keep_run: bool = False,
) -> Fig4Row:
    """Train one cell (all ``seeds`` at once) and return its numbers as a results-file row;
    ``D``: the hidden width of the MLP decoder (unused by the linear one).

    ``best``, ``median``, ``min``, ``max``: held-out MSE over the seeds (best = min, the
    best-of-seeds protocol, with the median beside it); ``train_mse``, ``test_mse``: per seed;
    ``baselines``: ``{"ignores input": ..., "linear": ...}`` on the same held-out images;
    ``wall_s``: seconds for the cell; ``run``: the
    :class:`~lrnn_core.orvieto.reconstruction.ReconstructionRun` itself if ``keep_run``.
    """
    if head not in HEADS:
        raise ValueError(f"head must be one of {HEADS}, got {head!r}")
    D = positive_int("D", D)
    lr = positive_number("lr", lr)
    seeds = seed_list("seeds", seeds)
    train_u, test_u = _images("train_u", train_u), _images("test_u", test_u)
    start = time.perf_counter()
    run = train_reconstruction(
        train_u,
        test_u,
        N,
        D=() if head == "linear" else (D,),
        epochs=epochs,
        batch_size=batch_size,
        seeds=seeds,
        lr=lr,
    )
    wall = time.perf_counter() - start
    test = run.test_mse
    row: Fig4Row = {
        "N": N,
        "head": head,
        "best": float(test.min()),
        "median": float(np.median(test)),
        "min": float(test.min()),
        "max": float(test.max()),
        "train_mse": run.train_mse.tolist(),
        "test_mse": test.tolist(),
        "baselines": {
            "ignores input": mean_image_mse(train_u, test_u),
            "linear": vandermonde_baseline(test_u, N, seed=baseline_seed),
        },
        "wall_s": wall,
    }
    return row | {"run": run} if keep_run else row


def cell_summary(head: str, N: int, cell: Fig4Row) -> str:
    """One line for a :func:`fig4_cell` row: held-out median, training median, baselines."""
    b = cell["baselines"]
    return (
        f"N = {N:4d}, {head:6s}: held-out {cell['median']:.2e} (train "
        f"{np.median(cell['train_mse']):.2e}); "
        f"mean image {b['ignores input']:.2e}, "
        f"Vandermonde {b['linear']:.2e} ({cell['wall_s']:.0f} s)"
    )


def fig4_grid(
    train_u: Float[ArrayLike, "n L"],
    test_u: Float[ArrayLike, "m L"],
    Ns: Sequence[int],
    *,
    D: int,
    epochs: int,
    lr: float,
    batch_size: int,
    seeds: Sequence[int],
    baseline_seeds: Mapping[int, int],
    report: Callable[[str], None] | None = None,
) -> dict[tuple[str, int], Fig4Row]:
    """Every ``(head, N)`` cell of one data set, ``N`` by ``N``: :func:`fig4_cell` with the run
    kept, ``baseline_seeds[N]`` seeding the Vandermonde baseline; ``report`` gets each cell's
    :func:`cell_summary` as it finishes."""
    cells = {}
    for N in Ns:
        for head in HEADS:
            cells[head, N] = fig4_cell(
                train_u, test_u, N, head, D=D, epochs=epochs, lr=lr,
                batch_size=batch_size, seeds=seeds, baseline_seed=baseline_seeds[N],
                keep_run=True,
            )  # fmt: skip
            if report is not None:
                report(cell_summary(head, N, cells[head, N]))
    return cells


def fig4_orderings(
    error: Mapping[tuple[str, int], float],
    Ns: Sequence[int],
    *,
    step: float,
    small: float,
    tenfold: float = 10.0,
) -> dict[str, bool]:
    """The paper's orderings for one data set; ``error[(head, N)]`` for both heads, every ``N``.

    ``falls``: for each head, every next (larger) ``N`` lowers the error by a factor
    ``>= step ** log_4(N_next / N)`` (``step`` per fourfold ``N``: 64, 256, 1024 need ``step`` at
    each move, a doubling its square root);
    ``mlp_small``: at the smallest ``N``, linear / MLP ``>= small``; ``linear_large``: at the
    largest ``N``, linear ``<=`` MLP; ``tenfold``: the better head at the largest ``N`` is
    ``>= tenfold`` times below the better head at the smallest ``N``.
    """
    Ns = sorted(positive_int("N", N) for N in Ns)
    if len(Ns) < 2:
        raise ValueError(f"need at least two state sizes, got {Ns}")
    step, small = positive_number("step", step), positive_number("small", small)
    tenfold = positive_number("tenfold", tenfold)
    missing = [(h, N) for h in HEADS for N in Ns if (h, N) not in error]
    if missing:
        raise ValueError(f"error lacks cells {missing}")
    e = {h: np.array([float(error[h, N]) for N in Ns]) for h in HEADS}
    lo, hi = Ns[0], Ns[-1]
    need = step ** (np.log(np.divide(Ns[1:], Ns[:-1])) / np.log(4.0))  # per move of N
    return {
        "falls": bool(all(np.all(e[h][:-1] >= need * e[h][1:]) for h in HEADS)),
        "mlp_small": bool(error["linear", lo] >= small * error["MLP", lo]),
        "linear_large": bool(error["linear", hi] <= error["MLP", hi]),
        "tenfold": bool(
            tenfold * min(error["linear", hi], error["MLP", hi])
            <= min(error["linear", lo], error["MLP", lo])
        ),
    }


def load_fig4_results(path: str | Path) -> Fig4Results:
    """Read ``results/orvieto_fig4_*.json`` (written by ``scripts/reconstruction_cpu_runs.py``):
    the format of :func:`lrnn_core.orvieto.ode_results.load_paper_results`, and every row
    names its ``data``, ``N``, ``head`` and both baselines. ValueError otherwise."""
    from lrnn_core.orvieto.ode_results import load_paper_results

    data = load_paper_results(path)
    for i, row in enumerate(data["rows"]):
        need = {"data", "N", "head", "baselines", "train_mse", "test_mse"}
        if not need <= set(row):
            raise ValueError(f"{path}: row {i} lacks {sorted(need - set(row))}")
        if not {"ignores input", "linear"} <= set(row["baselines"]):
            raise ValueError(f"{path}: row {i} lacks a baseline")
    return data


def save_results(path: str | Path, provenance: Mapping[str, Any], rows: list[Fig4Row]) -> None:
    """Write ``{"provenance": ..., "rows": ...}`` to ``path`` (indented JSON)."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(json.dumps({"provenance": dict(provenance), "rows": rows}, indent=1))


def merge_results(parts: Sequence[Fig4Results]) -> Fig4Results:
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


def last_state_gap(lru: LRU, u: Float[ArrayLike, "batch L"]) -> float:
    """``max |x_L(product) - x_L(scan)| / max |x_L(scan)|`` over a batch: eq. (4) as one
    float32 product (:func:`~lrnn_core.orvieto.reconstruction.last_state`) against the
    recurrence ``x_k = Lambda x_{k-1} + gamma . b u_k`` run by
    :func:`~lrnn_core.core.scan.linear_scan` in float64."""
    u = _images("u", u)
    fast = np.asarray(last_state(lru, jnp.asarray(u, jnp.float32)))
    with jax.enable_x64(True):
        lam64 = jnp.asarray(lru.eigenvalues(), jnp.complex128)
        b64 = jnp.exp(jnp.asarray(lru.gamma_log[...], jnp.float64)) * (
            jnp.asarray(lru.B_re[:, 0], jnp.float64) + 1j * jnp.asarray(lru.B_im[:, 0], jnp.float64)
        )
        bu = jnp.asarray(u)[..., None] * b64  # (batch, L, N)
        scanned = np.asarray(linear_scan(lam64, bu))[:, -1]
    return float(np.abs(fast - scanned).max() / np.abs(scanned).max())


def vandermonde_examples(
    u: Float[ArrayLike, " L"],
    Ns: Sequence[int],
    *,
    seed: int,
    r_min: float = 0.999,
    r_max: float = 1.0,
) -> dict[int, Float[np.ndarray, " L"]]:
    """``{N: Re(V_L^+ x_L)}`` of one sequence (eq. 5 at ``k = L``), ``N`` eigenvalues drawn from
    ``T[r_min, r_max]`` with ``jax.random.key(seed + N)``."""
    u = np.asarray(u, np.float64)
    return {
        N: reconstruct_from_last_state(
            np.asarray(ring_init(jax.random.key(seed + N), N, r_min, r_max)), u
        )
        for N in Ns
    }


def linear_train_vs_bound(
    live: Mapping[str, Mapping[tuple[str, int], Fig4Row]],
    train: Mapping[str, Float[ArrayLike, "n L"]],
    Ns: Sequence[int],
) -> dict[tuple[str, int], tuple[float, float]]:
    """``{(data, N): (median training MSE of the trained linear decoder, pca_bound)}``: the
    bound of :func:`pca_bound` (Eckart-Young) beside what training reached, per data set."""
    out = {}
    for name, train_u in train.items():
        bound = pca_bound(train_u, Ns)
        for N in Ns:
            out[name, N] = (float(np.median(live[name]["linear", N]["train_mse"])), bound[N])
    return out


def fixed_lru_linear_mse(lru: LRU, u: Float[ArrayLike, "n L"]) -> float:
    """Training MSE of the least-squares affine decoder ``Omega [Re x_L; Im x_L] + c`` of a fixed
    (untrained) LRU, ``x_L`` by :func:`~lrnn_core.orvieto.reconstruction.last_state` (eq. 4)."""
    u = _images("u", u)
    x = np.asarray(last_state(lru, jnp.asarray(u, jnp.float32)), np.complex128)
    features = np.c_[x.real, x.imag, np.ones(len(u))]
    coef, *_ = np.linalg.lstsq(features, u, rcond=None)
    return float(np.mean((features @ coef - u) ** 2))


def pca_projection_mse(u: Float[ArrayLike, "n L"], rank: int) -> float:
    """MSE of the projection of the centred sequences onto their top ``rank`` principal
    components (SVD): the error :func:`pca_bound` predicts for ``rank = 2N``."""
    u = _images("u", u)
    rank = positive_int("rank", rank)
    centred = u - u.mean(axis=0)
    _, _, Vt = np.linalg.svd(centred, full_matrices=False)
    top = Vt[:rank]
    return float(np.mean((centred @ top.T @ top - centred) ** 2))


def results_file(name: str, start: str | Path | None = None) -> Path:
    """``results/<name>`` of the repository that holds ``start`` (default: the working
    directory): the first of ``start`` and its parents with a ``pyproject.toml``."""
    here = Path.cwd() if start is None else Path(start).resolve()
    root = next((p for p in (here, *here.parents) if (p / "pyproject.toml").exists()), None)
    if root is None:
        raise FileNotFoundError(f"no pyproject.toml in {here} or its parents")
    return root / "results" / name
