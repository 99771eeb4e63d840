"""Stable approximation and the curse of memory (Wang, Li & Li, ICLR 2024, Figs 1-3, App. C,
Thm 3.9): the chapter's sizes, the least-squares fits of Fig. 1 and of its explorer with their
perturbation errors (Def. 3.4), the data of the linear-functional targets, the epochs and the
perturbation error of trained checkpoints (Fig. 2), the stability filter of Fig. 3 and the
memories of its targets, and the statistics the stable-approximation chapter decides its claims
with (the rules themselves are on its page).

* Width behaviour of a perturbation error ``E_m(beta)`` (Def. 3.4, eq. 11 reconstructed), rows
  ``m_1 < m_2 < ...``, column 0 at ``beta = 0``: :func:`bounded_in_width` (stable, Def. 3.5:
  ``E_m(beta)`` bounded uniformly in ``m`` at each ``beta > 0``) and :func:`grows_in_width`
  (unstable: ``E_m(beta)`` grows with ``m``).
* :func:`epochs_gap`: the epoch gap of Sec. 3.3 ("approximation is achieved at 1000 epochs while
  typically exponential decaying memory achieves the approximation at 10 epochs"), the ratio of
  the total epochs of the sequential-width protocol on the polynomial target to those on the
  exponential one, and whether the budget can show it.
* :func:`ctrnn_memory`: the model side of Thm 3.9. A diagonal Euler CTRNN
  ``h_{k+1} = h_k + dt sigma(lam * h_k + B u_k + b)`` with a 1-Lipschitz monotone ``sigma`` whose
  modes all satisfy ``|1 + dt lam_i| < 1`` relaxes to a fixed point (where ``sigma`` is linear),
  and any difference of two trajectories shrinks there by at most ``max_i |1 + dt lam_i|`` per
  step, so its impulse memory (App. F, eq. 121) decays at least at the rate
  ``min_i -log|1 + dt lam_i|`` (about ``min_i |lam_i|``, the stability radius, for small steps)
  once the state has relaxed; before that a saturated unit (secant slope 0) keeps a difference
  unchanged. The rate is read on the upper envelope of the memory's relaxed tail.
  :func:`with_marginal_mode` moves one mode onto the stability boundary (``lam = 0``): the object
  without a stability radius, whose memory need not decay.

Every function runs in the caller's precision: the chapter calls them inside
``jax.enable_x64(True)`` (the polynomial targets' fits cancel far below float32).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache, partial
from typing import NamedTuple, TypeVar

import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike, Float

from lrnn_core.core.exp_sums import uniform_rates
from lrnn_core.core.memory import (
    DecayFit,
    fit_decay,
    impulse_memory,
    roundoff_floor,
    tail_ratio,
    upper_envelope,
)
from lrnn_core.core.targets import (
    TanhRNN,
    exp_memory,
    linear_functional,
    poly_memory,
    tanh_rnn_outputs,
    white_inputs,
)
from lrnn_core.core.validate import (
    as_float64,
    check_choice,
    check_shape,
    positive_int,
    positive_number,
    real_number,
)
from lrnn_core.wang_li_li.ctrnn import ACTIVATIONS, CTRNN, ctrnn_outputs, recurrent_weight
from lrnn_core.wang_li_li.fitting import (
    WidthResult,
    fit_linear_rnn,
    linear_rnn_kernel,
    time_weighted_mse,
)
from lrnn_core.wang_li_li.perturbation import (
    linear_perturbation_errors,
    perturb,
    perturbation_error,
)

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
) -> tuple[dict[tuple[str, int], CTRNN], dict[str, np.ndarray]]:
    """WLL Fig. 1 and its explorer: the least-squares linear RNN of each width for each target
    kernel, keyed ``(name, N)`` (:func:`lrnn_core.wang_li_li.fitting.fit_linear_rnn`; its readout
    ``C`` holds the coefficients ``c_i`` of eq. 10's kernel ``sum_i c_i u_i e^{lam_i t}``), and
    for each target ``E_m(beta)`` (len(Ns), len(betas)) of those fits (Def. 3.4,
    :func:`lrnn_core.wang_li_li.perturbation.linear_perturbation_errors`, the same noise for
    every width)."""
    fits = {(name, N): fit_linear_rnn(rho, t, N) for name, rho in targets.items() for N in Ns}
    errors = {
        name: linear_perturbation_errors(
            rho, t, Ns, betas, key=key, draws=draws, perturbed=perturbed
        )
        for name, rho in targets.items()
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


def linear_functional_splits(
    key: Array,
    sizes: Sequence[int],
    *,
    kernels: Sequence[Callable[[ArrayLike], ArrayLike]],
    L: int,
    dt: float = 1.0,
) -> list[LFData]:
    """The data of WLL Fig. 2, one set per size ``n`` of ``sizes`` (training, validation, test),
    each from its own part of ``key`` split ``len(sizes)`` ways: ``n`` white-noise inputs of
    length ``L`` (:func:`lrnn_core.core.targets.white_inputs`) and the outputs of the linear
    functional of each kernel ``rho`` (a function of the times ``t_k = k dt``) on them."""
    L, dt = positive_int("L", L), positive_number("dt", dt)
    if not kernels:
        raise ValueError("kernels must hold at least one memory kernel")
    t = np.arange(L) * dt
    out = []
    for k, n in zip(jax.random.split(key, len(sizes)), sizes, strict=True):
        x = white_inputs(k, positive_int("n", n), L, dt)
        y = jnp.stack([linear_functional(rho(t), x, dt) for rho in kernels])
        out.append(LFData(x[..., None], y[..., None]))
    return out


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

    def mse(res: WidthResult, r: int) -> float:
        y_hat = ctrnn_outputs(jax.tree.map(lambda a: a[r], res.params), x, activation=activation)
        return float(jnp.mean((y_hat - y[r]) ** 2))

    return np.array([[mse(res, r) for res in runs] for r in range(y.shape[0])])


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
    return lambda p, x, y: time_weighted_mse(ctrnn_outputs(p, x, activation=activation), y)


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
    """WLL Fig. 2's ``E_m(beta)`` (Def. 3.4), shape (len(Ns), n_betas), keyed ``(activation,
    target name)`` (run ``r`` of each activation's sequential-width runs fits the target
    ``names[r]``): the time-weighted test MSE on ``(x, y[r])`` of the perturbed checkpoint of
    each width of ``Ns``, maximum over ``draws``, running maximum over the betas (the authors'
    protocol)."""
    x, y = jnp.asarray(x), jnp.asarray(y)
    out = {}
    for act, per_width in runs.items():
        picked = [res for res in per_width if res.N in Ns]
        if len(picked) != len(Ns):
            raise ValueError(f"Ns {list(Ns)} must be among {[r.N for r in per_width]}")
        for r, name in enumerate(names):
            out[act, name] = np.array(
                [
                    perturbation_error(
                        _test_loss_of(act),
                        jax.tree.map(lambda a, r=r: a[r], res.params),
                        betas,
                        key=key,
                        draws=draws,
                        perturbed=perturbed,
                        running_max=True,
                        data=(x, y[r]),
                    )  # fmt: skip
                    for res in picked
                ]
            )
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
    (:func:`lrnn_core.core.exp_sums.uniform_rates`) and its ``E_m`` at ``[0, beta]``
    (:func:`lrnn_core.wang_li_li.perturbation.linear_perturbation_errors`), shape
    ``(len(Ns), 2)``."""
    return {
        (s_unit, a): linear_perturbation_errors(
            np.asarray(exp_memory(t, rate=a)),
            t,
            Ns,
            [0.0, beta],
            key=key,
            draws=draws,
            rates=partial(uniform_rates, rate=s_unit),
            perturbed=perturbed,
        )  # fmt: skip
        for s_unit, a in rescalings
    }


def _errors(errors: ArrayLike) -> np.ndarray:
    E = as_float64("errors", errors)
    if E.ndim != 2 or E.shape[0] < 2 or E.shape[1] < 2:
        raise ValueError(
            "errors must be 2-D (Ns, betas) with >= 2 widths and beta = 0 plus at least "
            f"one beta > 0, got shape {E.shape}"
        )
    if np.any(np.isnan(E)) or np.any(E < 0):
        raise ValueError("errors must be >= 0 and not NaN")
    return E


def bounded_in_width(errors: Float[ArrayLike, "Ns betas"], *, factor: float = 100.0) -> bool:
    """Stable (Def. 3.5): at every ``beta > 0`` (columns 1..) the two widest models are no worse
    than the narrowest and no width is more than ``factor`` times the narrowest."""
    E = _errors(errors)[:, 1:]
    factor = real_number("factor", factor, low=1.0)
    return bool(np.all(E[-2:] <= E[0]) and np.all(E.max(axis=0) <= factor * E[0]))


def grows_in_width(errors: Float[ArrayLike, "Ns betas"], *, factor: float = 1e6) -> bool:
    """Unstable: at every ``beta > 0`` the widest model's error exceeds ``factor`` times the
    narrowest's, and the error grows monotonically from the second width on."""
    E = _errors(errors)[:, 1:]
    factor = real_number("factor", factor, low=1.0)
    return bool(np.all(E[-1] > factor * E[0]) and np.all(np.diff(E[1:], axis=0) > 0))


class EpochsGap(NamedTuple):
    """Totals of epochs over the widths (a width that missed its threshold counts as
    ``budget + 1``, so ``polynomial`` is a lower bound), their ratio, and whether the budget
    lets the ratio reach ``min_gap`` at all (``decidable``)."""

    exponential: float
    polynomial: float
    ratio: float
    min_gap: float
    decidable: bool


def epochs_gap(
    exponential: Float[ArrayLike, " Ns"],
    polynomial: Float[ArrayLike, " Ns"],
    *,
    budget: int,
    min_gap: float = 10.0,
) -> EpochsGap:
    """The Sec. 3.3 epoch gap: ``sum(polynomial) / sum(exponential)`` epochs over the widths of
    the sequential protocol (``inf`` = not within ``budget``); it is decidable when the budget
    could show a gap of ``min_gap``, ``(budget + 1) * n >= min_gap * sum(exponential)`` for
    ``n`` widths (the chapter's rule asks a decidable gap of at least ``min_gap`` with every
    exponential width within the budget)."""
    budget = positive_int("budget", budget)
    min_gap = real_number("min_gap", min_gap, low=1.0)
    e = np.asarray(exponential, dtype=np.float64)
    p = np.asarray(polynomial, dtype=np.float64)
    check_shape("exponential", e, (None,))
    check_shape("polynomial", p, e.shape)
    if e.size == 0 or np.any(np.isnan(e)) or np.any(np.isnan(p)) or np.any(e < 0) or np.any(p < 0):
        raise ValueError("epochs must be non-empty, >= 0 and not NaN (inf: not reached)")
    exp_total = float(np.minimum(e, budget + 1).sum())
    pol_total = float(np.minimum(p, budget + 1).sum())
    if exp_total == 0:
        raise ValueError("the exponential target needed 0 epochs in total: no ratio")
    ratio = pol_total / exp_total
    decidable = bool((budget + 1) * e.size >= min_gap * exp_total)
    return EpochsGap(exp_total, pol_total, ratio, min_gap, decidable)


def epoch_gaps(
    needed: Mapping[tuple[str, str], Float[ArrayLike, " Ns"]],
    *,
    budget: int,
    min_gap: float = 10.0,
) -> dict[str, EpochsGap]:
    """:func:`epochs_gap` for each activation of ``needed`` (epochs per width keyed
    ``(activation, target)``, targets ``"exponential"`` and ``"polynomial"``)."""
    acts = dict.fromkeys(act for act, _ in needed)
    return {
        act: epochs_gap(
            needed[act, "exponential"], needed[act, "polynomial"], budget=budget, min_gap=min_gap
        )
        for act in acts
    }


class ModelMemory(NamedTuple):
    """Impulse memory of one CTRNN against its stability radius: ``radius`` ``min_i -lam_i``,
    ``predicted`` the rate ``min_i -log|1 + dt lam_i|`` (0 if a mode is not contracting),
    ``rate`` the fitted tail rate, ``tail`` the tail ratio. The chapter shows them as an
    illustration and asserts nothing on them: the argument bounds the memory by ``c e^{-rate t}``
    once the state has relaxed, and fixes no window on which a fitted rate must reach
    ``predicted``."""

    radius: float
    predicted: float
    rate: float
    tail: float


def ctrnn_memory(
    params: CTRNN,
    *,
    activation: str = "hardtanh",
    parameterisation: str = "direct",
    dt: float = 1.0,
    L: int = 1000,
    start: float = 5.0,
    depth: float = 1e-6,
) -> ModelMemory:
    """The model side of Thm 3.9 for one CTRNN (no run axis, one input and one output): its
    impulse memory over ``L`` steps (float64) against the rate its modes predict (module
    docstring). The rate is a guarantee for the relaxed state and an upper bound
    ``c e^{-rate t}``: the tail rate is fitted to the memory's upper envelope
    (:func:`lrnn_core.core.memory.upper_envelope`, so that a dip where the readout's modes
    cancel is not read as a faster decay) where it has fallen below ``depth`` times its peak
    (and above round-off), not over the relaxation, where a saturated unit (secant slope 0)
    does not shrink a difference at all; from ``t = start`` on if it never falls that far or
    too few points are left."""
    check_choice("activation", activation, ACTIVATIONS)
    L = positive_int("L", L)
    dt = positive_number("dt", dt)
    start = real_number("start", start, low=0.0)
    depth = real_number("depth", depth, low=0.0, high=1.0)
    if np.ndim(params.raw) != 1 or np.shape(params.B)[-1] != 1 or np.shape(params.C)[0] != 1:
        shapes = [np.shape(a) for a in (params.raw, params.B, params.C)]
        raise ValueError(
            "params must be one CTRNN with one input and one output (raw (N,), B (N, 1), "
            f"C (1, N)), got shapes (raw, B, C) {shapes}"
        )
    if not start < (L - 3) * dt:
        raise ValueError(f"start={start} leaves fewer than 3 points of the L={L} steps")
    with jax.enable_x64(True):
        p64 = jax.tree.map(lambda a: jnp.asarray(a, jnp.float64), params)
        lam = np.asarray(recurrent_weight(p64.raw, parameterisation))

        def model(u):
            return ctrnn_outputs(
                p64, u[:, None], activation=activation, parameterisation=parameterisation, dt=dt
            )[:, 0]

        memory = impulse_memory(model, L, dt=dt)
    factor = np.abs(1.0 + dt * lam).max()
    predicted = float(-np.log(factor) / dt) if factor < 1 else 0.0
    t = np.arange(L) * dt
    tail = tail_ratio(memory)
    envelope = upper_envelope(memory)
    rate = fit_decay(envelope, t, tail=_asymptotic_window(envelope, t, start, depth)).rate
    return ModelMemory(float(-lam.max()), predicted, float(rate), float(tail))


def _asymptotic_window(
    memory: np.ndarray, t: np.ndarray, start: float, depth: float
) -> tuple[float, float]:
    """From the first time after ``start`` where ``memory`` is below ``depth`` times its peak to
    the end, if at least 3 points there lie above the round-off floor of
    :func:`lrnn_core.core.memory.fit_decay`; else from ``start``."""
    floor = roundoff_floor(np.asarray(memory, np.float64))
    late = (t >= start) & (memory <= depth * memory.max())
    if late.any():
        first = t[np.argmax(late)]
        if np.sum((t >= first) & (memory > floor)) >= 3:
            return float(first), float(t[-1])
    return float(start), float(t[-1])


def with_marginal_mode(params: CTRNN) -> CTRNN:
    """The same CTRNN (direct parameterisation, no run axis) with the eigenvalue of its most
    visible mode (largest ``|C_i B_i|``) set to 0: a mode on the stability boundary, radius 0."""
    raw = np.asarray(params.raw)
    if raw.ndim != 1:
        raise ValueError(f"params must be one CTRNN (raw of shape (N,)), got {raw.shape}")
    weight = np.abs(np.asarray(params.C)[0] * np.asarray(params.B)[:, 0])
    return params._replace(raw=jnp.asarray(raw).at[int(np.argmax(weight))].set(0.0))
