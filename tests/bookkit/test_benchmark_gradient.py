"""The gradient benchmark: checked against the gradient through "sequential", paired."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from lrnn_core.bookkit.benchmark_gradient import format_gradient_table, grad_fn, gradient_benchmark
from lrnn_core.bookkit.benchmark_setup import RTOL


def test_gradient_benchmark_checks_and_pairs():
    rows = gradient_benchmark([(2, 40, 3)], repeats=3, methods=["auto", "chunked"])
    assert [r["name"] for r in rows] == ["auto", "chunked"]
    for r in rows:
        assert r["time_s"] > 0 and r["vs_forward"] > 0
        assert r["rel_err"] <= RTOL["complex64"]
    table = format_gradient_table(rows).splitlines()
    assert len(table) == 2 + len(rows) and "| (2, 40, 3) | grad of linear_scan(auto -> " in table[2]


def test_grad_fn_is_the_gradient_of_the_sum():
    """For L = 2, h_1 = u_1, h_2 = lam u_1 + u_2: d sum(h) / d lam = u_1, d / d u = (1 + lam, 1)."""
    lam, u = jnp.array([0.5]), jnp.array([[[2.0], [3.0]]])
    d_lam, d_u = grad_fn("sequential")(lam, u)
    np.testing.assert_allclose(d_lam, [2.0])
    np.testing.assert_allclose(d_u, [[[1.5], [1.0]]])
