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


def positive_int(name: str, value: Any) -> int:
    """Return ``value`` as an int; TypeError if it is not an integer (bools rejected), ValueError if < 1."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}")
    if value < 1:
        raise ValueError(f"{name} must be >= 1, got {value}")
    return int(value)


def eigenvalue_vector(name: str, lam: Any, *, max_modulus: float | None = None) -> np.ndarray:
    """Return a non-empty 1-D numeric ``lam`` as complex128 NumPy; reject NaN/inf and, if given, |lam| > max_modulus."""
    lam = np.asarray(lam)
    if lam.ndim != 1 or lam.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array of eigenvalues, got shape {lam.shape}")
    if not np.issubdtype(lam.dtype, np.number) or np.issubdtype(lam.dtype, np.bool_):
        raise TypeError(f"{name} must be numeric, got dtype {lam.dtype}")
    if not np.all(np.isfinite(lam)):
        raise ValueError(f"{name} contains non-finite values (NaN or inf)")
    if max_modulus is not None and np.max(np.abs(lam)) > max_modulus:
        raise ValueError(
            f"{name} must satisfy |lambda| <= {max_modulus:g}, but max |lambda| = {np.max(np.abs(lam)):.6g}"
        )
    return lam.astype(np.complex128)
