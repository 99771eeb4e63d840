"""Learned reconstruction of an input sequence from the last LRU state (Orvieto et al., ICML 2024,
§4.2, Fig. 4).

A trained LRU (``nu_log``, ``theta_log``, ``gamma_log`` and ``B`` all trained; ring initialisation
``r_min = 0.9``, ``r_max = 0.999``) reads a scalar sequence ``u_1, ..., u_L`` (a flattened image);
a decoder, linear (``Omega``) or a one-hidden-layer MLP, maps ``[Re x_L, Im x_L]`` to the whole
input, and the loss is the pixel-wise squared error.

With one input channel the last state is one matrix product (eq. 4 with the LRU's normalised
input weights ``gamma * B``): ``x_L = V_L (gamma . B u) = (gamma . b) . (V_L u)``, ``b = B[:, 0]``
(:func:`last_state`). It equals the last state of the scan exactly in exact arithmetic and is
differentiable in ``Lambda``; on a CPU it is much faster than a scan over ``L`` steps.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import jax
import jax.numpy as jnp
import numpy as np
from flax import nnx
from jaxtyping import Array, ArrayLike, Complex, Float

from lrnn_core.core.lru import LRU, MLPHead
from lrnn_core.core.train import lru_optimizer, train
from lrnn_core.core.validate import (
    as_inexact,
    check_finite,
    check_shape,
    positive_int,
    seed_list,
)
from lrnn_core.orvieto.memorisation import reconstruct_from_last_state

__all__ = [
    "Reconstructor",
    "ReconstructionRun",
    "last_state",
    "pixel_mse",
    "train_reconstruction",
    "vandermonde_mse",
]


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

    def __init__(
        self,
        N: int,
        length: int,
        *,
        D: Sequence[int] = (),
        r_min: float = 0.9,
        r_max: float = 0.999,
        rngs: nnx.Rngs,
    ):
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
    ``examples`` ``(seeds, k, L)``: reconstructions of the first ``k`` held-out sequences.
    """

    N: int
    D: tuple[int, ...]
    train_mse: np.ndarray
    test_mse: np.ndarray
    curve: np.ndarray
    lam_init: np.ndarray
    lam: np.ndarray
    examples: np.ndarray


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

    result = train(
        make,
        pixel_mse,
        batch,
        steps=steps,
        seed=list(seeds),
        optimizer=lru_optimizer(steps, lr=lr),
        progress=progress,
    )
    train_mse, test_mse, lam_init, lam, examples = [], [], [], [], []
    for i, s in enumerate(seeds):
        model = result.model(i)
        init = make(nnx.Rngs(jax.random.split(jax.random.key(s))[0]))  # as train() draws it
        train_mse.append(float(_batched_mse(model, train_u)))
        test_mse.append(float(_batched_mse(model, test_u)))
        lam_init.append(np.asarray(init.lru.eigenvalues()))
        lam.append(np.asarray(model.lru.eigenvalues()))
        examples.append(np.asarray(model(test_u[:n_examples])))
    return ReconstructionRun(
        N=N,
        D=D,
        train_mse=np.array(train_mse),
        test_mse=np.array(test_mse),
        curve=np.asarray(result.losses),
        lam_init=np.stack(lam_init),
        lam=np.stack(lam),
        examples=np.stack(examples),
    )


def _batched_mse(model: Reconstructor, u: Array, chunk: int = 1024) -> Array:
    """:func:`pixel_mse` over all of ``u``, ``chunk`` sequences at a time (bounded memory)."""
    total = sum(
        jnp.sum((model(u[i : i + chunk]) - u[i : i + chunk]) ** 2) for i in range(0, len(u), chunk)
    )
    return total / u.size


def vandermonde_mse(
    lam: Complex[ArrayLike, " N"], u: Float[ArrayLike, "batch L"]
) -> Float[np.ndarray, " batch"]:
    """Pixel-wise MSE of the *untrained* linear decoder ``Re(V_L^+ x_L)`` (eq. 5 at ``k = L``,
    :func:`lrnn_core.orvieto.memorisation.reconstruct_from_last_state`), per sequence."""
    u = np.asarray(u, np.float64)
    return np.mean((reconstruct_from_last_state(lam, u) - u) ** 2, axis=-1)
