"""Orthonormal periodic wavelet bases (PyWavelets), Assumption A of Orvieto et al. (ICML 2024)."""

import numpy as np
import pytest
import pywt

from lrnn_core.orvieto.wavelets import (
    default_level,
    random_wavelet_problem,
    sparse_signal,
    wavelet_basis,
)


@pytest.mark.parametrize("wavelet", ["haar", "sym4", "coif2"])
def test_full_basis_is_orthogonal_and_matches_wavedec(wavelet):
    L = 128
    Psi = wavelet_basis(L, wavelet=wavelet)
    np.testing.assert_allclose(Psi.T @ Psi, np.eye(L), atol=1e-12)
    np.testing.assert_allclose(Psi @ Psi.T, np.eye(L), atol=1e-12)
    x = np.random.default_rng(0).standard_normal(L)
    coeffs = pywt.wavedec(x, wavelet, mode="periodization", level=default_level(L, wavelet))
    np.testing.assert_allclose(Psi.T @ x, pywt.coeffs_to_array(coeffs)[0], atol=1e-12)


def test_haar_columns_are_coarse_to_fine():
    """L=16 Haar: the scaling function, then one wavelet per level from the coarsest."""
    Psi = wavelet_basis(16, 4)
    np.testing.assert_allclose(Psi[:, 0], np.full(16, 0.25), atol=1e-15)
    np.testing.assert_allclose(np.abs(Psi[:, 1]), np.full(16, 0.25), atol=1e-15)
    assert np.sign(Psi[0, 1]) == -np.sign(Psi[-1, 1])  # one sign change in the middle
    np.testing.assert_allclose(np.abs(Psi[:8, 2]), np.full(8, 1 / np.sqrt(8)), atol=1e-15)
    np.testing.assert_allclose(Psi[8:, 2], 0.0, atol=1e-15)


def test_subset_of_columns_matches_full_basis():
    full = wavelet_basis(64, wavelet="sym4")
    cols = np.array([0, 5, 17, 63])
    np.testing.assert_allclose(
        wavelet_basis(64, wavelet="sym4", columns=cols), full[:, cols], atol=1e-14
    )
    np.testing.assert_allclose(wavelet_basis(64, 10, "sym4"), full[:, :10], atol=1e-14)


def test_sparse_signal_lies_in_the_span():
    Psi = wavelet_basis(64, 8)
    v, alpha = sparse_signal(np.random.default_rng(1), Psi)
    np.testing.assert_allclose(Psi.T @ v, alpha, atol=1e-13)
    vs, alphas = sparse_signal(np.random.default_rng(1), Psi, batch=3)
    assert vs.shape == (3, 64) and alphas.shape == (3, 8)


def test_random_wavelet_problem_draws_atoms_then_coefficients():
    Psi, v = random_wavelet_problem(np.random.default_rng(3), 64, 5, batch=2)
    rng = np.random.default_rng(3)
    columns = np.sort(rng.choice(64, 5, replace=False))
    np.testing.assert_array_equal(Psi, wavelet_basis(64, columns=columns))
    alpha = rng.standard_normal((2, 5))
    np.testing.assert_allclose(v, alpha @ Psi.T, atol=1e-14)
    np.testing.assert_allclose(v @ Psi, alpha, atol=1e-13)  # in the span, coefficients alpha
    single = random_wavelet_problem(np.random.default_rng(3), 64, 5)[1]
    assert single.shape == (64,)
    with pytest.raises(ValueError, match="P must be <= L"):
        random_wavelet_problem(np.random.default_rng(0), 8, 9)


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"L": 12, "P": 4, "level": 3}, ValueError),  # 12 not divisible by 8
        ({"L": 16, "P": 17}, ValueError),
        ({"L": 16, "wavelet": "morl"}, ValueError),  # continuous wavelet
        ({"L": 16, "columns": [1, 1]}, ValueError),
        ({"L": 16, "P": 2, "columns": [0, 1]}, ValueError),
        ({"L": 16.0}, TypeError),
    ],
)
def test_bad_arguments_raise(kwargs, error):
    with pytest.raises(error):
        wavelet_basis(**kwargs)
