"""The experiments of the stable-approximation chapter (Wang, Li & Li, ICLR 2024, Figs 2-3 and
App. C): the data of the linear-functional targets, the perturbation error of trained checkpoints,
the stability filter of Fig. 3 and the memories of its targets. The claim checks they feed are in
:mod:`lrnn_core.wang_li_li.stability_checks`.

Every function runs in the caller's precision: the chapter calls them inside
``jax.enable_x64(True)`` (the polynomial targets' fits cancel far below float32).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike, Float

from lrnn_core.core.memory import DecayFit, fit_decay, impulse_memory, tail_ratio
from lrnn_core.core.targets import (
    TanhRNN,
    exp_memory,
    linear_functional,
    tanh_rnn_outputs,
    white_inputs,
)
from lrnn_core.core.validate import positive_int, positive_number, real_number
from lrnn_core.wang_li_li.ctrnn import CTRNN, ctrnn_outputs
from lrnn_core.wang_li_li.fitting import WidthResult, fit_linear_rnn, time_weighted_mse
from lrnn_core.wang_li_li.perturbation import kernel_perturbation_error, perturbation_error

__all__ = [
    "FilterResult",
    "LFData",
    "TargetData",
    "checkpoint_perturbation_errors",
    "filter_targets",
    "linear_functional_data",
    "random_target_data",
    "rescaled_fit_errors",
    "target_memories",
]


class LFData(NamedTuple):
    """Inputs ``x`` (n, L, 1) and the outputs ``y`` (n_kernels, n, L, 1) of the linear
    functionals ``y_k = sum_j rho(t_j) x_{k-j} dt`` of each kernel (WLL eq. 5)."""

    x: Array
    y: Array


def linear_functional_data(
    key: Array,
    n: int,
    *,
    kernels: Sequence[Callable[[ArrayLike], ArrayLike]],
    L: int,
    dt: float = 1.0,
) -> LFData:
    """``n`` white-noise inputs of length ``L`` (:func:`lrnn_core.core.targets.white_inputs`) and
    the outputs of the linear functional of each kernel ``rho`` (a function of the times
    ``t_k = k dt``) on them: the data of WLL Fig. 2, one run per kernel."""
    n, L, dt = positive_int("n", n), positive_int("L", L), positive_number("dt", dt)
    if not kernels:
        raise ValueError("kernels must hold at least one memory kernel")
    t = np.arange(L) * dt
    x = white_inputs(key, n, L, dt)
    y = jnp.stack([linear_functional(rho(t), x, dt) for rho in kernels])
    return LFData(x[..., None], y[..., None])


class TargetData(NamedTuple):
    """Training and validation inputs ``x``, ``x_val`` (n, L, 1) and the outputs ``y``,
    ``y_val`` (n_targets, n, L, 1) of each random tanh-RNN target on them (WLL Fig. 3)."""

    x: Array
    y: Array
    x_val: Array
    y_val: Array


def random_target_data(
    key: Array, targets: Sequence[TanhRNN], *, n_train: int, n_val: int, L: int, dt: float = 1.0
) -> TargetData:
    """White-noise inputs (:func:`lrnn_core.core.targets.white_inputs`, training and validation
    from the two halves of ``key``) and the outputs ``y_k = C . x_k + d`` of each tanh-RNN target
    on them (:func:`lrnn_core.core.targets.tanh_rnn_outputs`): the data of WLL Fig. 3."""
    if not targets:
        raise ValueError("targets must hold at least one TanhRNN")
    k, k_val = jax.random.split(key)
    x, x_val = white_inputs(k, n_train, L, dt), white_inputs(k_val, n_val, L, dt)
    y = jnp.stack([tanh_rnn_outputs(p, x) for p in targets])[..., None]
    y_val = jnp.stack([tanh_rnn_outputs(p, x_val) for p in targets])[..., None]
    return TargetData(x[..., None], y, x_val[..., None], y_val)


@partial(jax.jit, static_argnames="activation")
def _test_loss(params: CTRNN, x: Array, y: Array, activation: str) -> Array:
    return time_weighted_mse(ctrnn_outputs(params, x, activation=activation), y)


def checkpoint_perturbation_errors(
    runs: Sequence[WidthResult],
    x: Float[ArrayLike, "n L 1"],
    y: Float[ArrayLike, "runs n L 1"],
    betas: Float[ArrayLike, " n_betas"],
    *,
    widths: Sequence[int],
    activation: str,
    key: Array,
    draws: int,
    perturbed: str,
) -> np.ndarray:
    """``E_m(beta)`` (runs, len(widths), n_betas) of each run's checkpoint at each width of
    ``widths`` (WLL Def. 3.4 with Fig. 2's error): the time-weighted test MSE on ``(x, y[r])`` of
    the perturbed checkpoint, maximum over ``draws``, running maximum over the betas (the
    authors' protocol)."""
    x, y = jnp.asarray(x), jnp.asarray(y)
    picked = [res for res in runs if res.width in widths]
    if len(picked) != len(widths):
        raise ValueError(f"widths {list(widths)} must be among {[r.width for r in runs]}")
    return np.array(
        [
            [
                perturbation_error(
                    lambda p, r=r: _test_loss(p, x, y[r], activation),
                    jax.tree.map(lambda a, r=r: a[r], res.params),
                    betas,
                    key=key,
                    draws=draws,
                    perturbed=perturbed,
                    running_max=True,
                )
                for res in picked
            ]
            for r in range(y.shape[0])
        ]
    )


class FilterResult(NamedTuple):
    """The stability filter of WLL Fig. 3 (Def. 3.5 as two checks), one entry per target:
    ``approximated`` every width reached its threshold, ``radius`` the smallest stability radius
    ``min_{m,i} -lam_i`` over the widths' checkpoints, ``stable`` radius at least the margin,
    ``kept`` both."""

    approximated: np.ndarray
    radius: np.ndarray
    stable: np.ndarray
    kept: np.ndarray


def filter_targets(runs: Sequence[WidthResult], margin: float) -> FilterResult:
    """Def. 3.5 on the sequential-width runs of the targets (one run per target): approximated
    (every width reached its threshold) and stable (every checkpoint's stability radius at least
    ``margin``, the chapter's ``1/T``)."""
    margin = real_number("margin", margin, low=0.0)
    if not runs:
        raise ValueError("runs must hold at least one width")
    approximated = np.all([np.isfinite(res.epochs) for res in runs], axis=0)
    radius = np.min([-np.asarray(res.params.raw).max(axis=1) for res in runs], axis=0)
    stable = radius >= margin
    return FilterResult(approximated, radius, stable, approximated & stable)


def target_memories(
    targets: Sequence[TanhRNN],
    L: int,
    *,
    dt: float = 1.0,
    fitted: Sequence[bool],
    tail: tuple[float, float] = (8.0, 40.0),
) -> tuple[list[np.ndarray], list[float], list[DecayFit | None]]:
    """The impulse memory (WLL App. F) of each tanh-RNN target over ``L`` steps, its tail ratio
    and, where ``fitted``, a log-linear fit of its decay on the times ``tail``."""
    L = positive_int("L", L)
    if len(fitted) != len(targets):
        raise ValueError(f"fitted has {len(fitted)} entries for {len(targets)} targets")
    t = np.arange(L) * dt
    memories = [impulse_memory(lambda u, p=p: tanh_rnn_outputs(p, u), L, dt=dt) for p in targets]
    tails = [tail_ratio(m) for m in memories]
    fits = [
        fit_decay(m, t, tail=tail) if f else None for m, f in zip(memories, fitted, strict=True)
    ]
    return memories, tails, fits


def rescaled_fit_errors(
    t: Float[ArrayLike, " T"],
    rescalings: Sequence[tuple[float, float]],
    widths: Sequence[int],
    beta: float,
    *,
    key: Array,
    draws: int,
    perturbed: str,
) -> dict[tuple[float, float], np.ndarray]:
    """WLL App. C analogue: for each ``(grid unit s, target rate a)``, the least-squares linear
    RNN of each width for ``exp(-a t)`` on the rate grid of unit ``s``
    (:func:`lrnn_core.wang_li_li.fitting.fit_linear_rnn`) and its ``E_m`` at ``[0, beta]``,
    shape ``(len(widths), 2)``."""
    out = {}
    for s_unit, a in rescalings:
        rho = np.asarray(exp_memory(t, rate=a))
        out[s_unit, a] = np.array(
            [
                kernel_perturbation_error(
                    fit_linear_rnn(rho, t, m, rate=s_unit),
                    rho,
                    t,
                    [0.0, beta],
                    key=key,
                    draws=draws,
                    perturbed=perturbed,
                )  # fmt: skip
                for m in widths
            ]
        )
    return out
