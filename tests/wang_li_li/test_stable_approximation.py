"""Stable approximation (WLL Figs 1-3, App. C, Thm 3.9), on numbers: the data against a direct
sum, the checkpoint errors against the perturbation error called by hand, the filter on hand-made
runs, the memories of a linear target in closed form, the width and epoch-gap statistics on
hand-made tables and the model side of Thm 3.9 on CTRNNs of known rate."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from lrnn_core.core.memory import fit_decay, impulse_memory
from lrnn_core.core.targets import TanhRNN, exp_memory
from lrnn_core.wang_li_li.ctrnn import CTRNN, ctrnn_outputs, init_ctrnn
from lrnn_core.wang_li_li.fitting import (
    WidthResult,
    fit_linear_rnn,
    kernel_loss,
    linear_rnn_kernel,
    time_weighted_mse,
)
from lrnn_core.wang_li_li.perturbation import perturb, perturbation_error
from lrnn_core.wang_li_li.stable_approximation import (
    Sizes,
    activation_perturbation_errors,
    bounded_in_width,
    ctrnn_memory,
    epoch_gaps,
    epochs_gap,
    epochs_per_width,
    filter_targets,
    float64_tree,
    grows_in_width,
    linear_fits,
    linear_functional_splits,
    memory_kernels,
    perturbed_kernels,
    plain_mse,
    random_target_data,
    rescaled_fit_errors,
    target_memories,
    widest_checkpoints,
    with_marginal_mode,
)


def test_linear_functional_splits_are_the_rectangle_rule_sum_of_each_kernel():
    L, dt = 12, 0.5
    (data,) = linear_functional_splits(
        jax.random.key(0), [3], kernels=[exp_memory, lambda t: 1.0 / (1.0 + t)], L=L, dt=dt
    )
    assert data.x.shape == (3, L, 1) and data.y.shape == (2, 3, L, 1)
    u = np.asarray(data.x[..., 0], np.float64)
    t = np.arange(L) * dt
    for r, rho in enumerate([np.exp(-t), 1.0 / (1.0 + t)]):
        direct = np.array([[dt * sum(rho[j] * s[k - j] for j in range(k + 1)) for k in range(L)]
                           for s in u])  # fmt: skip
        np.testing.assert_allclose(data.y[r, ..., 0], direct, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="kernels"):
        linear_functional_splits(jax.random.key(0), [3], kernels=[], L=L)


def test_random_target_data_is_each_targets_tanh_recursion_on_white_inputs():
    L, dt = 6, 0.5
    targets = [
        TanhRNN(W=0.3 * np.eye(2), B=np.array([1.0, -0.5]), b=np.array([0.1, 0.0]),
                C=np.array([1.0, 2.0]), d=np.asarray(0.25)),
        TanhRNN(W=np.array([[0.0, 0.5], [-0.5, 0.0]]), B=np.ones(2), b=np.zeros(2),
                C=np.array([-1.0, 1.0]), d=np.asarray(0.0)),
    ]  # fmt: skip
    data = random_target_data(jax.random.key(3), targets, n_train=3, n_val=2, L=L, dt=dt)
    assert data.x.shape == (3, L, 1) and data.x_val.shape == (2, L, 1)
    assert data.y.shape == (2, 3, L, 1) and data.y_val.shape == (2, 2, L, 1)
    k, k_val = jax.random.split(jax.random.key(3))
    np.testing.assert_allclose(data.x[..., 0], dt * jax.random.normal(k, (3, L)))
    np.testing.assert_allclose(data.x_val[..., 0], dt * jax.random.normal(k_val, (2, L)))
    for x, y in ((data.x, data.y), (data.x_val, data.y_val)):
        for r, p in enumerate(targets):
            for s, u in enumerate(np.asarray(x[..., 0], np.float64)):
                h, out = np.zeros(2), []
                for u_k in u:
                    h = np.tanh(p.W @ h + p.B * u_k + p.b)
                    out.append(p.C @ h + p.d)
                np.testing.assert_allclose(y[r, s, :, 0], out, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="targets"):
        random_target_data(jax.random.key(3), [], n_train=3, n_val=2, L=L)


def _runs(Ns=(2, 4), R=2):
    """Sequential-width results with R runs per width (random CTRNNs, stable and one not)."""
    runs = []
    for i, N in enumerate(Ns):
        keys = jax.random.split(jax.random.key(10 + i), R)
        params = jax.tree.map(lambda *a: jnp.stack(a), *[init_ctrnn(k, N) for k in keys])
        runs.append(
            WidthResult(N, np.ones(R), np.array([3.0, np.inf]), np.zeros((R, 1)), np.ones(R),
                        params)
        )  # fmt: skip
    return runs


def test_checkpoint_errors_equal_the_perturbation_error_of_each_checkpoint():
    runs = _runs()
    x = jax.random.normal(jax.random.key(1), (4, 10, 1))
    y = jax.random.normal(jax.random.key(2), (2, 4, 10, 1))
    betas, key = [0.0, 0.01, 0.1], jax.random.key(3)
    args = dict(Ns=[4], key=key, draws=2, perturbed="all")
    errors = activation_perturbation_errors({"tanh": runs}, x, y, ["a", "b"], betas, **args)
    assert list(errors) == [("tanh", "a"), ("tanh", "b")]
    E = np.stack([errors["tanh", "a"], errors["tanh", "b"]])
    assert E.shape == (2, 1, 3)
    for r in range(2):
        params = jax.tree.map(lambda a, r=r: a[r], runs[1].params)

        def loss(p, r=r):
            return time_weighted_mse(ctrnn_outputs(p, x, activation="tanh"), y[r])

        np.testing.assert_allclose(E[r, 0, 0], float(loss(params)), rtol=1e-6)
        by_hand = perturbation_error(
            loss, params, betas, key=key, draws=2, perturbed="all", running_max=True
        )
        np.testing.assert_allclose(E[r, 0], by_hand, rtol=1e-6)
    with pytest.raises(ValueError, match="Ns"):
        activation_perturbation_errors(
            {"tanh": runs}, x, y, ["a", "b"], betas, Ns=[8], key=key, draws=2, perturbed="all"
        )


def test_filter_targets_on_hand_made_runs():
    runs = _runs()
    radius = np.min([-np.asarray(r.params.raw).max(axis=1) for r in runs], axis=0)
    res = filter_targets(runs, margin=float(radius[0]))  # run 0 sits exactly on the margin
    np.testing.assert_array_equal(res.approximated, [True, False])  # run 1 never converged
    np.testing.assert_allclose(res.radius, radius)
    assert res.stable[0] and res.kept[0] and not res.kept[1]
    tight = filter_targets(runs, margin=float(radius.max()) + 1.0)
    assert not tight.stable.any() and not tight.kept.any()


def test_target_memories_of_a_linear_target_decay_at_its_rate():
    # W = 0.5, tiny weights keep tanh linear: memory ~ C B 0.5^k, rate ln 2
    tiny = 1e-4
    with jax.enable_x64(True):
        target = TanhRNN(
            W=jnp.array([[0.5]], jnp.float64), B=jnp.array([tiny], jnp.float64),
            b=jnp.zeros(1, jnp.float64), C=jnp.array([1.0], jnp.float64), d=jnp.array(0.0),
        )  # fmt: skip
        memories, tails, fits = target_memories([target, target], 30, fitted=[True, False])
    np.testing.assert_allclose(memories[0][:5], tiny * 0.5 ** np.arange(5), rtol=1e-6)
    assert fits[0].rate == pytest.approx(np.log(2), rel=1e-4) and fits[1] is None
    assert tails[0] < 1e-6
    with pytest.raises(ValueError, match="fitted"):
        target_memories([target], 30, fitted=[True, True])


def test_rescaled_fit_errors_equal_the_fits_called_by_hand():
    t = np.linspace(0.0, 20.0, 201)
    key = jax.random.key(0)
    with jax.enable_x64(True):
        E = rescaled_fit_errors(t, [(0.5, 0.5)], [2, 4], 1e-3, key=key, draws=3, perturbed="all")
        rho = np.exp(-0.5 * t)
        by_hand = [
            perturbation_error(
                lambda p: kernel_loss(p, rho, t),
                fit_linear_rnn(rho, t, m, rate=0.5),
                [0.0, 1e-3],
                key=key,
                draws=3,
                perturbed="all",
            )  # fmt: skip
            for m in (2, 4)
        ]
    np.testing.assert_allclose(E[0.5, 0.5], by_hand, rtol=1e-9, atol=1e-20)  # E(0): round-off


def test_sizes_prints_as_the_chapter_shows_it():
    sizes = Sizes(
        n_train=4, n_val=2, max_epochs=3, Ns_nl=(2, 4), Ns_perturbed=(4,),
        activations_fig2=("tanh",), scales_fig3=(1.0,), seeds_fig3=1,
    )  # fmt: skip
    assert repr(sizes).startswith("Sizes(n_train=4, n_val=2, max_epochs=3, Ns_nl=(2, 4)")
    with pytest.raises(TypeError):
        Sizes(4, 2, 3, (2,), (2,), ("tanh",), (1.0,), 1)  # keywords only


def test_float64_tree_and_memory_kernels_in_closed_form():
    t = np.array([0.0, 1.0, 10.0])
    with jax.enable_x64(True):
        tree = float64_tree({"a": np.ones(2, np.float32), "b": (np.arange(3),)})
        kernels = memory_kernels(t, rates=(0.5, 2), powers=(1.1,))
    assert tree["a"].dtype == jnp.float64 and tree["b"][0].dtype == jnp.float64
    assert list(kernels) == ["exp, rate 0.5", "exp, rate 2", "power 1.1"]
    np.testing.assert_allclose(kernels["exp, rate 2"], np.exp(-2 * t), rtol=1e-12)
    np.testing.assert_allclose(kernels["power 1.1"], (1 + 0.1 * t) ** -1.1, rtol=1e-12)


def test_linear_fits_equal_the_fit_called_by_hand():
    t = np.linspace(0.0, 20.0, 201)
    args = dict(key=jax.random.key(0), draws=3, perturbed="all")
    with jax.enable_x64(True):
        rho = (1 + 0.1 * t) ** -1.1
        fits, E = linear_fits({"slow": rho}, t, [2], [0.0, 1e-3], **args)
        fit = fit_linear_rnn(rho, t, 2)
        by_hand = perturbation_error(lambda p: kernel_loss(p, rho, t), fit, [0.0, 1e-3], **args)
    np.testing.assert_allclose(E["slow"], [by_hand], rtol=1e-12)
    assert list(fits) == [("slow", 2)]
    np.testing.assert_allclose(fits["slow", 2].C, fit.C)


def test_perturbed_kernels_are_the_sums_of_exponentials_of_the_two_models():
    t = np.linspace(0.0, 10.0, 11)
    key = jax.random.key(2)
    with jax.enable_x64(True):
        params = fit_linear_rnn(np.exp(-0.2 * t), t, 2, rate=0.1)  # exact: z^2, c = (0, 1)
        fitted, moved = perturbed_kernels(params, t, 0.05, key=key, perturbed="all")
        by_hand = linear_rnn_kernel(perturb(params, 0.05, key, perturbed="all"), t)
    assert fitted.dtype == np.float64
    np.testing.assert_allclose(fitted, np.exp(-0.2 * t), atol=1e-10)
    np.testing.assert_allclose(moved, by_hand, rtol=1e-12)
    assert np.abs(moved - fitted).max() > 1e-3


def test_linear_functional_splits_use_one_part_of_the_key_each():
    key, L = jax.random.key(5), 6
    splits = linear_functional_splits(key, (3, 2), kernels=[exp_memory], L=L, dt=0.5)
    for k, n, data in zip(jax.random.split(key, 2), (3, 2), splits, strict=True):
        (by_hand,) = linear_functional_splits(k, [n], kernels=[exp_memory], L=L, dt=0.5)
        np.testing.assert_array_equal(data.x[..., 0], 0.5 * jax.random.normal(k, (n, L)))
        assert data.y.shape == by_hand.y.shape == (1, n, L, 1)


def test_epochs_plain_mse_and_widest_checkpoints_of_hand_made_runs():
    runs = _runs()
    needed = epochs_per_width({"tanh": runs}, ["a", "b"])
    assert list(needed) == [("tanh", "a"), ("tanh", "b")]
    np.testing.assert_array_equal(needed["tanh", "a"], [3.0, 3.0])
    np.testing.assert_array_equal(needed["tanh", "b"], [np.inf, np.inf])
    x = jax.random.normal(jax.random.key(1), (4, 10, 1))
    y = jax.random.normal(jax.random.key(2), (2, 4, 10, 1))
    mse = plain_mse(runs[1:], x, y, activation="tanh")  # the widest width only
    assert mse.shape == (2, 1)
    p = jax.tree.map(lambda a: a[1], runs[1].params)
    out = np.asarray(ctrnn_outputs(p, x, activation="tanh"))
    assert mse[1, 0] == pytest.approx(np.mean((out - np.asarray(y[1])) ** 2), rel=1e-5)
    assert mse[0, 0] != pytest.approx(mse[1, 0])  # each run against its own targets
    with jax.enable_x64(True):
        ckpts = widest_checkpoints(runs)
    assert len(ckpts) == 2 and ckpts[1].raw.dtype == jnp.float64
    np.testing.assert_allclose(ckpts[1].C, runs[-1].params.C[1], rtol=1e-7)


# columns: beta = 0, then two betas > 0; rows: widths
STABLE = np.array([[1e-2, 1e-3, 1e-2], [1e-3, 5e-3, 2e-2], [1e-4, 8e-4, 9e-3], [0.0, 9e-4, 1e-2]])
UNSTABLE = np.array([[1e-2, 1e-3, 1e-2], [5e-3, 1e0, 1e1], [1e-3, 1e4, 1e5], [1e-4, 2e4, 2e5]])


def test_width_checks_on_hand_made_error_tables():
    assert bounded_in_width(STABLE) and not grows_in_width(STABLE)
    assert grows_in_width(UNSTABLE) and not bounded_in_width(UNSTABLE)
    # a middle width 100x above the narrowest breaks the bound, at the default factor only
    spiky = STABLE.copy()
    spiky[1, 1] = 0.2
    assert not bounded_in_width(spiky) and bounded_in_width(spiky, factor=1000)
    # growth 2e7 but not monotone from the second width: not the unstable pattern
    dip = UNSTABLE.copy()
    dip[2, 1:] = 1e-1
    assert not grows_in_width(dip)
    with pytest.raises(ValueError, match="at least"):
        bounded_in_width(STABLE[:1])
    with pytest.raises(ValueError, match="not NaN"):
        grows_in_width(np.full((2, 2), np.nan))


def test_epochs_gap_counts_misses_as_the_budget_and_knows_when_it_cannot_decide():
    g = epochs_gap([2, 3, 2, 2], [2, 7, 9, 5], budget=50)
    assert (g.exponential, g.polynomial) == (9.0, 23.0)
    assert g.ratio == pytest.approx(23 / 9) and g.decidable
    # a polynomial width that misses the budget counts as 51
    g = epochs_gap([2, 3, 2, 2], [2, 40, np.inf, 30], budget=50)
    assert g.polynomial == 123.0 and g.ratio == pytest.approx(123 / 9) and g.decidable
    # 3 widths x 21 epochs cannot reach 10 x 7: undecidable
    g = epochs_gap([2, 3, 2], [21, 21, 21], budget=20)
    assert not g.decidable and g.ratio == 9.0
    # an exponential width that misses counts as the budget plus one
    assert epochs_gap([2, np.inf], [50, 50], budget=50, min_gap=1.0).exponential == 53.0
    with pytest.raises(ValueError, match="min_gap"):
        epochs_gap([1], [1], budget=5, min_gap=0.5)
    with pytest.raises(ValueError, match="polynomial"):
        epochs_gap([1, 2], [1], budget=5)


def one_unit(lam, b=0.0, c=1.0):
    as_arr = lambda a: jnp.asarray(np.atleast_1d(a), jnp.float64)  # noqa: E731
    return CTRNN(
        raw=as_arr(lam),
        B=as_arr(np.ones(np.size(lam)))[:, None],
        b=as_arr(np.broadcast_to(b, np.shape(np.atleast_1d(lam)))),
        C=as_arr(np.broadcast_to(c, np.shape(np.atleast_1d(lam))))[None, :],
    )


def test_linear_mode_decays_at_the_euler_rate():
    # identity activation, one mode lam = -0.2: memory (1 - 0.2)^(k-1), rate -log 0.8
    with jax.enable_x64(True):
        mm = ctrnn_memory(one_unit(-0.2), activation="linear", L=200)
    assert mm.radius == pytest.approx(0.2)
    assert mm.predicted == pytest.approx(-np.log(0.8))
    assert mm.rate == pytest.approx(-np.log(0.8), rel=1e-6)
    assert mm.tail < 1e-6


def test_two_modes_decay_at_least_at_the_slowest_rate_and_a_marginal_mode_fails():
    with jax.enable_x64(True):
        params = one_unit([-0.1, -0.6], b=[0.3, -0.2], c=[0.5, 2.0])
        mm = ctrnn_memory(params, activation="hardtanh", L=500)
        assert mm.radius == pytest.approx(0.1) and mm.predicted == pytest.approx(-np.log(0.9))
        assert mm.rate >= 0.9 * mm.predicted and mm.tail < 1e-6
        control = with_marginal_mode(params)
        # the most visible mode (|c B| = 2) is moved to lambda = 0
        np.testing.assert_array_equal(np.asarray(control.raw), [-0.1, 0.0])
        cm = ctrnn_memory(control, activation="hardtanh", L=500)
    assert cm.predicted == 0.0 and cm.tail > 0.1
    with pytest.raises(ValueError, match="one CTRNN"):
        ctrnn_memory(jax.tree.map(lambda a: a[None], params))
    with pytest.raises(ValueError, match="start"):
        ctrnn_memory(params, L=5, start=4.0)


def test_rate_is_read_on_the_relaxed_tail_not_on_a_saturated_transient():
    # lam = -0.2, b = 13, B = -26: the impulse (u_0 = 1) moves the state by -2, then both
    # trajectories sit in hardtanh's saturation (slope 0) for ~60 steps, where the difference
    # does not shrink; once relaxed it shrinks by 0.8 per step
    with jax.enable_x64(True):
        params = one_unit(-0.2, b=13.0)._replace(B=jnp.array([[-26.0]], jnp.float64))
        mm = ctrnn_memory(params, activation="hardtanh", L=400)
        memory = impulse_memory(
            lambda u: ctrnn_outputs(params, u[:, None], activation="hardtanh")[:, 0], 400
        )
    t = np.arange(400.0)
    assert memory[50] == pytest.approx(memory[1])  # flat while saturated
    assert fit_decay(memory, t, tail=(5.0, 399.0)).rate < 0.9 * mm.predicted  # transient
    assert mm.rate == pytest.approx(-np.log(0.8), rel=1e-3) and mm.tail < 1e-6


def test_epoch_gaps_is_epochs_gap_per_activation():
    needed = {
        ("tanh", "exponential"): np.array([2.0, 3.0]),
        ("tanh", "polynomial"): np.array([20.0, np.inf]),
        ("relu", "exponential"): np.array([2.0, 2.0]),
        ("relu", "polynomial"): np.array([2.0, 2.0]),
    }
    gaps = epoch_gaps(needed, budget=30, min_gap=5.0)
    assert list(gaps) == ["tanh", "relu"]
    assert gaps["tanh"] == epochs_gap([2, 3], [20, np.inf], budget=30, min_gap=5.0)
    assert gaps["tanh"].ratio == pytest.approx((20 + 31) / 5) and gaps["tanh"].decidable
    assert gaps["relu"].ratio == 1.0
