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
* :func:`train_sequential_widths` is the authors' protocol for WLL Figs 2, 3 and 12 (github
  radarFudan/Curse-of-memory, ``scripts/lf_all.sh``, ``configs/experiment/LF``): widths trained in
  sequence, each until its validation loss is half the previous width's, with the time-weighted
  MSE (:func:`time_weighted_mse`), gradient clipping and ReduceLROnPlateau.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import optax
from jax.flatten_util import ravel_pytree
from jaxtyping import Array, ArrayLike, Float

from lrnn_core.core.exp_sums import fit_exp_sum, uniform_rates
from lrnn_core.core.train import TrainResult, epoch_indices, epoch_order, train_params
from lrnn_core.core.validate import (
    as_float64,
    as_inexact,
    check_choice,
    check_finite,
    check_flag,
    check_ndim,
    check_shape,
    nonnegative_int,
    positive_int,
    positive_number,
    real_number,
)
from lrnn_core.wang_li_li.ctrnn import (
    ACTIVATIONS,
    CTRNN,
    PARAMETERISATIONS,
    check_ctrnn,
    ctrnn_outputs,
    init_ctrnn,
    raw_from_weight,
    recurrent_weight,
)


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
    (:func:`lrnn_core.core.exp_sums.fit_exp_sum`). The result holds float64 NumPy arrays, ``raw``
    in the given parameterisation.
    """
    check_choice("parameterisation", parameterisation, PARAMETERISATIONS)
    if rates is None:
        if N is None:
            raise ValueError("N: give the width N or the decay rates")
        rates = uniform_rates(N, rate)
    rates = as_float64("rates", rates)
    if N is not None:
        check_shape("rates", rates, (positive_int("N", N),))
    coef = fit_exp_sum(rho, t, rates)
    with jax.enable_x64(True):  # the raw parameter of a float64 fit, kept in float64
        raw = np.asarray(raw_from_weight(-rates, parameterisation))
    N = len(rates)
    return CTRNN(raw=raw, B=np.ones((N, 1)), b=np.zeros(N), C=coef[None, :])


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


def _ctrnn_batches(u, y, y_per_run, key, runs, batch_size):
    """The streams, ``batch_at`` and ``per_round`` of :func:`train_ctrnn` (``y`` with a run axis
    if ``y_per_run``): epoch ``e`` of run ``r`` visits the data in the order
    ``permutation(split(fold_in(key, e), R)[r], n_seqs)``."""
    n_seqs = u.shape[-3]
    if batch_size > n_seqs:
        raise ValueError(f"batch_size must be in [1, n_seqs={n_seqs}], got {batch_size}")
    streams = {"run": jnp.arange(runs)}
    if y_per_run:
        streams["y"] = y

    def per_round(stream, start):  # one round is one epoch: start is its first step
        def run_key(epoch):
            return jax.random.split(jax.random.fold_in(key, epoch), runs)[stream["run"]]

        order = epoch_order(run_key, start, n_seqs=n_seqs, batch_size=batch_size)
        return {**stream, "order": order}

    def batch_at(stream, t):
        idx = epoch_indices(stream["order"], t, batch_size=batch_size)
        return u[idx], stream.get("y", y)[idx]

    return streams, batch_at, per_round


def train_ctrnn(
    params: CTRNN,
    u: Float[ArrayLike, "n_seqs L M"],
    y: Float[ArrayLike, "n_seqs L d_out"],
    *,
    key: Array,
    epochs: int,
    activation: str = "tanh",
    parameterisation: str = "direct",
    dt: float = 1.0,
    batch_size: int = 128,
    learning_rate: float = 0.005,
    clip_norm: float | None = None,
    progress: bool = True,
) -> TrainResult:
    """Train R CTRNNs at once with Adam on the MSE loss (WLL App. D: lr 0.005, batch 128).

    ``params`` carry a leading run axis R (e.g. ``jax.vmap(lambda k: init_ctrnn(k, N))(keys)``).
    ``u`` (n_seqs, L, M) and ``y`` (n_seqs, L, d_out) are shared by the runs. Epoch ``e`` visits
    the data of run ``r`` in the order ``permutation(split(fold_in(key, e), R)[r], n_seqs)``,
    ``n_seqs // batch_size`` steps (the rest dropped). ``clip_norm`` clips the global gradient
    norm (the authors' code uses 0.5). The loop is :func:`lrnn_core.core.train.train_params`
    with one round per epoch: ``round_losses`` (R, epochs) is the mean training loss of each
    epoch.
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
    u, y = as_inexact("u", u), as_inexact("y", y)
    for name, a in (("u", u), ("y", y)):
        check_ndim(name, a, 3)
        check_shape(name, a, (None, None, None))
        check_finite(name, a)
    if u.shape[:2] != y.shape[:2]:
        raise ValueError(f"u and y must share (n_seqs, L), got {u.shape} and {y.shape}")
    tx = optax.adam(learning_rate)
    if clip_norm is not None:
        tx = optax.chain(optax.clip_by_global_norm(positive_number("clip_norm", clip_norm)), tx)
    model = dict(activation=activation, parameterisation=parameterisation, dt=dt)

    def mse(p: CTRNN, batch: tuple[Array, Array]) -> Array:
        ub, yb = batch
        return jnp.mean((ctrnn_outputs(p, ub, **model) - yb) ** 2)

    streams, batch_at, per_round = _ctrnn_batches(u, y, False, key, runs, batch_size)
    per_epoch = u.shape[0] // batch_size
    return train_params(
        mse,
        params,
        batch_at,
        streams,
        steps=epochs * per_epoch,
        steps_per_round=per_epoch,
        optimizer=tx,
        per_round=per_round,
        progress=progress,
        desc="train_ctrnn",
    )


def time_weighted_mse(
    outputs: Float[ArrayLike, "*batch L d"],
    targets: Float[ArrayLike, "*batch L d"],
    *,
    power: float = 2.0,
) -> Float[Array, ""]:
    """The authors' time-weighted MSE (github radarFudan/Curse-of-memory,
    ``src/utils/temporally_weighted_error.py``; the paper's text says "mean squared error").

    Step ``k = 1..L`` gets the weight ``w_k = (k / (L + 1))**power``, rescaled so that the weights
    sum to ``L``, and the loss is ``mean_{n,k,j} (w_k (out_{nkj} - y_{nkj}))^2``: late steps, where
    the memory of early inputs matters, count most. ``power = 0`` is the plain MSE.
    """
    outputs, targets = as_inexact("outputs", outputs), as_inexact("targets", targets)
    check_ndim("outputs", outputs, 2)
    if outputs.shape != targets.shape:
        raise ValueError(
            f"outputs and targets must have the same shape, got {outputs.shape} and {targets.shape}"
        )
    power = real_number("power", power, low=0.0)
    L = outputs.shape[-2]
    w = (jnp.arange(1, L + 1, dtype=outputs.dtype) / (L + 1)) ** power
    w = w * (L / jnp.sum(w))
    return jnp.mean((w[:, None] * (outputs - targets)) ** 2)


class _Probed(NamedTuple):
    """CTRNN parameters and a scalar ``probe`` held at 0. The loss is written
    ``loss + probe * stop_gradient(loss)``, so the probe's gradient is the loss value: that is how
    :func:`_plateau_adam` sees the loss, which ``train_params`` does not pass to the optimizer."""

    params: CTRNN
    probe: Array


def _plateau_adam(
    learning_rate: float, clip_norm: float, patience: int, factor: float, per_epoch: int
) -> optax.GradientTransformation:
    """Global-norm clipping, Adam and ReduceLROnPlateau on the epoch-mean training loss, for
    :class:`_Probed` parameters. PyTorch's scheduler lowers the rate when more than ``patience``
    epochs in a row have not improved the loss by a relative 1e-4; optax's ``reduce_on_plateau``
    does it after ``patience`` epochs, hence ``patience + 1`` below (optax applies the new rate
    from the last step of that epoch, one step earlier than PyTorch)."""
    inner = optax.chain(
        optax.clip_by_global_norm(clip_norm),
        optax.adam(learning_rate),
        optax.contrib.reduce_on_plateau(
            factor=factor, patience=patience + 1, rtol=1e-4, accumulation_size=per_epoch
        ),
    )

    def init(p: _Probed):
        return inner.init(p.params)

    def update(grads: _Probed, state, p: _Probed | None = None):
        params = None if p is None else p.params
        updates, state = inner.update(grads.params, state, params, value=grads.probe)
        return _Probed(updates, jnp.zeros_like(grads.probe)), state

    return optax.GradientTransformation(init, update)


class WidthResult(NamedTuple):
    """One width of :func:`train_sequential_widths`, for its R runs (targets).

    ``threshold`` (R,): the validation loss the run had to get below; ``epochs`` (R,): the first
    epoch (at least ``min_epochs``) where it did, ``inf`` if not within ``max_epochs``;
    ``val_losses`` (R, epochs trained): the validation loss after each epoch (the runs train until
    every run has met its stop, or to ``max_epochs``); ``best`` (R,): the checkpoint's validation
    loss, the lowest up to the stop; ``params``: the checkpoint (a CTRNN with run axis R)."""

    N: int
    threshold: np.ndarray
    epochs: np.ndarray
    val_losses: np.ndarray
    best: np.ndarray
    params: CTRNN


def train_sequential_widths(
    u: Float[ArrayLike, "n_seqs L M"],
    y: Float[ArrayLike, "runs n_seqs L d_out"],
    u_val: Float[ArrayLike, "n_val L M"],
    y_val: Float[ArrayLike, "runs n_val L d_out"],
    *,
    key: Array,
    Ns: tuple[int, ...] = (8, 16, 32, 64),
    activation: str = "hardtanh",
    max_epochs: int = 1000,
    first_threshold: float = 100.0,
    ratio: float = 0.5,
    min_epochs: int = 2,
    batch_size: int = 128,
    learning_rate: float = 0.005,
    clip_norm: float = 0.5,
    plateau_patience: int = 10,
    plateau_factor: float = 0.1,
    power: float = 2.0,
    dt: float = 1.0,
    progress: bool = True,
) -> list[WidthResult]:
    """The authors' sequential-width protocol (WLL Figs 2, 3, 12; github radarFudan/Curse-of-memory,
    ``scripts/lf_all.sh`` with ``configs/experiment/LF/base.yaml``), for R targets at once.

    Widths are trained in turn, each from a fresh initialisation (:func:`init_ctrnn`, the same for
    every target). Width ``Ns[i]`` stops at the first epoch ``>= min_epochs`` whose validation
    loss is below its threshold; the first threshold is ``first_threshold`` (the scripts' loose
    100), the next one ``ratio`` times the checkpoint's validation loss (the best up to the stop).
    Loss: :func:`time_weighted_mse` with ``power``; optimiser: global-norm clipping at
    ``clip_norm``, Adam (``learning_rate``, batch ``batch_size``) and ReduceLROnPlateau
    (``plateau_factor``, ``plateau_patience`` epochs) on the epoch-mean training loss. Run ``r``
    sees ``u`` with targets ``y[r]``; the data keep their dtype (float64 under
    ``jax.enable_x64(True)``, as the authors' code). The loop is
    :func:`lrnn_core.core.train.train_params`; its ``evaluate`` records the validation loss and the
    parameters after every epoch, and the runs train together until every run has met its stop
    (or ``max_epochs``): each run's stop and checkpoint are applied after training.
    """
    check_choice("activation", activation, ACTIVATIONS)
    Ns = tuple(positive_int("Ns", N) for N in Ns)
    if not Ns:
        raise ValueError("Ns must hold at least one width")
    max_epochs = positive_int("max_epochs", max_epochs)
    min_epochs = nonnegative_int("min_epochs", min_epochs)
    first_threshold = positive_number("first_threshold", first_threshold)
    ratio = positive_number("ratio", ratio)
    batch_size = positive_int("batch_size", batch_size)
    learning_rate = positive_number("learning_rate", learning_rate)
    clip_norm = positive_number("clip_norm", clip_norm)
    plateau_patience = nonnegative_int("plateau_patience", plateau_patience)
    plateau_factor = real_number("plateau_factor", plateau_factor, low=0.0, high=1.0)
    power = real_number("power", power, low=0.0)
    dt = positive_number("dt", dt)
    progress = check_flag("progress", progress)
    u, u_val = as_inexact("u", u), as_inexact("u_val", u_val)
    y, y_val = as_inexact("y", y), as_inexact("y_val", y_val)
    for name, a, nd in (("u", u, 3), ("u_val", u_val, 3), ("y", y, 4), ("y_val", y_val, 4)):
        check_ndim(name, a, nd)
        check_shape(name, a, (None,) * nd)
        check_finite(name, a)
    runs, n_seqs, L, d_out = y.shape
    M = u.shape[-1]
    check_shape("y_val", y_val, (runs, u_val.shape[0], u_val.shape[1], d_out))
    if u.shape[:2] != (n_seqs, L) or u_val.shape[1:] != (L, M):
        raise ValueError(
            f"u {u.shape}, y {y.shape}, u_val {u_val.shape} must share n_seqs, L and M"
        )
    per_epoch = n_seqs // batch_size
    model = dict(activation=activation, dt=dt)
    k_init, k_data = jax.random.split(key)

    def loss(p: _Probed, batch: tuple[Array, Array]) -> Array:
        ub, yb = batch
        value = time_weighted_mse(ctrnn_outputs(p.params, ub, **model), yb, power=power)
        return value + p.probe * jax.lax.stop_gradient(value)

    def evaluate(p: _Probed, stream) -> Array:
        out = ctrnn_outputs(p.params, u_val, **model)
        value = time_weighted_mse(out, stream["y_val"], power=power)
        return jnp.concatenate([value[None], ravel_pytree(p.params)[0]])

    results, threshold = [], np.full(runs, first_threshold)
    for N in Ns:
        one = init_ctrnn(jax.random.fold_in(k_init, N), N, M=M, d_out=d_out, dtype=u.dtype)
        _, unravel = ravel_pytree(one)
        start = _Probed(
            jax.tree.map(lambda a: jnp.broadcast_to(a, (runs, *a.shape)), one),
            jnp.zeros(runs, u.dtype),
        )
        streams, batch_at, per_round = _ctrnn_batches(
            u, y, True, jax.random.fold_in(k_data, N), runs, batch_size
        )
        streams["y_val"] = y_val
        stopped_at = np.zeros(runs)  # run r's stop: its first epoch >= min_epochs below thr

        def every_run_stopped(_, evals: list, thr=threshold, at=stopped_at) -> bool:
            at[(at == 0) & (evals[-1][:, 0] < thr) & (len(evals) >= min_epochs)] = len(evals)
            return bool(at.all())

        record = train_params(
            loss,
            start,
            batch_at,
            streams,
            steps=max_epochs * per_epoch,
            steps_per_round=per_epoch,
            optimizer=_plateau_adam(
                learning_rate, clip_norm, plateau_patience, plateau_factor, per_epoch
            ),
            evaluate=evaluate,
            per_round=per_round,
            stop_when=every_run_stopped,
            progress=progress,
            desc=f"N={N}",
        ).eval_losses
        val = np.where(np.isfinite(record[..., 0]), record[..., 0], np.inf)
        stop = np.where(stopped_at > 0, stopped_at, max_epochs).astype(int)
        best_at = [int(np.argmin(val[r, : stop[r]])) for r in range(runs)]
        best = val[np.arange(runs), best_at]
        ckpt = [unravel(jnp.asarray(record[r, best_at[r], 1:])) for r in range(runs)]
        results.append(
            WidthResult(
                N=N,
                threshold=threshold,
                epochs=np.where(stopped_at > 0, stopped_at, np.inf),
                val_losses=val,
                best=best,
                params=jax.tree.map(lambda *a: jnp.stack(a), *ckpt),
            )
        )
        threshold = ratio * best
    return results
