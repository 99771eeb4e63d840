"""The experiments of the stable-approximation chapter (Wang, Li & Li, ICLR 2024, Figs 1-3 and
App. C): the chapter's sizes, the least-squares fits of Fig. 1 and of its explorer with their
perturbation errors (Def. 3.4), the data of the linear-functional targets, the epochs and the
perturbation error of trained checkpoints (Fig. 2), the stability filter of Fig. 3 and the
memories of its targets. The claim checks they feed are in
:mod:`lrnn_core.wang_li_li.stability_checks`, the printed lines and rows in
:mod:`lrnn_core.wang_li_li.stable_report`, the figures in
:mod:`lrnn_core.wang_li_li.stable_figures`.

Every function runs in the caller's precision: the chapter calls them inside
``jax.enable_x64(True)`` (the polynomial targets' fits cancel far below float32).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import NamedTuple, TypeVar

import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike, Float

from lrnn_core.core.memory import DecayFit, fit_decay, impulse_memory, tail_ratio
from lrnn_core.core.targets import (
    TanhRNN,
    exp_memory,
    linear_functional,
    poly_memory,
    tanh_rnn_outputs,
    white_inputs,
)
from lrnn_core.core.validate import positive_int, positive_number, real_number
from lrnn_core.wang_li_li.ctrnn import CTRNN, ctrnn_outputs
from lrnn_core.wang_li_li.fitting import (
    WidthResult,
    fit_linear_rnn,
    linear_rnn_kernel,
    time_weighted_mse,
)
from lrnn_core.wang_li_li.perturbation import (
    kernel_perturbation_error,
    linear_perturbation_errors,
    perturb,
    perturbation_error,
)

__all__ = [
    "FilterResult",
    "LFData",
    "Sizes",
    "TargetData",
    "activation_perturbation_errors",
    "checkpoint_perturbation_errors",
    "epochs_per_width",
    "explorer_fits",
    "filter_targets",
    "float64_tree",
    "linear_fits",
    "linear_functional_data",
    "linear_functional_splits",
    "memory_kernels",
    "perturbed_kernels",
    "plain_mse",
    "random_target_data",
    "rescaled_fit_errors",
    "target_memories",
    "widest_checkpoints",
]

Tree = TypeVar("Tree")


@dataclass(frozen=True, kw_only=True)
class Sizes:
    """The sizes of the chapter that depend on the scale setting (WLL App. D where it gives
    them)."""

    n_train: int  # Fig 2: training sequences
    n_val: int  # Fig 2: validation sequences, and as many test sequences
    max_epochs: int  # Fig 2: epoch budget of each width
    Ns_nl: tuple[int, ...]  # Figs 2, 3: widths trained in sequence
    Ns_perturbed: tuple[int, ...]  # Fig 2: widths whose perturbation error is shown
    activations_fig2: tuple[str, ...]  # Fig 2: activations trained
    scales_fig3: tuple[float, ...]  # Fig 3: weight scales of the random targets
    seeds_fig3: int  # Fig 3: random targets per weight scale


def float64_tree(tree: Tree) -> Tree:
    """Every leaf of ``tree`` as a float64 JAX array (run inside ``jax.enable_x64(True)``)."""
    return jax.tree.map(lambda a: jnp.asarray(a, jnp.float64), tree)


def memory_kernels(
    t: Float[ArrayLike, " T"], *, rates: Sequence[float], powers: Sequence[float]
) -> dict[str, np.ndarray]:
    """The kernels ``exp(-r t)`` of each rate ``r`` and ``(1 + 0.1 t)^{-p}`` of each power ``p``
    (WLL eq. 5's two memories, :mod:`lrnn_core.core.targets`), named ``"exp, rate r"`` and
    ``"power p"``, in the caller's precision."""
    out = {f"exp, rate {r:g}": np.asarray(exp_memory(t, rate=r)) for r in rates}
    return out | {f"power {p:g}": np.asarray(poly_memory(t, power=p)) for p in powers}


def linear_fits(
    targets: Mapping[str, Float[ArrayLike, " T"]],
    t: Float[ArrayLike, " T"],
    Ns: Sequence[int],
    betas: Float[ArrayLike, " n_betas"],
    *,
    key: Array,
    draws: int,
    perturbed: str,
) -> tuple[dict[str, np.ndarray], dict[str, list[float]]]:
    """WLL Fig. 1: for each target kernel, ``E_m(beta)`` (len(Ns), len(betas)) of the
    least-squares linear RNNs of each width (Def. 3.4,
    :func:`lrnn_core.wang_li_li.perturbation.linear_perturbation_errors`) and the largest
    readout coefficient ``max_i |c_i|`` of each width's fit (eq. 10's kernel
    ``sum_i c_i u_i e^{lam_i t}``)."""
    errors = {
        name: linear_perturbation_errors(
            rho, t, Ns, betas, key=key, draws=draws, perturbed=perturbed
        )
        for name, rho in targets.items()
    }
    coef = {
        name: [float(np.abs(fit_linear_rnn(rho, t, N).C).max()) for N in Ns]
        for name, rho in targets.items()
    }
    return errors, coef


def explorer_fits(
    targets: Mapping[str, Float[ArrayLike, " T"]],
    t: Float[ArrayLike, " T"],
    Ns: Sequence[int],
    betas: Float[ArrayLike, " n_betas"],
    *,
    key: Array,
    draws: int,
    perturbed: str,
) -> tuple[dict[tuple[str, int], CTRNN], dict[tuple[str, int], np.ndarray]]:
    """The least-squares linear RNN of each width for each target kernel, keyed ``(name, N)``,
    and its ``E_m(beta)`` over ``betas`` (WLL Def. 3.4, one
    :func:`~lrnn_core.wang_li_li.perturbation.linear_perturbation_errors` call per fit)."""
    fits = {(name, N): fit_linear_rnn(rho, t, N) for name, rho in targets.items() for N in Ns}
    errors = {
        (name, N): linear_perturbation_errors(
            targets[name], t, [N], betas, key=key, draws=draws, perturbed=perturbed
        )[0]
        for name, N in fits
    }
    return fits, errors


def perturbed_kernels(
    params: CTRNN, t: Float[ArrayLike, " T"], beta: float, *, key: Array, perturbed: str
) -> tuple[np.ndarray, np.ndarray]:
    """The kernel ``sum_i c_i u_i e^{lam_i t}`` (WLL eq. 10) of a linear RNN and of one
    perturbation of it at scale ``beta`` (:func:`~lrnn_core.wang_li_li.perturbation.perturb`),
    both in float64."""
    with jax.enable_x64(True):
        fitted = np.asarray(linear_rnn_kernel(params, t))
        moved = np.asarray(linear_rnn_kernel(perturb(params, beta, key, perturbed=perturbed), t))
    return fitted, moved


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


def linear_functional_splits(
    key: Array,
    sizes: Sequence[int],
    *,
    kernels: Sequence[Callable[[ArrayLike], ArrayLike]],
    L: int,
    dt: float = 1.0,
) -> list[LFData]:
    """One :func:`linear_functional_data` set per size of ``sizes`` (training, validation,
    test), each from its own part of ``key`` split ``len(sizes)`` ways (WLL Fig. 2)."""
    keys = jax.random.split(key, len(sizes))
    return [
        linear_functional_data(k, n, kernels=kernels, L=L, dt=dt)
        for k, n in zip(keys, sizes, strict=True)
    ]


def epochs_per_width(
    runs: Mapping[str, Sequence[WidthResult]], names: Sequence[str]
) -> dict[tuple[str, str], np.ndarray]:
    """The epochs each width needed to reach its threshold (``inf``: not within the budget),
    keyed ``(activation, target name)``, from the sequential-width runs of each activation (one
    run per target, in the order of ``names``)."""
    return {
        (act, name): np.array([res.epochs[r] for res in per_width])
        for act, per_width in runs.items()
        for r, name in enumerate(names)
    }


def plain_mse(
    runs: Sequence[WidthResult], x: Float[ArrayLike, "n L 1"], y: Float[ArrayLike, "runs n L 1"],
    *, activation: str,
) -> np.ndarray:  # fmt: skip
    """The plain (not time-weighted) MSE ``mean((y_hat - y[r])^2)`` on ``(x, y[r])`` of each
    width's checkpoint of each run ``r``, shape (y.shape[0], len(runs))."""
    y = jnp.asarray(y)
    out = []
    for r in range(y.shape[0]):
        row = []
        for res in runs:
            params = jax.tree.map(lambda a, r=r: a[r], res.params)
            y_hat = ctrnn_outputs(params, x, activation=activation)
            row.append(float(jnp.mean((y_hat - y[r]) ** 2)))
        out.append(row)
    return np.array(out)


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


@cache
def _test_loss_of(activation: str) -> Callable[[CTRNN, Array, Array], Array]:
    """``(params, x, y) -> time_weighted_mse(ctrnn_outputs(params, x), y)``: one function object
    per activation, so that the perturbed losses compile once per shape."""

    def loss(params: CTRNN, x: Array, y: Array) -> Array:
        return time_weighted_mse(ctrnn_outputs(params, x, activation=activation), y)

    return loss


def checkpoint_perturbation_errors(
    runs: Sequence[WidthResult],
    x: Float[ArrayLike, "n L 1"],
    y: Float[ArrayLike, "runs n L 1"],
    betas: Float[ArrayLike, " n_betas"],
    *,
    Ns: Sequence[int],
    activation: str,
    key: Array,
    draws: int,
    perturbed: str,
) -> np.ndarray:
    """``E_m(beta)`` (runs, len(Ns), n_betas) of each run's checkpoint at each width of
    ``Ns`` (WLL Def. 3.4 with Fig. 2's error): the time-weighted test MSE on ``(x, y[r])`` of
    the perturbed checkpoint, maximum over ``draws``, running maximum over the betas (the
    authors' protocol)."""
    x, y = jnp.asarray(x), jnp.asarray(y)
    picked = [res for res in runs if res.N in Ns]
    if len(picked) != len(Ns):
        raise ValueError(f"Ns {list(Ns)} must be among {[r.N for r in runs]}")
    return np.array(
        [
            [
                perturbation_error(
                    _test_loss_of(activation),
                    jax.tree.map(lambda a, r=r: a[r], res.params),
                    betas,
                    key=key,
                    draws=draws,
                    perturbed=perturbed,
                    running_max=True,
                    data=(x, y[r]),
                )
                for res in picked
            ]
            for r in range(y.shape[0])
        ]
    )


def activation_perturbation_errors(
    runs: Mapping[str, Sequence[WidthResult]],
    x: Float[ArrayLike, "n L 1"],
    y: Float[ArrayLike, "runs n L 1"],
    names: Sequence[str],
    betas: Float[ArrayLike, " n_betas"],
    *,
    Ns: Sequence[int],
    key: Array,
    draws: int,
    perturbed: str,
) -> dict[tuple[str, str], np.ndarray]:
    """:func:`checkpoint_perturbation_errors` for the runs of each activation, keyed
    ``(activation, target name)`` (the targets in the order of ``names``): WLL Fig. 2's
    ``E_m(beta)`` (Def. 3.4), shape (len(Ns), n_betas) each."""
    out = {}
    for act, per_width in runs.items():
        errors = checkpoint_perturbation_errors(
            per_width, x, y, betas, Ns=Ns, activation=act, key=key, draws=draws,
            perturbed=perturbed,
        )  # fmt: skip
        out |= {(act, name): E for name, E in zip(names, errors, strict=True)}
    return out


def widest_checkpoints(runs: Sequence[WidthResult]) -> list[CTRNN]:
    """Each run's checkpoint at the widest width (the last of ``runs``), without the run axis,
    in float64 (run inside ``jax.enable_x64(True)``): the approximants of WLL Fig. 3."""
    widest = runs[-1].params
    return [
        jax.tree.map(lambda a, i=i: jnp.asarray(a[i], jnp.float64), widest)
        for i in range(np.shape(widest.raw)[0])
    ]


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
    Ns: Sequence[int],
    beta: float,
    *,
    key: Array,
    draws: int,
    perturbed: str,
) -> dict[tuple[float, float], np.ndarray]:
    """WLL App. C analogue: for each ``(grid unit s, target rate a)``, the least-squares linear
    RNN of each width for ``exp(-a t)`` on the rate grid of unit ``s``
    (:func:`lrnn_core.wang_li_li.fitting.fit_linear_rnn`) and its ``E_m`` at ``[0, beta]``,
    shape ``(len(Ns), 2)``."""
    out = {}
    for s_unit, a in rescalings:
        rho = np.asarray(exp_memory(t, rate=a))
        out[s_unit, a] = np.array(
            [
                kernel_perturbation_error(
                    fit_linear_rnn(rho, t, N, rate=s_unit),
                    rho,
                    t,
                    [0.0, beta],
                    key=key,
                    draws=draws,
                    perturbed=perturbed,
                )  # fmt: skip
                for N in Ns
            ]
        )
    return out
