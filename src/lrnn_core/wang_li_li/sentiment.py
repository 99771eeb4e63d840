"""A synthetic stand-in for the IMDB memory query of Wang, Li & Li (ICLR 2024, App. B, Figs 5-6).

The paper queries LSTMs trained on IMDB with a review made of one word repeated ``n`` times and
reads the derivative of the sentiment score with respect to ``n`` as the model's memory. IMDB and
the trained weights are not available offline, so the book trains a small LSTM on a synthetic task
that asks the same question: reviews are sequences of tokens from :data:`VOCAB`; "good", "great"
carry positive polarity (+1, +2), "bad", "awful" negative (-1, -2), "ha" and the filler words none;
the label is 1 when the total polarity is positive, 0 when negative, 1/2 on a tie.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax import nnx
from jaxtyping import Array, ArrayLike, Float, Int

from lrnn_core.core.validate import check_choice, positive_int, real_number

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
    key: Array, n_seqs: int, L: int, *, p_polar: float = 0.15
) -> tuple[Int[Array, "n_seqs L"], Float[Array, " n_seqs"]]:
    """``n_seqs`` random reviews of ``L`` tokens and their labels (a stand-in for WLL App. B's
    IMDB).

    Each position is a polar word (uniform among the four) with probability ``p_polar``, otherwise
    a non-polar one ("ha" or a filler, uniform). Label: 1 if the summed polarity is > 0, 0 if < 0,
    1/2 if 0.
    """
    n_seqs, L = positive_int("n_seqs", n_seqs), positive_int("L", L)
    p_polar = real_number("p_polar", p_polar, high=1.0)
    if not p_polar > 0.0:
        raise ValueError(f"p_polar must be in (0, 1], got {p_polar!r}")
    k_which, k_polar, k_plain = jax.random.split(key, 3)
    is_polar = jax.random.bernoulli(k_which, p_polar, (n_seqs, L))
    polar = jax.random.randint(k_polar, (n_seqs, L), 0, _N_POLAR)
    plain = jax.random.randint(k_plain, (n_seqs, L), _N_POLAR, len(VOCAB))
    tokens = jnp.where(is_polar, polar, plain)
    total = jnp.asarray(POLARITY)[tokens].sum(-1)
    labels = jnp.where(total > 0, 1.0, jnp.where(total < 0, 0.0, 0.5))
    return tokens, labels


class LSTMClassifier(nnx.Module):
    """Embedding (width ``M``) -> LSTM (``nnx.OptimizedLSTMCell`` of state width ``N`` in
    ``nnx.RNN``) -> linear score, at every position (the model class of WLL App. B, Fig. 5).

    ``model(tokens)`` maps ``(..., L)`` integer tokens to the logits ``(..., L)`` of the sentiment
    score after reading ``1..L`` tokens (causal); training reads the last one.
    """

    def __init__(self, *, M: int = 8, N: int = 16, rngs: nnx.Rngs):
        M, N = positive_int("M", M), positive_int("N", N)
        self.N = N
        self.embed = nnx.Embed(len(VOCAB), M, rngs=rngs)
        self.rnn = nnx.RNN(nnx.OptimizedLSTMCell(M, N, rngs=rngs), rngs=False)
        self.head = nnx.Linear(N, 1, rngs=rngs)

    def __call__(self, tokens: Int[ArrayLike, "*batch L"]) -> Float[Array, "*batch L"]:
        tokens = jnp.asarray(tokens)
        if not jnp.issubdtype(tokens.dtype, jnp.integer) or tokens.ndim < 1:
            raise TypeError(
                f"tokens must be an integer array (..., L), got {tokens.dtype} {tokens.shape}"
            )
        # follow the parameters (float64 after a cast for queries)
        dtype = self.head.kernel[...].dtype
        u = self.embed(tokens).astype(dtype)
        zero = jnp.zeros(u.shape[:-2] + (self.N,), dtype)
        return self.head(self.rnn(u, initial_carry=(zero, zero)))[..., 0]


def bce_loss(
    model: LSTMClassifier, batch: tuple[Int[ArrayLike, "n_seqs L"], Float[ArrayLike, " n_seqs"]]
) -> Float[Array, ""]:
    """Binary cross-entropy of the score after the whole review, ``batch = (tokens, labels)``."""
    tokens, labels = batch
    return optax.sigmoid_binary_cross_entropy(model(tokens)[..., -1], labels).mean()


def repeated_word_scores(model: LSTMClassifier, word: str, L: int) -> np.ndarray:
    """Sentiment scores ``s(n) = sigmoid(logit)`` of the review "word word ... word" (n times),
    n = 1..L (WLL App. B's memory query, Fig. 5).

    Computed in float64 (the parameters are cast) so that score differences far below float32's
    resolution near 0 and 1 can be read; one causal pass gives all ``n``. Returns ``(L,)``.
    """
    check_choice("word", word, VOCAB)
    L = positive_int("L", L)
    if not isinstance(model, LSTMClassifier):
        raise TypeError(f"model must be an LSTMClassifier, got {type(model).__name__}")
    with jax.enable_x64(True):  # float64: scores approach 0 and 1 closer than float32 resolves
        graphdef, params, rest = nnx.split(model, nnx.Param, ...)
        params64 = jax.tree.map(lambda a: jnp.asarray(a, jnp.float64), params)
        model64 = nnx.merge(graphdef, params64, rest)
        logits = model64(jnp.full((L,), VOCAB.index(word)))
        return np.asarray(jax.nn.sigmoid(logits))
