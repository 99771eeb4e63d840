"""The synthetic repeated-token sentiment task (substitute for WLL App. B, Figs 5-6)."""

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest
from flax import nnx

from lrnn_core.core.memory import fit_decay
from lrnn_core.core.train import train
from lrnn_core.wang_li_li.sentiment import (
    POLARITY,
    VOCAB,
    LSTMClassifier,
    bce_loss,
    classifier_accuracy,
    integrating_lstm,
    repeated_word_fixed_point,
    repeated_word_memories,
    repeated_word_scores,
    synthetic_reviews,
)


def test_reviews_labels_follow_the_summed_polarity():
    tokens, labels = synthetic_reviews(jax.random.key(0), 500, 20, p_polar=0.2)
    tokens, labels = np.asarray(tokens), np.asarray(labels)
    assert tokens.shape == (500, 20) and tokens.min() >= 0 and tokens.max() < len(VOCAB)
    total = np.asarray(POLARITY)[tokens].sum(-1)
    np.testing.assert_array_equal(labels, np.where(total > 0, 1.0, np.where(total < 0, 0.0, 0.5)))
    polar_share = np.isin(tokens, [0, 1, 2, 3]).mean()
    assert abs(polar_share - 0.2) < 0.02
    assert 0.2 < labels.mean() < 0.8
    with pytest.raises(ValueError, match="p_polar"):
        synthetic_reviews(jax.random.key(0), 5, 5, p_polar=0.0)


def test_swap_exchanges_two_words_and_keeps_the_labels():
    key = jax.random.key(4)
    tokens, labels = synthetic_reviews(key, 300, 16)
    sw_tokens, sw_labels = synthetic_reviews(key, 300, 16, swap=("ha", "good"))
    tokens, sw_tokens = np.asarray(tokens), np.asarray(sw_tokens)
    np.testing.assert_array_equal(sw_labels, labels)
    ha, good = VOCAB.index("ha"), VOCAB.index("good")
    np.testing.assert_array_equal(sw_tokens == ha, tokens == good)
    np.testing.assert_array_equal(sw_tokens == good, tokens == ha)
    others = (tokens != ha) & (tokens != good)
    np.testing.assert_array_equal(sw_tokens[others], tokens[others])
    # the labels follow the polarity +1 now written "ha", and "good" counts 0
    polarity = np.array(POLARITY)
    polarity[[ha, good]] = polarity[[good, ha]]
    total = polarity[sw_tokens].sum(-1)
    np.testing.assert_array_equal(
        sw_labels, np.where(total > 0, 1.0, np.where(total < 0, 0.0, 0.5))
    )
    with pytest.raises(ValueError, match="swap must be one of"):
        synthetic_reviews(key, 2, 3, swap=("ha", "meh"))
    with pytest.raises(TypeError, match="swap"):
        synthetic_reviews(key, 2, 3, swap="ha")


def test_classifier_is_causal_and_scores_a_single_review():
    model = LSTMClassifier(rngs=nnx.Rngs(0))
    tokens, _ = synthetic_reviews(jax.random.key(1), 3, 12)
    logits = np.asarray(model(tokens))
    assert logits.shape == (3, 12)
    np.testing.assert_allclose(
        np.asarray(model(tokens[:, :5])), logits[:, :5], rtol=1e-5, atol=1e-6
    )
    np.testing.assert_allclose(np.asarray(model(tokens[1])), logits[1], rtol=1e-5, atol=1e-6)
    with pytest.raises(TypeError, match="integer"):
        model(jnp.ones((2, 3)))


def test_repeated_word_scores_match_the_float32_model_and_are_float64():
    model = LSTMClassifier(rngs=nnx.Rngs(2))
    s = repeated_word_scores(model, "good", 30)
    assert s.dtype == np.float64 and s.shape == (30,)
    ref = np.asarray(jax.nn.sigmoid(model(jnp.full((1, 30), VOCAB.index("good")))[0]))
    np.testing.assert_allclose(s, ref, rtol=1e-5, atol=1e-6)
    assert model.head.kernel[...].dtype == jnp.float32  # the model itself is left alone
    with pytest.raises(ValueError, match="word must be one of"):
        repeated_word_scores(model, "meh", 5)


def test_training_learns_the_polarity():
    res = train(
        lambda rngs: LSTMClassifier(rngs=rngs),
        bce_loss,
        lambda key: synthetic_reviews(key, 64, 16),
        steps=150,
        seed=0,
        optimizer=optax.adam(1e-2),
        progress=False,
    )
    assert res.losses[-10:].mean() < 0.5 * res.losses[:10].mean()
    model = res.model()
    assert repeated_word_scores(model, "good", 10)[-1] > 0.9
    assert repeated_word_scores(model, "awful", 10)[-1] < 0.1


def test_fixed_point_of_an_lstm_without_recurrent_weights_is_known_in_closed_form():
    """With the recurrent kernel zero, the gates are constants f, i, g, o of the word, the cell is
    c' = f c + i g, h' = o tanh(c'): the fixed point is c* = i g / (1 - f), and the Jacobian is
    block lower-triangular with diagonal diag(f) and 0, so its spectral radius is max_k f_k."""
    model = LSTMClassifier(rngs=nnx.Rngs(3))
    cell = model.rnn.cell
    cell.dense_h.kernel[...] = jnp.zeros_like(cell.dense_h.kernel[...])
    x = np.asarray(model.embed(jnp.asarray(VOCAB.index("good"))), np.float64)
    pre = x @ np.asarray(cell.dense_i.kernel[...], np.float64) + np.asarray(cell.dense_h.bias[...])
    i, f, g, o = np.split(pre, 4)
    i, f, g, o = 1 / (1 + np.exp(-i)), 1 / (1 + np.exp(-f)), np.tanh(g), 1 / (1 + np.exp(-o))
    c_star = i * g / (1 - f)
    fp = repeated_word_fixed_point(model, "good")
    assert fp.residual < 1e-14
    np.testing.assert_allclose(fp.state, np.concatenate([c_star, o * np.tanh(c_star)]), atol=1e-12)
    assert fp.radius == pytest.approx(float(np.max(f)), rel=1e-12)
    assert fp.rate == pytest.approx(-np.log(np.max(f)), rel=1e-12)
    with pytest.raises(ValueError, match="word must be one of"):
        repeated_word_fixed_point(model, "meh")


def test_integrating_lstm_holds_the_gates_open_and_loses_the_fixed_point():
    model = LSTMClassifier(rngs=nnx.Rngs(3))
    settled = repeated_word_fixed_point(model, "good")
    assert settled.attracting  # an untrained small LSTM contracts
    control = integrating_lstm(model)
    bias = np.asarray(control.rnn.cell.dense_h.bias[...])
    np.testing.assert_array_equal(bias[: 2 * model.N], 40.0)  # gates i, f
    np.testing.assert_array_equal(
        bias[2 * model.N :], np.asarray(model.rnn.cell.dense_h.bias[...])[2 * model.N :]
    )
    # the original is untouched
    assert np.all(np.asarray(model.rnn.cell.dense_h.bias[...])[: 2 * model.N] != 40.0)
    # c_{n+1} = c_n + g with g = tanh(...) != 0: the state keeps moving
    moving = repeated_word_fixed_point(control, "good", steps=200)
    assert moving.residual > 1e-6 and not moving.attracting
    with pytest.raises(TypeError, match="LSTMClassifier"):
        integrating_lstm("not a model")


def test_classifier_accuracy_counts_the_decided_reviews():
    """Logits after the last token 2, -1, 5, -3 against labels 1, 0, 1/2, 1: the tie is left out,
    two of the three decided reviews are right."""
    logits = jnp.array([[0.0, 2.0], [0.0, -1.0], [0.0, 5.0], [9.0, -3.0]])
    labels = np.array([1.0, 0.0, 0.5, 1.0])
    assert classifier_accuracy(lambda tokens: logits, None, labels) == pytest.approx(2 / 3)
    with pytest.raises(ValueError, match="no decided review"):
        classifier_accuracy(lambda tokens: logits, None, np.full(4, 0.5))
    with pytest.raises(ValueError, match="labels"):
        classifier_accuracy(lambda tokens: logits, None, labels[:3])


def test_repeated_word_memories_key_each_seed_and_word():
    models = {7: LSTMClassifier(rngs=nnx.Rngs(2)), 9: LSTMClassifier(rngs=nnx.Rngs(4))}
    memory, fits = repeated_word_memories(models, ("ha",), 30, window=(2.0, 20.0))
    assert list(memory) == list(fits) == [(7, "ha"), (9, "ha")]
    for key, m in memory.items():  # |s(n+1) - s(n)|, n = 1..29, and its fit
        assert m.shape == (29,) and np.all(m >= 0)
        assert fits[key] == fit_decay(m, np.arange(1, 30), tail=(2.0, 20.0))
        scores = repeated_word_scores(models[key[0]], "ha", 30)
        np.testing.assert_array_equal(m, np.abs(np.diff(scores)))
    assert not np.array_equal(memory[7, "ha"], memory[9, "ha"])  # one model per seed
