"""How the controlled-ODE maps of Orvieto et al. (ICML 2024, App. E.3) respond to their input:
distance from an affine map, the input-driven share of the output, and the Lorenz sensitivity of
Fig. 13 (relative output change under a tiny input perturbation, lobe changes)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from jaxtyping import ArrayLike, Float

from lrnn_core.core.validate import (
    as_float64,
    check_choice,
    check_ndim,
    nonnegative_int,
    positive_int,
    positive_number,
)
from lrnn_core.orvieto.ode_data import AMPLITUDE
from lrnn_core.orvieto.odes import SYSTEMS, low_frequency_inputs, ode, solve

__all__ = [
    "Sensitivity",
    "lobe_change_share",
    "nonlinearity",
    "perturbed_outputs",
    "relative_change",
    "sensitivity_run",
]


def lobe_change_share(y: Float[ArrayLike, "n L"], y_ref: Float[ArrayLike, "*n L"]) -> float:
    """Share of the time the outputs ``y`` (rows) sit on the other lobe than their reference:
    ``mean_{n,k} [sign(y^n_k) != sign(r^n_k)]``, with ``r^n = y_ref`` (one trajectory, e.g. the
    unforced one) or ``y_ref[n]`` (one per row). Fig. 13: the input moves ``z_1`` between the
    two lobes of the Lorenz attractor. (Counting a row as changed if its sign differs at *some*
    step scores nearly every forced output, since zero crossings shift by a step or two.)"""
    y, y_ref = as_float64("y", y), as_float64("y_ref", y_ref)
    check_ndim("y", y, 2)
    if y_ref.shape not in {y.shape, y.shape[1:]}:
        raise ValueError(f"y_ref must have shape {y.shape[1:]} or {y.shape}, got {y_ref.shape}")
    return float(np.mean(np.sign(y) != np.sign(y_ref)))


def perturbed_outputs(
    system: str, n: int, relative: float, *, seed: int, amplitude: float | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Outputs ``z_1`` (unscaled) of ``system`` for ``n`` inputs ``v`` and for ``v + relative *
    w``, ``w`` an independent low-frequency input of the same amplitude (Fig. 13: tiny input
    changes, large output changes). Returns ``(y, y_perturbed)``, each ``(n, L)``."""
    system = check_choice("system", system, tuple(SYSTEMS))
    relative = positive_number("relative", relative)
    spec = ode(system)
    amplitude = AMPLITUDE[system] if amplitude is None else positive_number("amplitude", amplitude)
    rng = np.random.default_rng(nonnegative_int("seed", seed))
    n = positive_int("n", n)
    draws = low_frequency_inputs(rng, 2 * n, spec.L, amplitude=amplitude)
    v, w = draws[:n], draws[n:]
    return solve(spec, v), solve(spec, v + relative * w)


def nonlinearity(
    system: str, amplitude: float, n: int, *, seed: int, L: int | None = None
) -> tuple[float, float]:
    """How non-linear and how input-driven the map of ``system`` is at input RMS ``amplitude``,
    on ``n`` inputs ``v`` of :func:`low_frequency_inputs` (first ``L`` steps, default the paper's):

    * relative non-linearity ``||y(2v) - 2 y(v) + y(0)|| / ||2 (y(v) - y(0))||`` (0 for an affine
      map: the second difference of the response over the amplitude, relative to its first);
    * input-driven share of the output variance ``mean_n ||y(v^n) - ybar||^2 / mean_n ||y(v^n) -
      mean(y)||^2`` with ``ybar`` the mean trajectory (the rest is the shared free response).

    Divergent trajectories (non-finite) are left out of both."""
    system = check_choice("system", system, tuple(SYSTEMS))
    amplitude = positive_number("amplitude", amplitude)
    spec = ode(system)
    spec = spec._replace(L=spec.L if L is None else positive_int("L", L))
    rng = np.random.default_rng(nonnegative_int("seed", seed))
    n = positive_int("n", n)
    v = low_frequency_inputs(rng, n, spec.L, amplitude=amplitude)
    y = solve(spec, np.concatenate([np.zeros((1, spec.L)), v, 2 * v]))  # one compiled shape
    y0, y1, y2 = y[:1], y[1 : n + 1], y[n + 1 :]
    ok = np.all(np.isfinite(y1), axis=1) & np.all(np.isfinite(y2), axis=1)
    if not ok.any():
        raise ValueError(f"{system}: every trajectory diverges at amplitude {amplitude}")
    y1, y2 = y1[ok], y2[ok]
    second = np.linalg.norm(y2 - 2 * y1 + y0) / np.linalg.norm(2 * (y1 - y0))
    share = np.mean((y1 - y1.mean(axis=0)) ** 2) / np.mean((y1 - y1.mean()) ** 2)
    return float(second), float(share)


def relative_change(y: Float[ArrayLike, "n L"], y2: Float[ArrayLike, "n L"]) -> np.ndarray:
    """``max_k |y_k - y2_k| / std(y)`` per pair (rows), the Fig. 13 sensitivity measure."""
    y, y2 = as_float64("y", y), as_float64("y2", y2)
    check_ndim("y", y, 2)
    return np.max(np.abs(y - y2), axis=1) / np.std(y)


class Sensitivity(NamedTuple):
    """Fig. 13: Lorenz outputs ``y`` (unscaled ``z_1``), ``y2`` under the perturbed inputs, the
    unforced ``y_free`` (``v = 0``), and the relative changes of Lorenz and of the Lotka-Volterra
    control (:func:`relative_change`)."""

    y: np.ndarray
    y2: np.ndarray
    y_free: np.ndarray
    change: np.ndarray
    lv_change: np.ndarray


def sensitivity_run(
    relative: float,
    n: int,
    n_control: int,
    *,
    seed: int,
    control_seed: int,
    control_amplitude: float,
) -> Sensitivity:
    """``n`` Lorenz inputs and ``n_control`` Lotka-Volterra inputs (RMS ``control_amplitude``),
    each perturbed by ``relative`` times an independent input (:func:`perturbed_outputs`)."""
    y, y2 = perturbed_outputs("LZ", n, relative, seed=seed)
    lv_y, lv_y2 = perturbed_outputs(
        "LV", n_control, relative, seed=control_seed, amplitude=control_amplitude
    )
    y_free = solve(ode("LZ"), np.zeros((1, y.shape[1])))[0]
    return Sensitivity(y, y2, y_free, relative_change(y, y2), relative_change(lv_y, lv_y2))
