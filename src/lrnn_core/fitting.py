"""Fitting continuous-time RNNs to targets (Wang, Li & Li 2024, App. D).

* Linear RNNs are fitted to a linear functional ``H_t(x) = int_0^t rho(t-s) x(s) ds`` by least
  squares, without gradient descent (App. D). A linear RNN ``dh/dt = diag(lam) h + u x``, ``y = c^T h``
  has the kernel ``rho_hat(t) = sum_i c_i u_i exp(lam_i t)``. We fix the decay rates on a grid and
  solve for the coefficients ``c_i`` (with ``u_i = 1``) by linear least squares on samples of the
  kernel. The default grid ``lam_i = -rate * i`` (i = 1..m) makes this the paper's "polynomial
  approximation of a function over an interval after eigen-decomposition": with ``z = exp(-rate t)``
  the kernel is the polynomial ``sum_i c_i z^i`` on the interval ``[exp(-rate T), 1]``.
* Nonlinear RNNs are trained with Adam (learning rate 0.005), MSE loss and batch size 128 (App. D),
  several runs at once: :func:`train_ctrnn` ``vmap``-s one training over a leading "run" axis of the
  parameters (seeds, or targets of the same shape) and shows a tqdm bar over epochs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import optax
from tqdm.auto import tqdm

from lrnn_core.ctrnn import CTRNN, ctrnn_outputs, raw_from_weight, recurrent_weight
from lrnn_core.validate import as_inexact, check_finite

__all__ = [
    "CTRNNTraining",
    "epochs_to_threshold",
    "fit_linear_rnn",
    "kernel_loss",
    "linear_rnn_kernel",
    "train_ctrnn",
    "uniform_rates",
]


def uniform_rates(m: int, rate: float = 0.1) -> np.ndarray:
    """The decay rates ``rate * (1, 2, ..., m)``: polynomials of degree m in ``z = exp(-rate t)``."""
    if isinstance(m, bool) or not isinstance(m, (int, np.integer)) or m < 1:
        raise ValueError(f"m must be a positive int, got {m!r}")
    if not rate > 0:
        raise ValueError(f"rate must be positive, got {rate!r}")
    return rate * np.arange(1, m + 1, dtype=np.float64)


def fit_linear_rnn(
    rho: Any,
    t: Any,
    m: int | None = None,
    *,
    rates: Any = None,
    rate: float = 0.1,
    parameterisation: str = "direct",
) -> CTRNN:
    """Least-squares linear RNN of width ``m`` for the kernel samples ``rho`` at times ``t`` (App. D).

    The eigenvalues are ``-rates`` (default :func:`uniform_rates` ``(m, rate)``), ``u = 1``, ``b = 0``
    and ``c`` solves ``min_c sum_k (sum_i c_i exp(-rates_i t_k) - rho_k)^2`` in float64 (NumPy
    ``lstsq``). The result holds float64 NumPy arrays, ``raw`` in the given parameterisation.
    """
    rho = np.asarray(as_inexact("rho", rho), np.float64)
    t = np.asarray(as_inexact("t", t), np.float64)
    if rho.ndim != 1 or t.shape != rho.shape:
        raise ValueError(f"rho and t must be 1-D of the same length, got {rho.shape} and {t.shape}")
    check_finite("rho", rho)
    check_finite("t", t)
    if rates is None:
        if m is None:
            raise ValueError("give the width m or the decay rates")
        rates = uniform_rates(m, rate)
    rates = np.asarray(rates, np.float64)
    if rates.ndim != 1 or (m is not None and rates.shape != (m,)):
        raise ValueError(f"rates must have shape (m,), got {rates.shape} for m={m}")
    if not np.all(rates > 0):
        raise ValueError(f"rates must be positive (stable eigenvalues -rates), got {rates}")
    basis = np.exp(-np.outer(t, rates))
    coef, *_ = np.linalg.lstsq(basis, rho, rcond=None)
    with jax.enable_x64(True):
        raw = np.asarray(raw_from_weight(-rates, parameterisation))
    width = len(rates)
    return CTRNN(raw=raw, u=np.ones((width, 1)), b=np.zeros(width), c=coef[:, None])


def linear_rnn_kernel(params: CTRNN, t: Any, *, parameterisation: str = "direct") -> jax.Array:
    """The kernel ``rho_hat(t) = sum_i c_i u_i exp(lam_i t)`` of the linear continuous-time RNN
    ``dh/dt = diag(lam) h + U x``, ``y = c^T h`` (single input and output)."""
    lam = recurrent_weight(params.raw, parameterisation)
    weights = params.u[:, 0] * params.c[:, 0]
    return jnp.exp(jnp.asarray(t)[:, None] * lam) @ weights


def kernel_loss(params: CTRNN, rho: Any, t: Any, *, parameterisation: str = "direct") -> jax.Array:
    """Mean squared kernel error ``mean_k (rho_hat(t_k) - rho(t_k))^2`` on the grid ``t``.

    For i.i.d. inputs this is, up to a constant factor, the output MSE at the last time step."""
    return jnp.mean((linear_rnn_kernel(params, t, parameterisation=parameterisation) - rho) ** 2)


@dataclass(frozen=True)
class CTRNNTraining:
    """Outcome of :func:`train_ctrnn`: the trained ``params`` (leading run axis R), the mean
    training loss of each epoch ``train_loss`` (R, epochs) and the test loss after each epoch
    ``test_loss`` (R, epochs), or ``None`` without a test set."""

    params: CTRNN
    train_loss: np.ndarray
    test_loss: np.ndarray | None


def _per_run(name: str, a: Any, runs: int) -> tuple[jax.Array, int | None]:
    a = as_inexact(name, a)
    check_finite(name, a)
    if a.ndim == 3:
        return a, None
    if a.ndim == 4 and a.shape[0] == runs:
        return a, 0
    raise ValueError(f"{name} must have shape (N, T, d) or (runs={runs}, N, T, d), got {a.shape}")


def train_ctrnn(
    params: CTRNN,
    x: Any,
    y: Any,
    *,
    key: jax.Array,
    epochs: int,
    activation: str = "tanh",
    parameterisation: str = "direct",
    dt: float = 1.0,
    batch_size: int = 128,
    learning_rate: float = 0.005,
    clip_norm: float | None = None,
    x_test: Any = None,
    y_test: Any = None,
    progress: bool = True,
) -> CTRNNTraining:
    """Train R CTRNNs at once with Adam on the MSE loss (WLL App. D: lr 0.005, batch 128).

    ``params`` carry a leading run axis R (e.g. ``jax.vmap(lambda k: init_ctrnn(k, m))(keys)``).
    ``x`` (N, T, d_in) and ``y`` (N, T, d_out) are shared by the runs, or have a leading R axis (one
    data set per run, e.g. different targets). Each epoch shuffles the data (per run) and makes
    ``N // batch_size`` steps. ``clip_norm`` clips the global gradient norm (the authors' code uses 0.5).
    """
    runs = jax.tree.leaves(params)[0].shape[0]
    x, x_axis = _per_run("x", x, runs)
    y, y_axis = _per_run("y", y, runs)
    if x.shape[-3:-1] != y.shape[-3:-1]:
        raise ValueError(f"x and y must share (N, T), got {x.shape} and {y.shape}")
    n = x.shape[-3]
    if not 1 <= batch_size <= n:
        raise ValueError(f"batch_size must be in [1, N={n}], got {batch_size}")
    if isinstance(epochs, bool) or not isinstance(epochs, (int, np.integer)) or epochs < 1:
        raise ValueError(f"epochs must be a positive int, got {epochs!r}")
    tx = optax.adam(learning_rate)
    if clip_norm is not None:
        tx = optax.chain(optax.clip_by_global_norm(clip_norm), tx)
    model = dict(activation=activation, parameterisation=parameterisation, dt=dt)

    def mse(p: CTRNN, xb: jax.Array, yb: jax.Array) -> jax.Array:
        return jnp.mean((ctrnn_outputs(p, xb, **model) - yb) ** 2)

    n_batches = n // batch_size

    def epoch(p, opt_state, k, xr, yr):
        order = jax.random.permutation(k, n)[: n_batches * batch_size].reshape(n_batches, batch_size)

        def step(carry, idx):
            p, s = carry
            loss, g = jax.value_and_grad(mse)(p, xr[idx], yr[idx])
            updates, s = tx.update(g, s, p)
            return (optax.apply_updates(p, updates), s), loss

        (p, opt_state), losses = jax.lax.scan(step, (p, opt_state), order)
        return p, opt_state, jnp.mean(losses)

    run_epoch = jax.jit(jax.vmap(epoch, in_axes=(0, 0, 0, x_axis, y_axis)))
    has_test = x_test is not None and y_test is not None
    if has_test:
        x_test, xt_axis = _per_run("x_test", x_test, runs)
        y_test, yt_axis = _per_run("y_test", y_test, runs)
        test = jax.jit(jax.vmap(mse, in_axes=(0, xt_axis, yt_axis)))
    opt_state = jax.vmap(tx.init)(params)
    train_hist, test_hist = [], []
    with tqdm(range(epochs), disable=not progress, desc=f"train_ctrnn ({runs} runs)") as bar:
        for e in bar:
            keys = jax.random.split(jax.random.fold_in(key, e), runs)
            params, opt_state, loss = run_epoch(params, opt_state, keys, x, y)
            train_hist.append(np.asarray(loss))
            if has_test:
                test_hist.append(np.asarray(test(params, x_test, y_test)))
            if progress:
                bar.set_postfix(loss=f"{float(np.mean(train_hist[-1])):.3e}")
    return CTRNNTraining(
        params=params,
        train_loss=np.stack(train_hist, axis=1),
        test_loss=np.stack(test_hist, axis=1) if has_test else None,
    )


def epochs_to_threshold(losses: Any, threshold: float) -> np.ndarray:
    """For each row of ``losses`` (runs, epochs): the first epoch (1-based) whose loss is at most
    ``threshold``, or ``inf`` where it never gets there."""
    losses = np.atleast_2d(np.asarray(losses, np.float64))
    reached = losses <= threshold
    first = np.argmax(reached, axis=1).astype(np.float64) + 1
    return np.where(reached.any(axis=1), first, np.inf)
