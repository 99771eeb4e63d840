"""The gradient benchmark: one ``jax.grad`` through ``linear_scan``, timed and checked against the
gradient through ``method="sequential"``, with its paired ratio to the forward scan."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import TypedDict

import jax
import jax.numpy as jnp
import numpy as np

from lrnn_core.bookkit.benchmark_setup import (
    RTOL,
    Shape,
    make_inputs,
    method_label,
    relative_error,
    resolve,
)
from lrnn_core.bookkit.benchmark_timing import paired_time_ratio, time_call
from lrnn_core.core.scan import METHODS, linear_scan
from lrnn_core.core.validate import check_choice, nonnegative_int


class GradientRow(TypedDict):
    """One (shape, method) of :func:`gradient_benchmark`."""

    shape: Shape
    name: str
    label: str
    kind: str
    dtype: str
    time_s: float
    rel_err: float
    note: str
    vs_forward: float


def grad_fn(method: str) -> Callable[[jax.Array, jax.Array], tuple[jax.Array, jax.Array]]:
    """Jitted gradient of ``sum(Re h)`` with respect to ``lam`` and ``u``: one backward scan."""
    loss = lambda lam, u: jnp.sum(jnp.real(linear_scan(lam, u, method=method)))  # noqa: E731
    return jax.jit(jax.grad(loss, argnums=(0, 1)))


def gradient_benchmark(
    shapes: Sequence[Shape] | None = None,
    *,
    repeats: int | None = None,
    methods: Sequence[str] = ("auto", "sequential"),
    dtype: str = "complex64",
    seed: int = 0,
) -> list[GradientRow]:
    """Time one ``jax.grad`` of ``sum(Re linear_scan(lam, u))`` (w.r.t. lam and u) per method.

    Returns one dict per (shape, method) with keys ``shape, name, label, kind, dtype, time_s``
    (median), ``vs_forward`` (median over ``repeats`` interleaved pairs of gradient time / forward
    time of the same method), ``rel_err`` (against the gradient through ``"sequential"``, the
    largest over ``lam`` and ``u``) and ``note``. Raises ``AssertionError`` beyond
    :data:`~lrnn_core.bookkit.benchmark_setup.RTOL`.
    """
    shapes, repeats, dtype = resolve(shapes, repeats, dtype)
    methods = [check_choice("methods", m, METHODS) for m in methods]
    rows = []
    for shape in shapes:
        lam, u = (jnp.asarray(a) for a in make_inputs(shape, dtype, nonnegative_int("seed", seed)))
        ref = [np.asarray(g) for g in grad_fn("sequential")(lam, u)]
        for name in methods:
            grad, forward = grad_fn(name), jax.jit(partial(linear_scan, method=name))
            t, out = time_call(grad, (lam, u), repeats)
            err = max(relative_error(np.asarray(g), r) for g, r in zip(out, ref, strict=True))
            if not err <= RTOL[dtype]:
                raise AssertionError(f"gradient of {name} at {shape}: relative error {err:.3g}")
            label = f"grad of {method_label(name)}"
            rows.append(
                GradientRow(
                    shape=tuple(shape),
                    name=name,
                    label=label,
                    kind="grad",
                    dtype=dtype,
                    time_s=t,
                    rel_err=err,
                    note="w.r.t. lam and u",
                    vs_forward=paired_time_ratio(grad, forward, (lam, u), repeats),
                )
            )
    return rows


def format_gradient_table(rows: Sequence[GradientRow]) -> str:
    """Rows of :func:`gradient_benchmark` as one Markdown table."""
    lines = [
        "| (B, L, N) | what | time ms | x forward (paired) | rel err |",
        "|---|---|---|---|---|",
    ]
    for r in rows:
        shape = "(" + ", ".join(map(str, r["shape"])) + ")"
        lines.append(
            f"| {shape} | {r['label']} | {1e3 * r['time_s']:.2f} | {r['vs_forward']:.2f} "
            f"| {r['rel_err']:.1e} |"
        )
    return "\n".join(lines)
