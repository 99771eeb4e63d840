"""TCN and attention of Table 1 against explicit loops and closed forms."""

import numpy as np
import pytest

from lrnn_core.core.memory import impulse_memory
from lrnn_core.wang_xue.baselines import (
    attention_impulse_memory,
    attention_outputs,
    random_attention,
    random_tcn,
    receptive_field,
    tcn_outputs,
)

L = 40


def test_tcn_matches_a_loop_over_times_and_taps():
    params = random_tcn(np.random.default_rng(0), channels=3, kernel_size=3, depth=2)
    u = np.random.default_rng(1).normal(size=L)
    z = [[x] for x in u]
    for level, (kernel, bias) in enumerate(zip(params.kernels, params.biases, strict=True)):
        new = []
        for k in range(L):
            pre = bias.copy()
            for j in range(kernel.shape[0]):
                if k - j * 2**level >= 0:
                    pre += kernel[j] @ np.asarray(z[k - j * 2**level])
            new.append(np.tanh(pre))
        z = new
    np.testing.assert_allclose(tcn_outputs(params, u), np.array(z) @ params.w, rtol=1e-12)


def test_tcn_memory_vanishes_beyond_the_receptive_field():
    params = random_tcn(np.random.default_rng(2), kernel_size=2, depth=3)
    R = receptive_field(2, 3)
    assert R == 8
    m = impulse_memory(lambda v: tcn_outputs(params, v), L)
    assert np.all(m[R:] == 0) and m[R - 1] > 0


def test_attention_matches_a_loop_and_the_closed_form_memory():
    params = random_attention(np.random.default_rng(3), d=4)
    u = np.random.default_rng(4).normal(size=L)
    x = np.outer(u, params.e) + params.e0
    want = []
    for k in range(L):
        s = np.array([(params.Wq @ x[k]) @ (params.Wk @ x[j]) / 2.0 for j in range(k + 1)])
        a = np.exp(s - s.max()) / np.exp(s - s.max()).sum()
        want.append(params.w @ sum(a[j] * params.Wv @ x[j] for j in range(k + 1)))
    np.testing.assert_allclose(attention_outputs(params, u), want, rtol=1e-10, atol=1e-12)
    m = impulse_memory(lambda v: attention_outputs(params, v), L)
    np.testing.assert_allclose(m, attention_impulse_memory(params, L), rtol=1e-9, atol=1e-14)


def test_bad_input_raises():
    params = random_attention(np.random.default_rng(0))
    with pytest.raises(ValueError, match="u must have shape"):
        attention_outputs(params, np.zeros((3, 2)))
    with pytest.raises(TypeError, match="depth"):
        receptive_field(2, 1.5)
    with pytest.raises(ValueError, match="non-finite"):
        tcn_outputs(random_tcn(np.random.default_rng(0)), [np.inf])
