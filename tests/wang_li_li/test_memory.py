"""Memory functions (WLL Def. 3.1-3.2, Apps. B, F-I, Figs 5, 10-11): the probes and experiments
on models whose memories are known in closed form, and the classification statistics."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from flax import nnx

from lrnn_core.core.lru import LRU
from lrnn_core.core.memory import fit_decay, heaviside_memory, impulse_memory, tail_ratio
from lrnn_core.core.targets import (
    exp_memory,
    linear_functional,
    poly_memory,
    random_tanh_rnn,
    tanh_rnn_outputs,
)
from lrnn_core.wang_li_li.ctrnn import CTRNN
from lrnn_core.wang_li_li.memory import (
    PROBES,
    RNNSample,
    authors_tail_ratios,
    bilinear_model,
    cached_model,
    convolution_error,
    decay_kernels,
    euler_probe_errors,
    first_order,
    kernel_functional,
    linear_probe_errors,
    linear_probe_gap,
    lru_family,
    lru_family_memories,
    memory_class,
    memory_classes,
    paired_memory,
    probe_classes,
    probe_family,
    random_rnn_sample,
    reversed_probe_errors,
    rnn_probe_pairs,
    rnn_sample,
    same_class,
    slowest_rate,
    symmetric_rnn,
    tanh_rnn_model,
)


def _ctrnn(lam, B, C) -> CTRNN:
    """A linear CTRNN in the "direct" parameterisation (raw = lambda), one input and output, in
    float64."""
    with jax.enable_x64(True):
        lam = jnp.asarray(lam, jnp.float64)
        return CTRNN(
            raw=lam,
            B=jnp.asarray(B, jnp.float64)[:, None],
            b=jnp.zeros_like(lam),
            C=jnp.asarray(C, jnp.float64)[None, :],
        )


def test_kernel_functional_is_the_rectangle_rule_sum():
    dt, u = 0.5, np.array([1.0, -2.0, 0.5, 3.0])
    with jax.enable_x64(True):
        y = np.asarray(kernel_functional(exp_memory, dt)(jnp.asarray(u)))
    rho = np.exp(-dt * np.arange(4))
    expected = [dt * sum(rho[j] * u[k - j] for j in range(k + 1)) for k in range(4)]
    np.testing.assert_allclose(y, expected, rtol=1e-13)
    with pytest.raises(ValueError, match="dt"):
        kernel_functional(exp_memory, 0.0)


def test_convolution_error_is_round_off_for_the_fft():
    rng = np.random.default_rng(0)
    with jax.enable_x64(True):
        err = convolution_error(rng.standard_normal(64), rng.standard_normal((3, 64)), 0.1)
    assert 0.0 <= err < 1e-13
    with pytest.raises(ValueError, match="u"):
        convolution_error(np.ones(8), np.ones((2, 7)), 0.1)


def test_linear_probe_errors_vanish_on_linear_functionals():
    with jax.enable_x64(True):
        errors = linear_probe_errors(poly_memory, 300, dt=0.1, amplitude=[-1.0, 2.0])
    assert list(errors) == ["Heaviside", "impulse"]
    assert max(errors.values()) < 1e-12


def test_reversed_probe_errors_cut_off_the_past_beyond_the_warmup():
    """For rho = e^{-t} the reversed memory is rho_k - rho_{k+W}, so its distance to |rho| is
    max_k rho_{k+W} = e^{-W dt}."""
    with jax.enable_x64(True):
        err, gap = reversed_probe_errors(exp_memory, 50, dt=0.1, warmup=30)
    assert err < 1e-13
    assert gap == pytest.approx(np.exp(-3.0), rel=1e-10)
    with pytest.raises(ValueError, match="warmup"):
        reversed_probe_errors(exp_memory, 50, dt=0.1, warmup=0)


def test_euler_probe_errors_are_those_of_the_euler_kernel():
    """x_{k+1} = (1 + lam dt) x_k + dt u_k: every probe reads (1 - dt)^k for lam = -1, B = C = 1,
    so the relative error is max_k |(1 - dt)^k - e^{-k dt}| over the horizon."""
    params = _ctrnn([-1.0], [1.0], [1.0])
    dts = [0.2, 0.1, 0.05]
    with jax.enable_x64(True):
        errors = euler_probe_errors(params, dts, 4.0)
    assert list(errors) == list(PROBES)
    for i, dt in enumerate(dts):
        k = np.arange(int(round(4.0 / dt)))
        expected = np.max(np.abs((1 - dt) ** k - np.exp(-k * dt)))
        for name in PROBES:
            assert errors[name][i] == pytest.approx(expected, rel=1e-9), (name, dt)
    with pytest.raises(ValueError, match="T must"):
        euler_probe_errors(params, dts, -1.0)


def test_decay_kernels_and_probe_family():
    kernels = decay_kernels([0.5], [2.0])
    assert list(kernels) == [("exp", 0.5), ("pol", 2.0)]
    assert float(kernels["exp", 0.5](2.0)) == pytest.approx(np.exp(-1.0))
    assert float(kernels["pol", 2.0](10.0)) == pytest.approx(0.25)
    with jax.enable_x64(True):
        rho, memory = probe_family(kernels, 40, dt=0.25)
    t = 0.25 * np.arange(40)
    np.testing.assert_allclose(rho["exp", 0.5], np.exp(-0.5 * t), rtol=1e-14)
    assert set(memory) == {(key, probe) for key in kernels for probe in PROBES}
    for key in kernels:
        np.testing.assert_allclose(memory[key, "Heaviside"], rho[key], atol=1e-13)
        np.testing.assert_allclose(memory[key, "impulse"], rho[key], atol=1e-13)
    tail = np.exp(-0.5 * (t + 10.0))  # rho_{k+W} with the warm-up W = L = 40 steps
    np.testing.assert_allclose(memory[("exp", 0.5), "reversed"], rho["exp", 0.5] - tail, atol=1e-13)


def test_random_rnn_sample_draws_each_gain_in_turn():
    key = jax.random.key(3)
    with jax.enable_x64(True):
        sample = random_rnn_sample(key, 4, 100, gains=(1.0, 8.0), N=6)
        again = random_tanh_rnn(jax.random.split(key, 4)[3], 6, scale=8.0)
        np.testing.assert_allclose(
            tanh_rnn_model(again)(jnp.ones(5)), tanh_rnn_outputs(again, jnp.ones(5))
        )
    assert sample.gains == (1.0, 8.0, 1.0, 8.0)
    np.testing.assert_array_equal(sample.params[3].W, again.W)
    W = np.asarray(sample.params[1].W)
    assert sample.radius[1] == pytest.approx(np.max(np.abs(np.linalg.eigvals(W))))
    assert sample.norm2[1] == pytest.approx(np.linalg.norm(W, 2))
    assert np.all(sample.norm2 >= sample.radius - 1e-12)
    np.testing.assert_allclose(sample.ratio, [tail_ratio(m) for m in sample.memory])
    np.testing.assert_array_equal(sample.decaying, sample.ratio < 1e-6)
    np.testing.assert_array_equal(sample.persistent, sample.ratio > 1e-2)
    # a contraction's memory decays geometrically: below 1e-6 of its peak after 90 steps
    assert np.all(sample.decaying[sample.norm2 < 1])


def test_rnn_sample_of_given_rnns_matches_the_random_sample():
    key = jax.random.key(5)
    with jax.enable_x64(True):
        drawn = random_rnn_sample(key, 3, 80, gains=(2.0,), N=5)
        again = rnn_sample(drawn.params, drawn.gains, 80)
    assert again.gains == (2.0, 2.0, 2.0)
    np.testing.assert_array_equal(again.ratio, drawn.ratio)
    np.testing.assert_array_equal(again.radius, drawn.radius)
    with pytest.raises(ValueError, match="gains"):
        rnn_sample(drawn.params, (1.0,), 80)
    with pytest.raises(TypeError, match="TanhRNN"):
        rnn_sample([np.eye(3)], (1.0,), 80)


def test_symmetric_rnn_is_symmetric_with_raised_eigenvalues_and_settles():
    with jax.enable_x64(True):
        p = random_tanh_rnn(jax.random.key(11), 12, scale=8.0)
        q = symmetric_rnn(p)
        W, S = np.asarray(p.W), np.asarray(q.W)
        np.testing.assert_array_equal(S, S.T)
        lam, lam_ref = np.linalg.eigvalsh(S), np.linalg.eigvalsh((W + W.T) / np.sqrt(2))
        np.testing.assert_allclose(lam, np.maximum(lam_ref, -0.5), atol=1e-12)
        assert lam_ref.min() < -0.5 and lam.max() > 1  # raised below, radius above 1
        for name in ("B", "b", "C", "d"):
            np.testing.assert_array_equal(getattr(q, name), getattr(p, name))
        # the Lyapunov function: the Heaviside memory decays although the radius exceeds 1
        m = heaviside_memory(tanh_rnn_model(q), 300)
        assert tail_ratio(m) < 1e-6
        # floor -1 or below gives no Lyapunov function
        with pytest.raises(ValueError, match="floor"):
            symmetric_rnn(p, floor=-1.0)
        with pytest.raises(TypeError, match="TanhRNN"):
            symmetric_rnn(W)


def test_authors_tail_ratios_use_one_gaussian_amplitude_and_no_subtraction():
    params = [random_tanh_rnn(jax.random.key(k), 5, scale=2.0) for k in range(2)]
    with jax.enable_x64(True):
        ratios = authors_tail_ratios(params, 60, np.random.default_rng(7))
        amps = np.random.default_rng(7).standard_normal(2)
        expected = [
            tail_ratio(
                heaviside_memory(
                    tanh_rnn_model(p), 60, amplitude=float(a), subtract_zero_input=False
                )
            )
            for p, a in zip(params, amps, strict=True)
        ]
    np.testing.assert_array_equal(ratios, expected)


def test_paired_memory_of_a_geometric_filter():
    """y = sum_j 0.9^j u_{k-j}: both memories are 0.9^k, both fits give the rate -log 0.9."""
    rho = 0.9 ** np.arange(120)
    with jax.enable_x64(True):
        pair = paired_memory(lambda u: linear_functional(rho, u, 1.0), 120, window=(5.0, 100.0))
    np.testing.assert_allclose(pair.m_h, rho, rtol=1e-9, atol=1e-14)  # FFT round-off
    np.testing.assert_allclose(pair.m_i, rho, rtol=1e-9, atol=1e-14)
    assert pair.fit_h.rate == pytest.approx(-np.log(0.9), rel=1e-8)
    assert pair.fit_i.rate == pytest.approx(-np.log(0.9), rel=1e-8)
    assert pair.fit_h == fit_decay(pair.m_h, np.arange(120.0), tail=(5.0, 100.0))


def test_slowest_rate_reads_the_largest_eigenvalue():
    a, b = (LRU(8, 1, r_min=0.5, r_max=0.9, rngs=nnx.Rngs(s)) for s in (0, 1))
    lam = np.concatenate([np.asarray(a.eigenvalues()), np.asarray(b.eigenvalues())])
    assert slowest_rate(a, b) == pytest.approx(-np.log(np.abs(lam).max()))
    assert slowest_rate(a, b) <= slowest_rate(a)
    assert slowest_rate(a) >= -np.log(0.9) - 1e-6  # on the ring |lambda| <= 0.9


def test_lru_family_memories_decay_at_the_slowest_eigenvalue():
    with jax.enable_x64(True):
        names = [name for name, _, _ in lru_family(0, N=4)]
        rows = lru_family_memories([5], 200)
    assert names == ["LRU", "LRU + MLP", "2 x (LRU + MLP)"]
    assert [r.name for r in rows] == names and {r.seed for r in rows} == {5}
    assert all(r.slow >= -np.log(0.95) - 1e-12 for r in rows)
    linear = rows[0]
    # the linear LRU: identical memories up to round-off, decaying at its slowest rate
    assert linear_probe_gap([(linear.m_h, linear.m_i)]) <= 1.0
    assert 0.9 * linear.slow <= linear.fit_h.rate <= 1.25 * linear.slow
    with pytest.raises(ValueError, match="L"):
        lru_family_memories([0], 0)


def test_rnn_probe_pairs_pair_the_chosen_gain_and_ratio_every_rnn():
    params = [random_tanh_rnn(jax.random.key(k), 3, scale=g) for k, g in ((0, 8.0), (1, 1.0))]
    none = np.zeros(2)
    sample = RNNSample((8.0, 1.0), params, [], none, none, none)
    with jax.enable_x64(True):
        pairs, ratio = rnn_probe_pairs(sample, 30, gain=1.0, window=(1.0, 8.0))
    assert len(pairs) == 1  # only the second RNN has the gain 1
    assert ratio[1] == tail_ratio(pairs[0].m_i)  # the impulse memory of that RNN
    assert ratio[0] != ratio[1]
    assert pairs[0].fit_h == fit_decay(pairs[0].m_h, np.arange(30.0), tail=(1.0, 8.0))
    with pytest.raises(ValueError, match="gain"):
        rnn_probe_pairs(sample, 30, gain=2.0, window=(1.0, 8.0))


def test_memory_class_reads_the_tail_ratio():
    t = np.arange(100.0)
    assert memory_class(np.exp(-0.5 * t)) == "decaying"  # tail e^-45 of the peak
    assert memory_class(np.exp(-0.1 * t)) == "unclassified"  # tail e^-9 ~ 1e-4
    assert memory_class(1 + 0.5 * np.sin(t)) == "non-decaying"
    with pytest.raises(ValueError, match="identically zero"):
        memory_class(np.zeros(10))


def test_bilinear_model_has_memories_of_two_classes():
    u = np.array([1.0, 2.0, -1.0])
    np.testing.assert_allclose(bilinear_model(u), [1.0, 6.0, -2.0])
    m_h = np.asarray(heaviside_memory(bilinear_model, 50))
    m_i = np.asarray(impulse_memory(bilinear_model, 50))
    np.testing.assert_allclose(m_h, 1.0)  # z_k = k + 1
    np.testing.assert_allclose(m_i, np.r_[1.0, np.zeros(49)])
    assert (memory_class(m_h), memory_class(m_i)) == ("non-decaying", "decaying")
    with pytest.raises(ValueError, match="1-D"):
        bilinear_model(np.ones((2, 3)))


def test_cached_model_reports_why_weights_are_missing(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path))
    assert "not installed" in cached_model("a/b", library="no_such_library_xyz")
    # numpy stands in for an installed library; the cache is empty
    assert "no snapshot of a/b" in cached_model("a/b", library="numpy")
    snap = tmp_path / "models--a--b" / "snapshots" / "0123"
    snap.mkdir(parents=True)
    assert cached_model("a/b", library="numpy") is None
    assert "no snapshot" in cached_model("a/b", library="numpy", kind="datasets")
    with pytest.raises(ValueError, match="owner/name"):
        cached_model("bert", library="numpy")
    with pytest.raises(ValueError, match="kind"):
        cached_model("a/b", kind="spaces")


def test_memory_classes_and_same_class_use_the_thresholds_of_memory_class():
    ratio = np.array([1e-8, 1e-4, 0.5])
    decaying, persistent = memory_classes(ratio)
    np.testing.assert_array_equal(decaying, [True, False, False])
    np.testing.assert_array_equal(persistent, [False, False, True])
    classes = [memory_class(np.r_[1.0, np.full(9, r)]) for r in ratio]  # tail ratio r
    assert classes == ["decaying", "unclassified", "non-decaying"]
    np.testing.assert_array_equal(
        same_class([1e-8, 0.5, 1e-4], [1e-7, 1e-3, 1e-5]), [True, False, True]
    )
    with pytest.raises(ValueError, match="ratio_b"):
        same_class([1e-8, 0.5], [1e-8])


def test_first_order_asks_each_halving_to_halve_the_error():
    assert first_order([0.4, 0.2, 0.1])
    assert first_order([0.4, 0.22, 0.1])  # ratios 0.55 and 0.45: within 0.1 of 1/2
    assert not first_order([0.4, 0.3, 0.2])  # ratios 0.75, 0.67: not first order
    assert not first_order([0.4, 0.2, 0.25])  # the error grows
    assert not first_order([0.4, 0.1, 0.025])  # second order
    with pytest.raises(ValueError, match="two step sizes"):
        first_order([0.1])


def test_probe_classes_tell_the_bilinear_map_from_a_linear_filter():
    assert probe_classes(bilinear_model, 50) == ["non-decaying", "decaying"]
    geometric = 0.5 ** np.arange(50)
    assert probe_classes(lambda u: np.convolve(geometric, u)[:50], 50) == ["decaying"] * 2


def test_linear_probe_gap_in_units_of_the_round_off_floor():
    m = np.array([5.0, 2.0, 1.0, 0.5])
    floor = 1e3 * np.finfo(float).eps * 5.0
    assert linear_probe_gap([(m, m)]) == 0.0
    shifted = m + np.array([7.0, 0.0, 2 * floor, 0.0])  # step 0 is not compared
    assert linear_probe_gap([(m, m), (m, shifted)]) == pytest.approx(2.0)
    with pytest.raises(ValueError, match="at least one"):
        linear_probe_gap([])
    with pytest.raises(ValueError, match="m_i"):
        linear_probe_gap([(m, m[:3])])
