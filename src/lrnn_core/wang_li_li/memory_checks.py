"""Claim checks of the memory-functions chapter (Wang, Li & Li, ICLR 2024, Figs 5, 6, 10, 11).

* :func:`memory_class`: the classification of a memory ``m`` by its tail ratio
  ``max(m over the last 10 %) / max(m)`` (:func:`lrnn_core.core.memory.tail_ratio`): decaying
  below ``1e-6``, non-decaying above ``1e-2``, unclassified between (Def. 3.2: a decaying memory
  tends to 0).
* :func:`memory_classes`: the same classification of many tail ratios at once, as the masks
  (decaying, non-decaying); :func:`same_class` compares two such classifications.
* :func:`first_order`: errors that halve with each halving of ``dt`` (the Euler scheme's order,
  on which the three probes of a discretised continuous-time model converge).
* :func:`diverse_memories` (Fig. 11, App. I.1): a sample of random tanh RNNs holds both classes,
  every contraction (``||W||_2 < 1``: then ``|h_{k+1} - h_k| <= ||W||_2 |h_k - h_{k-1}|`` under a
  constant input, as tanh is 1-Lipschitz) decays, and every non-decaying one has spectral
  radius > 1.
* :func:`bilinear_model`: ``y_k = u_k sum_{j<=k} u_j``, a causal map whose Heaviside memory
  ``|z_k - z_{k-1}| = 1`` never decays while its impulse memory ``|z_k| = 0`` (k >= 1) does: the
  object on which the two probes of Fig. 10 (App. H) disagree.
* :func:`probe_classes`, :func:`linear_probe_gap`, :func:`contractions_decay` and
  :func:`probes_equivalent` (Fig. 10, App. H): the Heaviside and impulse probes agree on the decay
  class where theory backs it (gain-1 RNNs, linear LRUs up to round-off, contractions).
* :func:`neutral_forgets_slower` (Fig. 5, App. B): the neutral word's median fitted memory rate
  over seeds is below every polar word's; :func:`slowest_words` puts each word in that role, the
  ordering's negative control.
* :func:`cached_model`: whether a model or data set of Figs 5-6 (IMDB, a fine-tuned BERT) is on
  this machine, in the Hugging Face cache, so that a query could run offline.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable, Hashable, Mapping, Sequence
from pathlib import Path

import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike, Float

from lrnn_core.core.memory import heaviside_memory, impulse_memory, roundoff_floor, tail_ratio
from lrnn_core.core.validate import check_choice, check_shape, check_text

__all__ = [
    "DECAYING",
    "NON_DECAYING",
    "bilinear_model",
    "cached_model",
    "contractions_decay",
    "diverse_memories",
    "first_order",
    "linear_probe_gap",
    "memory_class",
    "median_rates",
    "memory_classes",
    "neutral_forgets_slower",
    "probe_classes",
    "probes_equivalent",
    "same_class",
    "seeds_where_neutral_is_slower",
    "slowest_words",
]

#: Tail-ratio thresholds: decaying below, non-decaying above (the chapter's classification).
DECAYING, NON_DECAYING = 1e-6, 1e-2


def memory_class(memory: Float[ArrayLike, " L"]) -> str:
    """``"decaying"``, ``"non-decaying"`` or ``"unclassified"`` by the tail ratio over the last
    10 % of the horizon (module docstring)."""
    ratio = tail_ratio(memory, tail=0.1)
    if ratio < DECAYING:
        return "decaying"
    return "non-decaying" if ratio > NON_DECAYING else "unclassified"


def memory_classes(ratio: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """The masks ``(ratio < DECAYING, ratio > NON_DECAYING)`` of tail ratios: decaying and
    non-decaying memories (module docstring; neither: unclassified)."""
    ratio = np.asarray(ratio, np.float64)
    return ratio < DECAYING, ratio > NON_DECAYING


def same_class(ratio_a: ArrayLike, ratio_b: ArrayLike) -> np.ndarray:
    """Where two memories of each model (tail ratios ``ratio_a``, ``ratio_b``) fall in the same
    class of :func:`memory_classes`."""
    (dec_a, per_a), (dec_b, per_b) = memory_classes(ratio_a), memory_classes(ratio_b)
    check_shape("ratio_b", dec_b, dec_a.shape)
    return (dec_a == dec_b) & (per_a == per_b)


def first_order(errors: Sequence[float], *, tol: float = 0.1) -> bool:
    """Errors at step sizes halved one after another fall first order in ``dt``: each is smaller
    than the one before, and each ratio of successive errors lies within ``tol`` of 1/2."""
    errors = np.asarray(errors, np.float64)
    if errors.ndim != 1 or errors.size < 2:
        raise ValueError(f"errors must hold at least two step sizes, got shape {errors.shape}")
    ratios = errors[1:] / errors[:-1]
    return bool(np.all(np.diff(errors) < 0) and np.all(np.abs(ratios - 0.5) < tol))


def diverse_memories(
    decaying: ArrayLike, persistent: ArrayLike, radius: ArrayLike, norm2: ArrayLike
) -> bool:
    """The Fig. 11 check on a sample of RNNs (module docstring): both classes occur, every
    contraction decays, every non-decaying RNN has spectral radius > 1."""
    decaying, persistent = np.asarray(decaying, bool), np.asarray(persistent, bool)
    radius, norm2 = np.asarray(radius, np.float64), np.asarray(norm2, np.float64)
    for name, a in (("persistent", persistent), ("radius", radius), ("norm2", norm2)):
        check_shape(name, a, decaying.shape)
    if np.any(decaying & persistent):
        raise ValueError("a memory cannot be both decaying and non-decaying")
    return bool(
        decaying.any()
        and persistent.any()
        and np.all(decaying[norm2 < 1])
        and np.all(radius[persistent] > 1)
    )


def bilinear_model(u: Float[ArrayLike, " L"]) -> Float[Array, " L"]:
    """``y_k = u_k * sum_{j <= k} u_j`` (causal; module docstring)."""
    u = jnp.asarray(u)
    if u.ndim != 1:
        raise ValueError(f"u must be a 1-D input sequence, got shape {u.shape}")
    return u * jnp.cumsum(u)


def probe_classes(model: Callable[[np.ndarray], ArrayLike], L: int) -> list[str]:
    """``[class of the Heaviside memory, class of the impulse memory]`` of ``model`` over ``L``
    steps (:func:`memory_class`)."""
    return [memory_class(probe(model, L)) for probe in (heaviside_memory, impulse_memory)]


def linear_probe_gap(pairs: Sequence[tuple[ArrayLike, ArrayLike]]) -> float:
    """``max |m_h - m_i| / floor`` over the steps ``k >= 1`` of each pair (Heaviside, impulse) of
    memories, with ``floor = 1e3 eps max(m_h)`` (:func:`lrnn_core.core.memory.roundoff_floor`):
    at most 1 where the two memories of a linear model agree up to round-off (App. H)."""
    if not pairs:
        raise ValueError("pairs must hold at least one (Heaviside, impulse) pair")
    gaps = []
    for m_h, m_i in pairs:
        m_h, m_i = np.asarray(m_h, np.float64), np.asarray(m_i, np.float64)
        check_shape("m_i", m_i, m_h.shape)
        gaps.append(np.abs(m_h[1:] - m_i[1:]).max() / roundoff_floor(m_h))
    return max(gaps)


def contractions_decay(decaying: ArrayLike, agree: ArrayLike, norm2: ArrayLike) -> bool:
    """Every contraction (``||W||_2 < 1``) decays and both probes put it in the same class: under
    the zero input and under a constant input its state converges geometrically (App. H)."""
    decaying, agree = np.asarray(decaying, bool), np.asarray(agree, bool)
    norm2 = np.asarray(norm2, np.float64)
    for name, a in (("agree", agree), ("norm2", norm2)):
        check_shape(name, a, decaying.shape)
    contracting = norm2 < 1
    return bool(np.all(decaying[contracting] & agree[contracting]))


def probes_equivalent(
    class_h: Sequence[str], class_i: Sequence[str], linear_gap: float, contractions: bool
) -> bool:
    """The Fig. 10 check (App. H): the Heaviside and impulse memories of the gain-1 RNNs fall in
    the same classes, the linear model's two memories agree up to round-off
    (:func:`linear_probe_gap` <= 1) and every contraction decays under both probes."""
    return bool(list(class_h) == list(class_i) and linear_gap <= 1.0 and contractions)


def neutral_forgets_slower(
    rates: Mapping[tuple[Hashable, str], float],
    seeds: Sequence[Hashable],
    polar: Sequence[str],
    neutral: str = "ha",
) -> bool:
    """The Fig. 5 ordering (App. B): the median over ``seeds`` of the fitted memory rate of the
    ``neutral`` word is below the median of every ``polar`` word's rate (``rates[seed, word]``).
    :func:`seeds_where_neutral_is_slower` gives the seeds in which it holds word by word."""
    if not polar:
        raise ValueError("polar must not be empty")
    median = median_rates(rates, seeds, (*polar, neutral))
    return all(median[neutral] < median[w] for w in polar)


def slowest_words(
    rates: Mapping[tuple[Hashable, str], float], seeds: Sequence[Hashable], words: Sequence[str]
) -> list[str]:
    """The words that :func:`neutral_forgets_slower` accepts in the neutral word's role against
    all the other ``words`` (at most one: the word of strictly smallest median rate). With the
    neutral word among ``words``, every other word it returns is one the check failed to reject."""
    if len(words) < 2:
        raise ValueError(f"words must hold at least two words, got {list(words)}")
    return [
        w for w in words if neutral_forgets_slower(rates, seeds, [v for v in words if v != w], w)
    ]


def median_rates(
    rates: Mapping[tuple[Hashable, str], float], seeds: Sequence[Hashable], words: Sequence[str]
) -> dict[str, float]:
    """Each word's median over ``seeds`` of its fitted memory rate ``rates[seed, word]``."""
    if not seeds or not words:
        raise ValueError("seeds and words must not be empty")
    return {w: float(np.median([rates[s, w] for s in seeds])) for w in words}


def seeds_where_neutral_is_slower(
    rates: Mapping[tuple[Hashable, str], float],
    seeds: Sequence[Hashable],
    polar: Sequence[str],
    neutral: str = "ha",
) -> list[Hashable]:
    """The seeds in which the ``neutral`` word's rate is below that of every ``polar`` word."""
    if not seeds or not polar:
        raise ValueError("seeds and polar must not be empty")
    return [s for s in seeds if rates[s, neutral] < min(rates[s, w] for w in polar)]


def _hub_cache() -> Path:
    if os.environ.get("HF_HUB_CACHE"):
        return Path(os.environ["HF_HUB_CACHE"])
    home = os.environ.get("HF_HOME", str(Path.home() / ".cache" / "huggingface"))
    return Path(home) / "hub"


def cached_model(
    repo_id: str, *, library: str = "transformers", kind: str = "models"
) -> str | None:
    """None when ``library`` is importable and the Hugging Face repository ``repo_id`` of
    ``kind`` (``"models"`` or ``"datasets"``; e.g. the model
    ``"textattack/bert-base-uncased-imdb"``) has a snapshot in the local cache; otherwise the
    reason it cannot be loaded offline."""
    repo_id, library = check_text("repo_id", repo_id), check_text("library", library)
    kind = check_choice("kind", kind, ("models", "datasets"))
    if "/" not in repo_id:
        raise ValueError(f"repo_id must be 'owner/name', got {repo_id!r}")
    if importlib.util.find_spec(library) is None:
        return f"{library} is not installed"
    snapshots = _hub_cache() / f"{kind}--{repo_id.replace('/', '--')}" / "snapshots"
    if not snapshots.is_dir() or not any(snapshots.iterdir()):
        return f"no snapshot of {repo_id} in the offline cache {snapshots.parent.parent}"
    return None
