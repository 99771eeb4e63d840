"""Linear recurrences: the dense recurrence and the half-life of a mode."""

import numpy as np

from lrnn_core.foundations.linear_recurrences import dense_recurrence, half_life


def test_dense_recurrence_runs_x_k_from_zero():
    A = np.array([[0.5, 1.0], [0.0, 2.0]])
    B = np.array([[1.0], [1.0]])
    C = np.array([[1.0, 0.0]])
    D = np.array([[10.0]])
    u = np.array([[1.0], [0.0], [2.0]])
    # x_1 = (1, 1); x_2 = (1.5, 2); x_3 = (0.75 + 2 + 2, 4 + 2) = (4.75, 6)
    np.testing.assert_allclose(dense_recurrence(A, B, C, D, u), [[11.0], [1.5], [24.75]])


def test_half_life_is_the_first_step_with_weight_at_most_one_half():
    # |lam|^k <= 1/2: 0.9^6 = 0.531, 0.9^7 = 0.478; ceil(log 2 / log(1/0.9)) = 7 steps
    assert half_life(0.9 * np.exp(0.3j), steps=50) == 7
    assert half_life(0.5 + 0j, steps=50) == 1  # the weight is 1/2 one step after the impulse
