"""Input checks: each raises an error naming the argument, and passes good input through."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from lrnn_core import validate
from lrnn_core.validate import as_inexact, check_finite, check_ndim, check_stable


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
    """Under jit values are tracers: finiteness and stability cannot be checked, shapes still can."""

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
    with pytest.raises(TypeError, match="lam must be numeric"):
        validate.eigenvalue_vector("lam", np.array([True]))
    with pytest.raises(ValueError, match="lam contains non-finite"):
        validate.eigenvalue_vector("lam", [np.nan])
    with pytest.raises(ValueError, match=r"max \|lambda\| = 1.5"):
        validate.eigenvalue_vector("lam", [0.5, 1.5], max_modulus=1.0)
    assert validate.eigenvalue_vector("lam", [1.5]).shape == (1,)  # no modulus check unless asked
