"""Input checks shared by the core: each raises an error that names the argument and what was wrong.

Checks on values (finiteness, stability) run only on concrete arrays; under ``jit`` the values are
tracers and only shapes and dtypes can be checked.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np


def _is_concrete(x: Any) -> bool:
    return not isinstance(x, jax.core.Tracer)


def as_inexact(name: str, x: Any) -> jax.Array:
    """Return ``x`` as a JAX array of a float or complex dtype; reject other dtypes with a TypeError."""
    if isinstance(x, (str, bytes)) or x is None:
        raise TypeError(f"{name} must be a numeric array, got {type(x).__name__}")
    arr = jnp.asarray(x)
    if jnp.issubdtype(arr.dtype, jnp.bool_):
        raise TypeError(f"{name} must be a float or complex array, got dtype {arr.dtype}")
    if jnp.issubdtype(arr.dtype, jnp.integer):
        arr = arr.astype(jnp.result_type(float))
    if not jnp.issubdtype(arr.dtype, jnp.inexact):
        raise TypeError(f"{name} must be a float or complex array, got dtype {arr.dtype}")
    return arr


def check_finite(name: str, x: jax.Array) -> None:
    """Raise ValueError if a concrete ``x`` holds NaN or infinity."""
    if _is_concrete(x) and not bool(np.all(np.isfinite(np.asarray(x)))):
        raise ValueError(f"{name} contains non-finite values (NaN or inf)")


def check_stable(name: str, lam: jax.Array) -> None:
    """Raise ValueError if a concrete ``lam`` has an eigenvalue of modulus >= 1."""
    if _is_concrete(lam):
        worst = float(np.max(np.abs(np.asarray(lam)), initial=0.0))
        if worst >= 1.0:
            raise ValueError(
                f"{name} must be stable (all |lambda| < 1), but max |lambda| = {worst:.6g}"
            )


def check_ndim(name: str, x: jax.Array, at_least: int) -> None:
    """Raise ValueError if ``x`` has fewer than ``at_least`` dimensions."""
    if x.ndim < at_least:
        raise ValueError(f"{name} must have at least {at_least} dimensions, got shape {x.shape}")
