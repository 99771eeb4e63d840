"""The learned-reconstruction chapter's report on Fig. 4 of Orvieto et al. (ICML 2024, §4.2):
the stored runs indexed by cell, their check against the live run, the table of every stored
cell, the orderings with their negative control, the headline cell and the eigenvalue moves.

A cell *learned* when its held-out error is ``margin`` times below its better baseline,
``error * margin <= min_k baseline_k`` (:func:`lrnn_core.core.verdicts.beats`); for the MLP
decoder the baselines include the trained linear decoder at the same ``N`` (the paper's own
comparison).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
from jaxtyping import ArrayLike, Complex

from lrnn_core.core.verdicts import beats, times_below
from lrnn_core.orvieto.reconstruction_experiments import HEADS, fig4_orderings

__all__ = [
    "TABLE_HEAD",
    "cell_baselines",
    "complete_sizes",
    "eigenvalue_moves",
    "headline_cell",
    "index_rows",
    "live_stored_ratios",
    "stored_orderings",
    "stored_table_rows",
]

Cells = Mapping[tuple[str, str, int], Mapping[str, Any]]

#: the header of :func:`stored_table_rows` (Markdown, ten columns)
TABLE_HEAD = (
    "| data | N | decoder | held-out (best / median) | train | mean image "
    "| Vandermonde | trained linear | below better baseline | seconds |\n|" + "---|" * 10
)


def index_rows(rows: Iterable[Mapping[str, Any]]) -> dict[tuple[str, str, int], Mapping]:
    """A results file's rows by cell: ``{(data, head, N): row}``."""
    return {(r["data"], r["head"], r["N"]): r for r in rows}


def complete_sizes(stored: Cells, data_sets: Iterable[str]) -> dict[str, list[int]]:
    """Per data set, the sorted state sizes ``N`` stored with both decoders (a cut run may lack
    some)."""
    return {
        d: sorted(
            {N for (dd, _, N) in stored if dd == d and all((d, h, N) in stored for h in HEADS)}
        )
        for d in data_sets
    }


def live_stored_ratios(
    stored: Cells, live: Mapping[str, Mapping[tuple[str, int], Mapping[str, Any]]]
) -> dict[tuple[str, str, int], float]:
    """At every cell both runs share, ``median(live train MSE) / median(stored train MSE)``."""
    return {
        (name, head, N): float(
            np.median(live[name][head, N]["train_mse"]) / np.median(r["train_mse"])
        )
        for (name, head, N), r in stored.items()
        if (head, N) in live[name]
    }


def cell_baselines(stored: Cells, name: str, head: str, N: int) -> dict[str, float]:
    """The cell's baselines; the MLP's include the trained linear decoder at the same ``N``."""
    b = dict(stored[name, head, N]["baselines"])
    if head == "MLP":
        b["linear decoder, trained"] = stored[name, "linear", N]["median"]
    return b


def stored_table_rows(
    stored: Cells, sizes: Mapping[str, Sequence[int]], margin: float
) -> tuple[list[str], dict[tuple[str, str, int], bool]]:
    """One Markdown row (under :data:`TABLE_HEAD`) per stored cell, data set by data set, ``N``
    then head, and whether each cell learned (:func:`lrnn_core.core.verdicts.beats`)."""
    rows, learned = [], {}
    for name, N, head in ((d, N, h) for d in sizes for N in sizes[d] for h in HEADS):
        r, b = stored[name, head, N], cell_baselines(stored, name, head, N)
        below = times_below(r["median"], b)
        learned[name, head, N] = beats(r["median"], b, margin)
        rows.append(
            f"| {name} | {N} | {head} | {r['best']:.2e} / {r['median']:.2e} | "
            f"{np.median(r['train_mse']):.2e} | {b['ignores input']:.2e} | "
            f"{b['linear']:.2e} | {b.get('linear decoder, trained', np.nan):.2e} | "
            f"×{below:.2f} | {r['wall_s']:.0f} |"
        )
    return rows, learned


def stored_orderings(
    stored: Cells,
    sizes: Mapping[str, Sequence[int]],
    data_sets: Iterable[str],
    *,
    step: float,
    small: float,
    tenfold: float,
) -> tuple[dict[str, dict[str, bool]], dict[str, dict[str, bool]]]:
    """:func:`fig4_orderings` of the trained cells per data set, and of the negative control,
    the mean-image error (``baselines["ignores input"]``, the same at every ``N``)."""
    kw = dict(step=step, small=small, tenfold=tenfold)
    checks, control = {}, {}
    for name in data_sets:
        cells = [(h, N) for h in HEADS for N in sizes[name]]
        trained = {(h, N): stored[name, h, N]["median"] for h, N in cells}
        mean_image = {(h, N): stored[name, h, N]["baselines"]["ignores input"] for h, N in cells}
        checks[name] = fig4_orderings(trained, sizes[name], **kw)
        control[name] = fig4_orderings(mean_image, sizes[name], **kw)
    return checks, control


def headline_cell(
    stored: Cells,
    budget: Cells,
    N0: int,
    live_mnist: Mapping[tuple[str, int], Mapping[str, Any]],
    *,
    budget_steps: int,
    scale: str,
) -> tuple[str, float, dict[str, float]]:
    """The MNIST MLP cell at ``N0`` as ``(source, error, baselines)``: from the paper-budget
    run ``budget`` if it has the cell, else from ``stored`` if it has both decoders at ``N0``,
    else from the live run."""
    cell = ("MNIST", "MLP", N0)
    if cell in budget:
        return (
            f"stored, {budget_steps} steps",
            budget[cell]["median"],
            cell_baselines(budget, *cell),
        )
    if N0 in complete_sizes(stored, ["MNIST"])["MNIST"]:
        return "stored", stored[cell]["median"], cell_baselines(stored, *cell)
    live = {("MNIST", h, N): r for (h, N), r in live_mnist.items()}
    return f"live ({scale})", live[cell]["median"], cell_baselines(live, *cell)


def eigenvalue_moves(
    lam_init: Complex[ArrayLike, "*shape"], lam: Complex[ArrayLike, "*shape"]
) -> dict[str, Any]:
    """How training moved the eigenvalues: ``mean_mod`` (mean ``|lambda|`` before, after),
    ``median_step`` (median ``|lambda - lambda_0|``), ``outward`` (share with
    ``|lambda| > |lambda_0|``) and ``phase`` (median ``|arg(lambda / lambda_0)|``)."""
    lam0, lam1 = np.ravel(lam_init), np.ravel(lam)
    if lam0.shape != lam1.shape:
        raise ValueError(f"shapes differ: {lam0.shape} and {lam1.shape}")
    return dict(
        mean_mod=(np.abs(lam0).mean(), np.abs(lam1).mean()),
        median_step=float(np.median(np.abs(lam1 - lam0))),
        outward=float(np.mean(np.abs(lam1) > np.abs(lam0))),
        phase=float(np.median(np.abs(np.angle(lam1 / lam0)))),
    )
