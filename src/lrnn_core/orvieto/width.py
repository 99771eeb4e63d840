"""How wide must the MLP readout be? An illustration of Thm. 1 / Prop. 2 / Thm. 4 of Orvieto et
al. (ICML 2024), which bound the width by Barron's theorem: ``D >= 2 r^2 C_f^2 eps^-2`` and, per
time stamp, ``D >= 4 r^2 C_Tk^2 ||Omega_k||^2 S^3 eps^-2``.

The paper has no experiment. The book's illustration: the state ``x_L = V_L u`` (eq. 3) of a
recurrence with ``lam = radius * (N-th roots of unity)``, ``N = L``, ``B = 1``, and the target
``y = sin(frequency * u_{L-lag})`` of a token ``lag`` steps back. The MLP must compute
``sin(frequency * omega . x_L)`` with ``omega`` the row of ``Omega_L = V_L^+`` (eq. 5) that returns
``u_{L-lag}``; here ``V_L = F diag(radius^m)`` with ``F^H F = N I``, so ``||omega|| =
radius^-lag / sqrt(N)`` and Barron's constant of the target, ``frequency * ||omega||``, grows
with the lag. :func:`run_widths` runs the illustration over the lags at the sizes of a scale
(:data:`WIDTH_CI`, :data:`WIDTH_BOOK`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import jax
import numpy as np
import optax
from jaxtyping import Complex, Float, Num

from lrnn_core.core.eigenvalues import roots_of_unity
from lrnn_core.core.lru import MLPHead
from lrnn_core.core.train import mse_loss, train
from lrnn_core.core.validate import nonnegative_int, positive_int, real_number, seed_list
from lrnn_core.orvieto.memorisation import PrefixInverse, rnn_states


class WidthTask(NamedTuple):
    """``states``: final states ``x_L`` ``(n, N)``; ``tokens``: the inputs ``u`` ``(n, L)``;
    ``targets``: ``sin(frequency * u_{L-lag})`` ``(n, 1)``; ``omega``: the row of ``V_L^+``."""

    states: Complex[np.ndarray, "n N"]
    tokens: Float[np.ndarray, "n L"]
    targets: Float[np.ndarray, "n 1"]
    omega: Complex[np.ndarray, " N"]


def scaled_roots_of_unity(N: int, radius: float) -> Complex[np.ndarray, " N"]:
    """``radius * exp(2 pi i m / N)``, ``m = 0..N-1`` (complex128): ``V_N`` is ``F diag(radius^m)``
    with ``F`` the (unnormalised) DFT matrix."""
    radius = real_number("radius", radius)
    if not 0 < radius <= 1:
        raise ValueError(f"radius must be in (0, 1], got {radius}")
    with jax.enable_x64(True):
        return radius * np.asarray(roots_of_unity(positive_int("N", N), dtype=np.complex128))


def readout_row(lam: Num[np.ndarray, " N"], L: int, lag: int) -> Complex[np.ndarray, " N"]:
    """The row ``omega`` of ``Omega_L = V_L^+`` (eq. 5 of Orvieto et al.) with
    ``omega . x_L = u_{L-lag}``, from :class:`PrefixInverse` applied to the unit vectors."""
    inverse = PrefixInverse(lam, L)
    lag = nonnegative_int("lag", lag)
    if lag >= inverse.L:
        raise ValueError(f"lag must be < L = {inverse.L}, got {lag}")
    eye = np.eye(inverse.lam.size, dtype=np.complex128)
    return np.array([inverse.apply(inverse.L, e)[inverse.L - 1 - lag] for e in eye])


def width_task(
    lam: Num[np.ndarray, " N"], L: int, lag: int, n: int, *, frequency: float, seed: int
) -> WidthTask:
    """``n`` i.i.d. sequences ``u ~ U(-1, 1)^L``, their final states ``x_L`` (eq. 3, ``B = 1``,
    float64) and the targets ``sin(frequency * u_{L-lag})``."""
    frequency = real_number("frequency", frequency)
    omega = readout_row(lam, L, lag)
    u = np.random.default_rng(seed_list("seed", seed)[0]).uniform(-1, 1, (positive_int("n", n), L))
    with jax.enable_x64(True):
        B = np.ones((omega.size, 1), np.complex128)
        states = np.asarray(rnn_states(np.asarray(lam, np.complex128), B, u[..., None])[:, -1])
    targets = np.sin(frequency * u[:, L - 1 - lag])[:, None]
    return WidthTask(states, u, targets, omega)


def width_errors(
    train_task: WidthTask,
    test_task: WidthTask,
    Ds: list[int],
    seeds: list[int],
    *,
    steps: int,
    lr: float,
) -> Float[np.ndarray, "Ds seeds"]:
    """Relative test MSE ``mean((g(x) - y)^2) / var(y)`` of one-hidden-layer ReLU MLPs
    (:class:`MLPHead`, width ``D``) trained full-batch with Adam (:func:`train`) for every width
    ``D`` in ``Ds`` and seed."""
    x = np.asarray(train_task.states, np.complex64)
    y = np.asarray(train_task.targets, np.float32)
    x_test = np.asarray(test_task.states, np.complex64)
    y_test = np.asarray(test_task.targets)
    N = x.shape[1]
    out = np.empty((len(Ds), len(seeds)))
    for i, D in enumerate(Ds):
        D = positive_int("D", D)
        result = train(
            lambda rngs, D=D: MLPHead(N, 1, D=(D,), rngs=rngs),
            mse_loss,
            (x, y),
            steps=steps,
            seed=seeds,
            optimizer=optax.adam(real_number("lr", lr)),
            progress=False,
        )
        for j in range(len(seeds)):
            pred = np.asarray(result.model(j)(x_test))
            out[i, j] = np.mean((pred - y_test) ** 2) / np.var(y_test)
    return out


def smallest_width(Ds: list[int], errors: Float[np.ndarray, " Ds"], eps: float) -> float:
    """The smallest width in ``Ds`` whose error is ``<= eps`` (``inf`` if none): the empirical
    ``D(eps)``."""
    eps = real_number("eps", eps)
    errors = np.asarray(errors, float)
    if errors.shape != (len(Ds),):
        raise ValueError(f"errors must have shape ({len(Ds)},), got {errors.shape}")
    reached = [D for D, e in zip(Ds, errors, strict=True) if e <= eps]
    return float(min(reached)) if reached else float("inf")


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


def prop2_width(sizes: WidthSizes, omega_norm: float) -> float:
    """The width that Prop. 2 of Orvieto et al. says suffices for ``D(eps)`` here:
    ``4 r^2 C_T^2 ||Omega||^2 S^3 / eps_sup^2`` with ``S = 1`` output, ``C_T = frequency`` (the
    Barron constant of ``sin(frequency u)``), ``||Omega|| = omega_norm``, ``r = N`` (``||x_L|| <=
    ||V_L||_2 ||u||_2 <= sqrt(N) sqrt(L)`` for ``u`` in ``[-1, 1]^L``, ``L = N``) and the sup error
    ``eps_sup^2 = eps * Var(y)`` that guarantees a relative MSE ``eps``, ``Var(sin(a u)) = 1/2 -
    sin(2a) / (4a)`` for ``u ~ U(-1, 1)``."""
    a = real_number("frequency", sizes.frequency)
    var = 0.5 - np.sin(2 * a) / (4 * a)
    r = positive_int("N", sizes.N)
    return float(4 * r**2 * a**2 * real_number("omega_norm", omega_norm) ** 2 / (sizes.eps * var))


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
