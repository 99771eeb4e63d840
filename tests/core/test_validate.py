"""Input checks: each raises an error naming the argument, and passes good input through."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from lrnn_core.core import validate
from lrnn_core.core.validate import as_inexact, check_finite, check_ndim, check_stable, check_type


@pytest.mark.parametrize(
    ("value", "match"),
    [
        ("abc", "must be a numeric array, got str"),
        (None, "must be a numeric array, got NoneType"),
        (b"ab", "must be a numeric array, got bytes"),
        (np.array([True, False]), "must be a float or complex array, got dtype bool"),
    ],
)
def test_as_inexact_rejects_non_numbers(value, match):
    with pytest.raises(TypeError, match=r"^my_arg " + match):
        as_inexact("my_arg", value)


def test_as_inexact_converts_integers_and_keeps_inexact_dtypes():
    x = as_inexact("x", [1, 2, 3])
    assert jnp.issubdtype(x.dtype, jnp.floating)
    np.testing.assert_array_equal(x, [1.0, 2.0, 3.0])
    z = as_inexact("z", np.array([1 + 2j], np.complex64))
    assert z.dtype == jnp.complex64 and complex(z[0]) == 1 + 2j
    assert as_inexact("h", np.float32(0.5)).dtype == jnp.float32


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf, complex(0, np.nan)])
def test_check_finite_names_the_argument(bad):
    with pytest.raises(ValueError, match=r"^inputs_u contains non-finite values"):
        check_finite("inputs_u", jnp.asarray([0.0, bad, 1.0]))
    check_finite("inputs_u", jnp.asarray([0.0, 1e30, -1.0]))  # finite: no error


@pytest.mark.parametrize(
    ("lam", "worst"), [([0.5, 1.0], "1"), ([0.5j, -1.5], "1.5"), ([0.6 + 0.8j], "1")]
)
def test_check_stable_names_the_argument_and_the_worst_modulus(lam, worst):
    with pytest.raises(
        ValueError,
        match=rf"^eig_lam must be stable \(all \|lambda\| < 1\), but max \|lambda\| = {worst}$",
    ):
        check_stable("eig_lam", jnp.asarray(lam))


def test_check_stable_accepts_the_open_disk():
    check_stable("lam", jnp.asarray([0.999999, -0.5, 0.7j, 0.0]))
    check_stable("lam", jnp.zeros((0,)))


def test_check_ndim_names_the_argument_and_the_shape():
    with pytest.raises(
        ValueError, match=r"^seq must have at least 2 dimensions, got shape \(3,\)$"
    ):
        check_ndim("seq", jnp.zeros(3), 2)
    check_ndim("seq", jnp.zeros((2, 3)), 2)


def test_value_checks_are_skipped_under_jit():
    """Under jit values are tracers: finiteness and stability go unchecked, shapes still can."""

    @jax.jit
    def f(x):
        check_finite("x", x)
        check_stable("x", x)
        check_ndim("x", x, 1)
        return x * 2

    np.testing.assert_array_equal(f(jnp.asarray([np.nan, 2.0])), [np.nan, 4.0])
    with pytest.raises(ValueError, match="x must have at least 1 dimensions"):
        f(jnp.asarray(1.0))


def test_positive_int_accepts_numpy_ints_and_names_bad_values():
    assert validate.positive_int("n", np.int64(3)) == 3
    with pytest.raises(TypeError, match="n must be an int, got bool"):
        validate.positive_int("n", True)
    with pytest.raises(TypeError, match="L must be an int, got float"):
        validate.positive_int("L", 2.0)
    with pytest.raises(ValueError, match="L must be >= 1, got 0"):
        validate.positive_int("L", 0)


def test_eigenvalue_vector_converts_and_checks():
    out = validate.eigenvalue_vector("lam", [0.5, 1j])
    assert out.dtype == np.complex128 and out.tolist() == [0.5, 1j]
    with pytest.raises(ValueError, match="lam must be a non-empty 1-D array"):
        validate.eigenvalue_vector("lam", np.ones((2, 2)))
    with pytest.raises(TypeError, match="lam must be a float or complex array"):
        validate.eigenvalue_vector("lam", np.array([True]))
    with pytest.raises(ValueError, match="lam contains non-finite"):
        validate.eigenvalue_vector("lam", [np.nan])
    with pytest.raises(ValueError, match=r"max \|lambda\| = 1.5"):
        validate.eigenvalue_vector("lam", [0.5, 1.5], max_modulus=1.0)
    assert validate.eigenvalue_vector("lam", [1.5]).shape == (1,)  # no modulus check unless asked


# --- Python scalars: the value that comes back, and the error that names the argument ---------


@pytest.mark.parametrize(
    ("value", "want"), [(1, 1), (7, 7), (np.int64(3), 3), (np.uint8(2), 2), (jnp.int32(5), 5)]
)
def test_positive_int_returns_a_python_int(value, want):
    got = validate.positive_int("N", value)
    assert got == want and type(got) is int


@pytest.mark.parametrize(
    ("value", "error", "match"),
    [
        (0, ValueError, "N must be >= 1, got 0"),
        (-3, ValueError, "N must be >= 1, got -3"),
        (True, TypeError, "N must be an int, got bool"),
        (np.bool_(True), TypeError, "N must be an int"),
        (2.0, TypeError, "N must be an int, got float"),
        ("4", TypeError, "N must be an int, got str"),
        (jnp.float32(2.0), TypeError, "N must be an int"),
    ],
)
def test_positive_int_rejects(value, error, match):
    with pytest.raises(error, match=match):
        validate.positive_int("N", value)


def test_nonnegative_int_accepts_zero_and_rejects_negatives():
    assert validate.nonnegative_int("seed", 0) == 0
    assert validate.nonnegative_int("seed", np.int16(12)) == 12
    with pytest.raises(ValueError, match="seed must be >= 0, got -1"):
        validate.nonnegative_int("seed", -1)
    with pytest.raises(TypeError, match="seed must be an int"):
        validate.nonnegative_int("seed", False)


@pytest.mark.parametrize(
    ("value", "want"),
    [
        (0.5, 0.5),
        (2, 2.0),
        (np.float32(0.25), 0.25),
        (jnp.float32(0.75), 0.75),
        (jnp.array(3), 3.0),
    ],
)
def test_real_number_returns_a_python_float(value, want):
    got = validate.real_number("r_min", value)
    assert got == want and type(got) is float


@pytest.mark.parametrize(
    ("value", "kwargs", "error", "match"),
    [
        (float("nan"), {}, ValueError, "r_min must be finite, got nan"),
        (float("inf"), {}, ValueError, "r_min must be finite"),
        (np.float64("-inf"), {}, ValueError, "r_min must be finite"),
        (True, {}, TypeError, "r_min must be a real number, got bool"),
        ("0.5", {}, TypeError, "r_min must be a real number, got str"),
        (1j, {}, TypeError, "r_min must be a real number, got complex"),
        (jnp.array(0.5 + 1j), {}, TypeError, "r_min must be a real number, got dtype complex"),
        (np.ones(2), {}, TypeError, r"r_min must be a real number, got an array of shape \(2,\)"),
        (None, {}, TypeError, "r_min must be a real number, got NoneType"),
        (-0.5, {"low": 0.0}, ValueError, "r_min must be >= 0, got -0.5"),
        (1.5, {"high": 1.0}, ValueError, "r_min must be <= 1, got 1.5"),
    ],
)
def test_real_number_rejects(value, kwargs, error, match):
    with pytest.raises(error, match=match):
        validate.real_number("r_min", value, **kwargs)


def test_real_number_bounds_are_inclusive():
    assert validate.real_number("x", 0.0, low=0.0, high=1.0) == 0.0
    assert validate.real_number("x", 1.0, low=0.0, high=1.0) == 1.0


def test_positive_number():
    assert validate.positive_number("dt", np.float32(0.5)) == 0.5
    assert validate.positive_number("dt", 3) == 3.0
    for bad in (0, -1.0, 0.0):
        with pytest.raises(ValueError, match="dt must be > 0"):
            validate.positive_number("dt", bad)
    with pytest.raises(ValueError, match="dt must be finite"):
        validate.positive_number("dt", float("inf"))


def test_check_flag():
    assert validate.check_flag("reverse", True) is True
    assert validate.check_flag("reverse", np.bool_(False)) is False
    for bad in (0, 1, "yes", "True", None, 1.0):
        with pytest.raises(TypeError, match="reverse must be a bool"):
            validate.check_flag("reverse", bad)


def test_check_text():
    assert validate.check_text("claim", "Orvieto Fig 2") == "Orvieto Fig 2"
    with pytest.raises(TypeError, match="claim must be a str, got int"):
        validate.check_text("claim", 3)
    for bad in ("", "   "):
        with pytest.raises(ValueError, match="claim must not be empty"):
            validate.check_text("claim", bad)


def test_check_choice():
    methods = ("sequential", "associative")
    assert validate.check_choice("method", "associative", methods) == "associative"
    with pytest.raises(ValueError, match=r"method must be one of \('sequential', 'associative'\)"):
        validate.check_choice("method", "fast", methods)
    with pytest.raises(TypeError, match="method must be a str"):
        validate.check_choice("method", 1, methods)
    assert validate.check_choice("k", 2, (1, 2, 3)) == 2


def test_seed_list():
    assert validate.seed_list("seeds", 3) == (3,)
    assert validate.seed_list("seeds", [0, 1, 2]) == (0, 1, 2)
    assert validate.seed_list("seeds", np.arange(3)) == (0, 1, 2)
    assert validate.seed_list("seeds", range(2)) == (0, 1)
    with pytest.raises(ValueError, match="seeds must hold at least one seed"):
        validate.seed_list("seeds", [])
    with pytest.raises(ValueError, match="seeds must not repeat a seed"):
        validate.seed_list("seeds", [1, 1])
    with pytest.raises(ValueError, match=r"seeds\[1\] must be >= 0"):
        validate.seed_list("seeds", [0, -1])
    with pytest.raises(TypeError, match=r"seeds\[0\] must be an int"):
        validate.seed_list("seeds", [True])
    with pytest.raises(TypeError, match=r"seeds\[0\] must be an int, got str"):
        validate.seed_list("seeds", "0")


# --- Arrays ----------------------------------------------------------------------------------


def test_as_inexact_integers_are_exact_below_the_float_mantissa():
    with jax.enable_x64(False):
        x = validate.as_inexact("u", np.array([0, 2**24, -(2**24)]))
        assert x.dtype == jnp.float32
        np.testing.assert_array_equal(np.asarray(x, np.float64), [0, 2**24, -(2**24)])


@pytest.mark.parametrize("big", [2**24 + 1, 2**31 - 1, -(2**25)])
def test_as_inexact_rejects_integers_float32_cannot_hold(big):
    with jax.enable_x64(False):
        with pytest.raises(ValueError, match="u holds integers up to .* beyond what float32"):
            validate.as_inexact("u", np.array([1, big], np.int64))


def test_as_inexact_with_float64_on_holds_large_integers_exactly():
    with jax.enable_x64(True):
        x = validate.as_inexact("u", np.array([1, 2**31 - 1], np.int64))
        assert x.dtype == jnp.float64
        assert float(x[1]) == 2**31 - 1
        with pytest.raises(ValueError, match="beyond what float64"):
            validate.as_inexact("u", np.array([2**53 + 1], np.int64))


def test_as_inexact_keeps_complex_and_empty_arrays():
    z = validate.as_inexact("lam", [0.5 + 0.5j])
    assert jnp.iscomplexobj(z)
    e = validate.as_inexact("u", np.zeros((0, 3), np.int32))
    assert e.shape == (0, 3) and jnp.issubdtype(e.dtype, jnp.floating)


def test_as_float64_is_float64_whatever_jax_precision():
    with jax.enable_x64(False):
        x = validate.as_float64("lam", jnp.array([0.5, 0.25], jnp.float32))
        assert x.dtype == np.float64 and isinstance(x, np.ndarray)
        np.testing.assert_array_equal(x, [0.5, 0.25])
        z = validate.as_float64("lam", [1 + 2j])
        assert z.dtype == np.complex128
        i = validate.as_float64("lam", np.array([2**40], np.int64))
        assert i.dtype == np.float64 and i[0] == 2**40
    with pytest.raises(TypeError, match="lam must be a float or complex array, got dtype bool"):
        validate.as_float64("lam", np.array([True]))
    with pytest.raises(TypeError, match="lam must be a numeric array, got str"):
        validate.as_float64("lam", "0.5")


def test_check_not_empty():
    validate.check_not_empty("u", np.zeros(1))
    with pytest.raises(ValueError, match=r"u must not be empty, got shape \(0, 3\)"):
        validate.check_not_empty("u", np.zeros((0, 3)))


def test_check_shape():
    validate.check_shape("B", np.zeros((4, 3)), (4, 3))
    validate.check_shape("B", np.zeros((4, 3)), (None, 3))
    with pytest.raises(ValueError, match=r"B must have shape \(any, 2\), got \(4, 3\)"):
        validate.check_shape("B", np.zeros((4, 3)), (None, 2))
    with pytest.raises(ValueError, match=r"B must have shape \(4, 3\), got \(4, 3, 1\)"):
        validate.check_shape("B", np.zeros((4, 3, 1)), (4, 3))


def test_check_scalar_loss():
    validate.check_scalar_loss("loss_fn", jnp.float32(1.0))
    validate.check_scalar_loss("loss_fn", 0.5)
    with pytest.raises(ValueError, match=r"loss_fn must return a scalar loss, got shape \(3,\)"):
        validate.check_scalar_loss("loss_fn", jnp.ones(3))
    with pytest.raises(TypeError, match="loss_fn must return a real loss, got dtype complex"):
        validate.check_scalar_loss("loss_fn", jnp.array(1 + 1j))


def test_is_concrete():
    assert validate.is_concrete(jnp.ones(2))
    seen = []
    jax.jit(lambda x: seen.append(validate.is_concrete(x)) or x)(jnp.ones(2))
    assert seen == [False]


def test_inexact_dtype():
    with jax.enable_x64(False):
        assert validate.inexact_dtype("dtype", None) == np.float32
        assert validate.inexact_dtype("dtype", None, kind="complex") == np.complex64
    with jax.enable_x64(True):
        assert validate.inexact_dtype("dtype", None) == np.float64
    assert validate.inexact_dtype("dtype", jnp.float32) == np.float32
    assert validate.inexact_dtype("dtype", "float64") == np.float64
    assert validate.inexact_dtype("dtype", np.complex128, kind="complex") == np.complex128
    for bad in (jnp.int32, np.bool_, "complex64"):
        with pytest.raises(TypeError, match="dtype must be a real floating dtype"):
            validate.inexact_dtype("dtype", bad)
    with pytest.raises(TypeError, match="dtype must be a complex floating dtype, got float32"):
        validate.inexact_dtype("dtype", np.float32, kind="complex")
    with pytest.raises(TypeError, match="param_dtype must be a real floating dtype"):
        validate.inexact_dtype("param_dtype", "not a dtype")
    with pytest.raises(ValueError, match="kind must be one of"):
        validate.inexact_dtype("dtype", None, kind="integer")


def test_check_type_names_the_argument_and_the_type_given():
    assert check_type("rng", rng := np.random.default_rng(0), np.random.Generator) is rng
    assert check_type("f", len, callable) is len
    with pytest.raises(TypeError, match="rng must be a Generator, got int"):
        check_type("rng", 3, np.random.Generator)
    with pytest.raises(TypeError, match="f must be callable, got str"):
        check_type("f", "len", callable)
    with pytest.raises(TypeError, match="x must be an int/float, got str"):
        check_type("x", "1", (int, float))
    with pytest.raises(TypeError, match="grid must be a mapping, got list"):
        check_type("grid", [], dict, what="a mapping")
