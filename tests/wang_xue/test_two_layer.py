"""App. A closed forms of Wang & Xue against quadrature and an explicit sum."""

import numpy as np
import pytest
from scipy.integrate import quad

from lrnn_core.wang_xue.two_layer import two_layer_discrete_memory, two_layer_memory


@pytest.mark.parametrize("a, b", [(0.5, 2.0), (1.0, 1.0 + 1e-9), (0.3, 0.3)])
def test_continuous_memory_is_the_convolution_of_two_exponentials(a, b):
    t = np.array([0.0, 0.7, 3.0, 10.0])
    conv = [quad(lambda s, x=x: np.exp(-a * s) * np.exp(-b * (x - s)), 0, x)[0] for x in t]
    np.testing.assert_allclose(two_layer_memory(a, b, t), conv, rtol=1e-9, atol=1e-14)


def test_limit_is_t_exp():
    t = np.linspace(0, 20, 50)
    for delta in (1e-2, 1e-4):
        gap = np.abs(two_layer_memory(1.0, 1.0 + delta, t) - t * np.exp(-t))
        assert np.all(gap <= delta * t**2 * np.exp(-t) / 2 + 1e-15)  # Taylor remainder bound


@pytest.mark.parametrize("p, q", [(0.9, 0.5), (0.7, 0.7)])
def test_discrete_memory_is_the_explicit_sum(p, q):
    k = np.arange(30)
    want = [sum(p**j * q ** (n - j) for j in range(n + 1)) for n in k]
    np.testing.assert_allclose(two_layer_discrete_memory(p, q, k), want, rtol=1e-12)


def test_bad_input_raises():
    with pytest.raises(ValueError, match="a must be"):
        two_layer_memory(-1.0, 1.0, [1.0])
    with pytest.raises(ValueError, match="q must be"):
        two_layer_discrete_memory(0.5, 1.5, [1.0])
    with pytest.raises(ValueError, match="non-finite"):
        two_layer_memory(1.0, 2.0, [np.nan])
