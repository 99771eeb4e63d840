"""Controlled ODE flows as sequence-to-sequence maps (Orvieto et al., ICML 2024, §4.2, App. E.3).

A controlled ODE ``dz/dt = f(z, v(t))`` read through ``y = h(z)`` maps an input sequence
``v_k = v(k dt)`` to the output sequence ``y_k = z_1(k dt)``, ``k = 0..L-1``: a causal, regular,
non-linear map that a linear recurrence followed by an MLP should approximate (Thm. 1 of the paper).
App. E.3 gives three systems, each with its step ``dt`` and length ``L``:

* Protein Transduction (PT; Vyshemirsky & Girolami, 2008), input added to ``dz_1``,
  ``dt = 0.01``, ``L = 2048``;
* Lotka-Volterra (LV; Lotka, 1925; Volterra, 1928), input added to ``dz_2``, ``dt = 0.01``,
  ``L = 2048``;
* Lorenz (LZ; Lorenz, 1963), input added to ``dz_2``, ``dt = 0.002``, ``L = 512`` (chaotic).

The paper integrates "by Runge-Kutta with stepsize dt" (App. E.3; "RK45" in §4.2). We use diffrax's
Dormand-Prince 5(4) (the RK45 pair) at the constant step ``dt``, with the input linearly
interpolated between the samples ``v_k``; the text gives no interpolation. Inputs are "a linear
combination of 16 base wavelets of low frequency"; the family and the coefficient law are not in the
text: :func:`low_frequency_inputs` states ours.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import NamedTuple

import diffrax
import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike, Float

from lrnn_core.core.validate import (
    as_float64,
    check_choice,
    check_finite,
    check_ndim,
    check_type,
    positive_int,
    positive_number,
)
from lrnn_core.orvieto.wavelets import wavelet_basis

Field = Callable[[Array, Array], Array]


class ControlledODE(NamedTuple):
    """``dz/dt = field(z, v)``, ``z(0) = z0``, read as ``y_k = z_1(k dt)`` for ``k < L``."""

    name: str
    field: Field
    z0: tuple[float, ...]
    dt: float
    L: int


# The fields are module-level functions, so that ode(name) returns an equal (hashable) system on
# every call and trajectories() traces and compiles each system, at each shape, once per process.


def _pt_field(z: Array, v: Array) -> Array:
    k1, k2, k3, k4, V, Km = 0.07, 0.6, 0.05, 0.3, 0.017, 0.3
    z1, _, z3, z4, z5 = z
    binding = k2 * z1 * z3
    release = V * z5 / (Km + z5)
    return jnp.stack(
        [
            -k1 * z1 - binding + k3 * z4 + v,
            k1 * z1,
            -binding + k3 * z4 + release,
            binding - (k3 + k4) * z4,
            k4 * z4 - release,
        ]
    )


def _lv_field(z: Array, v: Array) -> Array:
    a, b, c, d = 1.0, 0.6, 1.0, 0.7
    z1, z2 = z
    return jnp.stack([z1 * (a - b * z2), -z2 * (c - d * z1) + v])


def _lz_field(z: Array, v: Array) -> Array:
    sigma, r, b = 10.0, 26.0, 8.0 / 3.0
    z1, z2, z3 = z
    return jnp.stack([sigma * (z2 - z1), (r - z3) * z1 - z2 + v, z1 * z2 - b * z3])


def protein_transduction() -> ControlledODE:
    """PT (App. E.3; Vyshemirsky & Girolami, 2008): k1 = 0.07, k2 = 0.6, k3 = 0.05, k4 = 0.3,
    V = 0.017, Km = 0.3, z(0) = (1, 0, 1, 0, 0); the input drives ``dz_1``."""
    return ControlledODE("Protein Transduction", _pt_field, (1.0, 0.0, 1.0, 0.0, 0.0), 0.01, 2048)


def lotka_volterra() -> ControlledODE:
    """LV (App. E.3; Dondelinger et al., 2013): a = 1, b = 0.6, c = 1, d = 0.7, z(0) = (1, 0.5);
    the input drives ``dz_2``."""
    return ControlledODE("Lotka-Volterra", _lv_field, (1.0, 0.5), 0.01, 2048)


def lorenz() -> ControlledODE:
    """LZ (App. E.3; Lorenz, 1963): sigma = 10, r = 26, b = 8/3,
    z(0) = (-0.89229143, 1.08417925, 2.34322702); the input drives ``dz_2``."""
    return ControlledODE("Lorenz", _lz_field, (-0.89229143, 1.08417925, 2.34322702), 0.002, 512)


#: The three systems of App. E.3 by the paper's abbreviations.
SYSTEMS: dict[str, Callable[[], ControlledODE]] = {
    "PT": protein_transduction,
    "LV": lotka_volterra,
    "LZ": lorenz,
}


def low_frequency_inputs(
    rng: np.random.Generator,
    n_seqs: int,
    L: int,
    *,
    amplitude: float,
    n_wavelets: int = 16,
    wavelet: str = "db4",
) -> Float[np.ndarray, "n_seqs L"]:
    """``n_seqs`` random inputs ``v = amplitude sqrt(L / n_wavelets) Psi alpha``, with
    ``alpha ~ N(0, I)`` (App. E.3: "a linear combination of 16 base wavelets of low frequency").

    ``Psi`` holds the ``n_wavelets`` scaling functions of the coarsest level of an orthonormal
    periodic ``wavelet`` basis (Daubechies-4 by default: smooth, unlike Haar), so every input varies
    on the scale ``L / n_wavelets`` steps; the factor makes ``amplitude`` the expected root mean
    square of ``v``. Family, level and coefficient law are our choices: the paper gives none.
    Float64, shape ``(n_seqs, L)``.
    """
    n_seqs, L = positive_int("n_seqs", n_seqs), positive_int("L", L)
    n_wavelets = positive_int("n_wavelets", n_wavelets)
    amplitude = positive_number("amplitude", amplitude)
    level = int(np.log2(L // n_wavelets)) if L % n_wavelets == 0 else 0
    if level < 1 or n_wavelets * 2**level != L:
        raise ValueError(
            f"L / n_wavelets must be a power of two >= 2, got L={L}, n_wavelets={n_wavelets}"
        )
    basis = wavelet_basis(L, n_wavelets, wavelet, level)
    alpha = rng.standard_normal((n_seqs, n_wavelets))
    return amplitude * np.sqrt(L / n_wavelets) * alpha @ basis.T


def _solve_one(system: ControlledODE, v: Array) -> Array:
    """``z(k dt)``, ``k < L``, for one input ``v`` of shape ``(L,)`` (Dopri5 at step ``dt``)."""
    ts = system.dt * jnp.arange(system.L, dtype=jnp.float64)
    drive = diffrax.LinearInterpolation(ts=ts, ys=v)
    term = diffrax.ODETerm(lambda t, z, args: system.field(z, drive.evaluate(t)))
    sol = diffrax.diffeqsolve(
        term,
        diffrax.Dopri5(),
        t0=ts[0],
        t1=ts[-1],
        dt0=system.dt,
        y0=jnp.asarray(system.z0, jnp.float64),
        saveat=diffrax.SaveAt(ts=ts),
        stepsize_controller=diffrax.ConstantStepSize(),
        max_steps=system.L,
        throw=False,
    )
    return sol.ys


def trajectories(
    system: ControlledODE, v: Float[ArrayLike, "*batch L"]
) -> Float[np.ndarray, "*batch L dim"]:
    """The states ``z(k dt)``, ``k < L``, of ``system`` under inputs ``v`` (..., L), float64.

    Float64 because the outputs are ground truth for an approximation whose errors reach 1e-4
    and, for Lorenz, because float32 rounding alone would be amplified by the chaotic flow. A
    trajectory that blows up comes back as non-finite values (``np.isfinite`` finds them).
    """
    check_type("system", system, ControlledODE)
    v = as_float64("v", v)
    check_ndim("v", v, 1)
    check_finite("v", v)
    if v.shape[-1] != system.L:
        raise ValueError(
            f"v must have last axis of length L = {system.L} ({system.name}), got shape {v.shape}"
        )
    system = system._replace(z0=tuple(float(x) for x in system.z0))  # hashable: jit's static key
    with jax.enable_x64(True):
        z = _solve_rows(system, jnp.asarray(v.reshape(-1, system.L)))
        return np.asarray(z).reshape(v.shape + (len(system.z0),))


@partial(jax.jit, static_argnums=0)
def _solve_rows(system: ControlledODE, rows: Array) -> Array:
    """:func:`_solve_one` for every row, compiled once per system and shape."""
    return jax.vmap(lambda row: _solve_one(system, row))(rows)


def solve(system: ControlledODE, v: Float[ArrayLike, "*batch L"]) -> Float[np.ndarray, "*batch L"]:
    """The outputs ``y_k = z_1(k dt)`` of ``system`` under inputs ``v`` (..., L), float64 (App.
    E.3: the first component is read out in all three systems)."""
    return trajectories(system, v)[..., 0]


def ode(name: str) -> ControlledODE:
    """The system of App. E.3 named ``"PT"``, ``"LV"`` or ``"LZ"``."""
    return SYSTEMS[check_choice("name", name, tuple(SYSTEMS))]()
