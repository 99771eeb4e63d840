"""A synthetic stand-in for the IMDB memory query of Wang, Li & Li (ICLR 2024, App. B, Figs 5-6).

The paper queries LSTMs trained on IMDB with a review made of one word repeated ``n`` times and
reads the derivative of the sentiment score with respect to ``n`` as the model's memory. IMDB and
the trained weights are not available offline, so the book trains a small LSTM on a synthetic task
that asks the same question: reviews are sequences of tokens from :data:`VOCAB`; "good", "great"
carry positive polarity (+1, +2), "bad", "awful" negative (-1, -2), "ha" and the filler words none;
the label is 1 when the total polarity is positive, 0 when negative, 1/2 on a tie.

:func:`integrating_lstm` is the negative control of the query: with the input and forget gates
held open (``sigma(gate) = 1``) the cell update is ``c_{n+1} = c_n + g_n``, an integrator, which
has no attracting fixed point under a repeated word. ``synthetic_reviews(..., swap=("ha",
"good"))`` exchanges the roles of two words, the negative control of the ordering of Fig. 5.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax import nnx
from jaxtyping import Array, ArrayLike, Float, Int

from lrnn_core.core.memory import DecayFit, fit_decay
from lrnn_core.core.validate import check_choice, check_shape, check_type, positive_int, real_number

#: The tokens: four polar words first, then "ha" and three filler words.
VOCAB = ("good", "great", "bad", "awful", "ha", "movie", "plot", "the")
#: Polarity of each token of :data:`VOCAB`, in the same order.
POLARITY = (1.0, 2.0, -1.0, -2.0, 0.0, 0.0, 0.0, 0.0)
_N_POLAR = 4


def synthetic_reviews(
    key: Array,
    n_seqs: int,
    L: int,
    *,
    p_polar: float = 0.15,
    swap: tuple[str, str] | None = None,
) -> tuple[Int[Array, "n_seqs L"], Float[Array, " n_seqs"]]:
    """``n_seqs`` random reviews of ``L`` tokens and their labels (a stand-in for WLL App. B's
    IMDB).

    Each position is a polar word (uniform among the four) with probability ``p_polar``, otherwise
    a non-polar one ("ha" or a filler, uniform). Label: 1 if the summed polarity is > 0, 0 if < 0,
    1/2 if 0.

    ``swap=(a, b)`` exchanges the roles of two words of :data:`VOCAB`: the labels are drawn as
    above, then every ``a`` is written ``b`` and every ``b`` is written ``a``, so that ``b`` carries
    the polarity of ``a`` and ``a`` that of ``b`` (same draws, same labels).
    """
    n_seqs, L = positive_int("n_seqs", n_seqs), positive_int("L", L)
    if swap is not None:
        check_type("swap", swap, tuple)
        check_shape("swap", np.asarray(swap, object), (2,))
        a, b = (VOCAB.index(check_choice("swap", w, VOCAB)) for w in swap)
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
    if swap is not None:
        tokens = jnp.where(tokens == a, b, jnp.where(tokens == b, a, tokens))
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


def classifier_accuracy(
    model: LSTMClassifier,
    tokens: Int[ArrayLike, "n_seqs L"],
    labels: Float[ArrayLike, " n_seqs"],
) -> float:
    """Share of the decided reviews (label 0 or 1; ties of label 1/2 left out) whose score after
    the whole review has the label's sign (logit > 0 for label 1)."""
    labels = np.asarray(labels)
    logits = np.asarray(model(tokens)[:, -1])
    check_shape("labels", labels, logits.shape)
    decided = labels != 0.5
    if not decided.any():
        raise ValueError("labels hold no decided review (every label is 1/2)")
    return float(np.mean((logits[decided] > 0) == (labels[decided] > 0.5)))


def _float64(model: LSTMClassifier) -> LSTMClassifier:
    """A copy of ``model`` with float64 parameters (call inside ``jax.enable_x64``)."""
    graphdef, params, rest = nnx.split(model, nnx.Param, ...)
    params64 = jax.tree.map(lambda a: jnp.asarray(a, jnp.float64), params)
    return nnx.merge(graphdef, params64, rest)


def _check_query(model: LSTMClassifier, word: str | None) -> None:
    if word is not None:
        check_choice("word", word, VOCAB)
    check_type("model", model, LSTMClassifier, what="an LSTMClassifier")


def repeated_word_scores(model: LSTMClassifier, word: str, L: int) -> np.ndarray:
    """Sentiment scores ``s(n) = sigmoid(logit)`` of the review "word word ... word" (n times),
    n = 1..L (WLL App. B's memory query, Fig. 5).

    Computed in float64 (the parameters are cast) so that score differences far below float32's
    resolution near 0 and 1 can be read; one causal pass gives all ``n``. Returns ``(L,)``.
    """
    _check_query(model, word)
    L = positive_int("L", L)
    with jax.enable_x64(True):  # float64: scores approach 0 and 1 closer than float32 resolves
        logits = _float64(model)(jnp.full((L,), VOCAB.index(word)))
        return np.asarray(jax.nn.sigmoid(logits))


def repeated_word_memories(
    models: Mapping[int, LSTMClassifier],
    words: Sequence[str],
    L: int,
    *,
    window: tuple[float, float],
) -> tuple[dict[tuple[int, str], np.ndarray], dict[tuple[int, str], DecayFit]]:
    """The memory ``|s(n+1) - s(n)|``, ``n = 1..L-1``, of the scores of
    :func:`repeated_word_scores` (WLL App. B, Fig. 5; float64) of every model (keyed by its
    seed) and word, and its exponential fit ``A e^{-rate n}`` on the ``window`` of ``n``
    (:func:`lrnn_core.core.memory.fit_decay`), each keyed ``(seed, word)``."""
    memory = {
        (seed, word): np.abs(np.diff(repeated_word_scores(model, word, L)))
        for seed, model in models.items()
        for word in words
    }
    fits = {key: fit_decay(m, np.arange(1, L), tail=window) for key, m in memory.items()}
    return memory, fits


class FixedPoint(NamedTuple):
    """The LSTM's state under a repeated word: where it settles and how fast it gets there."""

    state: np.ndarray  # (c*, h*) concatenated, shape (2N,)
    residual: float  # max |F(z*) - z*| after the iterations: ~0 at a fixed point
    radius: float  # spectral radius of the Jacobian dF/dz at z*

    @property
    def attracting(self) -> bool:
        """The iteration settled (residual below 1e-12, float64 round-off of O(1) states) at a
        point where the Jacobian contracts (spectral radius < 1)."""
        return bool(self.residual < 1e-12 and self.radius < 1.0)

    @property
    def rate(self) -> float:
        """Asymptotic decay rate ``-ln radius`` of any difference of the state, hence of the score
        and of its memory ``|s(n+1) - s(n)|`` (modes the read-out does not see decay faster)."""
        return float(-np.log(self.radius))


def repeated_word_fixed_point(
    model: LSTMClassifier, word: str, *, steps: int = 20_000
) -> FixedPoint:
    """Iterate the LSTM cell ``z_{n+1} = F(z_n, word)`` from rest for ``steps`` steps (float64) and
    linearise it there: the mechanism behind WLL App. B's exponentially decaying memory.

    If the iteration settles (``residual`` at round-off) at a point where the Jacobian's spectral
    radius ``rho < 1``, the state converges geometrically, ``|z_n - z*| = O((rho + e)^n)`` for every
    ``e > 0``, so the score's memory is bounded by ``c e^{-beta n}`` for any ``beta < -ln rho``
    (WLL Def. 3.2). No training data enters: this is a property of the trained weights.
    """
    _check_query(model, word)
    steps = positive_int("steps", steps)
    with jax.enable_x64(True):
        model64 = _float64(model)
        cell, N = model64.rnn.cell, model64.N
        x = model64.embed(jnp.asarray(VOCAB.index(word))).astype(jnp.float64)

        def step(z: Array) -> Array:
            (c, h), _ = cell((z[:N], z[N:]), x)
            return jnp.concatenate([c, h])

        z = jax.jit(lambda z0: jax.lax.fori_loop(0, steps, lambda _, z: step(z), z0))(
            jnp.zeros(2 * N)
        )
        residual = float(jnp.max(jnp.abs(step(z) - z)))
        radius = float(np.max(np.abs(np.linalg.eigvals(np.asarray(jax.jacobian(step)(z))))))
    return FixedPoint(np.asarray(z), residual, radius)


def integrating_lstm(model: LSTMClassifier, *, gate_bias: float = 40.0) -> LSTMClassifier:
    """A copy of ``model`` whose input and forget gates are held open: their biases (gates i and
    f of ``nnx.OptimizedLSTMCell``'s order i, f, g, o) set to ``gate_bias``, so that
    ``sigma(gate) = 1`` to float64 round-off and ``c_{n+1} = c_n + g_n`` integrates the input."""
    _check_query(model, None)
    gate_bias = real_number("gate_bias", gate_bias, low=0.0)
    copy = nnx.clone(model)
    bias = copy.rnn.cell.dense_h.bias
    bias[...] = bias[...].at[: 2 * copy.N].set(gate_bias)
    return copy
