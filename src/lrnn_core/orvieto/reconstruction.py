"""Learned reconstruction of an input sequence from the last LRU state (Orvieto et al., ICML 2024,
§4.2, Fig. 4): the model, its training, one (data set, state size ``N``, decoder) cell of Fig. 4
with its two baselines, and the stored runs that the chapter loads.

A trained LRU (``nu_log``, ``theta_log``, ``gamma_log`` and ``B`` all trained; ring initialisation
``r_min = 0.9``, ``r_max = 0.999``) reads a scalar sequence ``u_1, ..., u_L`` (a flattened image);
a decoder, linear (``Omega``) or a one-hidden-layer MLP, maps ``[Re x_L, Im x_L]`` to the whole
input, and the loss is the pixel-wise squared error.

With one input channel the last state is one matrix product (eq. 4 with the LRU's normalised
input weights ``gamma * B``): ``x_L = V_L (gamma . B u) = (gamma . b) . (V_L u)``, ``b = B[:, 0]``
(:func:`last_state`). It equals the last state of the scan exactly in exact arithmetic and is
differentiable in ``Lambda``; on a CPU it is much faster than a scan over ``L`` steps.

A cell (:func:`fig4_cell`) is scored by the held-out pixel-wise MSE
``error = (1 / (m L)) sum_i sum_k (u_hat_ik - u_ik)^2`` beside two baselines on the same held-out
images:

* ``"ignores input"``: the mean training image ``u_bar`` (the best predictor that ignores ``u``);
* ``"linear"``: the *untrained* Vandermonde inverse ``Re(V_L^+ x_L)`` (eq. 5 at ``k = L``,
  ``B = 1``) with eigenvalues drawn once from the ring ``T[0.999, 1]``, a fixed linear decoder
  that needs no training.

For the MLP decoder the trained linear decoder at the same ``N`` is a third baseline
(:func:`cell_baselines`, the paper's own comparison). The paper's orderings and the margins are
decided on the chapter's page.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from flax import nnx
from jaxtyping import Array, ArrayLike, Complex, Float

from lrnn_core.core.eigenvalues import ring_init
from lrnn_core.core.lru import LRU, MLPHead
from lrnn_core.core.scan import linear_scan
from lrnn_core.core.train import lru_optimizer, train
from lrnn_core.core.validate import (
    as_inexact,
    check_choice,
    check_finite,
    check_shape,
    positive_int,
    positive_number,
    seed_list,
)
from lrnn_core.data.mnist import mnist_sequences
from lrnn_core.data.pathfinder import pathfinder_images
from lrnn_core.orvieto.memorisation import reconstruct_from_last_state


def _sequences(name: str, u: ArrayLike, length: int | None = None) -> Array:
    """Real finite sequences of shape ``(batch, L)`` (``L = length`` if given)."""
    u = as_inexact(name, u)
    if jnp.iscomplexobj(u):
        raise TypeError(f"{name} must be real, got dtype {u.dtype}")
    check_shape(name, u, (None, length))
    check_finite(name, u)
    return u


def last_state(lru: LRU, u: Float[ArrayLike, "batch L"]) -> Complex[Array, "batch N"]:
    """The last LRU state ``x_L = (gamma . b) . (V_L u)`` for scalar inputs (``M = 1``).

    Orvieto et al. (ICML 2024), eq. (4) with the LRU's input weights ``gamma . B`` (Orvieto et al.,
    2023, §3.4): ``x_L = sum_k Lambda^(L-k) gamma B u_k``. The LRU stores ``log lambda =
    -exp(nu_log) + i exp(theta_log)``, so ``V_L[i, j] = exp((L-1-j) log lambda_i)`` in closed form
    (the same matrix as :func:`lrnn_core.core.vandermonde.vandermonde`, whose cumulative product
    takes seconds longer to differentiate under ``jit``); ``V_L u`` is two real matrix products.
    """
    if lru.M != 1:
        raise ValueError(f"last_state needs an LRU with M=1, got M={lru.M}")
    u = _sequences("u", u)
    log_lam = -jnp.exp(lru.nu_log[...]) + 1j * jnp.exp(lru.theta_log[...])
    V = jnp.exp(jnp.arange(u.shape[-1] - 1, -1, -1, dtype=u.dtype) * log_lam[:, None])
    b = jnp.exp(lru.gamma_log[...]) * (lru.B_re[:, 0] + 1j * lru.B_im[:, 0])
    return b * (u @ V.real.T + 1j * (u @ V.imag.T))


class Reconstructor(nnx.Module):
    """An LRU read once, at its last state, and a decoder to the whole input (Fig. 4).

    ``D=()``: linear decoder ``Omega: R^(2N) -> R^L`` (with a bias); ``D=(w,)``: a
    one-hidden-layer ReLU MLP of width ``w`` (2048 in the paper). The LRU's own readout (``lru.C``,
    ``lru.D``) is not used.
    """

    def __init__(self, N: int, length: int, *, D: Sequence[int] = (), r_min: float = 0.9,
                 r_max: float = 0.999, rngs: nnx.Rngs):  # fmt: skip
        self.length = positive_int("length", length)
        self.lru = LRU(N, 1, r_min=r_min, r_max=r_max, rngs=rngs)
        self.decoder = MLPHead(N, self.length, D=tuple(D), rngs=rngs)

    def __call__(self, u: Float[ArrayLike, "batch L"]) -> Float[Array, "batch L"]:
        """Reconstruct ``u`` (``(batch, L)``) from ``x_L``."""
        return self.decoder(last_state(self.lru, _sequences("u", u, self.length)))


def pixel_mse(model: Reconstructor, u: Float[ArrayLike, "batch L"]) -> Float[Array, ""]:
    """Pixel-wise L2 loss ``mean((model(u) - u)^2)`` (the y-axis of Fig. 4)."""
    return jnp.mean((model(u) - u) ** 2)


@dataclass(frozen=True)
class ReconstructionRun:
    """One (N, decoder) cell of Fig. 4, trained for each seed; ``D``: the decoder's hidden widths.

    ``train_mse`` / ``test_mse`` ``(seeds,)``: :func:`pixel_mse` of the trained model on all
    training / held-out sequences; ``curve`` ``(seeds, steps)``: the loss of every training step;
    ``lam_init`` / ``lam`` ``(seeds, N)``: eigenvalues at initialisation and after training;
    ``examples`` ``(seeds, k, L)``: reconstructions of the first ``k`` held-out sequences;
    ``shuffled_mse`` ``(seeds,)``: the held-out outputs scored against the wrong targets, output
    ``i`` against held-out sequence ``(i + m // 2) mod m`` (:func:`shuffled_targets`), the
    chapter's negative control.
    """

    N: int
    D: tuple[int, ...]
    train_mse: np.ndarray
    test_mse: np.ndarray
    curve: np.ndarray
    lam_init: np.ndarray
    lam: np.ndarray
    examples: np.ndarray
    shuffled_mse: np.ndarray


def train_reconstruction(
    train_u: Float[ArrayLike, "n L"],
    test_u: Float[ArrayLike, "m L"],
    N: int,
    *,
    D: Sequence[int] = (),
    epochs: int,
    batch_size: int = 64,
    seeds: Sequence[int] = (0,),
    r_min: float = 0.9,
    r_max: float = 0.999,
    lr: float = 1e-3,
    n_examples: int = 4,
    progress: bool = False,
) -> ReconstructionRun:
    """Train :class:`Reconstructor` on ``train_u`` with :func:`lrnn_core.core.train.train` (all
    seeds at once, one ``vmap``) and :func:`lrnn_core.core.train.lru_optimizer` (``lr``; cosine
    over ``epochs * (n // batch_size)`` steps). Each step draws ``batch_size`` distinct training
    sequences uniformly at random (a fresh draw per step, not epochs of one shuffle).
    """
    train_u = jnp.asarray(_sequences("train_u", train_u), jnp.float32)
    test_u = jnp.asarray(_sequences("test_u", test_u, train_u.shape[1]), jnp.float32)
    epochs = positive_int("epochs", epochs)
    batch_size = positive_int("batch_size", batch_size)
    seeds = seed_list("seeds", seeds)
    n, length = train_u.shape
    if batch_size > n:
        raise ValueError(f"batch_size must be <= the {n} training sequences, got {batch_size}")
    steps = epochs * (n // batch_size)
    D = tuple(D)

    def make(rngs: nnx.Rngs) -> Reconstructor:
        return Reconstructor(N, length, D=D, r_min=r_min, r_max=r_max, rngs=rngs)

    def batch(key: Array) -> Array:
        return train_u[jax.random.choice(key, n, (batch_size,), replace=False)]

    result = train(make, pixel_mse, batch, steps=steps, seed=list(seeds),
                   optimizer=lru_optimizer(steps, lr=lr), progress=progress)  # fmt: skip
    train_mse, test_mse, lam_init, lam, examples, shuffled = [], [], [], [], [], []
    wrong = jnp.asarray(shuffled_targets(test_u))
    for i, s in enumerate(seeds):
        model = result.model(i)
        init = make(nnx.Rngs(jax.random.split(jax.random.key(s))[0]))  # as train() draws it
        train_mse.append(float(_batched_mse(model, train_u)))
        test_mse.append(float(_batched_mse(model, test_u)))
        shuffled.append(float(_batched_mse(model, test_u, wrong)))
        lam_init.append(np.asarray(init.lru.eigenvalues()))
        lam.append(np.asarray(model.lru.eigenvalues()))
        examples.append(np.asarray(model(test_u[:n_examples])))
    curve = np.asarray(result.losses)
    return ReconstructionRun(N, D, np.array(train_mse), np.array(test_mse), curve,
                             np.stack(lam_init), np.stack(lam), np.stack(examples),
                             np.array(shuffled))  # fmt: skip


def shuffled_targets(u: Float[ArrayLike, "m L"]) -> Float[np.ndarray, "m L"]:
    """The held-out sequences paired with the wrong outputs: row ``i`` is sequence
    ``(i + m // 2) mod m`` (``m >= 2``, so no row is its own target)."""
    u = np.asarray(_sequences("u", u))
    if len(u) < 2:
        raise ValueError("u must hold at least 2 sequences")
    return np.roll(u, -(len(u) // 2), axis=0)


def _batched_mse(model: Reconstructor, u: Array, targets: Array | None = None,
                 chunk: int = 1024) -> Array:  # fmt: skip
    """:func:`pixel_mse` over all of ``u`` (against ``targets``, default ``u``), ``chunk``
    sequences at a time (bounded memory)."""
    targets = u if targets is None else targets
    total = sum(
        jnp.sum((model(u[i : i + chunk]) - targets[i : i + chunk]) ** 2)
        for i in range(0, len(u), chunk)
    )
    return total / u.size


#: the two decoders: ``"linear"`` (``Omega z + c``) and ``"MLP"`` (one hidden ReLU layer)
HEADS = ("linear", "MLP")


class Sizes(NamedTuple):
    """The sizes of the chapter's live runs at one scale (Fig. 4 and the PathFinder check)."""

    n_train: int  # training images (paper: all 60 000 MNIST training images)
    n_test: int  # held-out images for the error and the baselines (not in the paper)
    epochs: int  # passes over n_train in steps of 64 (paper: 100)
    runs: int  # seeds per Fig. 4 cell (paper: mean of 3 runs)
    Ns: tuple[int, ...]  # Fig. 4: state sizes N (paper: 64 ... 1024)
    pf_train: int  # PathFinder-like training images (paper: LRA PathFinder)


#: One Fig. 4 cell, as :func:`fig4_cell` returns it and ``results/orvieto_fig4_*.json`` stores
#: it (fields in :func:`fig4_cell`); a stored row also names its ``data`` set, ``claim`` and
#: ``commit``, a live one may keep its ``run`` (:class:`ReconstructionRun`).
Fig4Row = dict[str, Any]


def _images(name: str, u: ArrayLike) -> np.ndarray:
    u = np.asarray(u, np.float64)
    if u.ndim != 2 or not np.all(np.isfinite(u)):
        raise ValueError(f"{name} must be a finite (n, L) array, got shape {u.shape}")
    return u


def mean_image_mse(train_u: Float[ArrayLike, "n L"], test_u: Float[ArrayLike, "m L"]) -> float:
    """Held-out MSE of the input-ignoring predictor: the mean training image ``u_bar``,
    ``(1 / (m L)) sum (u_bar_k - u_ik)^2``."""
    train_u, test_u = _images("train_u", train_u), _images("test_u", test_u)
    if train_u.shape[1] != test_u.shape[1]:
        raise ValueError(f"lengths differ: {train_u.shape[1]} and {test_u.shape[1]}")
    return float(np.mean((train_u.mean(axis=0) - test_u) ** 2))


def pca_bound(train_u: Float[ArrayLike, "n L"], Ns: Sequence[int]) -> dict[int, float]:
    """The smallest training MSE of any affine decoder of rank at most ``2N`` (Eckart-Young):
    ``(1/L) sum_{j > 2N} sigma_j^2``, the eigenvalues ``sigma_j^2`` of the training images'
    covariance in decreasing order. A linear decoder of ``[Re x_L; Im x_L]`` is such a map, so no
    trained linear decoder goes below it on its training images (the chapter's eq. lr-pca-bound)."""
    train_u = _images("train_u", train_u)
    Ns = [positive_int("N", N) for N in Ns]
    var = np.linalg.eigvalsh(np.cov(train_u, rowvar=False, bias=True))[::-1]
    return {N: max(float(var[2 * N :].sum() / train_u.shape[1]), 0.0) for N in Ns}


def vandermonde_baseline(test_u: Float[ArrayLike, "m L"], N: int, *, seed: int,
                         r_min: float = 0.999, r_max: float = 1.0) -> float:  # fmt: skip
    """Held-out MSE (mean over images of the per-image pixel MSE) of the untrained inverse
    ``Re(V_L^+ x_L)`` (eq. 5 at ``k = L``,
    :func:`lrnn_core.orvieto.memorisation.reconstruct_from_last_state`), ``lambda`` drawn from
    ``T[r_min, r_max]`` with ``jax.random.key(seed)``."""
    lam = np.asarray(ring_init(jax.random.key(seed), positive_int("N", N), r_min, r_max))
    u = _images("test_u", test_u)
    return float(np.mean(np.mean((reconstruct_from_last_state(lam, u) - u) ** 2, axis=-1)))


def fig4_cell(
    train_u: Float[ArrayLike, "n L"],
    test_u: Float[ArrayLike, "m L"],
    N: int,
    head: str,
    *,
    D: int,
    epochs: int,
    lr: float,
    batch_size: int,
    seeds: Sequence[int],
    baseline_seed: int,
    keep_run: bool = False,
) -> Fig4Row:
    """Train one cell (all ``seeds`` at once) and return its numbers as a results-file row;
    ``D``: the hidden width of the MLP decoder (unused by the linear one).

    ``best``, ``median``, ``min``, ``max``: held-out MSE over the seeds (best = min, the
    best-of-seeds protocol, with the median beside it); ``train_mse``, ``test_mse``: per seed;
    ``baselines``: ``{"ignores input": ..., "linear": ...}`` on the same held-out images;
    ``wall_s``: seconds for the cell; ``run``: the
    :class:`~lrnn_core.orvieto.reconstruction.ReconstructionRun` itself if ``keep_run``.
    """
    if head not in HEADS:
        raise ValueError(f"head must be one of {HEADS}, got {head!r}")
    D = positive_int("D", D)
    lr = positive_number("lr", lr)
    seeds = seed_list("seeds", seeds)
    train_u, test_u = _images("train_u", train_u), _images("test_u", test_u)
    start = time.perf_counter()
    run = train_reconstruction(train_u, test_u, N, D=() if head == "linear" else (D,),
                               epochs=epochs, batch_size=batch_size, seeds=seeds,
                               lr=lr)  # fmt: skip
    wall = time.perf_counter() - start
    test = run.test_mse
    row: Fig4Row = {
        "N": N,
        "head": head,
        "best": float(test.min()),
        "median": float(np.median(test)),
        "min": float(test.min()),
        "max": float(test.max()),
        "train_mse": run.train_mse.tolist(),
        "test_mse": test.tolist(),
        "baselines": {
            "ignores input": mean_image_mse(train_u, test_u),
            "linear": vandermonde_baseline(test_u, N, seed=baseline_seed),
        },
        "wall_s": wall,
    }
    return row | {"run": run} if keep_run else row


def fig4_grid(
    train_u: Float[ArrayLike, "n L"],
    test_u: Float[ArrayLike, "m L"],
    Ns: Sequence[int],
    *,
    D: int,
    epochs: int,
    lr: float,
    batch_size: int,
    seeds: Sequence[int],
    baseline_seeds: Mapping[int, int],
) -> dict[tuple[str, int], Fig4Row]:
    """Every ``(head, N)`` cell of one data set, ``N`` by ``N``: :func:`fig4_cell` with the run
    kept, ``baseline_seeds[N]`` seeding the Vandermonde baseline."""
    cells = {}
    for N in Ns:
        for head in HEADS:
            cells[head, N] = fig4_cell(
                train_u, test_u, N, head, D=D, epochs=epochs, lr=lr,
                batch_size=batch_size, seeds=seeds, baseline_seed=baseline_seeds[N],
                keep_run=True,
            )  # fmt: skip
    return cells


def falls_per_fourfold(error: Float[ArrayLike, " K"], Ns: Sequence[int], step: float) -> bool:
    """Whether every next (larger) ``N`` lowers ``error`` (one value per ``N`` of ``Ns``) by a
    factor ``>= step ** log_4(N_next / N)``: ``step`` per fourfold ``N`` (64, 256, 1024 need
    ``step`` at each move, a doubling its square root, a sixteenfold move ``step ** 2``)."""
    Ns = [positive_int("N", N) for N in Ns]
    if len(Ns) < 2 or Ns != sorted(set(Ns)):
        raise ValueError(f"need at least two increasing state sizes, got {Ns}")
    e = np.asarray(error, np.float64)
    if e.shape != (len(Ns),):
        raise ValueError(f"error must have one value per N ({len(Ns)}), got shape {e.shape}")
    step = positive_number("step", step)
    need = step ** (np.log(np.divide(Ns[1:], Ns[:-1])) / np.log(4.0))  # per move of N
    return bool(np.all(e[:-1] >= need * e[1:]))


def load_fig4_results(path: str | Path) -> dict[str, Any]:
    """Read ``results/orvieto_fig4_*.json`` (written by ``scripts/reconstruction_cpu_runs.py``):
    the format of :func:`lrnn_core.orvieto.ode_flows.load_paper_results` (the run's JSON
    ``provenance``: commit, command, machine, seeds, hyperparameters, ...; one :data:`Fig4Row` per
    cell in ``rows``), and every row names its ``data``, ``N``, ``head`` and both baselines.
    ValueError otherwise."""
    from lrnn_core.orvieto.ode_flows import load_paper_results

    data = load_paper_results(path)
    for i, row in enumerate(data["rows"]):
        need = {"data", "N", "head", "baselines", "train_mse", "test_mse"}
        if not need <= set(row):
            raise ValueError(f"{path}: row {i} lacks {sorted(need - set(row))}")
        if not {"ignores input", "linear"} <= set(row["baselines"]):
            raise ValueError(f"{path}: row {i} lacks a baseline")
    return data


def save_results(path: str | Path, provenance: Mapping[str, Any], rows: list[Fig4Row]) -> None:
    """Write ``{"provenance": ..., "rows": ...}`` to ``path`` (indented JSON)."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(json.dumps({"provenance": dict(provenance), "rows": rows}, indent=1))


def last_state_gap(lru: LRU, u: Float[ArrayLike, "batch L"]) -> float:
    """``max |x_L(product) - x_L(scan)| / max |x_L(scan)|`` over a batch: eq. (4) as one
    float32 product (:func:`~lrnn_core.orvieto.reconstruction.last_state`) against the
    recurrence ``x_k = Lambda x_{k-1} + gamma . b u_k`` run by
    :func:`~lrnn_core.core.scan.linear_scan` in float64."""
    u = _images("u", u)
    fast = np.asarray(last_state(lru, jnp.asarray(u, jnp.float32)))
    with jax.enable_x64(True):
        lam64 = jnp.asarray(lru.eigenvalues(), jnp.complex128)
        b64 = jnp.exp(jnp.asarray(lru.gamma_log[...], jnp.float64)) * (
            jnp.asarray(lru.B_re[:, 0], jnp.float64) + 1j * jnp.asarray(lru.B_im[:, 0], jnp.float64)
        )
        bu = jnp.asarray(u)[..., None] * b64  # (batch, L, N)
        scanned = np.asarray(linear_scan(lam64, bu))[:, -1]
    return float(np.abs(fast - scanned).max() / np.abs(scanned).max())


def vandermonde_examples(u: Float[ArrayLike, " L"], Ns: Sequence[int], *, seed: int,
                         r_min: float = 0.999, r_max: float = 1.0,
                         ) -> dict[int, Float[np.ndarray, " L"]]:  # fmt: skip
    """``{N: Re(V_L^+ x_L)}`` of one sequence (eq. 5 at ``k = L``), ``N`` eigenvalues drawn from
    ``T[r_min, r_max]`` with ``jax.random.key(seed + N)``."""
    u = np.asarray(u, np.float64)
    return {
        N: reconstruct_from_last_state(
            np.asarray(ring_init(jax.random.key(seed + N), N, r_min, r_max)), u
        )
        for N in Ns
    }


def fixed_lru_linear_mse(lru: LRU, u: Float[ArrayLike, "n L"]) -> float:
    """Training MSE of the least-squares affine decoder ``Omega [Re x_L; Im x_L] + c`` of a fixed
    (untrained) LRU, ``x_L`` by :func:`~lrnn_core.orvieto.reconstruction.last_state` (eq. 4)."""
    u = _images("u", u)
    x = np.asarray(last_state(lru, jnp.asarray(u, jnp.float32)), np.complex128)
    features = np.c_[x.real, x.imag, np.ones(len(u))]
    coef, *_ = np.linalg.lstsq(features, u, rcond=None)
    return float(np.mean((features @ coef - u) ** 2))


def pca_projection_mse(u: Float[ArrayLike, "n L"], rank: int) -> float:
    """MSE of the projection of the centred sequences onto their top ``rank`` principal
    components (SVD): the error :func:`pca_bound` predicts for ``rank = 2N``."""
    u = _images("u", u)
    rank = positive_int("rank", rank)
    centred = u - u.mean(axis=0)
    _, _, Vt = np.linalg.svd(centred, full_matrices=False)
    top = Vt[:rank]
    return float(np.mean((centred @ top.T @ top - centred) ** 2))


#: the stored runs seed the Vandermonde baseline of state size ``N`` with ``BASELINE_SEED + N``
BASELINE_SEED = 1000
#: how the stored runs draw the PathFinder substitute (their provenance's ``"pathfinder"``)
PATHFINDER_DRAW = "lrnn_core.data.pathfinder.pathfinder_images defaults, seed 0"


def stored_run_data(hyper: Mapping[str, Any], name: str) -> tuple[np.ndarray, np.ndarray]:
    """The training and held-out images of data set ``name`` as
    ``scripts/reconstruction_cpu_runs.py`` drew them, from a stored run's ``hyperparameters``:
    MNIST's first ``n_train`` training and first ``n_test`` test images; for the PathFinder
    substitute (``hyper["pathfinder"]`` must be :data:`PATHFINDER_DRAW`) the first ``pf_train``
    of ``pathfinder_images(pf_train + n_test, seed=0)`` for training, the next ``n_test``."""
    name = check_choice("name", name, ("MNIST", "PathFinder substitute"))
    m = positive_int("n_test", hyper["n_test"])
    if name == "MNIST":
        n = positive_int("n_train", hyper["n_train"])
        return mnist_sequences("train", n)[0], mnist_sequences("test", m)[0]
    if hyper.get("pathfinder") != PATHFINDER_DRAW:
        raise ValueError("the run's PathFinder draw is not PATHFINDER_DRAW: " + repr(hyper))
    k = positive_int("pf_train", hyper["pf_train"])
    images, _, _ = pathfinder_images(k + m, seed=0)
    return images[:k], images[k:]


def recompute_baselines(
    rows: Iterable[Fig4Row],
    data: Mapping[str, tuple[ArrayLike, ArrayLike]],
    Ns: Iterable[int] | None = None,
    *,
    seed: int = BASELINE_SEED,
) -> dict[tuple[str, str, int], dict[str, tuple[float, float]]]:
    """Both stored baselines of every row whose data set is in ``data`` (``{name: (train_u,
    test_u)}``) and whose ``N`` is in ``Ns`` (default all), beside their recomputation on
    ``data``: ``{(data, head, N): {baseline: (stored, recomputed)}}``, ``"ignores input"`` by
    :func:`mean_image_mse`, ``"linear"`` by :func:`vandermonde_baseline` seeded ``seed + N``."""
    keep = None if Ns is None else {positive_int("N", N) for N in Ns}
    done: dict[tuple[str, int], dict[str, float]] = {}
    out = {}
    for r in rows:
        name, N = r["data"], r["N"]
        if name not in data or (keep is not None and N not in keep):
            continue
        if (name, N) not in done:
            train_u, test_u = data[name]
            done[name, N] = {
                "ignores input": mean_image_mse(train_u, test_u),
                "linear": vandermonde_baseline(test_u, N, seed=seed + N),
            }
        out[name, r["head"], N] = {k: (float(r["baselines"][k]), v)
                                   for k, v in done[name, N].items()}  # fmt: skip
    return out


def results_file(name: str, start: str | Path | None = None) -> Path:
    """``results/<name>`` of the repository that holds ``start`` (default: the working
    directory): the first of ``start`` and its parents with a ``pyproject.toml``."""
    here = Path.cwd() if start is None else Path(start).resolve()
    root = next((p for p in (here, *here.parents) if (p / "pyproject.toml").exists()), None)
    if root is None:
        raise FileNotFoundError(f"no pyproject.toml in {here} or its parents")
    return root / "results" / name


#: stored (or live) cells by ``(data, head, N)``
Cells = Mapping[tuple[str, str, int], Fig4Row]


def index_rows(rows: Iterable[Fig4Row]) -> dict[tuple[str, str, int], Fig4Row]:
    """A results file's rows by cell: ``{(data, head, N): row}``."""
    return {(r["data"], r["head"], r["N"]): r for r in rows}


def complete_sizes(stored: Cells, data_sets: Iterable[str]) -> dict[str, list[int]]:
    """Per data set, the sorted state sizes ``N`` stored with both decoders (a cut run may lack
    some)."""
    full = {(d, N) for (d, _, N) in stored if all((d, h, N) in stored for h in HEADS)}
    return {d: sorted(N for dd, N in full if dd == d) for d in data_sets}


def live_stored_ratios(
    stored: Cells, live: Mapping[str, Mapping[tuple[str, int], Fig4Row]]
) -> dict[tuple[str, str, int], float]:
    """At every cell both runs share, ``median(live train MSE) / median(stored train MSE)``."""
    return {
        (name, head, N): float(
            np.median(live[name][head, N]["train_mse"]) / np.median(r["train_mse"])
        )
        for (name, head, N), r in stored.items()
        if (head, N) in live[name]
    }


def per_data_set(
    cells: Cells,
    sizes: Mapping[str, Sequence[int]],
    rule: Callable[[dict, list[int]], Any],
    error: Callable[[Fig4Row], float] = lambda r: r["median"],
) -> dict[str, Any]:
    """Per data set ``name`` of ``sizes`` (its ``N``s): ``rule(err, Ns)`` with
    ``err[(head, N)] = error(cells[name, head, N])`` for both decoders at every ``N`` (default:
    the median held-out MSE)."""
    return {name: rule({(h, N): error(cells[name, h, N]) for h in HEADS for N in Ns}, Ns)
            for name, Ns in sizes.items()}  # fmt: skip


def shuffled_error(row: Fig4Row) -> float:
    """The median over seeds of a live cell's ``shuffled_mse`` (its ``run`` kept): the trained
    decoders scored against the wrong held-out targets (:func:`shuffled_targets`)."""
    if "run" not in row:
        raise ValueError("shuffled_error needs a live cell with its run kept (keep_run=True)")
    return float(np.median(row["run"].shuffled_mse))


def cell_baselines(cells: Cells, name: str, head: str, N: int) -> dict[str, float]:
    """The cell's baselines; the MLP's include the trained linear decoder at the same ``N``
    (its median held-out MSE, ``"linear decoder, trained"``)."""
    b = dict(cells[name, head, N]["baselines"])
    if head == "MLP":
        b["linear decoder, trained"] = cells[name, "linear", N]["median"]
    return b


def eigenvalue_moves(
    lam_init: Complex[ArrayLike, "*shape"], lam: Complex[ArrayLike, "*shape"]
) -> dict[str, float]:
    """How training moved the eigenvalues: ``mod_before``, ``mod_after`` (mean ``|lambda|``),
    ``median_step`` (median ``|lambda - lambda_0|``), ``outward`` (share with
    ``|lambda| > |lambda_0|``) and ``phase`` (median ``|arg(lambda / lambda_0)|``)."""
    lam0, lam1 = np.ravel(lam_init), np.ravel(lam)
    if lam0.shape != lam1.shape:
        raise ValueError(f"shapes differ: {lam0.shape} and {lam1.shape}")
    return {
        "mod_before": float(np.abs(lam0).mean()),
        "mod_after": float(np.abs(lam1).mean()),
        "median_step": float(np.median(np.abs(lam1 - lam0))),
        "outward": float(np.mean(np.abs(lam1) > np.abs(lam0))),
        "phase": float(np.median(np.abs(np.angle(lam1 / lam0)))),
    }
