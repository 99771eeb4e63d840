"""Claim checks of the memory-functions chapter (Wang, Li & Li, ICLR 2024, Figs 5, 6, 10, 11).

* :func:`memory_class`: the classification of a memory ``m`` by its tail ratio
  ``max(m over the last 10 %) / max(m)`` (:func:`lrnn_core.core.memory.tail_ratio`): decaying
  below ``1e-6``, non-decaying above ``1e-2``, unclassified between (Def. 3.2: a decaying memory
  tends to 0).
* :func:`diverse_memories` (Fig. 11, App. I.1): a sample of random tanh RNNs holds both classes,
  every contraction (``||W||_2 < 1``: then ``|h_{k+1} - h_k| <= ||W||_2 |h_k - h_{k-1}|`` under a
  constant input, as tanh is 1-Lipschitz) decays, and every non-decaying one has spectral
  radius > 1.
* :func:`bilinear_model`: ``y_k = u_k sum_{j<=k} u_j``, a causal map whose Heaviside memory
  ``|z_k - z_{k-1}| = 1`` never decays while its impulse memory ``|z_k| = 0`` (k >= 1) does: the
  object on which the two probes of Fig. 10 (App. H) disagree.
* :func:`cached_model`: whether a model or data set of Figs 5-6 (IMDB, a fine-tuned BERT) is on
  this machine, in the Hugging Face cache, so that a query could run offline.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike, Float

from lrnn_core.core.memory import tail_ratio
from lrnn_core.core.validate import check_choice, check_shape, check_text

__all__ = [
    "DECAYING",
    "NON_DECAYING",
    "bilinear_model",
    "cached_model",
    "diverse_memories",
    "memory_class",
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
