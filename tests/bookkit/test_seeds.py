"""``LRNN_SEED``: the default keeps a chapter's literal seeds, other values give disjoint blocks."""

import jax
import numpy as np
import pytest

from lrnn_core.bookkit.seeds import (
    SEED_STRIDE,
    current_seed,
    numpy_rng,
    rng_key,
    run_seed,
    seeds,
)


def test_default_keeps_the_literal_seeds(monkeypatch):
    monkeypatch.delenv("LRNN_SEED", raising=False)
    assert current_seed() == 0
    assert run_seed(2024) == 2024
    assert seeds(3, start=5) == [5, 6, 7]
    same = jax.random.normal(jax.random.key(7), (4,))
    np.testing.assert_array_equal(jax.random.normal(rng_key(7), (4,)), same)
    assert numpy_rng(3).integers(1 << 30) == np.random.default_rng(3).integers(1 << 30)


def test_other_values_give_disjoint_blocks(monkeypatch):
    monkeypatch.setenv("LRNN_SEED", "0")
    block0 = set(seeds(50))
    monkeypatch.setenv("LRNN_SEED", "1")
    block1 = set(seeds(50))
    assert current_seed() == 1 and run_seed(0) == SEED_STRIDE
    assert block0.isdisjoint(block1) and len(block1) == 50
    draws0 = jax.random.normal(jax.random.key(0), (8,))
    assert not np.allclose(jax.random.normal(rng_key(0), (8,)), draws0)


@pytest.mark.parametrize("value", ["-1", "one", "1.5", ""])
def test_bad_setting_is_named(monkeypatch, value):
    monkeypatch.setenv("LRNN_SEED", value)
    with pytest.raises(ValueError, match="LRNN_SEED"):
        current_seed()


@pytest.mark.parametrize(
    ("call", "error", "words"),
    [
        (lambda: run_seed(-1), ValueError, "s must be"),
        (lambda: run_seed(SEED_STRIDE), ValueError, "s must be < SEED_STRIDE"),
        (lambda: run_seed(1.0), TypeError, "s must be an int"),
        (lambda: seeds(True), TypeError, "n must be an int"),
        (lambda: seeds(2, start=-3), ValueError, "start must be"),
    ],
)
def test_bad_arguments_are_named(monkeypatch, call, error, words):
    monkeypatch.delenv("LRNN_SEED", raising=False)
    with pytest.raises(error, match=words):
        call()
