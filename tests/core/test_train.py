"""The one training loop: hand-computed optax steps, vmap over runs equals separate runs, early
stopping, epochs of shuffled batches, the NNX adapter fits a tiny task and is reproducible."""

import warnings

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest
from flax import nnx

from lrnn_core.core.lru import LRUModel
from lrnn_core.core.train import (
    epoch_indices,
    epoch_order,
    lru_optimizer,
    mse_loss,
    named_in,
    stack_models,
    train,
    train_params,
)

L, STEPS = 16, 300


def running_mean_batch(key, size=64):
    """Inputs u ~ N(0, 1), shape (size, L, 1); targets the running sum over sqrt(k) (variance 1)."""
    u = jax.random.normal(key, (size, L, 1))
    return u, jnp.cumsum(u, axis=-2) / jnp.sqrt(jnp.arange(1, L + 1))[:, None]


def make_model(rngs):
    return LRUModel(1, 16, 1, D=(32,), rngs=rngs)


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
    # and Adam slowly amplifies it: tight agreement early, looser after 300 steps (still far below
    # the ~30% by which the two seeds' losses differ, which is what a vmap mix-up would show).
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
    """Data as a function of a key (a fresh batch per step), a progress bar; Adam finds 2x - 1."""

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
    assert "train (1 runs)" in capsys.readouterr().err


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
        ({"seed": []}, ValueError, "seed must hold at least one seed"),
        ({"seed": -1}, ValueError, r"seed\[0\] must be >= 0"),
        ({"seed": 2**32}, ValueError, "seed must be < 2"),
        ({"seed": [0, "1"]}, TypeError, r"seed\[1\] must be an int"),
    ],
)
def test_bad_arguments_raise(kwargs, error, match):
    x = jnp.ones((4, 1))
    args = {"steps": 2, "seed": 0, "progress": False} | kwargs
    with pytest.raises(error, match=match):
        train(lambda rngs: nnx.Linear(1, 1, rngs=rngs), mse_loss, (x, x), **args)


def test_model_index_out_of_range_raises(two_seeds):
    with pytest.raises(ValueError, match="index must address one of 2 runs"):
        two_seeds.model(2)


# --- train_params: the loop itself, on a params pytree and a pure loss --------------------------


def quadratic(p, batch):
    """0.5 * sum_i a_i (w_i - target_i)^2: gradient a * (w - target)."""
    a, target = batch
    return 0.5 * jnp.sum(a * (p["w"] - target) ** 2)


def test_loop_matches_hand_computed_sgd_and_adam_steps():
    """Three SGD steps and three Adam steps, computed by hand (numbers, not shapes)."""
    a, target = jnp.array([1.0, 4.0]), jnp.array([2.0, -1.0])
    params = {"w": jnp.array([[0.0, 0.0]])}  # one run
    sgd = train_params(
        quadratic,
        params,
        lambda s, t: (a, target),
        jnp.zeros(1),
        steps=3,
        optimizer=optax.sgd(0.1),
        progress=False,
    )
    # w <- w - 0.1 * a * (w - target): w_i - target_i shrinks by (1 - 0.1 a_i) per step.
    shrink = np.array([0.9, 0.6])
    gaps = [np.array([-2.0, 1.0]) * shrink**k for k in range(4)]
    want = [0.5 * np.sum(np.array([1.0, 4.0]) * g**2) for g in gaps[:3]]
    np.testing.assert_allclose(sgd.losses[0], want, rtol=1e-6)
    np.testing.assert_allclose(sgd.params["w"][0], np.array([2.0, -1.0]) + gaps[3], rtol=1e-6)
    np.testing.assert_allclose(sgd.round_losses[0], want, rtol=1e-6)  # a round is a step

    adam = train_params(
        quadratic,
        params,
        lambda s, t: (a, target),
        jnp.zeros(1),
        steps=3,
        optimizer=optax.adam(0.5, b1=0.9, b2=0.999, eps=1e-8),
        progress=False,
    )
    w, m, v = np.zeros(2), np.zeros(2), np.zeros(2)
    losses = []
    for k in range(1, 4):
        g = np.array([1.0, 4.0]) * (w - np.array([2.0, -1.0]))
        losses.append(0.5 * np.sum(np.array([1.0, 4.0]) * (w - np.array([2.0, -1.0])) ** 2))
        m, v = 0.9 * m + 0.1 * g, 0.999 * v + 0.001 * g**2
        w = w - 0.5 * (m / (1 - 0.9**k)) / (np.sqrt(v / (1 - 0.999**k)) + 1e-8)
    # float32 loses digits in Adam's bias correction 1 - 0.999**k (1.3e-5 relative at k = 1).
    np.testing.assert_allclose(adam.losses[0], losses, rtol=1e-4)
    np.testing.assert_allclose(adam.params["w"][0], w, rtol=1e-4)


def sgd_per_run(rates: tuple[float, ...], steps: int):
    """Train the quadratic from w = 0, one run per SGD rate (injected per run via opt_state)."""
    a, target = jnp.array([1.0, 4.0]), jnp.array([2.0, -1.0])
    params = {"w": jnp.zeros((len(rates), 2))}
    tx = optax.inject_hyperparams(optax.sgd)(learning_rate=0.0)
    opt_state = jax.vmap(tx.init)(params)
    opt_state.hyperparams["learning_rate"] = jnp.array(rates)
    return train_params(
        quadratic,
        params,
        lambda s, t: (a, target),
        jnp.zeros(len(rates)),
        steps=steps,
        optimizer=tx,
        opt_state=opt_state,
        progress=False,
    )


def test_opt_state_gives_each_run_its_own_learning_rate():
    """Two runs, SGD rates 0.1 and 0.2 injected per run: each shrinks w - target as by hand."""
    a, target = jnp.array([1.0, 4.0]), jnp.array([2.0, -1.0])
    params = {"w": jnp.zeros((2, 2))}
    tx = optax.inject_hyperparams(optax.sgd)(learning_rate=0.0)
    result = sgd_per_run((0.1, 0.2), steps=3)
    for run, lr in enumerate((0.1, 0.2)):
        gap = np.array([-2.0, 1.0]) * (1 - lr * np.array([1.0, 4.0])) ** 3
        np.testing.assert_allclose(result.params["w"][run], np.array([2.0, -1.0]) + gap, rtol=1e-5)
    with pytest.raises(ValueError, match="opt_state must have a leading run axis"):
        train_params(
            quadratic,
            params,
            lambda s, t: (a, target),
            jnp.zeros(2),
            steps=1,
            optimizer=tx,
            opt_state=tx.init({"w": jnp.zeros(2)}),
            progress=False,
        )


def test_batches_follow_the_stream_and_step_and_rounds_average():
    """batch_at(stream, t) sees the run's own stream and the global step, across rounds."""

    def loss(p, batch):
        return jnp.sum((p - batch) ** 2)

    res = train_params(
        loss,
        jnp.zeros((2, 1)),
        lambda s, t: s + t,
        jnp.array([[0.0], [100.0]]),
        steps=4,
        steps_per_round=2,
        optimizer=optax.sgd(0.0),
        progress=False,
    )
    # lr 0: params stay 0, the loss of step t of run r is (stream_r + t)^2.
    np.testing.assert_allclose(res.losses, [[0, 1, 4, 9], [1e4, 101**2, 102**2, 103**2]])
    np.testing.assert_allclose(
        res.round_losses, [[0.5, 6.5], [(1e4 + 101**2) / 2, (102**2 + 103**2) / 2]]
    )
    assert res.steps == 4 and not res.stopped_early and res.eval_losses is None


def test_vmap_over_runs_equals_separate_runs():
    keys = jax.random.split(jax.random.key(0), 3)
    w0 = jax.random.normal(jax.random.key(1), (3, 4))

    def batch_at(key, t):
        u = jax.random.normal(jax.random.fold_in(key, t), (8, 4))
        return u, u @ jnp.arange(1.0, 5.0)

    def loss(w, batch):
        u, y = batch
        return jnp.mean((u @ w - y) ** 2)

    together = train_params(
        loss, w0, batch_at, keys, steps=20, optimizer=optax.adam(0.05), progress=False
    )
    for r in range(3):
        alone = train_params(
            loss,
            w0[r : r + 1],
            batch_at,
            keys[r : r + 1],
            steps=20,
            optimizer=optax.adam(0.05),
            progress=False,
        )
        np.testing.assert_allclose(alone.losses[0], together.losses[r], rtol=1e-5)
        np.testing.assert_allclose(alone.params[0], together.params[r], rtol=1e-5, atol=1e-6)
    assert np.abs(together.losses[0] - together.losses[1]).min() > 0


def below_1e_3(means, evaluations):
    assert evaluations == []  # no evaluate
    return bool(np.all(means[-1] <= 1e-3))


def sgd_on_squares(params, *, scale=0.5, lr=0.5, **kwargs):
    """SGD with rate ``lr`` on ``scale * sum(w^2)`` for each run of ``params`` (no data)."""
    return train_params(
        lambda w, b: scale * jnp.sum(w**2),
        params,
        lambda s, t: None,
        jnp.zeros(len(params)),
        optimizer=optax.sgd(lr),
        progress=False,
        **kwargs,
    )


def test_early_stop_stops_after_the_first_round_at_or_below_the_threshold():
    """SGD on 0.5 w^2 with lr 0.5 halves w: losses 0.5 * 4^-k; a stop once every run's round mean
    is <= 1e-3 stops at k = 5."""
    res = sgd_on_squares(jnp.ones((1, 1)), steps=50, stop_when=below_1e_3)
    want = 0.5 * 0.25 ** np.arange(6)  # 0.5, ..., 4.9e-4 <= 1e-3 (k = 5, the 6th step)
    np.testing.assert_allclose(res.losses[0], want, rtol=1e-6)
    assert res.steps == 6 and res.stopped_early
    np.testing.assert_allclose(res.params[0, 0], 0.5**6)  # the 6th step's update was applied
    # With two runs, training goes on until both are below the threshold.
    two = sgd_on_squares(jnp.array([[1.0], [4.0]]), steps=50, stop_when=below_1e_3)
    assert two.steps == 8  # 0.5 * 16 * 4^-k <= 1e-3 first at k = 7
    # Rounds of 4 steps: the round mean decides.
    rounds = sgd_on_squares(jnp.ones((1, 1)), steps=40, steps_per_round=4, stop_when=below_1e_3)
    assert rounds.steps == 8 and rounds.round_losses.shape == (1, 2)


def test_evaluate_runs_after_every_round_and_state_is_carried():
    def loss(p, s, batch):
        return jnp.sum(p**2), s + 1

    res = train_params(
        loss,
        jnp.ones((2, 1)),
        lambda s, t: None,
        jnp.zeros(2),
        steps=6,
        steps_per_round=3,
        optimizer=optax.sgd(0.25),
        state=jnp.array([0, 10]),
        evaluate=lambda p, s: 2 * jnp.sum(p),
        progress=False,
    )
    np.testing.assert_array_equal(res.state, [6, 16])
    np.testing.assert_allclose(res.eval_losses, [[2 * 0.125, 2 * 0.125**2]] * 2, rtol=1e-6)
    # stop_when sees every round's evaluations so far: a stop on them after the first round.
    seen = []

    def first_evaluation_below(means, evaluations):
        seen.append([e.tolist() for e in evaluations])
        return bool(np.all(evaluations[0] < 0.3))

    once = sgd_on_squares(
        jnp.ones((2, 1)),
        scale=1.0,
        lr=0.25,
        steps=6,
        steps_per_round=3,
        evaluate=lambda p, s: 2 * jnp.sum(p),
        stop_when=first_evaluation_below,
    )
    assert once.steps == 3 and once.stopped_early and once.eval_losses.shape == (2, 1)
    np.testing.assert_allclose(seen, [[[0.25, 0.25]]], rtol=1e-6)


def test_epoch_indices_visit_each_sequence_once_per_epoch():
    key = jax.random.key(3)
    orders = [epoch_order(key, 3 * e, n_seqs=10, batch_size=3) for e in range(2)]
    idx = np.stack([np.asarray(epoch_indices(orders[t // 3], t, batch_size=3)) for t in range(6)])
    for e in range(2):
        chunk = idx[3 * e : 3 * e + 3].ravel()
        assert len(set(chunk)) == 9  # 3 batches of 3, one sequence dropped
        order = np.asarray(jax.random.permutation(jax.random.fold_in(key, e), 10))
        np.testing.assert_array_equal(chunk, order[:9])
    assert not np.array_equal(idx[:3], idx[3:])
    by_epoch = epoch_order(lambda e: jax.random.key(100 + e), 5, n_seqs=10, batch_size=3)
    np.testing.assert_array_equal(by_epoch, jax.random.permutation(jax.random.key(101), 10))


def test_order_computed_once_per_round_trains_exactly_as_per_step():
    """``per_round`` moves the epoch's shuffle out of the steps: the same batches, so the same
    losses and parameters, bit for bit, as a ``batch_at`` that shuffles at every step."""
    data = jax.random.normal(jax.random.key(0), (12, 2))
    keys = jnp.stack([jax.random.key(1), jax.random.key(2)])

    def loss(p, batch):
        return jnp.mean((batch @ p - 1.0) ** 2)

    def per_step(key, t):
        return data[epoch_indices(epoch_order(key, t, n_seqs=12, batch_size=3), t, batch_size=3)]

    common = dict(steps=12, steps_per_round=4, optimizer=optax.adam(0.1), progress=False)
    slow = train_params(loss, jnp.zeros((2, 2)), per_step, keys, **common)
    fast = train_params(
        loss, jnp.zeros((2, 2)), lambda order, t: data[epoch_indices(order, t, batch_size=3)],
        keys, per_round=lambda key, start: epoch_order(key, start, n_seqs=12, batch_size=3),
        **common,
    )  # fmt: skip
    np.testing.assert_array_equal(fast.losses, slow.losses)
    np.testing.assert_array_equal(fast.params, slow.params)
    assert not np.array_equal(slow.losses[0], slow.losses[1])  # the runs' orders differ
    with pytest.raises(TypeError, match="per_round must be callable"):
        train_params(loss, jnp.zeros((2, 2)), per_step, keys, per_round=3, **common)


def test_lru_optimizer_groups_and_cosine_schedule_by_hand():
    """Adam's first two steps on a constant gradient move each entry by lr_t * sign(g); AdamW adds
    lr_t * wd * p; lr_t follows the cosine decay to lr_min (minimal-LRU defaults)."""
    lr, wd, lr_min, steps = 1e-2, 0.05, 1e-4, 2
    tx = lru_optimizer(steps, lr=lr, weight_decay=wd, lr_min=lr_min)
    params = {"lru": {"nu_log": jnp.array([1.0, -2.0]), "B_re": jnp.array([0.5])}}
    params["decoder"] = {"kernel": jnp.array([2.0, -1.0])}
    grads = {"lru": {"nu_log": jnp.array([3.0, -0.5]), "B_re": jnp.array([-1.0])}}
    grads["decoder"] = {"kernel": jnp.array([0.25, 4.0])}
    state = tx.init(params)
    p = params
    for t in range(steps):
        cos = 0.5 * (1 + np.cos(np.pi * t / steps))

        def rate(peak: float, cos=cos) -> float:
            alpha = lr_min / peak
            return peak * (alpha + (1 - alpha) * cos)

        updates, state = tx.update(grads, state, p)
        new = optax.apply_updates(p, updates)
        for name in ("nu_log", "B_re"):  # Adam at lr / 2, no weight decay
            expected = p["lru"][name] - rate(lr / 2) * np.sign(grads["lru"][name])
            np.testing.assert_allclose(new["lru"][name], expected, rtol=1e-5)
        kernel = p["decoder"]["kernel"]  # AdamW at lr with weight decay
        expected = kernel - rate(lr) * (np.sign(grads["decoder"]["kernel"]) + wd * kernel)
        np.testing.assert_allclose(new["decoder"]["kernel"], expected, rtol=1e-5)
        p = new


def test_a_diverging_run_warns_and_names_itself():
    """SGD at rate 1e12 on the quadratic overflows to inf/NaN: the run says so (a warning naming
    run 1 and its first non-finite step); the stable run beside it is not named."""
    with pytest.warns(
        RuntimeWarning, match=r"1 of 2 runs became non-finite \(run: first step \{1: "
    ):
        result = sgd_per_run((0.1, 1e12), steps=40)
    assert np.all(np.isfinite(result.losses[0])) and not np.all(np.isfinite(result.losses[1]))


def test_a_stable_run_does_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = sgd_per_run((0.1,), steps=5)
    assert np.all(np.isfinite(result.losses))


def test_named_in_marks_the_leaves_whose_path_names_a_parameter():
    model = LRUModel(1, 3, 1, D=(4,), rngs=nnx.Rngs(0))
    params = nnx.state(model, nnx.Param)
    mask = named_in(params, frozenset({"nu_log", "theta_log"}))
    marked = {
        ".".join(str(getattr(k, "key", getattr(k, "name", k))) for k in path[:2])
        for path, leaf in jax.tree_util.tree_leaves_with_path(mask)
        if leaf
    }
    assert marked == {"lru.nu_log", "lru.theta_log"}
    assert len(jax.tree.leaves(mask)) > 2  # the other parameters are there, unmarked


def test_stack_models_stacks_each_seed_as_it_was_built_and_refuses_two_structures():
    models = [LRUModel(1, 3, 1, rngs=nnx.Rngs(s)) for s in (4, 5)]
    graphdef, params, _ = stack_models(models)
    for run, model in enumerate(models):
        again = nnx.merge(graphdef, jax.tree.map(lambda a, r=run: a[r], params), _first(models))
        u = jnp.linspace(-1.0, 1.0, 8)[:, None]
        np.testing.assert_array_equal(again(u), model(u))
    with pytest.raises(ValueError, match="same structure"):
        stack_models([models[0], LRUModel(1, 4, 1, rngs=nnx.Rngs(0))])


def _first(models):
    return nnx.split(models[0], nnx.Param, ...)[2]
