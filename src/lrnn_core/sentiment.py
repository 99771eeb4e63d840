"""A synthetic stand-in for the IMDB memory query of Wang, Li & Li (ICLR 2024, App. B, Figs 5-6).

The paper queries LSTMs trained on IMDB with a review made of one word repeated ``n`` times and reads
the derivative of the sentiment score with respect to ``n`` as the model's memory. IMDB and the
trained weights are not available offline, so the book trains a small LSTM on a synthetic task that
asks the same question: reviews are sequences of tokens from :data:`VOCAB`; "good", "great" carry
positive polarity (+1, +2), "bad", "awful" negative (-1, -2), "ha" and the filler words none; the label
is 1 when the total polarity is positive, 0 when negative, 1/2 on a tie.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax import nnx

__all__ = [
    "POLARITY",
    "VOCAB",
    "LSTMClassifier",
    "bce_loss",
    "repeated_word_scores",
    "synthetic_reviews",
]

#: The tokens: four polar words first, then "ha" and three filler words.
VOCAB = ("good", "great", "bad", "awful", "ha", "movie", "plot", "the")
#: Polarity of each token of :data:`VOCAB`, in the same order.
POLARITY = (1.0, 2.0, -1.0, -2.0, 0.0, 0.0, 0.0, 0.0)
_N_POLAR = 4


def synthetic_reviews(
    key: jax.Array, n: int, length: int, *, p_polar: float = 0.15
) -> tuple[jax.Array, jax.Array]:
    """``n`` random reviews of ``length`` tokens and their labels, ``(tokens (n, length) int, labels (n,))``.

    Each position is a polar word (uniform among the four) with probability ``p_polar``, otherwise a
    non-polar one ("ha" or a filler, uniform). Label: 1 if the summed polarity is > 0, 0 if < 0, 1/2 if 0.
    """
    for name, value in (("n", n), ("length", length)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"{name} must be a positive int, got {value!r}")
    if not 0.0 < p_polar <= 1.0:
        raise ValueError(f"p_polar must be in (0, 1], got {p_polar!r}")
    k_which, k_polar, k_plain = jax.random.split(key, 3)
    is_polar = jax.random.bernoulli(k_which, p_polar, (n, length))
    polar = jax.random.randint(k_polar, (n, length), 0, _N_POLAR)
    plain = jax.random.randint(k_plain, (n, length), _N_POLAR, len(VOCAB))
    tokens = jnp.where(is_polar, polar, plain)
    total = jnp.asarray(POLARITY)[tokens].sum(-1)
    labels = jnp.where(total > 0, 1.0, jnp.where(total < 0, 0.0, 0.5))
    return tokens, labels


class LSTMClassifier(nnx.Module):
    """Embedding -> LSTM (``nnx.OptimizedLSTMCell`` in ``nnx.RNN``) -> linear score, at every position.

    ``model(tokens)`` maps ``(..., L)`` integer tokens to the logits ``(..., L)`` of the sentiment score
    after reading ``1..L`` tokens (causal); training reads the last one.
    """

    def __init__(self, *, d_embed: int = 8, hidden: int = 16, rngs: nnx.Rngs):
        self.hidden = hidden
        self.embed = nnx.Embed(len(VOCAB), d_embed, rngs=rngs)
        self.rnn = nnx.RNN(nnx.OptimizedLSTMCell(d_embed, hidden, rngs=rngs), rngs=False)
        self.head = nnx.Linear(hidden, 1, rngs=rngs)

    def __call__(self, tokens: Any) -> jax.Array:
        tokens = jnp.asarray(tokens)
        if not jnp.issubdtype(tokens.dtype, jnp.integer) or tokens.ndim < 1:
            raise TypeError(
                f"tokens must be an integer array (..., L), got {tokens.dtype} {tokens.shape}"
            )
        dtype = self.head.kernel[...].dtype  # follow the parameters (float64 after a cast for queries)
        x = self.embed(tokens).astype(dtype)
        zero = jnp.zeros(x.shape[:-2] + (self.hidden,), dtype)
        return self.head(self.rnn(x, initial_carry=(zero, zero)))[..., 0]


def bce_loss(model: LSTMClassifier, batch: tuple[jax.Array, jax.Array]) -> jax.Array:
    """Binary cross-entropy of the score after the whole review, ``batch = (tokens, labels)``."""
    tokens, labels = batch
    return optax.sigmoid_binary_cross_entropy(model(tokens)[..., -1], labels).mean()


def repeated_word_scores(model: LSTMClassifier, word: str, n_max: int) -> np.ndarray:
    """Sentiment scores ``s(n) = sigmoid(logit)`` of the review "word word ... word" (n times), n = 1..n_max.

    Computed in float64 (the parameters are cast) so that score differences far below float32's
    resolution near 0 and 1 can be read; one causal pass gives all ``n``. Returns ``(n_max,)``.
    """
    if word not in VOCAB:
        raise ValueError(f"word must be one of {VOCAB}, got {word!r}")
    with jax.enable_x64(True):
        graphdef, params, rest = nnx.split(model, nnx.Param, ...)
        params64 = jax.tree.map(lambda a: jnp.asarray(a, jnp.float64), params)
        model64 = nnx.merge(graphdef, params64, rest)
        logits = model64(jnp.full((n_max,), VOCAB.index(word)))
        return np.asarray(jax.nn.sigmoid(logits))
