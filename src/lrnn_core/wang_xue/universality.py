"""Stacked SSMs are universal (Wang & Xue, NeurIPS 2023, Sec. 3): the computations of the
universality chapter and the book's trained experiment. Formulas lost in the text version,
rebuilt from the words.

* Fig. 1, eq. (1)-(2): a stack ``y = H(u)`` with identity activations is linear, so the
  superposition gap ``max |H(u + v) - H(u) - H(v)| / max |H(u + v)|`` (:func:`superposition_gap`)
  is round-off; with tanh between the layers it is not.
* Fig. 2 (Prop. 3.1): the converged token-wise fits are in :mod:`lrnn_core.wang_xue.tokenwise`;
  :func:`best_converged` is the error a row of them is judged on.
* Prop. 3.2: ``rho(t) ~ sum_{i=1}^N c_i e^{-i a t}``, ``c`` by least squares
  (:func:`lrnn_core.core.exp_sums.fit_exp_sum`); :func:`exp_sum_error` is its sup error,
  :func:`kernel_fit_errors` the relative one, ``sup |rho_hat - rho| / sup |rho|``, per width;
  :func:`in_exponential_span` asks whether a kernel is matched to a tolerance.
* Remark 3.7 (Fig. 3): a generic kernel ``lambda_0..lambda_{L-1}`` needs ``N = L`` fixed rates
  (a square Vandermonde system) and ``ceil(L/2)`` free ones (the rank of its Hankel matrix,
  :mod:`lrnn_core.wang_xue.prony`): :func:`mode_counts`.
* Prop. 3.9 (Fig. 4): :func:`k2_ranks`, the rank of the second-order kernel ``k2(i, j)``; and the
  book's trained experiment: stacked SSMs trained on sequence-to-sequence targets, scored by the
  normalised mean squared error

      NMSE = mean_{n,k} (yhat^n_k - y^n_k)^2 / mean_{n,k} (y^n_k)^2     (1 = predicting zero)

  on held-out i.i.d. standard normal inputs, against the two baselines of every trained row
  (:mod:`lrnn_core.core.baselines`: the mean training output, and the better of the two
  least-squares causal linear maps, the time-invariant filter and the time-varying map with a row
  of taps per step; :func:`baseline_nmse`), in the same units. :func:`delay_product` is the
  book's *off-class* target ``y_k = u_{k-i} u_{k-j}``: a second-order Volterra map whose kernel
  is a delayed point mass, which sums of a few decaying exponentials match only with many of
  them. :func:`normalised`
  divides a target by its standard deviation on the test inputs; :func:`train_grid` runs
  :func:`train_stack` on every (target, depth, ``N``) of a grid; :func:`best_nmse` and
  :func:`length_ratio` read the grid.

Training (ours): :func:`lrnn_core.core.train.train`, Adam with a cosine-decaying step size from
``1e-2``, a fresh batch of 32 sequences of length ``L`` per step. NumPy float64 elsewhere.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax import nnx
from jaxtyping import Array, ArrayLike, Float

from lrnn_core.core.baselines import ignores_input_mse, linear_mses
from lrnn_core.core.exp_sums import exp_sum, fit_exp_sum, uniform_rates
from lrnn_core.core.stacked import ACTIVATIONS, StackedSSM
from lrnn_core.core.train import mse_loss, train
from lrnn_core.core.validate import (
    as_float64,
    check_choice,
    check_shape,
    nonnegative_int,
    positive_int,
    positive_number,
    real_number,
    seed_list,
)
from lrnn_core.wang_xue.prony import min_modes, prony_fit
from lrnn_core.wang_xue.volterra import Volterra2, volterra_kernels

Target = Callable[[Array], Array]
#: The trained runs of Fig. 4, keyed ``(target, depth, N)`` (:func:`train_stack`'s results).
Grid = Mapping[tuple[str, int, int], Mapping[str, float | np.ndarray]]


class Sizes(NamedTuple):
    """The sizes of the chapter's experiments, chosen once by the scale setting."""

    tok_Ns: tuple[int, ...]  # Prop. 3.1: widths N of the token-wise layer
    tok_starts: int  # ... random starts of the converged fit per width
    L: int  # Volterra experiments: training sequence length
    depths: tuple[int, ...]  # ... stack depths
    Ns: tuple[int, ...]  # ... stack widths N
    n_seeds: int  # ... initialisations per (depth, N)
    steps: int  # ... Adam steps (a fresh batch of 32 sequences each)
    long: int  # ... test length multiplier for the length check


def superposition_gap(
    activation: str, *, seed: int, rng: np.random.Generator, N: int = 8, L: int = 50
) -> float:
    """``max |H(u + v) - H(u) - H(v)| / max |H(u + v)|`` for a float64
    ``H = StackedSSM(1, N, 1, depth=2)`` initialised from ``seed`` with zero layer biases (so
    that tanh is visibly non-linear at 0), ``u, v`` standard normal of length ``L`` from ``rng``."""
    activation = check_choice("activation", activation, tuple(ACTIVATIONS))
    N, L = positive_int("N", N), positive_int("L", L)
    with jax.enable_x64(True):
        model = StackedSSM(
            1, N, 1, depth=2, activation=activation, param_dtype=jnp.float64,
            rngs=nnx.Rngs(seed),
        )  # fmt: skip
        for layer in model.layers:
            layer.b[...] = jnp.zeros(N)
        u, v = rng.standard_normal((2, L, 1))

        def y(x: np.ndarray) -> np.ndarray:
            return np.asarray(model(x))

        return float(np.abs(y(u + v) - y(u) - y(v)).max() / np.abs(y(u + v)).max())


def best_converged(
    errors: Mapping[int, float], converged: Mapping[int, bool]
) -> tuple[float, bool]:
    """The error a row of fits is judged on (Fig. 2): the smallest test error among the fits
    whose solver converged, and True; when none converged, the widest fit's error and False (an
    unconverged fit certifies nothing). Both mappings are keyed by the width."""
    if not errors or set(errors) != set(converged):
        raise ValueError(
            f"errors and converged must name the same widths, got {sorted(errors)} and "
            f"{sorted(converged)}"
        )
    certified = [real_number(f"errors[{w}]", e, low=0.0) for w, e in errors.items() if converged[w]]
    if not certified:
        return real_number("errors", errors[max(errors)], low=0.0), False
    return min(certified), True


def exp_sum_error(
    rho: Float[ArrayLike, " T"], t: Float[ArrayLike, " T"], n: int, step: float
) -> float:
    """``max_k |sum_{i=1}^n c_i e^{-i step t_k} - rho_k|`` for the least-squares ``c``."""
    rho = as_float64("rho", rho)
    rates = uniform_rates(n, step)
    return float(np.abs(exp_sum(fit_exp_sum(rho, t, rates), rates, t) - rho).max())


def kernel_fit_errors(
    kernels: Mapping[str, Float[ArrayLike, " T"]],
    t: Float[ArrayLike, " T"],
    Ns: Sequence[int],
    *,
    step: float = 0.1,
) -> dict[str, Float[np.ndarray, " n"]]:
    """Prop. 3.2: for each kernel, the relative sup error ``sup |rho_hat - rho| / sup |rho|`` of
    the least-squares sum of ``N`` exponentials with rates ``step, ..., N step``, per width
    ``N`` in ``Ns``."""
    out = {}
    for name, rho in kernels.items():
        rho = as_float64(f"kernels[{name!r}]", rho)
        scale = np.abs(rho).max()
        out[name] = np.array([exp_sum_error(rho, t, n, step) / scale for n in Ns])
    return out


def in_exponential_span(
    rho: Float[ArrayLike, " T"],
    t: Float[ArrayLike, " T"],
    n: int,
    *,
    step: float = 0.1,
    tol: float = 1e-6,
) -> tuple[bool, float]:
    """Prop. 3.2: ``(error <= tol, error)`` for the relative sup error of the least-squares fit of
    ``rho`` by ``sum_{i=1}^n c_i e^{-i step t}`` (:func:`exp_sum_error` over ``sup |rho|``)."""
    rho = as_float64("rho", rho)
    check_shape("rho", rho, (None,))
    error = exp_sum_error(rho, t, n, step) / float(np.max(np.abs(rho)))
    return error <= positive_number("tol", tol), error


class ModeCount(NamedTuple):
    """Fig. 3 at one length ``L``. Fixed rates: the sup error with ``N = L - 1`` and ``N = L``
    exponentials, and the condition number ``cond`` of the square ``L x L`` system. Free rates:
    the fewest modes of the kernel (:func:`min_modes`), Prony's sup error with ``L // 2`` modes,
    and the fewest modes of the control kernel."""

    short_error: float
    full_error: float
    cond: float
    modes: int
    prony_error: float
    control_modes: int


def _kernels(kernels: Mapping[int, Float[ArrayLike, " L"]]) -> dict[int, np.ndarray]:
    out = {}
    for L, lam in kernels.items():
        out[L] = as_float64(name := f"kernels[{L}]", lam)
        check_shape(name, out[L], (positive_int("L", L),))
    return out


def mode_counts(
    kernels: Mapping[int, Float[ArrayLike, " L"]],
    controls: Mapping[int, Float[ArrayLike, " L"]],
    *,
    step: float = 0.5,
) -> dict[int, ModeCount]:
    """Remark 3.7, per length ``L`` (both mappings keyed by ``L``, kernels of length ``L``).
    With fixed rates ``step, ..., N step`` on the steps ``t = 0..L-1``, a kernel of ``L``
    generic values is matched by ``N = L`` exponentials (up to round-off amplified by
    ``cond``), not by ``N = L - 1``; with free (complex) rates it needs ``ceil(L/2)`` modes,
    which Prony's method finds (:mod:`lrnn_core.wang_xue.prony`)."""
    kernels, controls = _kernels(kernels), _kernels(controls)
    if set(kernels) != set(controls):
        raise ValueError(f"kernels and controls must share the lengths, got {sorted(controls)}")
    out = {}
    for L, lam in kernels.items():
        t = np.arange(L, dtype=float)
        short, full = (exp_sum_error(lam, t, n, step) for n in (L - 1, L))
        cond = float(np.linalg.cond(np.exp(-np.outer(t, uniform_rates(L, step)))))
        free = min_modes(lam), prony_fit(lam, L // 2)[2], min_modes(controls[L])
        out[L] = ModeCount(short, full, cond, *free)
    return out


def k2_ranks(
    targets: Mapping[str, Volterra2], lengths: Sequence[int]
) -> dict[tuple[str, int], int]:
    """Prop. 3.9: the rank of ``k2(i, j)``, ``i, j < L``, per target and length ``L``."""
    return {
        (name, L): np.linalg.matrix_rank(volterra_kernels(target, L)[1])
        for name, target in targets.items()
        for L in lengths
    }


def delay_product(
    u: Float[ArrayLike, "*batch L"], i: int = 3, j: int = 7
) -> Float[Array, "*batch L"]:
    """``y_k = u_{k-i} u_{k-j}`` (``u_{<0} = 0``) for inputs ``(..., L)``."""
    u = jnp.asarray(u)
    i, j = nonnegative_int("i", i), nonnegative_int("j", j)

    def delay(x: Array, d: int) -> Array:
        pad = [(0, 0)] * (x.ndim - 1) + [(d, 0)]
        return jnp.pad(x, pad)[..., : x.shape[-1]]

    return delay(u, i) * delay(u, j)


def nmse(pred: Float[ArrayLike, ...], y: Float[ArrayLike, ...]) -> float:
    """``mean (pred - y)^2 / mean y^2``."""
    pred, y = as_float64("pred", pred), as_float64("y", y)
    check_shape("pred", pred, y.shape)
    return float(np.mean((pred - y) ** 2) / np.mean(y**2))


#: The two least-squares causal linear maps whose better one is the "linear" baseline.
LINEAR_MAPS = ("time-invariant filter", "time-varying map")


def baseline_nmse(
    target: Target, u_train: Float[ArrayLike, "n L"], u_test: Float[ArrayLike, "m L"]
) -> dict[str, float]:
    """The baselines' NMSE on ``u_test``, fitted on ``(u_train, target(u_train))``:
    ``{"ignores input": ..., "linear": ..., "time-invariant filter": ...,
    "time-varying map": ...}``, with ``"linear"`` the smaller of the last two
    (:func:`lrnn_core.core.baselines.linear_mses`)."""
    y_train, y_test = np.asarray(target(u_train)), np.asarray(target(u_test))
    power = float(np.mean(y_test**2))
    maps = {k: v / power for k, v in linear_mses(u_train, y_train, u_test, y_test).items()}
    base = {"ignores input": ignores_input_mse(y_train, y_test) / power}
    return base | {"linear": min(maps[k] for k in LINEAR_MAPS)} | maps


def train_stack(
    target: Target,
    *,
    depth: int,
    N: int,
    L: int,
    steps: int,
    seeds: tuple[int, ...],
    u_test: Float[ArrayLike, "n L"],
    u_long: Float[ArrayLike, "n L_long"] | None = None,
    activation: str = "tanh",
) -> dict[str, float | np.ndarray]:
    """Train ``StackedSSM(1, N, 1, depth=depth, residual=True, activation=activation)`` on
    ``target`` (module docstring), one model per seed; returns the median test ``nmse`` (and
    ``nmse_long`` on ``u_long``) and, for the first seed, ``pred`` and ``target`` of the first
    test sequence."""
    depth, N, L = (positive_int(n, v) for n, v in (("depth", depth), ("N", N), ("L", L)))
    steps, seeds = positive_int("steps", steps), seed_list("seeds", seeds)
    activation = check_choice("activation", activation, tuple(ACTIVATIONS))

    def batch(key: Array) -> tuple[Array, Array]:
        u = jax.random.normal(key, (32, L))
        return u[..., None], target(u)[..., None]

    def model(rngs: nnx.Rngs) -> StackedSSM:
        return StackedSSM(1, N, 1, depth=depth, residual=True, activation=activation, rngs=rngs)

    optimizer = optax.adam(optax.cosine_decay_schedule(1e-2, steps))
    result = train(model, mse_loss, batch, steps=steps, seed=seeds, optimizer=optimizer,
                   progress=False)  # fmt: skip

    def median_nmse(u: ArrayLike) -> tuple[float, np.ndarray, np.ndarray]:
        """The median NMSE of the models on the inputs ``u``, the first model's outputs and
        the targets."""
        u = jnp.asarray(u)
        y = np.asarray(target(u))
        preds = [np.asarray(result.model(i)(u[..., None]))[..., 0] for i in range(len(seeds))]
        return float(np.median([nmse(p, y) for p in preds])), preds[0], y

    score, pred, y_test = median_nmse(u_test)
    out: dict[str, float | np.ndarray] = {"pred": pred[0], "target": y_test[0], "nmse": score}
    if u_long is not None:
        out["nmse_long"] = median_nmse(u_long)[0]
    return out


def normalised(target: Target, u_test: Float[ArrayLike, "n L"]) -> Target:
    """``u -> target(u) / std(target(u_test))``: the target in units of its test spread."""
    scale = float(jnp.std(target(jnp.asarray(u_test))))
    if not scale > 0:
        raise ValueError(f"the target is constant on u_test (std {scale})")
    return lambda u: target(u) / scale


def train_grid(
    targets: Mapping[str, Target], *, depths: Sequence[int], Ns: Sequence[int], **kwargs
) -> dict[tuple[str, int, int], dict[str, float | np.ndarray]]:
    """:func:`train_stack` (tanh) for every target, depth and width ``N``, keyed
    ``(name, depth, N)`` in that order; ``kwargs`` (``L``, ``steps``, ``seeds``, ``u_test``,
    ``u_long``) go to every :func:`train_stack`."""
    return {
        (name, depth, N): train_stack(target, depth=depth, N=N, **kwargs)
        for name, target in targets.items()
        for depth in depths
        for N in Ns
    }


def best_nmse(grid: Grid) -> dict[str, float]:
    """Fig. 4: the smallest test NMSE per target over every depth and width."""
    best: dict[str, float] = {}
    for (name, _, _), r in grid.items():
        best[name] = min(best.get(name, np.inf), float(r["nmse"]))
    return best


def length_ratio(grid: Grid) -> float:
    """Fig. 4: the largest ratio of a stack's NMSE on the longer sequences to that at ``L``."""
    return max(float(r["nmse_long"] / r["nmse"]) for r in grid.values())
