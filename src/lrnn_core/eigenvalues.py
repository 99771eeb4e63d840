"""Eigenvalue laws for diagonal linear recurrences and the LRU exponential parametrisation.

Ring law (Orvieto et al., ICML 2024, §4.1): ``lambda ~ T[r_min, r_max] = {lambda in C | r_min <= |lambda|
<= r_max}``, uniform in area, i.e. ``|lambda| = sqrt(U(r_min^2, r_max^2))`` and ``arg lambda ~ U(0,
max_phase)`` (Orvieto et al., 2023, "Resurrecting recurrent neural networks for long sequences",
Lemma 2 and §3.4).

LRU parametrisation (Orvieto et al., 2023, §3.3-3.4): ``lambda = exp(-exp(nu_log) + i exp(theta_log))``,
so ``|lambda| = exp(-exp(nu_log)) < 1`` for every finite ``nu_log`` and ``arg lambda = exp(theta_log)``.
"""

from __future__ import annotations

import math
from functools import partial
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import DTypeLike

from lrnn_core.validate import as_inexact, check_finite, check_stable, positive_int

TWO_PI = 2 * math.pi



def _as_real(name: str, x: Any) -> float:
    if isinstance(x, (bool, str, bytes)) or x is None:
        raise TypeError(f"{name} must be a real number, got {type(x).__name__}")
    try:
        value = float(x)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a real number, got {type(x).__name__}") from None
    if not math.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value}")
    return value


def _check_radii(r_min: Any, r_max: Any, lowest: float = 0.0) -> tuple[float, float]:
    r_min, r_max = _as_real("r_min", r_min), _as_real("r_max", r_max)
    if not lowest <= r_min <= r_max <= 1.0:
        raise ValueError(
            f"need {lowest:g} <= r_min <= r_max <= 1, got r_min={r_min}, r_max={r_max}"
        )
    return r_min, r_max


def _check_phase(max_phase: Any) -> float:
    max_phase = _as_real("max_phase", max_phase)
    if not 0.0 < max_phase <= TWO_PI:
        raise ValueError(f"max_phase must be in (0, 2*pi], got {max_phase}")
    return max_phase


def _ring_polar(
    key: jax.Array, n: int, r_min: float, r_max: float, max_phase: float, dtype: DTypeLike | None
) -> tuple[jax.Array, jax.Array, jax.Array]:
    """Sample the ring law in polar form: ``(|lambda|^2, 1 - |lambda|^2, arg lambda)``.

    One uniform ``v in (0, 1)`` gives both ``|lambda|^2 = r_min^2 + v (r_max^2 - r_min^2)`` and
    ``1 - |lambda|^2 = (1 - r_max^2) + (1 - v)(r_max^2 - r_min^2)``, each without cancellation, so
    that logs of both stay finite unless the ring itself touches 0 or the unit circle. The phase is
    ``max_phase * (1 - w)`` with ``w in [0, 1)``, so it lies in ``(0, max_phase]`` and its log is finite.
    """
    dtype = jnp.result_type(float) if dtype is None else jnp.dtype(dtype)
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
    n: int,
    r_min: float,
    r_max: float,
    max_phase: float = TWO_PI,
    *,
    dtype: DTypeLike | None = None,
) -> jax.Array:
    """Draw ``n`` i.i.d. complex eigenvalues uniform in area on the ring ``T[r_min, r_max]``.

    ``|lambda| = sqrt(U(r_min^2, r_max^2))``, ``arg lambda ~ U(0, max_phase)`` (Orvieto et al., ICML
    2024, §4.1). ``dtype`` is the real dtype of the sampling (default: JAX's default float); the
    result is the matching complex dtype. Needs ``0 <= r_min <= r_max <= 1`` and
    ``0 < max_phase <= 2 pi``.
    """
    n = positive_int("n", n)
    r_min, r_max = _check_radii(r_min, r_max)
    max_phase = _check_phase(max_phase)
    modulus_sq, _, phase = _ring_polar(key, n, r_min, r_max, max_phase, dtype)
    return _polar_to_complex(modulus_sq, phase)


@jax.jit
def _polar_to_complex(modulus_sq: jax.Array, phase: jax.Array) -> jax.Array:
    return jnp.sqrt(modulus_sq) * jnp.exp(1j * phase)


def roots_of_unity(n: int, *, dtype: DTypeLike | None = None) -> jax.Array:
    """Return the ``n``-th roots of unity ``exp(2 pi i k / n)``, ``k = 0, ..., n-1``.

    With these eigenvalues the Vandermonde matrix ``V_n`` is ``sqrt(n)`` times a unitary (DFT)
    matrix, so its condition number is exactly 1 (Orvieto et al., ICML 2024, §4.1). Computed in
    float64 with NumPy, then cast to ``dtype`` (default: JAX's default complex dtype).
    """
    n = positive_int("n", n)
    dtype = jnp.result_type(complex) if dtype is None else dtype
    return jnp.asarray(np.exp(2j * np.pi * np.arange(n) / n), dtype=dtype)


def real_init(
    key: jax.Array, n: int, r_min: float, r_max: float, *, dtype: DTypeLike | None = None
) -> jax.Array:
    """Draw ``n`` i.i.d. real eigenvalues uniform in ``[r_min, r_max]`` (``-1 <= r_min <= r_max <= 1``).

    The real-diagonal baseline of Orvieto et al. (ICML 2024, §4.1), whose Vandermonde condition number
    grows exponentially with ``n``.
    """
    n = positive_int("n", n)
    r_min, r_max = _check_radii(r_min, r_max, lowest=-1.0)
    dtype = jnp.result_type(float) if dtype is None else dtype
    return jax.random.uniform(key, (n,), dtype, minval=r_min, maxval=r_max)


def lru_ring_init(
    key: jax.Array,
    n: int,
    r_min: float,
    r_max: float,
    max_phase: float = TWO_PI,
    *,
    dtype: DTypeLike | None = None,
) -> tuple[jax.Array, jax.Array, jax.Array]:
    """Ring-law LRU parameters ``(nu_log, theta_log, gamma_log)`` for ``n`` eigenvalues.

    Same law (and, for the same ``key``, the same eigenvalues) as :func:`ring_init`, but computed in
    polar form as in the LRU (Orvieto et al., 2023, Lemma 2, §3.3-3.4):
    ``nu_log = log(-log|lambda|)``, ``theta_log = log(arg lambda)`` and the normalisation
    ``gamma_log = log(sqrt(1 - |lambda|^2))``, all finite. Besides the checks of :func:`ring_init`
    it needs ``r_max > 0`` and ``r_min < 1``, since the LRU keeps ``0 < |lambda| < 1``.
    """
    n = positive_int("n", n)
    r_min, r_max = _check_radii(r_min, r_max)
    max_phase = _check_phase(max_phase)
    if r_max <= 0.0 or r_min >= 1.0:
        raise ValueError(
            f"the LRU needs r_max > 0 and r_min < 1 (0 < |lambda| < 1), got r_min={r_min}, r_max={r_max}"
        )
    return _polar_to_lru(*_ring_polar(key, n, r_min, r_max, max_phase, dtype))


@jax.jit
def _polar_to_lru(
    modulus_sq: jax.Array, one_minus_sq: jax.Array, phase: jax.Array
) -> tuple[jax.Array, jax.Array, jax.Array]:
    # log|lambda|^2 from whichever of |lambda|^2 and 1 - |lambda|^2 is known to full relative precision.
    log_modulus_sq = jnp.where(modulus_sq < 0.5, jnp.log(modulus_sq), jnp.log1p(-one_minus_sq))
    return jnp.log(-0.5 * log_modulus_sq), jnp.log(phase), 0.5 * jnp.log(one_minus_sq)


def lru_eigenvalues(nu_log: Any, theta_log: Any) -> jax.Array:
    """LRU eigenvalues ``lambda = exp(-exp(nu_log) + i exp(theta_log))`` (LRU §3.3-3.4)."""
    nu_log = as_inexact("nu_log", nu_log)
    theta_log = as_inexact("theta_log", theta_log)
    for name, x in (("nu_log", nu_log), ("theta_log", theta_log)):
        if jnp.iscomplexobj(x):
            raise TypeError(f"{name} must be real, got dtype {x.dtype}")
    return _exp_param(nu_log, theta_log)


@jax.jit
def _exp_param(nu_log: jax.Array, theta_log: jax.Array) -> jax.Array:
    return jnp.exp(-jnp.exp(nu_log) + 1j * jnp.exp(theta_log))


def lru_params(lam: Any) -> tuple[jax.Array, jax.Array]:
    """Inverse of :func:`lru_eigenvalues`: ``(log(-log|lambda|), log(arg lambda))``.

    The phase is taken in ``(0, 2 pi]``. For concrete ``lam`` raises ValueError unless
    ``0 < |lambda| < 1`` and ``arg lambda != 0`` (a positive real ``lambda`` would need
    ``theta_log = -inf``).
    """
    lam = as_inexact("lam", lam)
    check_finite("lam", lam)
    check_stable("lam", lam)
    if not isinstance(lam, jax.core.Tracer):
        values = np.asarray(lam)
        if np.any(values == 0):
            raise ValueError(
                "lam must satisfy |lambda| > 0 for the LRU parametrisation (nu_log = +inf)"
            )
        if np.any((values.imag == 0) & (values.real > 0)):
            raise ValueError(
                "lam must not be a positive real number (arg lambda = 0 needs theta_log = -inf)"
            )
    phase = jnp.angle(lam)
    phase = jnp.where(phase > 0, phase, phase + TWO_PI)
    return jnp.log(-jnp.log(jnp.abs(lam))), jnp.log(phase)
