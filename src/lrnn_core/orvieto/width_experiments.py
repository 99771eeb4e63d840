"""The width illustration of Thm. 1 / Prop. 2 / Thm. 4 of Orvieto et al. (ICML 2024): its sizes
per scale, the run over the lags ``j`` (the token ``u_{L-j}`` read from ``x_L`` by
``omega_j``, ``||omega_j|| = rho^-j / sqrt(N)``), and the check that the empirical ``D(eps)``
grows along the lags. The tasks and the MLP training are :mod:`lrnn_core.orvieto.width`'s."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np

from lrnn_core.orvieto.width import scaled_roots_of_unity, width_errors, width_task

__all__ = ["WIDTH_BOOK", "WIDTH_CI", "WidthRun", "WidthSizes", "run_widths", "widens"]


class WidthSizes(NamedTuple):
    """``N`` states (= sequence length ``L``), eigenvalue modulus ``radius`` (``rho``), the lags
    ``j``, the MLP widths ``Ds``, MLP seeds per (lag, width), train/test sequences, full-batch Adam
    steps and rate, ``frequency`` (``a`` in ``sin(a u)``) and the relative test MSE ``eps`` that
    defines ``D(eps)``."""

    N: int
    radius: float
    lags: tuple[int, ...]
    Ds: tuple[int, ...]
    n_seeds: int
    n_train: int
    n_test: int
    steps: int
    lr: float
    frequency: float
    eps: float


#: ``ci`` scale: three widths, two seeds.
WIDTH_CI = WidthSizes(
    N=8, radius=0.7, lags=(0, 3, 6), Ds=(2, 8, 32), n_seeds=2, n_train=2048, n_test=2048,
    steps=1000, lr=1e-2, frequency=3.0, eps=5e-3,
)  # fmt: skip
#: ``book`` scale (also ``paper``: the paper has no experiment for these bounds).
WIDTH_BOOK = WidthSizes(
    N=8, radius=0.7, lags=(0, 3, 6), Ds=(2, 4, 8, 16, 32, 64), n_seeds=3, n_train=4096,
    n_test=4096, steps=2000, lr=1e-2, frequency=3.0, eps=5e-3,
)  # fmt: skip


class WidthRun(NamedTuple):
    """Per lag ``j``: ``omega_norm`` ``||omega_j||``; ``token_err`` the largest
    ``|omega_j . x_L - u_{L-j}|`` on the training set; ``errors`` the relative test MSE per width
    ``D`` of ``Ds`` (best of seeds)."""

    omega_norm: dict[int, float]
    token_err: dict[int, float]
    errors: dict[int, np.ndarray]


def run_widths(sizes: WidthSizes, seed: Callable[[int], int]) -> WidthRun:
    """Lag ``lags[i]``: training set of seed ``seed(40 + i)``, test set ``seed(50 + i)``, MLP seeds
    ``seed(60 + 10 i + k)``, ``k < n_seeds`` (each lag on its own data and seeds)."""
    lam = scaled_roots_of_unity(sizes.N, sizes.radius)
    omega_norm, token_err, errors = {}, {}, {}
    for i, j in enumerate(sizes.lags):
        kw = dict(frequency=sizes.frequency)
        train = width_task(lam, sizes.N, j, sizes.n_train, **kw, seed=seed(40 + i))
        test = width_task(lam, sizes.N, j, sizes.n_test, **kw, seed=seed(50 + i))
        recovered = train.states @ train.omega
        token_err[j] = np.abs(recovered - train.tokens[:, sizes.N - 1 - j]).max()
        omega_norm[j] = np.linalg.norm(train.omega)
        mlp_seeds = [seed(60 + 10 * i + k) for k in range(sizes.n_seeds)]
        errors[j] = width_errors(
            train, test, list(sizes.Ds), mlp_seeds, steps=sizes.steps, lr=sizes.lr
        ).min(axis=1)
    return WidthRun(omega_norm, token_err, errors)


def widens(d: Sequence[float]) -> bool:
    """``D(eps)`` non-decreasing along the list, and larger at its end than at its start."""
    return all(a <= b for a, b in zip(d[:-1], d[1:], strict=True)) and d[-1] > d[0]
