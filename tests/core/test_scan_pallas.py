"""The Pallas kernel (method="pallas"), in interpret mode on a CPU, against the NumPy loop."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from lrnn_core.core.scan import linear_scan
from lrnn_core.core.scan_pallas import pallas_scan
from tests.core.test_scan import assert_close, numpy_loop, random_inputs


@pytest.mark.parametrize(
    "dtype, varying, reverse",
    [(np.complex128, True, True), (np.float64, True, False)],
)
def test_matches_numpy_loop(dtype, varying, reverse):
    """Batch dims, channels not a multiple of the block (padding), h0, per-step lam, reverse."""
    rng = np.random.default_rng(0)
    lam, u, h0 = random_inputs(rng, (2, 3), 37, 5, dtype, varying=varying)
    with jax.enable_x64(True):
        h = linear_scan(lam, u, h0, reverse=reverse, method="pallas")
        assert h.dtype == dtype
        assert_close(h, numpy_loop(lam, u, h0, reverse), dtype)


def test_several_blocks_and_complex64():
    """N = 10 in blocks of 4: three programs per row, the last one padded; time-invariant lam."""
    rng = np.random.default_rng(1)
    lam, u, h0 = random_inputs(rng, (2,), 20, 10, np.complex64)
    lam_b = jnp.broadcast_to(jnp.asarray(lam)[None, None], (1, 1, 10))
    h = pallas_scan(lam_b, jnp.asarray(u), jnp.asarray(h0), False, block=4, interpret=True)
    assert h.dtype == jnp.complex64
    assert_close(h, numpy_loop(lam, u, h0), np.complex64)


def test_gradient_matches_sequential():
    """The shared JVP rule: gradients of method="pallas" equal those of "sequential"."""
    rng = np.random.default_rng(2)
    lam, u, h0 = random_inputs(rng, (2,), 16, 3, np.complex128, varying=True)
    weights = rng.standard_normal(u.shape)

    def loss(a, b, c, method):
        return jnp.sum(weights * jnp.abs(linear_scan(a, b, c, method=method)) ** 2)

    with jax.enable_x64(True):
        grad = jax.grad(loss, argnums=(0, 1, 2))
        for got, want in zip(
            grad(lam, u, h0, "pallas"), grad(lam, u, h0, "sequential"), strict=True
        ):
            assert_close(got, want, np.complex128)
