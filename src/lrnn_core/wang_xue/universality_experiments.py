"""The computations of the universality chapter (Wang & Xue, NeurIPS 2023, Sec. 3) that are not
training runs: the sizes of its experiments (:class:`Sizes`), the superposition test of Fig. 1,
the exponential-sum fits of Prop. 3.2 and Remark 3.7 (Fig. 3), and the rank of the Volterra
kernels of Prop. 3.9 (Fig. 4). Formulas lost in the text version, rebuilt from the words.

* Fig. 1, eq. (1)-(2): a stack ``y = H(u)`` with identity activations is linear, so the
  superposition gap ``max |H(u + v) - H(u) - H(v)| / max |H(u + v)|`` (:func:`superposition_gap`)
  is round-off; with tanh between the layers it is not.
* Prop. 3.2: ``rho(t) ~ sum_{i=1}^N c_i e^{-i a t}``, ``c`` by least squares
  (:func:`lrnn_core.core.exp_sums.fit_exp_sum`); :func:`exp_sum_error` is its sup error,
  :func:`kernel_fit_errors` the relative one, ``sup |rho_hat - rho| / sup |rho|``, per width.
* Remark 3.7 (Fig. 3): a generic kernel ``lambda_0..lambda_{L-1}`` needs ``N = L`` fixed rates
  (:func:`fixed_rate_fits`, a square Vandermonde system) and ``ceil(L/2)`` free ones
  (:func:`free_rate_modes`, the rank of its Hankel matrix, :mod:`lrnn_core.wang_xue.prony`).
* Prop. 3.9 (Fig. 4): :func:`k2_ranks`, the rank of the second-order kernel ``k2(i, j)``.

NumPy float64.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from flax import nnx
from jaxtyping import ArrayLike, Float

from lrnn_core.core.exp_sums import exp_sum, fit_exp_sum, uniform_rates
from lrnn_core.core.stacked import ACTIVATIONS, StackedSSM
from lrnn_core.core.validate import as_float64, check_choice, check_shape, positive_int
from lrnn_core.wang_xue.prony import min_modes, prony_fit
from lrnn_core.wang_xue.volterra import Volterra2, volterra_kernels

__all__ = [
    "FixedRateFit",
    "FreeRateModes",
    "Sizes",
    "exp_sum_error",
    "fixed_rate_fits",
    "free_rate_modes",
    "k2_ranks",
    "kernel_fit_errors",
    "superposition_gap",
]


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


class FixedRateFit(NamedTuple):
    """Fig. 3, fixed rates, at one length ``L``: the sup error with ``N = L - 1`` and ``N = L``
    exponentials, and the condition number ``cond`` of the square ``L x L`` system."""

    L: int
    short_error: float
    full_error: float
    cond: float


def _kernels(kernels: Mapping[int, Float[ArrayLike, " L"]]) -> dict[int, np.ndarray]:
    out = {}
    for L, lam in kernels.items():
        lam = as_float64(f"kernels[{L}]", lam)
        check_shape(f"kernels[{L}]", lam, (positive_int("L", L),))
        out[L] = lam
    return out


def fixed_rate_fits(
    kernels: Mapping[int, Float[ArrayLike, " L"]], *, step: float = 0.5
) -> list[FixedRateFit]:
    """Remark 3.7 with fixed rates ``step, ..., N step`` on the steps ``t = 0..L-1``: a kernel of
    ``L`` generic values (``kernels[L]``) is matched by ``N = L`` exponentials (up to round-off
    amplified by ``cond``), not by ``N = L - 1``."""
    rows = []
    for L, lam in _kernels(kernels).items():
        t = np.arange(L, dtype=float)
        short, full = (exp_sum_error(lam, t, n, step) for n in (L - 1, L))
        cond = float(np.linalg.cond(np.exp(-np.outer(t, uniform_rates(L, step)))))
        rows.append(FixedRateFit(L, short, full, cond))
    return rows


class FreeRateModes(NamedTuple):
    """Fig. 3, free rates, at one length: the fewest modes of the kernel (:func:`min_modes`),
    Prony's sup error with ``L // 2`` modes, and the fewest modes of the control kernel."""

    modes: int
    prony_error: float
    control_modes: int


def free_rate_modes(
    kernels: Mapping[int, Float[ArrayLike, " L"]],
    controls: Mapping[int, Float[ArrayLike, " L"]],
) -> dict[int, FreeRateModes]:
    """Remark 3.7 with free (complex) rates: per length ``L``, :class:`FreeRateModes` of
    ``kernels[L]`` and of ``controls[L]`` (both of length ``L``)."""
    kernels, controls = _kernels(kernels), _kernels(controls)
    if set(kernels) != set(controls):
        raise ValueError(f"kernels and controls must share the lengths, got {sorted(controls)}")
    return {
        L: FreeRateModes(min_modes(lam), prony_fit(lam, L // 2)[2], min_modes(controls[L]))
        for L, lam in kernels.items()
    }


def k2_ranks(
    targets: Mapping[str, Volterra2], lengths: Sequence[int]
) -> dict[tuple[str, int], int]:
    """Prop. 3.9: the rank of ``k2(i, j)``, ``i, j < L``, per target and length ``L``."""
    return {
        (name, L): np.linalg.matrix_rank(volterra_kernels(target, L)[1])
        for name, target in targets.items()
        for L in lengths
    }
