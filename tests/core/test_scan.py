"""linear_scan: every method against scipy.signal.lfilter and a plain NumPy loop, in numbers."""

from __future__ import annotations

import contextlib

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import scipy.signal
from hypothesis import given, settings
from hypothesis import strategies as st
from jax.test_util import check_grads

import lrnn_core.core.scan as scan
from lrnn_core.core.scan import (
    METHODS,
    associative_depth,
    auto_method,
    combine,
    linear_scan,
    unrolled_sum,
)

# "auto" included; "pallas" (interpreted on a CPU: seconds per compile) has test_scan_pallas.py
ALL = tuple(m for m in METHODS if m != "pallas")
CONCRETE = tuple(m for m in ALL if m != "auto")
# float64/complex128 are compared tightly, float32/complex64 loosely (relative to max |h|)
TOL = {np.float64: 1e-11, np.complex128: 1e-11, np.float32: 2e-5, np.complex64: 2e-5}


@contextlib.contextmanager
def x64():
    with jax.enable_x64(True):
        yield


@contextlib.contextmanager
def short_chunks(base: int = 2):
    """Make "chunked" recurse down to a few steps, so that small inputs exercise all its levels."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(scan, "BASE_LENGTH", base)
        yield


def random_inputs(rng, batch, length, n, dtype, varying=False, with_h0=True, max_abs=0.99):
    """lam (per channel, or per step if ``varying``), u and h0 of ``dtype``."""
    cplx = np.issubdtype(dtype, np.complexfloating)
    lam_shape = (*batch, length, n) if varying else (n,)
    lam = rng.uniform(-max_abs, max_abs, lam_shape)
    u = rng.standard_normal((*batch, length, n))
    h0 = rng.standard_normal((*batch, n))
    if cplx:
        lam = np.abs(lam) * np.exp(1j * rng.uniform(-np.pi, np.pi, lam_shape))
        u = u + 1j * rng.standard_normal(u.shape)
        h0 = h0 + 1j * rng.standard_normal(h0.shape)
    return lam.astype(dtype), u.astype(dtype), (h0.astype(dtype) if with_h0 else None)


def numpy_loop(lam, u, h0=None, reverse=False):
    """Plain NumPy reference: one step at a time, lam per channel or per step."""
    lam = np.asarray(lam)
    lam_full = np.broadcast_to(lam if lam.ndim == u.ndim else lam[..., None, :], u.shape)
    state = u.shape[:-2] + u.shape[-1:]
    dtype = np.result_type(lam, u, *(() if h0 is None else (h0,)))
    h = np.zeros(state, dtype) if h0 is None else np.broadcast_to(h0, state).astype(dtype)
    out = np.zeros(u.shape, dtype)
    steps = range(u.shape[-2] - 1, -1, -1) if reverse else range(u.shape[-2])
    for k in steps:
        h = lam_full[..., k, :] * h + u[..., k, :]
        out[..., k, :] = h
    return out


def lfilter_reference(lam, u, h0):
    """``lfilter([1], [1, -lam_n], u[b, :, n], zi=[lam_n h0[b, n]])`` per batch b, channel n."""
    out = np.zeros(u.shape, np.result_type(lam, u, h0))
    for b in range(u.shape[0]):
        for n in range(u.shape[-1]):
            zi = [lam[n] * h0[b, n]]  # transposed direct form: the state holds lam * h_{k-1}
            out[b, :, n], _ = scipy.signal.lfilter([1], [1, -lam[n]], u[b, :, n], zi=zi)
    return out


def assert_close(actual, expected, dtype):
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.shape == expected.shape
    scale = max(float(np.max(np.abs(expected), initial=0.0)), 1.0)
    np.testing.assert_allclose(actual, expected, rtol=TOL[dtype], atol=TOL[dtype] * scale)


# ---------------------------------------------------------------- against lfilter and the loop


@pytest.mark.parametrize("method", ALL)
@pytest.mark.parametrize("dtype", [np.float64, np.complex128, np.float32, np.complex64])
@pytest.mark.parametrize("length", [1, 9, 150])
def test_matches_lfilter_time_invariant(method, dtype, length):
    rng = np.random.default_rng(length)
    lam, u, h0 = random_inputs(rng, (3,), length, 5, dtype)
    with x64():
        expected = lfilter_reference(lam, u, h0)
        h = linear_scan(lam, u, h0, method=method)
        assert h.dtype == dtype
        assert_close(h, expected, dtype)


@pytest.mark.parametrize("method", CONCRETE)
@pytest.mark.parametrize("dtype", [np.complex128, np.float32])
@pytest.mark.parametrize("reverse", [False, True])
def test_matches_numpy_loop_time_varying(method, dtype, reverse):
    rng = np.random.default_rng(1)
    lam, u, h0 = random_inputs(rng, (2, 3), 77, 4, dtype, varying=True)
    with x64():
        h = linear_scan(lam, u, h0, reverse=reverse, method=method)
        assert h.dtype == dtype
        assert_close(h, numpy_loop(lam, u, h0, reverse), dtype)


@pytest.mark.parametrize("method", ALL)
def test_reverse_is_flipped_forward(method):
    rng = np.random.default_rng(2)
    lam, u, h0 = random_inputs(rng, (2,), 77, 3, np.float64)
    with x64():
        backward = linear_scan(lam, u, h0, reverse=True, method=method)
        forward = linear_scan(lam, u[:, ::-1], h0, method=method)[:, ::-1]
        assert_close(backward, forward, np.float64)


def test_eq3_unrolled_sum():
    """x_k = sum_{j<=k} lam^{k-j} u_j (Orvieto et al. 2024, eq. 3) with h0 = 0."""
    rng = np.random.default_rng(3)
    lam, u, _ = random_inputs(rng, (), 20, 3, np.complex128, with_h0=False)
    powers = (
        lam[None, None, :]
        ** np.maximum(np.arange(20)[:, None] - np.arange(20)[None, :], 0)[..., None]
    )
    mask = (np.arange(20)[:, None] >= np.arange(20)[None, :])[..., None]
    expected = np.sum(np.where(mask, powers, 0) * u[None, :, :], axis=1)
    with x64():
        for method in ALL:
            assert_close(linear_scan(lam, u, method=method), expected, np.complex128)


def test_any_lam_allowed_unstable_and_zero():
    """No |lam| < 1 requirement: growing and zero eigenvalues are computed exactly too."""
    lam = np.array([2.0, 0.0, -1.0, 1.0])
    u = np.ones((6, 4))
    with x64():
        expected = numpy_loop(lam, u)
        for method in ALL:
            assert_close(linear_scan(lam, u, method=method), expected, np.float64)


def test_broadcasting_and_dtype_promotion():
    rng = np.random.default_rng(4)
    u = rng.standard_normal((2, 5, 3)).astype(np.complex64)
    lam_b = rng.uniform(-0.9, 0.9, (2, 3)).astype(np.float32)  # per batch and channel
    h = linear_scan(lam_b, u)
    assert h.dtype == jnp.complex64
    expected = np.stack([numpy_loop(lam_b[i], u[i]) for i in range(2)])
    assert_close(h, expected, np.complex64)
    # a scalar lam and a scalar h0 broadcast over everything
    assert_close(linear_scan(0.5, u, 1.0), numpy_loop(np.full(3, 0.5), u, np.ones(3)), np.complex64)
    # integer inputs become floats
    assert linear_scan(np.ones(3, int), np.ones((4, 3), int)).dtype == jnp.float32


def test_empty_sequence():
    for method in ALL:
        h = linear_scan(np.ones(3), np.zeros((2, 0, 3)), np.ones((2, 3)), method=method)
        assert h.shape == (2, 0, 3)


def test_chunk_end_cases():
    """Lengths around the chunk size and the base length, with the real constants."""
    rng = np.random.default_rng(5)
    with x64():
        for length in [scan.BASE_LENGTH, scan.BASE_LENGTH + 1, 4 * scan.BASE_LENGTH + 3]:
            for reverse in (False, True):
                lam, u, h0 = random_inputs(rng, (2,), length, 3, np.complex128, varying=reverse)
                h = linear_scan(lam, u, h0, reverse=reverse, method="chunked")
                assert_close(h, numpy_loop(lam, u, h0, reverse), np.complex128)


# ---------------------------------------------------------------- property-based


@settings(max_examples=40, deadline=None)
@given(
    batch=st.lists(st.integers(1, 3), max_size=2).map(tuple),
    length=st.integers(1, 40),
    n=st.integers(1, 4),
    dtype=st.sampled_from([np.float32, np.float64, np.complex64, np.complex128]),
    reverse=st.booleans(),
    with_h0=st.booleans(),
    varying=st.booleans(),
    method=st.sampled_from(ALL),
    seed=st.integers(0, 2**16),
)
def test_property_matches_loop(batch, length, n, dtype, reverse, with_h0, varying, method, seed):
    rng = np.random.default_rng(seed)
    lam, u, h0 = random_inputs(rng, batch, length, n, dtype, varying, with_h0, max_abs=1.05)
    with x64(), short_chunks():
        h = linear_scan(lam, u, h0, reverse=reverse, method=method)
        assert h.dtype == dtype
        assert h.shape == u.shape
        assert_close(h, numpy_loop(lam, u, h0, reverse), dtype)


@settings(max_examples=15, deadline=None)
@given(
    x=st.tuples(*[st.floats(-2, 2)] * 6),
)
def test_combine_is_associative(x):
    with x64():
        a, b, c = [(jnp.float64(x[i]), jnp.float64(x[i + 1])) for i in (0, 2, 4)]
        left, right = combine(combine(a, b), c), combine(a, combine(b, c))
        np.testing.assert_allclose(np.array(left), np.array(right), rtol=1e-12, atol=1e-12)


# ---------------------------------------------------------------- transformations


@pytest.mark.parametrize("method", ALL)
def test_jit_matches_eager(method):
    rng = np.random.default_rng(6)
    lam, u, h0 = random_inputs(rng, (2,), 70, 3, np.complex64, varying=True)
    fn = jax.jit(linear_scan, static_argnames=("reverse", "method"))
    for reverse in (False, True):
        eager = linear_scan(lam, u, h0, reverse=reverse, method=method)
        assert_close(fn(lam, u, h0, reverse=reverse, method=method), eager, np.complex64)


@pytest.mark.parametrize("method", ALL)
def test_vmap_matches_loop(method):
    rng = np.random.default_rng(7)
    lam, u, h0 = random_inputs(rng, (4,), 70, 3, np.float32, varying=True)
    fn = lambda a, b, c: linear_scan(a, b, c, method=method)  # noqa: E731
    batched = jax.vmap(fn)(lam, u, h0)
    looped = np.stack([fn(lam[i], u[i], h0[i]) for i in range(4)])
    assert_close(batched, looped, np.float32)
    # shared lam, mapped u over a non-leading axis
    shared = jax.vmap(lambda b: fn(lam[0, 0], b, None), in_axes=1, out_axes=1)(u[:, None])
    assert_close(shared[:, 0], np.stack([fn(lam[0, 0], u[i], None) for i in range(4)]), np.float32)


@pytest.mark.parametrize("method", CONCRETE)
@pytest.mark.parametrize(
    "dtype, varying, reverse", [(np.float64, False, False), (np.complex128, True, True)]
)
def test_check_grads(method, dtype, varying, reverse):
    rng = np.random.default_rng(8)
    lam, u, h0 = random_inputs(rng, (2,), 11, 3, dtype, varying=varying, max_abs=0.9)
    with x64(), short_chunks():
        fn = jax.jit(lambda a, b, c: linear_scan(a, b, c, reverse=reverse, method=method))
        check_grads(fn, (lam, u, h0), order=1, modes=["rev"], atol=1e-6, rtol=1e-6)


def test_forward_mode_too():
    """The custom JVP rule also gives forward mode (jvp, jacfwd), not only grad."""
    rng = np.random.default_rng(10)
    lam, u, h0 = random_inputs(rng, (2,), 9, 3, np.complex128, varying=True, max_abs=0.9)
    with x64():
        for method in ("auto", "inplace"):
            fn = jax.jit(lambda a, b, c: linear_scan(a, b, c, method=method))  # noqa: B023
            check_grads(fn, (lam, u, h0), order=2, modes=["fwd"], atol=1e-6, rtol=1e-6)


@pytest.mark.parametrize("varying", [False, True])
def test_gradients_agree_across_methods(varying):
    rng = np.random.default_rng(9)
    lam, u, h0 = random_inputs(rng, (2,), 40, 3, np.complex128, varying=varying)
    weights = rng.standard_normal(u.shape)

    def loss(a, b, c, method):
        h = linear_scan(a, b, c, method=method)
        return jnp.sum(weights * jnp.abs(h) ** 2)

    with x64(), short_chunks():
        grad = jax.jit(jax.grad(loss, argnums=(0, 1, 2)), static_argnums=3)
        grads = {m: grad(lam, u, h0, m) for m in ALL}
        for method in ALL:
            for got, want in zip(grads[method], grads["sequential"], strict=True):
                assert_close(got, want, np.complex128)


# ---------------------------------------------------------------- errors


def test_error_u_needs_two_dims():
    with pytest.raises(ValueError, match=r"u must have at least 2 dimensions.*\(5,\)"):
        linear_scan(np.ones(5), np.ones(5))


def test_error_lam_shape():
    with pytest.raises(ValueError, match=r"lam of shape \(4,\).*\(3,\).*u has shape \(2, 3\)"):
        linear_scan(np.ones(4), np.ones((2, 3)))
    with pytest.raises(ValueError, match=r"lam of shape \(5, 3\).*u.shape \(2, 3\)"):
        linear_scan(np.ones((5, 3)), np.ones((2, 3)))  # per-step lam of the wrong length


def test_error_h0_shape():
    with pytest.raises(ValueError, match=r"h0 of shape \(4,\).*state shape \(2, 3\)"):
        linear_scan(np.ones(3), np.ones((2, 5, 3)), np.ones(4))
    with pytest.raises(ValueError, match=r"h0 of shape \(2, 5, 3\)"):
        linear_scan(np.ones(3), np.ones((2, 5, 3)), np.ones((2, 5, 3)))


@pytest.mark.parametrize(
    "args, name",
    [
        (("abc", np.ones((2, 3))), "lam"),
        ((np.ones(3), np.ones((2, 3), bool)), "u"),
        ((np.ones(3), np.ones((2, 3)), "zero"), "h0"),
        ((None, np.ones((2, 3))), "lam"),
    ],
)
def test_error_dtypes(args, name):
    with pytest.raises(TypeError, match=rf"^{name} must be"):
        linear_scan(*args)


def test_error_unknown_method():
    match = r"method must be one of.*'sequential'.*'associative'.*got 'fast'"
    with pytest.raises(ValueError, match=match):
        linear_scan(np.ones(3), np.ones((2, 3)), method="fast")


@pytest.mark.parametrize("name", ["lam", "u", "h0"])
@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_error_non_finite(name, bad):
    args = {"lam": np.full(3, 0.5), "u": np.ones((4, 3)), "h0": np.zeros(3)}
    args[name] = args[name].copy()
    args[name].flat[1] = bad
    with pytest.raises(ValueError, match=rf"{name} contains non-finite"):
        linear_scan(args["lam"], args["u"], args["h0"])


def test_non_finite_not_checked_under_jit():
    """Under jit the values are unknown; NaN simply propagates."""
    h = jax.jit(linear_scan)(np.full(3, 0.5), np.full((4, 3), np.nan))
    assert np.isnan(np.asarray(h)).all()


def test_auto_method_per_backend():
    assert auto_method("cpu") in CONCRETE
    assert auto_method("gpu") in CONCRETE  # never the kernel: no GPU timing of it is stored
    assert auto_method() == auto_method(jax.default_backend())


def test_unrolled_sum_matches_a_serial_loop_and_the_scan():
    rng = np.random.default_rng(5)
    lam = 0.9 * np.exp(1j * rng.uniform(0, 2 * np.pi, 6))
    bu = rng.normal(size=(40, 6)) + 1j * rng.normal(size=(40, 6))
    x, want = np.zeros(6, complex), []
    for k in range(40):
        x = lam * x + bu[k]
        want.append(x)
    got = unrolled_sum(lam, bu)
    assert got.dtype == np.complex128 and got.shape == (40, 6)
    np.testing.assert_allclose(got, np.array(want), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(got[0], bu[0])  # x_1 = B u_1
    np.testing.assert_allclose(got[1], lam * bu[0] + bu[1])  # x_2 = lam B u_1 + B u_2
    with jax.enable_x64(True):
        scan = np.asarray(linear_scan(lam, bu))
    np.testing.assert_allclose(got, scan, rtol=1e-12, atol=1e-12)
    with pytest.raises(ValueError, match=r"lam must have shape \(3\), got \(6,\)"):
        unrolled_sum(lam, bu[:, :3])


@pytest.mark.parametrize(("L", "depth"), [(1, 0), (2, 2), (4, 4), (8, 6), (1024, 20)])
def test_associative_depth_is_two_rounds_per_halving(L, depth):
    assert associative_depth(L) == depth == (2 * int(np.log2(L)))


def test_associative_depth_grows_like_log_L():
    depths = [associative_depth(L) for L in range(1, 70)]
    assert all(b >= a for a, b in zip(depths, depths[1:], strict=False))
    assert all(d <= 2 * np.log2(L) + 2 for L, d in zip(range(1, 70), depths, strict=True))
    with pytest.raises(ValueError, match="L must be >= 1"):
        associative_depth(0)


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("varying", [False, True])
def test_inplace_in_a_donated_buffer(reverse, varying):
    """``"inplace"`` overwrites its input's buffer step by step; when ``u`` is donated (XLA reuses
    it for the output) every step must still read the untouched ``u_k`` and the finished
    ``h_{k-1}``, in both directions and with a per-step ``lam``."""
    rng = np.random.default_rng(12)
    lam, u, h0 = random_inputs(rng, (2,), 17, 3, np.complex64, varying=varying)
    want = numpy_loop(lam, u, h0, reverse)
    fn = jax.jit(
        lambda b: linear_scan(lam, b, h0, reverse=reverse, method="inplace"), donate_argnums=0
    )
    buffer = jnp.asarray(u)
    got = fn(buffer)
    assert buffer.is_deleted()  # the buffer was donated, so the loop ran in it
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-5)
