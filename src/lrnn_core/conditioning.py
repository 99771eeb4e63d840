"""Conditioning of the Vandermonde map and reconstruction of many inputs from the last state.

Orvieto et al. (ICML 2024), §4.1 and App. E.1: with ``B = (1, ..., 1)^T`` the last state is
``x_L = V_L u_{1:L}`` (eq. 4) and the input is read back as ``u_{1:L} = Re(V_L^+ x_L)`` (eq. 5). How well
that works is governed by the singular values of ``V_L``: ``||V_L^+||`` (Fig. 2) and
``cond(V_L^H V_L)`` (Fig. 7b).

Everything here is NumPy float64 / complex128, whatever JAX's default dtype is (importing this module
changes no JAX setting): in float32 a condition number above ``~1e7`` already destroys every digit.

Why ``cond(V^H V)`` is computed from the singular values of ``V``: ``cond(V^H V) = cond(V)^2`` exactly,
and an SVD of ``V`` resolves singular values down to ``~eps * sigma_max`` (backward-stable SVD), so
``cond(V)`` is reliable up to ``~1/eps ~ 4.5e15`` and its square up to ``~1e31``. Forming the Gram
first rounds each of its entries with an error ``~eps * sigma_max^2``, which wipes out every eigenvalue
below that level; ``np.linalg.cond`` of the formed Gram then returns rounding noise: for random
Vandermonde matrices it saturates between ``1/eps ~ 1e16`` and ``~1e22`` however ill-conditioned ``V``
really is (and on graded matrices it can be off by orders of magnitude either way).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from lrnn_core.eigenvalues import ring_init
from lrnn_core.vandermonde import vandermonde64

from lrnn_core.validate import eigenvalue_vector, positive_int

__all__ = [
    "EPS",
    "ErrorGrid",
    "Norms",
    "aliased_average",
    "error_by_timestamp",
    "error_grid",
    "formed_gram_condition",
    "gram_condition",
    "norms_from_singular_values",
    "pseudo_inverse",
    "reconstruct_many",
    "ring_eigenvalues",
    "vandermonde_norms",
]

#: Machine epsilon of float64.
EPS = float(np.finfo(np.float64).eps)




def _inputs(inputs: Any) -> np.ndarray:
    inputs = np.asarray(inputs)
    if inputs.ndim != 2 or inputs.shape[0] == 0 or inputs.shape[1] == 0:
        raise ValueError(f"inputs must have shape (batch, L) with batch, L >= 1, got {inputs.shape}")
    if np.iscomplexobj(inputs) or not np.issubdtype(inputs.dtype, np.number):
        raise TypeError(f"inputs must be real, got dtype {inputs.dtype}")
    if not np.all(np.isfinite(inputs)):
        raise ValueError("inputs contains non-finite values (NaN or inf)")
    return inputs.astype(np.float64)


def _rcond(rcond: float | None, shape: tuple[int, int]) -> float:
    if rcond is None:
        return EPS * max(shape)  # as vandermonde.reconstruct and numpy.linalg.lstsq
    if not 0.0 <= rcond < 1.0:
        raise ValueError(f"rcond must be in [0, 1), got {rcond}")
    return float(rcond)


def ring_eigenvalues(seed: int, n: int, r_min: float, r_max: float = 1.0) -> np.ndarray:
    """``n`` eigenvalues i.i.d. uniform in area on the ring ``T[r_min, r_max]`` (§4.1), complex128.

    Drawn by :func:`lrnn_core.eigenvalues.ring_init` with ``jax.random.key(seed)`` in float64. The same
    seed couples the draws for different ``r_min`` (same uniforms, same phases), which makes
    comparisons across ``r_min`` less noisy.
    """
    with jax.enable_x64(True):
        lam = ring_init(jax.random.key(seed), n, r_min, r_max, dtype=jnp.float64)
        return np.asarray(lam, dtype=np.complex128)



@dataclass(frozen=True)
class Norms:
    """Norms of ``V`` and of its pseudo-inverse ``V^+`` (Orvieto et al., Fig. 2)."""

    frobenius: float
    spectral: float
    pinv_frobenius: float
    pinv_spectral: float


def norms_from_singular_values(s: Any) -> Norms:
    """``||V||_F = sqrt(sum s^2)``, ``||V||_2 = max s``, ``||V^+||_F = sqrt(sum s^-2)``, ``||V^+||_2 = 1/min s``.

    ``s`` are the ``min(N, L)`` singular values of ``V``, all taken as non-zero (no truncation), so
    ``||V^+||`` is the norm of the exact pseudo-inverse of the float64 matrix; beyond ``~1/(eps s_max)``
    it only says "at least that large".
    """
    s = np.asarray(s, dtype=np.float64)
    if s.ndim != 1 or s.size == 0 or np.any(s < 0) or not np.all(np.isfinite(s)):
        raise ValueError("s must be a non-empty 1-D array of finite, non-negative singular values")
    with np.errstate(divide="ignore"):
        inv = 1.0 / s
    return Norms(
        frobenius=float(np.sqrt(np.sum(s**2))),
        spectral=float(np.max(s)),
        pinv_frobenius=float(np.sqrt(np.sum(inv**2))),
        pinv_spectral=float(np.max(inv)),
    )


def vandermonde_norms(lam: Any, L: int) -> Norms:
    """Frobenius and spectral norms of ``V_L`` and ``V_L^+`` from one float64 SVD (Fig. 2)."""
    return norms_from_singular_values(np.linalg.svd(vandermonde64(lam, L), compute_uv=False))


def gram_condition(lam: Any, L: int, *, on_range: bool = False) -> float:
    """``cond(V_L^H V_L) = (sigma_max / sigma_min)^2`` from the singular values of ``V_L`` (Fig. 7b).

    For ``N >= L`` this is the condition number of the ``L x L`` Gram. For ``N < L`` that Gram has rank
    ``N`` and its condition number is ``inf``; with ``on_range=True`` the ratio runs over the ``N``
    non-zero singular values instead, i.e. ``cond(V V^H)``, the conditioning of the map on the ``N``
    directions it keeps. Reliable while ``cond(V_L) <~ 1/eps`` (values up to ``~1e31``); see the module
    docstring.
    """
    V = vandermonde64(lam, L)
    if V.shape[0] < V.shape[1] and not on_range:
        return float("inf")
    s = np.linalg.svd(V, compute_uv=False)
    return float((s[0] / s[-1]) ** 2) if s[-1] > 0 else float("inf")


def formed_gram_condition(lam: Any, L: int) -> float:
    """``np.linalg.cond(V^H V)`` with the ``L x L`` Gram formed in float64: the naive computation.

    Kept to show its saturation between ``1e16`` and ``~1e22`` (module docstring), also for ``N < L`` where
    the exact value is ``inf``.
    """
    V = vandermonde64(lam, L)
    return float(np.linalg.cond(V.conj().T @ V))


def pseudo_inverse(V: Any, *, rcond: float | None = None) -> np.ndarray:
    """``V^+`` (shape ``(L, N)``) by one SVD; singular values ``<= rcond * sigma_max`` count as zero.

    Default ``rcond = eps * max(N, L)``, as :func:`lrnn_core.vandermonde.reconstruct`.
    """
    V = np.asarray(V)
    if V.ndim != 2:
        raise ValueError(f"V must be a matrix, got shape {V.shape}")
    if not np.all(np.isfinite(V)):
        raise ValueError("V contains non-finite values (NaN or inf)")
    rcond = _rcond(rcond, V.shape)
    U, s, Vh = np.linalg.svd(V.astype(np.complex128), full_matrices=False)
    keep = s > rcond * s[0]
    return (Vh[keep].conj().T / s[keep]) @ U[:, keep].conj().T


def reconstruct_many(lam: Any, inputs: Any, *, rcond: float | None = None) -> np.ndarray:
    """Encode every row of ``inputs`` into ``x_L = V_L u`` (eq. 4) and decode ``Re(V_L^+ x_L)`` (eq. 5).

    ``inputs``: real, shape ``(batch, L)``; returns the reconstructions, same shape. One SVD of ``V_L``
    serves the whole batch (two matrix products). ``x_L`` is computed as ``V_L u`` in complex128, which
    is the recurrence ``x_k = lam x_{k-1} + u_k`` unrolled (eq. 3).
    """
    inputs = _inputs(inputs)
    V = vandermonde64(lam, inputs.shape[1])
    states = V @ inputs.T  # (N, batch): the last states x_L
    return (pseudo_inverse(V, rcond=rcond) @ states).real.T


def error_by_timestamp(reconstructed: Any, inputs: Any) -> tuple[np.ndarray, np.ndarray]:
    """Mean absolute and mean squared error at each timestamp ``k`` (averaged over the batch), shape ``(L,)``."""
    inputs = _inputs(inputs)
    reconstructed = _inputs(reconstructed)
    if reconstructed.shape != inputs.shape:
        raise ValueError(f"reconstructed has shape {reconstructed.shape}, inputs {inputs.shape}")
    diff = reconstructed - inputs
    return np.mean(np.abs(diff), axis=0), np.mean(diff**2, axis=0)


@dataclass(frozen=True)
class ErrorGrid:
    """Reconstruction errors of :func:`error_grid`, indexed ``[N, r_min, seed, k]``.

    ``abs_by_k`` / ``sq_by_k``: mean absolute / squared error over the images at timestamp ``k``;
    ``examples``: reconstructions of the first ``n_examples`` images for the first seed,
    ``[N, r_min, image, k]``.
    """

    Ns: tuple[int, ...]
    r_mins: tuple[float, ...]
    seeds: tuple[int, ...]
    abs_by_k: np.ndarray
    sq_by_k: np.ndarray
    examples: np.ndarray

    @property
    def mse(self) -> np.ndarray:
        """Per-pixel MSE averaged over seeds, ``[N, r_min]``."""
        return self.sq_by_k.mean(axis=(2, 3))


def error_grid(
    inputs: Any,
    Ns: tuple[int, ...],
    r_mins: tuple[float, ...],
    seeds: tuple[int, ...],
    *,
    r_max: float = 1.0,
    n_examples: int = 0,
) -> ErrorGrid:
    """Vandermonde-inverse reconstruction errors over a grid of ``N`` x ``r_min`` x eigenvalue draws.

    Orvieto et al., App. E.1, Fig. 7: eigenvalues ``~ T[r_min, r_max]`` drawn by
    :func:`ring_eigenvalues` with each seed, every row of ``inputs`` reconstructed by
    :func:`reconstruct_many`.
    """
    inputs = _inputs(inputs)
    if not Ns or not r_mins or not seeds:
        raise ValueError("Ns, r_mins and seeds must each hold at least one value")
    if not 0 <= n_examples <= inputs.shape[0]:
        raise ValueError(f"n_examples must be in 0..{inputs.shape[0]}, got {n_examples}")
    shape = (len(Ns), len(r_mins), len(seeds), inputs.shape[1])
    abs_by_k, sq_by_k = np.empty(shape), np.empty(shape)
    examples = np.empty((len(Ns), len(r_mins), n_examples, inputs.shape[1]))
    for a, N in enumerate(Ns):
        for b, r_min in enumerate(r_mins):
            for c, seed in enumerate(seeds):
                recon = reconstruct_many(ring_eigenvalues(seed, N, r_min, r_max), inputs)
                abs_by_k[a, b, c], sq_by_k[a, b, c] = error_by_timestamp(recon, inputs)
                if c == 0:
                    examples[a, b] = recon[:n_examples]
    return ErrorGrid(tuple(Ns), tuple(r_mins), tuple(seeds), abs_by_k, sq_by_k, examples)


def aliased_average(inputs: Any, N: int) -> np.ndarray:
    """Closed-form ``Re(V_L^+ V_L u)`` for the ``N``-th roots of unity with ``N < L`` (Fig. 8).

    ``lam^p`` depends only on ``p mod N``, so the columns of ``V_L`` with powers ``p = L-1-j`` in the same
    class mod ``N`` are equal: ``x_L`` only sees the sum of each class, and the minimum-norm solution
    gives every token of a class that class's average.
    """
    inputs = _inputs(inputs)
    N = positive_int("N", N)
    L = inputs.shape[1]
    classes = (L - 1 - np.arange(L)) % N
    membership = np.eye(N)[classes]  # (L, N): token j belongs to class classes[j]
    class_means = (inputs @ membership) / np.maximum(membership.sum(axis=0), 1.0)
    return class_means[:, classes]
