"""The targets of issue 13 for ``linear_scan(method="auto")``, each measured as a paired time ratio,
in this process or in a fresh one with extra environment variables."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from collections.abc import Sequence
from functools import partial
from typing import TypedDict

import jax
import jax.numpy as jnp

from lrnn_core.bookkit.benchmark_gradient import grad_fn
from lrnn_core.bookkit.benchmark_setup import (
    MAX_PEER_ELEMENTS,
    Shape,
    make_inputs,
    numpy_loop,
    resolve,
    spread,
    stream,
)
from lrnn_core.bookkit.benchmark_timing import paired_time_ratio
from lrnn_core.core.scan import linear_scan
from lrnn_core.core.validate import nonnegative_int

TARGETS = {"auto / NumPy loop": 1.0, "auto / floor": 1.15, "gradient / forward": 3.0}
"""Issue 13's targets (upper bounds) for :func:`target_ratios`: ``method="auto"`` no slower than
the NumPy loop, within 1.15x the streaming floor, and one ``jax.grad`` within 3x the forward."""


class TargetRow(TypedDict):
    """One shape of :func:`target_ratios`: the 1-minute ``load`` average before it (None where
    the OS has none), each ratio of :data:`TARGETS` (None if not measured) and whether it is
    ``met`` (ratio <= bound; None if not measured)."""

    shape: Shape
    load: float | None
    ratios: dict[str, float | None]
    met: dict[str, bool | None]


def target_ratios(
    shapes: Sequence[Shape] | None = None,
    *,
    repeats: int | None = None,
    dtype: str = "complex64",
    seed: int = 0,
    max_peer_elements: int = MAX_PEER_ELEMENTS,
) -> list[TargetRow]:
    """The ratios of :data:`TARGETS` for ``method="auto"``, each a
    :func:`~lrnn_core.bookkit.benchmark_timing.paired_time_ratio`.

    Interleaved pairs, because separate medians of two programs can swap when other processes
    share the cores. Returns one dict per shape: ``shape``, ``load`` (the 1-minute load average
    before the shape, None where the OS has none), ``ratios`` (name -> ratio; the NumPy loop's
    is None above ``max_peer_elements``) and ``met`` (name -> ratio <= bound, or None).
    """
    shapes, repeats, dtype = resolve(shapes, repeats, dtype)
    auto, floor, grad = (
        jax.jit(partial(linear_scan, method="auto")),
        jax.jit(stream),
        grad_fn("auto"),
    )
    rows = []
    for shape in shapes:
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
        lam_np, u_np = make_inputs(shape, dtype, nonnegative_int("seed", seed))
        lam, u, c = jnp.asarray(lam_np), jnp.asarray(u_np), jnp.asarray(2, dtype)
        run_auto = lambda: auto(lam, u)  # noqa: E731, B023
        ratios = {
            "auto / NumPy loop": None
            if math.prod(shape) > max_peer_elements
            else paired_time_ratio(run_auto, lambda: numpy_loop(lam_np, u_np), (), repeats),  # noqa: B023
            "auto / floor": paired_time_ratio(run_auto, lambda: floor(u, c), (), repeats),  # noqa: B023
            "gradient / forward": paired_time_ratio(lambda: grad(lam, u), run_auto, (), repeats),  # noqa: B023
        }
        met = {k: None if r is None else r <= TARGETS[k] for k, r in ratios.items()}
        rows.append(TargetRow(shape=tuple(shape), load=load, ratios=ratios, met=met))
    return rows


def format_targets(rows: Sequence[TargetRow]) -> str:
    """Rows of :func:`target_ratios` as one Markdown table, each ratio marked met or missed."""
    cell = lambda r, ok: "" if r is None else f"{r:.2f} ({'met' if ok else 'missed'})"  # noqa: E731
    heads = [f"{k} (target <= {v:g})" for k, v in TARGETS.items()]
    lines = ["| (B, L, N) | " + " | ".join(heads) + " | load |", "|---" * (len(heads) + 2) + "|"]
    for r in rows:
        cells = [cell(r["ratios"][k], r["met"][k]) for k in TARGETS]
        load = "" if r["load"] is None else f"{r['load']:.1f}"
        lines.append(
            f"| ({', '.join(map(str, r['shape']))}) | " + " | ".join(cells) + f" | {load} |"
        )
    return "\n".join(lines)


def target_ratios_in_process(
    env: dict[str, str],
    shapes: Sequence[Shape] | None = None,
    *,
    repeats: int | None = None,
    timeout: float = 1800.0,
) -> list[TargetRow]:
    """:func:`target_ratios` run in a new Python process whose environment adds ``env``.

    For settings read only when a process starts, such as glibc's allocator tunables
    (``GLIBC_TUNABLES=glibc.malloc.hugetlb=1`` asks the kernel for transparent huge pages, as
    NumPy does for its large arrays). Returns the child's rows (shapes as tuples). Raises
    ``subprocess.CalledProcessError`` if the child fails.
    """
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in env.items()):
        raise TypeError(f"env must map str to str, got {env!r}")
    shapes, repeats, _ = resolve(shapes, repeats, "complex64")
    code = (
        "import json, sys\n"
        "from lrnn_core.bookkit.benchmark_targets import target_ratios\n"
        "shapes = [tuple(s) for s in json.loads(sys.argv[1])]\n"
        "print(json.dumps(target_ratios(shapes, repeats=int(sys.argv[2]))))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, json.dumps(shapes), str(repeats)],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        check=True,
        timeout=timeout,
    )
    rows = json.loads(done.stdout.strip().splitlines()[-1])
    return [r | {"shape": tuple(r["shape"])} for r in rows]


def ratio_spreads(rows: Sequence[TargetRow]) -> dict[str, str]:
    """The range over the shapes of :func:`target_ratios`'s ``rows`` of each ratio of
    :data:`TARGETS` (shapes where it was not measured are left out)."""
    return {
        name: spread([r["ratios"][name] for r in rows if r["ratios"][name] is not None])
        for name in TARGETS
    }


def auto_vs_sequential(shape: Shape, repeats: int, seed: int = 0) -> float:
    """The paired time ratio of ``linear_scan`` with ``method="auto"`` over ``"sequential"`` (the
    ``lax.scan`` reference) on :func:`~lrnn_core.bookkit.benchmark_setup.make_inputs` of
    ``shape``, over ``repeats`` interleaved pairs."""
    lam, u = (jnp.asarray(a) for a in make_inputs(shape, "complex64", seed))
    return paired_time_ratio(
        jax.jit(partial(linear_scan, method="auto")),
        jax.jit(partial(linear_scan, method="sequential")),
        (lam, u),
        repeats=repeats,
    )
