"""Eigenvalue laws for diagonal linear recurrences and the LRU exponential parameterisation.

Ring law (Orvieto et al., ICML 2024, §4.1): ``lambda ~ T[r_min, r_max] = {lambda in C |
r_min <= |lambda| <= r_max}``, uniform in area, i.e. ``|lambda| = sqrt(U(r_min^2, r_max^2))`` and
``arg lambda ~ U(0, max_phase)`` (Orvieto et al., 2023, "Resurrecting recurrent neural networks
for long sequences", Lemma 2 and §3.4).

LRU parameterisation (Orvieto et al., 2023, §3.3-3.4):
``lambda = exp(-exp(nu_log) + i exp(theta_log))``, so ``|lambda| = exp(-exp(nu_log)) < 1`` for
every finite ``nu_log`` and ``arg lambda = exp(theta_log)``.
"""

from __future__ import annotations

import math
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import DTypeLike
from jaxtyping import Array, ArrayLike, Complex, Float

from lrnn_core.core.validate import (
    as_inexact,
    check_finite,
    check_not_empty,
    check_real,
    check_stable,
    inexact_dtype,
    positive_int,
    positive_number,
    real_number,
)

TWO_PI = 2 * math.pi


def _check_radii(r_min: float, r_max: float, lowest: float = 0.0) -> tuple[float, float]:
    """``(r_min, r_max)`` as floats with ``lowest <= r_min <= r_max <= 1``."""
    r_min = real_number("r_min", r_min, low=lowest, high=1.0)
    r_max = real_number("r_max", r_max, low=r_min, high=1.0)
    return r_min, r_max


def _check_phase(max_phase: float) -> float:
    """``max_phase`` as a float in ``(0, 2 pi]``."""
    return real_number("max_phase", positive_number("max_phase", max_phase), high=TWO_PI)


def _ring_polar(
    key: jax.Array, n: int, r_min: float, r_max: float, max_phase: float, dtype: DTypeLike | None
) -> tuple[jax.Array, jax.Array, jax.Array]:
    """Sample the ring law in polar form: ``(|lambda|^2, 1 - |lambda|^2, arg lambda)``.

    One uniform ``v in (0, 1)`` gives both ``|lambda|^2 = r_min^2 + v (r_max^2 - r_min^2)`` and
    ``1 - |lambda|^2 = (1 - r_max^2) + (1 - v)(r_max^2 - r_min^2)``, each without cancellation, so
    that logs of both stay finite unless the ring itself touches 0 or the unit circle. The phase is
    ``max_phase * (1 - w)`` with ``w in [0, 1)``, so it lies in ``(0, max_phase]`` and its log
    is finite.
    """
    n = positive_int("N", n)
    r_min, r_max = _check_radii(r_min, r_max)
    max_phase = _check_phase(max_phase)
    dtype = inexact_dtype("dtype", dtype)
    # The constants are formed in Python (float64) and rounded once to ``dtype``.
    return _sample_polar(key, n, r_min**2, r_max**2 - r_min**2, 1.0 - r_max**2, max_phase, dtype)


@partial(jax.jit, static_argnames=("n", "dtype"))
def _sample_polar(
    key: jax.Array, n: int, low: float, spread: float, gap: float, max_phase: float, dtype: np.dtype
) -> tuple[jax.Array, jax.Array, jax.Array]:
    k_mod, k_phase = jax.random.split(key)
    v = jax.random.uniform(k_mod, (n,), dtype, minval=jnp.finfo(dtype).tiny)
    w = jax.random.uniform(k_phase, (n,), dtype)
    return low + v * spread, gap + (1.0 - v) * spread, max_phase * (1.0 - w)


def ring_init(
    key: jax.Array,
    N: int,
    r_min: float,
    r_max: float,
    max_phase: float = TWO_PI,
    *,
    dtype: DTypeLike | None = None,
) -> Complex[Array, " N"]:
    """Draw ``N`` i.i.d. complex eigenvalues uniform in area on the ring ``T[r_min, r_max]``.

    ``|lambda| = sqrt(U(r_min^2, r_max^2))``, ``arg lambda ~ U(0, max_phase)`` (Orvieto et al., ICML
    2024, §4.1). ``dtype`` is the real dtype of the sampling (default: JAX's default float); the
    result is the matching complex dtype. Needs ``0 <= r_min <= r_max <= 1`` and
    ``0 < max_phase <= 2 pi``.
    """
    modulus_sq, _, phase = _ring_polar(key, N, r_min, r_max, max_phase, dtype)  # checks all
    return _polar_to_complex(modulus_sq, phase)


@jax.jit
def _polar_to_complex(modulus_sq: jax.Array, phase: jax.Array) -> jax.Array:
    return jnp.sqrt(modulus_sq) * jnp.exp(1j * phase)


def roots_of_unity(N: int, *, dtype: DTypeLike | None = None) -> Complex[Array, " N"]:
    """Return the ``N``-th roots of unity ``exp(2 pi i k / N)``, ``k = 0, ..., N-1``.

    With these eigenvalues the Vandermonde matrix ``V_N`` is ``sqrt(N)`` times a unitary (DFT)
    matrix, so its condition number is exactly 1 (Orvieto et al., ICML 2024, §4.1). Computed in
    float64 with NumPy, then cast to ``dtype`` (default: JAX's default complex dtype).
    """
    N = positive_int("N", N)
    dtype = inexact_dtype("dtype", dtype, kind="complex")
    return jnp.asarray(np.exp(2j * np.pi * np.arange(N) / N), dtype=dtype)


def real_init(
    key: jax.Array, N: int, r_min: float, r_max: float, *, dtype: DTypeLike | None = None
) -> Float[Array, " N"]:
    """Draw ``N`` i.i.d. real eigenvalues uniform in ``[r_min, r_max]`` (``-1 <= r_min``).

    The real-diagonal baseline of Orvieto et al. (ICML 2024, §4.1), whose Vandermonde condition
    number grows exponentially with ``N``.
    """
    N = positive_int("N", N)
    r_min, r_max = _check_radii(r_min, r_max, lowest=-1.0)
    dtype = inexact_dtype("dtype", dtype)
    return jax.random.uniform(key, (N,), dtype, minval=r_min, maxval=r_max)


def lru_ring_init(
    key: jax.Array,
    N: int,
    r_min: float,
    r_max: float,
    max_phase: float = TWO_PI,
    *,
    dtype: DTypeLike | None = None,
) -> tuple[Float[Array, " N"], Float[Array, " N"], Float[Array, " N"]]:
    """Ring-law LRU parameters ``(nu_log, theta_log, gamma_log)`` for ``N`` eigenvalues.

    Same law (and, for the same ``key``, the same eigenvalues) as :func:`ring_init`, but computed in
    polar form as in the LRU (Orvieto et al., 2023, Lemma 2, §3.3-3.4):
    ``nu_log = log(-log|lambda|)``, ``theta_log = log(arg lambda)`` and the normalisation
    ``gamma_log = log(sqrt(1 - |lambda|^2))``, all finite. Besides the checks of :func:`ring_init`
    it needs ``r_max > 0`` and ``r_min < 1``, since the LRU keeps ``0 < |lambda| < 1``.
    """
    polar = _ring_polar(key, N, r_min, r_max, max_phase, dtype)  # checks all arguments
    if float(r_max) <= 0.0 or float(r_min) >= 1.0:
        raise ValueError(
            "r_max and r_min: the LRU needs r_max > 0 and r_min < 1 (0 < |lambda| < 1), "
            f"got r_min={r_min}, r_max={r_max}"
        )
    return _polar_to_lru(*polar)


@jax.jit
def _polar_to_lru(
    modulus_sq: jax.Array, one_minus_sq: jax.Array, phase: jax.Array
) -> tuple[jax.Array, jax.Array, jax.Array]:
    # log|lambda|^2 from whichever of |lambda|^2 and 1 - |lambda|^2 is known to full relative
    # precision.
    log_modulus_sq = jnp.where(modulus_sq < 0.5, jnp.log(modulus_sq), jnp.log1p(-one_minus_sq))
    return jnp.log(-0.5 * log_modulus_sq), jnp.log(phase), 0.5 * jnp.log(one_minus_sq)


def lru_eigenvalues(
    nu_log: Float[ArrayLike, "*batch N"], theta_log: Float[ArrayLike, "*batch N"]
) -> Complex[Array, "*batch N"]:
    """LRU eigenvalues ``lambda = exp(-exp(nu_log) + i exp(theta_log))`` (LRU §3.3-3.4)."""
    nu_log = as_inexact("nu_log", nu_log)
    theta_log = as_inexact("theta_log", theta_log)
    check_real("nu_log", nu_log)
    check_real("theta_log", theta_log)
    return _exp_param(nu_log, theta_log)


@jax.jit
def _exp_param(nu_log: jax.Array, theta_log: jax.Array) -> jax.Array:
    return jnp.exp(-jnp.exp(nu_log) + 1j * jnp.exp(theta_log))


def lru_params(
    lam: Complex[ArrayLike, "*batch N"],
) -> tuple[Float[Array, "*batch N"], Float[Array, "*batch N"]]:
    """Inverse of :func:`lru_eigenvalues`: ``(log(-log|lambda|), log(arg lambda))``.

    The phase is taken in ``(0, 2 pi]``. For concrete ``lam`` raises ValueError unless
    ``0 < |lambda| < 1`` and ``arg lambda != 0`` (a positive real ``lambda`` would need
    ``theta_log = -inf``).
    """
    lam = as_inexact("lam", lam)
    check_not_empty("lam", lam)
    check_finite("lam", lam)
    check_stable("lam", lam)
    if not isinstance(lam, jax.core.Tracer):
        values = np.asarray(lam)
        if np.any(values == 0):
            raise ValueError(
                "lam must satisfy |lambda| > 0 for the LRU parameterisation (nu_log = +inf)"
            )
        if np.any((values.imag == 0) & (values.real > 0)):
            raise ValueError(
                "lam must not be a positive real number (arg lambda = 0 needs theta_log = -inf)"
            )
    phase = jnp.angle(lam)
    phase = jnp.where(phase > 0, phase, phase + TWO_PI)
    return jnp.log(-jnp.log(jnp.abs(lam))), jnp.log(phase)
