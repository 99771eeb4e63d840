"""Fitting continuous-time RNNs to targets (Wang, Li & Li 2024, App. D).

* Linear RNNs are fitted to a linear functional ``H_t(u) = int_0^t rho(t-s) u(s) ds`` by least
  squares, without gradient descent (App. D). A linear RNN ``dx/dt = diag(lam) x + B u``,
  ``y = C x`` has the kernel ``rho_hat(t) = sum_i C_i B_i exp(lam_i t)``. We fix the decay rates on
  a grid and solve for the readout ``C`` (with ``B = 1``) by linear least squares on samples of the
  kernel. The default grid ``lam_i = -rate * i`` (i = 1..N) makes this the paper's "polynomial
  approximation of a function over an interval after eigen-decomposition": with
  ``z = exp(-rate t)`` the kernel is the polynomial ``sum_i C_i z^i`` on ``[exp(-rate T), 1]``.
  :func:`geometric_rates` gives the other grid of the book, whose slowest rate tends to 0.
* :func:`fitted_rnn` turns such a fit into a nonlinear Euler CTRNN that reproduces it on small
  inputs (pairs of units for ReLU).
* Nonlinear RNNs are trained with Adam (learning rate 0.005), MSE loss and batch size 128 (App. D),
  several runs at once: :func:`train_ctrnn` is the book's one training loop
  (:func:`lrnn_core.core.train.train_params`) with epochs of shuffled mini-batches.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import optax
from jaxtyping import Array, ArrayLike, Float

from lrnn_core.core.train import TrainResult, epoch_indices, train_params
from lrnn_core.core.validate import (
    as_float64,
    as_inexact,
    check_choice,
    check_finite,
    check_flag,
    check_ndim,
    check_shape,
    positive_int,
    positive_number,
)
from lrnn_core.wang_li_li.ctrnn import (
    ACTIVATIONS,
    CTRNN,
    PARAMETERISATIONS,
    check_ctrnn,
    ctrnn_outputs,
    raw_from_weight,
    recurrent_weight,
)

__all__ = [
    "epochs_to_threshold",
    "fit_linear_rnn",
    "fitted_rnn",
    "geometric_rates",
    "kernel_loss",
    "linear_rnn_kernel",
    "train_ctrnn",
    "uniform_rates",
]


def uniform_rates(N: int, rate: float = 0.1) -> np.ndarray:
    """The decay rates ``rate * (1, 2, ..., N)``: polynomials of degree N in ``z = exp(-rate t)``
    (WLL App. D, "polynomial approximation over an interval")."""
    N = positive_int("N", N)
    rate = positive_number("rate", rate)
    return rate * np.arange(1, N + 1, dtype=np.float64)


def geometric_rates(N: int, fastest: float = 2.0) -> np.ndarray:
    """``N`` decay rates on a geometric grid from ``N**-1.5`` to ``fastest`` (float64): the slowest
    rate tends to 0 as N grows, the regime that polynomial memory needs (book's choice, used for
    WLL Figs 4, 7, 8)."""
    N = positive_int("N", N)
    fastest = positive_number("fastest", fastest)
    return np.geomspace(N**-1.5, fastest, N)


def fit_linear_rnn(
    rho: Float[ArrayLike, " T"],
    t: Float[ArrayLike, " T"],
    N: int | None = None,
    *,
    rates: Float[ArrayLike, " N"] | None = None,
    rate: float = 0.1,
    parameterisation: str = "direct",
) -> CTRNN:
    """Least-squares linear RNN of width ``N`` for the kernel samples ``rho`` at times ``t`` (App.
    D).

    The eigenvalues are ``-rates`` (default :func:`uniform_rates` ``(N, rate)``), ``B = 1``,
    ``b = 0`` and ``C`` solves ``min_C sum_k (sum_i C_i exp(-rates_i t_k) - rho_k)^2`` in float64
    (NumPy ``lstsq``). The result holds float64 NumPy arrays, ``raw`` in the given parameterisation.
    """
    check_choice("parameterisation", parameterisation, PARAMETERISATIONS)
    rho = as_float64("rho", rho)
    t = as_float64("t", t)
    if rho.ndim != 1 or t.shape != rho.shape:
        raise ValueError(f"rho and t must be 1-D of the same length, got {rho.shape} and {t.shape}")
    check_finite("rho", rho)
    check_finite("t", t)
    if rates is None:
        if N is None:
            raise ValueError("N: give the width N or the decay rates")
        rates = uniform_rates(N, rate)
    rates = as_float64("rates", rates)
    if N is not None:
        check_shape("rates", rates, (positive_int("N", N),))
    check_shape("rates", rates, (None,))
    check_finite("rates", rates)
    if not np.all(rates > 0):
        raise ValueError(f"rates must be positive (stable eigenvalues -rates), got {rates}")
    basis = np.exp(-np.outer(t, rates))
    coef, *_ = np.linalg.lstsq(basis, rho, rcond=None)
    with jax.enable_x64(True):  # the raw parameter of a float64 fit, kept in float64
        raw = np.asarray(raw_from_weight(-rates, parameterisation))
    width = len(rates)
    return CTRNN(raw=raw, B=np.ones((width, 1)), b=np.zeros(width), C=coef[None, :])


def linear_rnn_kernel(
    params: CTRNN, t: Float[ArrayLike, " T"], *, parameterisation: str = "direct"
) -> Float[Array, " T"]:
    """The kernel ``rho_hat(t) = sum_i C_i B_i exp(lam_i t)`` of the linear continuous-time RNN
    ``dx/dt = diag(lam) x + B u``, ``y = C x`` (single input and output; WLL eq. 5 with App. D)."""
    lam = recurrent_weight(params.raw, parameterisation)
    weights = params.B[:, 0] * params.C[0, :]
    return jnp.exp(jnp.asarray(t)[:, None] * lam) @ weights


def kernel_loss(
    params: CTRNN,
    rho: Float[ArrayLike, " T"],
    t: Float[ArrayLike, " T"],
    *,
    parameterisation: str = "direct",
) -> Float[Array, ""]:
    """Mean squared kernel error ``mean_k (rho_hat(t_k) - rho(t_k))^2`` on the grid ``t``.

    For i.i.d. inputs this is, up to a constant factor, the output MSE at the last time step."""
    return jnp.mean((linear_rnn_kernel(params, t, parameterisation=parameterisation) - rho) ** 2)


def fitted_rnn(
    rho: Float[ArrayLike, " T"],
    t: Float[ArrayLike, " T"],
    rates: Float[ArrayLike, " N"],
    *,
    activation: str,
    parameterisation: str,
    dt: float = 1.0,
) -> CTRNN:
    """The least-squares fit of ``rho`` with decay ``rates`` as a float32 Euler CTRNN.

    The eigenvalues are mapped to Euler so that ``(1 + lam_i dt)^k = exp(-rate_i k dt)`` exactly,
    ``lam_i = (exp(-rate_i dt) - 1) / dt``; on small inputs a tanh or hardtanh RNN reproduces the
    linear fit. For ReLU (not linear at 0) each mode is a pair of units with input weights ``+-1``
    and readouts ``+-C_i`` (``2N`` units), using ``z = relu(z) - relu(-z)``. ``raw`` is in
    ``parameterisation`` (WLL Figs 7, 8, built instead of trained; book's construction).
    """
    check_choice("activation", activation, ACTIVATIONS)
    check_choice("parameterisation", parameterisation, PARAMETERISATIONS)
    dt = positive_number("dt", dt)
    rates = as_float64("rates", rates)
    fit = fit_linear_rnn(rho, t, rates=rates)
    lam, B, C = (np.exp(-rates * dt) - 1.0) / dt, fit.B, fit.C
    if activation == "relu":
        lam, B, C = np.tile(lam, 2), np.concatenate([B, -B]), np.concatenate([C, -C], axis=1)
    return CTRNN(
        raw=raw_from_weight(jnp.asarray(lam, jnp.float32), parameterisation),
        B=jnp.asarray(B, jnp.float32),
        b=jnp.zeros(len(lam)),
        C=jnp.asarray(C, jnp.float32),
    )


def _run_data(name: str, a: ArrayLike, runs: int) -> tuple[Array, bool]:
    """``a`` (n_seqs, L, d) shared by the runs, or (runs, n_seqs, L, d) one per run."""
    a = as_inexact(name, a)
    check_finite(name, a)
    if a.ndim == 4:
        check_shape(name, a, (runs, None, None, None))
        return a, True
    check_ndim(name, a, 3)
    check_shape(name, a, (None, None, None))
    return a, False


def train_ctrnn(
    params: CTRNN,
    u: Float[ArrayLike, "*runs n_seqs L M"],
    y: Float[ArrayLike, "*runs n_seqs L d_out"],
    *,
    key: Array,
    epochs: int,
    activation: str = "tanh",
    parameterisation: str = "direct",
    dt: float = 1.0,
    batch_size: int = 128,
    learning_rate: float = 0.005,
    clip_norm: float | None = None,
    u_test: Float[ArrayLike, "*runs n_test L M"] | None = None,
    y_test: Float[ArrayLike, "*runs n_test L d_out"] | None = None,
    stop_below: float | None = None,
    progress: bool = True,
) -> TrainResult:
    """Train R CTRNNs at once with Adam on the MSE loss (WLL App. D: lr 0.005, batch 128).

    ``params`` carry a leading run axis R (e.g. ``jax.vmap(lambda k: init_ctrnn(k, N))(keys)``).
    ``u`` (n_seqs, L, M) and ``y`` (n_seqs, L, d_out) are shared by the runs, or have a leading R
    axis (one data set per run, e.g. different targets). Epoch ``e`` visits the data of run ``r`` in
    the order ``permutation(split(fold_in(key, e), R)[r], n_seqs)``, ``n_seqs // batch_size`` steps
    (the rest dropped). ``clip_norm`` clips the global gradient norm (the authors' code uses 0.5).
    The loop is :func:`lrnn_core.core.train.train_params` with one round per epoch: the result's
    ``round_losses`` (R, epochs) is the mean training loss of each epoch and ``eval_losses``
    (R, epochs) the test MSE after each epoch (``None`` without a test set); ``stop_below`` stops
    once every run's epoch loss is at most that value.
    """
    check_ctrnn("params", params)
    check_ndim("params.raw", params.raw, 2)
    runs = params.raw.shape[0]
    check_choice("activation", activation, ACTIVATIONS)
    check_choice("parameterisation", parameterisation, PARAMETERISATIONS)
    dt = positive_number("dt", dt)
    epochs = positive_int("epochs", epochs)
    batch_size = positive_int("batch_size", batch_size)
    learning_rate = positive_number("learning_rate", learning_rate)
    progress = check_flag("progress", progress)
    u, u_per_run = _run_data("u", u, runs)
    y, y_per_run = _run_data("y", y, runs)
    if u.shape[-3:-1] != y.shape[-3:-1]:
        raise ValueError(f"u and y must share (n_seqs, L), got {u.shape} and {y.shape}")
    n_seqs = u.shape[-3]
    if batch_size > n_seqs:
        raise ValueError(f"batch_size must be in [1, n_seqs={n_seqs}], got {batch_size}")
    tx = optax.adam(learning_rate)
    if clip_norm is not None:
        tx = optax.chain(optax.clip_by_global_norm(positive_number("clip_norm", clip_norm)), tx)
    model = dict(activation=activation, parameterisation=parameterisation, dt=dt)

    def mse(p: CTRNN, batch: tuple[Array, Array]) -> Array:
        ub, yb = batch
        return jnp.mean((ctrnn_outputs(p, ub, **model) - yb) ** 2)

    streams = {"run": jnp.arange(runs)}
    if u_per_run:
        streams["u"] = u
    if y_per_run:
        streams["y"] = y

    def batch_at(stream, t):
        def run_key(epoch):
            return jax.random.split(jax.random.fold_in(key, epoch), runs)[stream["run"]]

        idx = epoch_indices(run_key, t, n_seqs=n_seqs, batch_size=batch_size)
        return stream.get("u", u)[idx], stream.get("y", y)[idx]

    evaluate = None
    if u_test is not None and y_test is not None:
        u_test, ut_per_run = _run_data("u_test", u_test, runs)
        y_test, yt_per_run = _run_data("y_test", y_test, runs)
        if ut_per_run:
            streams["u_test"] = u_test
        if yt_per_run:
            streams["y_test"] = y_test

        def evaluate(p, stream):
            return mse(p, (stream.get("u_test", u_test), stream.get("y_test", y_test)))

    per_epoch = n_seqs // batch_size
    return train_params(
        mse,
        params,
        batch_at,
        streams,
        steps=epochs * per_epoch,
        steps_per_round=per_epoch,
        optimizer=tx,
        evaluate=evaluate,
        stop_below=stop_below,
        progress=progress,
        desc="train_ctrnn",
    )


def epochs_to_threshold(losses: Float[ArrayLike, "runs epochs"], threshold: float) -> np.ndarray:
    """For each row of ``losses`` (runs, epochs): the first epoch (1-based) whose loss is at most
    ``threshold``, or ``inf`` where it never gets there."""
    losses = np.atleast_2d(as_float64("losses", losses))
    threshold = float(np.asarray(threshold))
    reached = losses <= threshold
    first = np.argmax(reached, axis=1).astype(np.float64) + 1
    return np.where(reached.any(axis=1), first, np.inf)
