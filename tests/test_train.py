"""Training loop: fits a tiny task, vmap over seeds equals separate runs, runs are reproducible."""

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest
from flax import nnx

from lrnn_core.lru import LRUModel
from lrnn_core.train import mse_loss, train

L, STEPS = 16, 300


def running_mean_batch(key, size=64):
    """Inputs u ~ N(0, 1), shape (size, L, 1); targets the running sum over sqrt(k) (unit variance)."""
    u = jax.random.normal(key, (size, L, 1))
    return u, jnp.cumsum(u, axis=-2) / jnp.sqrt(jnp.arange(1, L + 1))[:, None]


def make_model(rngs):
    return LRUModel(1, 16, 1, hidden=(32,), rngs=rngs)


def fit(seed, steps=STEPS):
    """Full-batch training on a fixed training set (a fixed batch compiles faster than sampling)."""
    return train(
        make_model,
        mse_loss,
        running_mean_batch(jax.random.key(0)),
        steps=steps,
        seed=seed,
        optimizer=optax.adam(3e-3),
        progress=False,
    )


@pytest.fixture(scope="module")
def two_seeds():
    return fit([0, 1])


def test_tiny_lru_model_learns_running_sum(two_seeds):
    losses = two_seeds.losses
    assert losses.shape == (2, STEPS)
    ratio = losses[:, :10].mean(axis=1) / losses[:, -10:].mean(axis=1)
    assert np.all(ratio >= 10), ratio
    # The trained model generalises to a fresh batch.
    u, y = running_mean_batch(jax.random.key(123), size=256)
    for i in range(2):
        assert float(mse_loss(two_seeds.model(i), (u, y))) < losses[i, :10].mean() / 10


def test_vmap_over_seeds_equals_training_each_seed_alone(two_seeds):
    alone = fit(1)
    assert alone.losses.shape == (STEPS,)
    # Same initialisation and data; only float32 rounding differs (batched vs unbatched kernels),
    # and Adam slowly amplifies it: tight agreement early, looser after 300 steps (still far below the
    # ~30% by which the two seeds' losses differ, which is what a vmap mix-up would show).
    np.testing.assert_allclose(alone.losses[:50], two_seeds.losses[1, :50], rtol=1e-4)
    np.testing.assert_allclose(alone.losses, two_seeds.losses[1], rtol=2e-2)
    assert np.abs(two_seeds.losses[0, :10] / two_seeds.losses[1, :10] - 1).max() > 0.2
    u, _ = running_mean_batch(jax.random.key(7))
    same_seed = np.abs(np.asarray(alone.model()(u)) - np.asarray(two_seeds.model(1)(u))).mean()
    other_seed = np.abs(np.asarray(alone.model()(u)) - np.asarray(two_seeds.model(0)(u))).mean()
    assert same_seed < 0.2 * other_seed, (same_seed, other_seed)


def test_same_seed_is_reproducible_and_seeds_differ(two_seeds):
    again = fit([0, 1], steps=60)  # a shorter rerun must repeat the first 60 losses bit for bit
    np.testing.assert_array_equal(again.losses, two_seeds.losses[:, :60])
    assert np.abs(two_seeds.losses[0] - two_seeds.losses[1]).min() > 0


def test_sampled_batches_fit_a_linear_map(capsys):
    """Data as a function of a key (a fresh batch per step) and a progress bar; Adam finds y = 2x - 1."""

    def batch(key):
        x = jax.random.uniform(key, (64, 1), minval=-1.0, maxval=1.0)
        return x, 2 * x - 1

    result = train(
        lambda rngs: nnx.Linear(1, 1, rngs=rngs),
        mse_loss,
        batch,
        steps=400,
        seed=3,
        optimizer=optax.adam(5e-2),
        progress=True,
    )
    model = result.model()
    assert float(model.kernel[...][0, 0]) == pytest.approx(2.0, abs=1e-3)
    assert float(model.bias[...][0]) == pytest.approx(-1.0, abs=1e-3)
    assert result.losses[-1] < 1e-6 < result.losses[0]
    assert "train (1 seeds)" in capsys.readouterr().err


def test_default_optimizer_is_adam_1e3():
    x = jnp.ones((4, 1))
    make = lambda rngs: nnx.Linear(1, 1, rngs=rngs)  # noqa: E731
    default = train(make, mse_loss, (x, 3 * x), steps=5, seed=0, progress=False)
    adam = train(
        make, mse_loss, (x, 3 * x), steps=5, seed=0, optimizer=optax.adam(1e-3), progress=False
    )
    np.testing.assert_array_equal(default.losses, adam.losses)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"steps": 0}, ValueError, "steps must be >= 1"),
        ({"steps": 2.0}, TypeError, "steps must be an int"),
        ({"seed": []}, ValueError, "non-empty sequence"),
        ({"seed": -1}, ValueError, r"seeds must be in \[0, 2\*\*32\)"),
        ({"seed": [0, "1"]}, TypeError, "seeds must be ints"),
    ],
)
def test_bad_arguments_raise(kwargs, error, match):
    x = jnp.ones((4, 1))
    args = {"steps": 2, "seed": 0, "progress": False} | kwargs
    with pytest.raises(error, match=match):
        train(lambda rngs: nnx.Linear(1, 1, rngs=rngs), mse_loss, (x, x), **args)


def test_model_index_out_of_range_raises(two_seeds):
    with pytest.raises(ValueError, match="index must address one of 2 seeds"):
        two_seeds.model(2)
