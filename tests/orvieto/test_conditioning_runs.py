"""Experiment drivers of the conditioning chapter (Orvieto et al. 2024, §4.1, App. E.1)."""

import numpy as np

from lrnn_core.core.vandermonde import condition_number
from lrnn_core.orvieto.conditioning import law_eigenvalues, vandermonde_norms
from lrnn_core.orvieto.conditioning_checks import GramDraws
from lrnn_core.orvieto.conditioning_runs import (
    SQUARE_LAWS,
    draw_norms,
    gram_medians,
    seed_block,
    square_conditions,
    unit_nodes,
)


def test_seed_block_numbers_the_cells_from_first():
    block = seed_block(40, (2, 1, 3))
    assert block.shape == (2, 1, 3) and block.dtype == np.int64
    np.testing.assert_array_equal(block.ravel(), np.arange(40, 46))


def test_draw_norms_one_draw_per_seed():
    norms = draw_norms("real", [3, 4], 6, 5, 0.5)
    assert norms == [
        vandermonde_norms(law_eigenvalues("real", 6, r_min=0.5, seed=s), 5) for s in (3, 4)
    ]
    assert norms[0] != norms[1]


def test_square_conditions_per_law():
    conds = square_conditions([4, 6], draws=3, first_seed=1000)
    assert tuple(conds) == SQUARE_LAWS
    np.testing.assert_allclose(conds[SQUARE_LAWS[3]], 1.0, atol=1e-13)
    np.testing.assert_allclose(
        conds[SQUARE_LAWS[0]], [condition_number(np.linspace(0, 1, N), N) for N in (4, 6)]
    )
    random_6 = [condition_number(law_eigenvalues("real", 6, seed=1600 + k), 6) for k in range(3)]
    assert conds[SQUARE_LAWS[1]][1] == np.median(random_6)
    assert conds[SQUARE_LAWS[0]][1] > 50 * conds[SQUARE_LAWS[2]][1] > 50 * 50  # one sign worse


def test_gram_medians_take_the_formed_draws_only():
    svd = np.arange(12.0).reshape(1, 2, 6)
    formed = np.full((1, 2, 6), np.nan)
    formed[..., :2] = [[1.0, 3.0], [5.0, 9.0]]
    m = gram_medians(GramDraws((4,), (0.0, 1.0), svd, formed, svd + 100), 2)
    np.testing.assert_array_equal(m.svd, [[2.5, 8.5]])
    np.testing.assert_array_equal(m.range, [[102.5, 108.5]])
    np.testing.assert_array_equal(m.formed, [[2.0, 7.0]])


def test_unit_nodes_one_ring_node_per_seed():
    nodes = unit_nodes([5, 6], 0.999)
    assert [n.shape for n in nodes] == [(1,), (1,)]
    np.testing.assert_array_equal(nodes[1], law_eigenvalues("ring", 1, r_min=0.999, seed=6))
    assert all(0.999 <= abs(n[0]) <= 1 for n in nodes)
