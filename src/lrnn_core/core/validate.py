"""The one validation layer: every check on a public argument of ``lrnn_core`` goes through here.

Each function takes the argument's ``name`` first and raises an error that names it:
``TypeError`` for the wrong kind of thing (a string, a bool where a number is meant, an integer
dtype where a float is meant), ``ValueError`` for the right kind with a wrong value (negative,
non-finite, wrong shape, unstable eigenvalue, unknown option).

Checks on values (finiteness, stability) run only on concrete arrays; under ``jit`` the values are
tracers and only shapes and dtypes can be checked. Arguments are typed ``object``: a check receives
whatever the caller passed, and its return type says what it guarantees.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from types import ModuleType
from typing import TypeVar

import jax
import jax.numpy as jnp
import numpy as np

T = TypeVar("T")


def is_concrete(x: object) -> bool:
    """True unless ``x`` is a JAX tracer (inside ``jit``/``grad``/``vmap``): values unknown."""
    return not isinstance(x, jax.core.Tracer)


# --- Python scalars -------------------------------------------------------------------------------


def positive_int(name: str, value: object) -> int:
    """``value`` as an int >= 1; bools, floats and strings are rejected with a TypeError."""
    value = _integer(name, value)
    if value < 1:
        raise ValueError(f"{name} must be >= 1, got {value}")
    return value


def nonnegative_int(name: str, value: object) -> int:
    """``value`` as an int >= 0; bools, floats and strings are rejected with a TypeError."""
    value = _integer(name, value)
    if value < 0:
        raise ValueError(f"{name} must be >= 0, got {value}")
    return value


def _integer(name: str, value: object) -> int:
    is_int_array = isinstance(value, (np.ndarray, jax.Array)) and value.ndim == 0
    if is_int_array and jnp.issubdtype(value.dtype, jnp.integer):
        return int(value)
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}")
    return int(value)


def real_number(
    name: str, value: object, *, low: float | None = None, high: float | None = None
) -> float:
    """``value`` as a finite Python float in ``[low, high]`` (either bound optional).

    Python, NumPy and 0-d JAX real scalars are accepted; bools, strings, complex numbers and arrays
    of more than one element are a TypeError; NaN, inf or a value outside the bounds a ValueError.
    """
    if isinstance(value, (np.ndarray, jax.Array)):
        if value.ndim != 0:
            raise TypeError(f"{name} must be a real number, got an array of shape {value.shape}")
        if not is_concrete(value):
            raise TypeError(f"{name} must be a concrete real number, not a traced value")
        if jnp.issubdtype(value.dtype, jnp.bool_) or jnp.issubdtype(
            value.dtype, jnp.complexfloating
        ):
            raise TypeError(f"{name} must be a real number, got dtype {value.dtype}")
        value = value.item()
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}")
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value}")
    if low is not None and value < low:
        raise ValueError(f"{name} must be >= {low:g}, got {value:g}")
    if high is not None and value > high:
        raise ValueError(f"{name} must be <= {high:g}, got {value:g}")
    return value


def positive_number(name: str, value: object) -> float:
    """``value`` as a finite float > 0."""
    value = real_number(name, value)
    if value <= 0:
        raise ValueError(f"{name} must be > 0, got {value:g}")
    return value


def check_type(name: str, value: T, kind: object, *, what: str | None = None) -> T:
    """``value`` if it is an instance of ``kind`` (a class or a tuple of classes), or callable when
    ``kind`` is the builtin ``callable``; else a TypeError: "``name`` must be ``what`` (default
    "a <kind>"), got <its type>"."""
    if kind is callable:
        ok, want = callable(value), "callable"
    else:
        ok = isinstance(value, kind)  # type: ignore[arg-type]
        noun = kind.__name__ if isinstance(kind, type) else "/".join(k.__name__ for k in kind)
        want = ("an " if noun[0].upper() in "AEIOU" else "a ") + noun
    if not ok:
        raise TypeError(f"{name} must be {what or want}, got {type(value).__name__}")
    return value


def check_flag(name: str, value: object) -> bool:
    """``value`` if it is a bool (Python or NumPy); anything else, 0 and 1 included, is a TypeError.

    Strings such as ``"yes"`` are rejected: ``bool("no")`` would be True."""
    return bool(check_type(name, value, (bool, np.bool_), what="a bool"))


def check_text(name: str, value: object) -> str:
    """``value`` if it is a non-empty string."""
    if not check_type(name, value, str).strip():
        raise ValueError(f"{name} must not be empty")
    return value


def check_choice(name: str, value: object, allowed: Sequence[T]) -> T:
    """``value`` if it is one of ``allowed`` (a method name, say), else a ValueError."""
    if not isinstance(value, str) and any(isinstance(a, str) for a in allowed):
        raise TypeError(
            f"{name} must be a str, one of {tuple(allowed)}, got {type(value).__name__}"
        )
    if value not in allowed:
        raise ValueError(f"{name} must be one of {tuple(allowed)}, got {value!r}")
    return value


def seed_list(name: str, seeds: object) -> tuple[int, ...]:
    """A non-empty sequence of distinct non-negative int seeds as a tuple (one int is one seed)."""
    if isinstance(seeds, (str, bytes)) or not isinstance(seeds, (Sequence, np.ndarray)):
        seeds = (seeds,)
    out = tuple(nonnegative_int(f"{name}[{i}]", s) for i, s in enumerate(seeds))
    if not out:
        raise ValueError(f"{name} must hold at least one seed")
    if len(set(out)) != len(out):
        raise ValueError(f"{name} must not repeat a seed, got {out}")
    return out


def inexact_dtype(name: str, dtype: object, *, kind: str = "real") -> np.dtype:
    """``dtype`` as a NumPy dtype of ``kind`` ``"real"`` (floating) or ``"complex"``; ``None`` gives
    JAX's default of that kind (float32, or float64 inside ``jax.enable_x64(True)``).

    An integer, bool or other dtype, or one of the other kind, is a TypeError naming ``name``.
    """
    kind = check_choice("kind", kind, ("real", "complex"))
    if dtype is None:
        return np.dtype(jnp.result_type(float if kind == "real" else complex))
    try:
        out = np.dtype(dtype)
    except TypeError:
        raise TypeError(f"{name} must be a {kind} floating dtype, got {dtype!r}") from None
    want = np.floating if kind == "real" else np.complexfloating
    if not np.issubdtype(out, want):
        raise TypeError(f"{name} must be a {kind} floating dtype, got {out.name}")
    return out


# --- Arrays ---------------------------------------------------------------------------------------


def _numeric_array(name: str, x: object, module: ModuleType) -> np.ndarray | jax.Array:
    try:
        if isinstance(x, (str, bytes)) or x is None:
            raise TypeError
        arr = module.asarray(x) if isinstance(x, jax.Array) else module.asarray(np.asarray(x))
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a numeric array, got {type(x).__name__}") from None
    if not jnp.issubdtype(arr.dtype, jnp.number):  # object, bool and str dtypes among others
        raise TypeError(f"{name} must be a float or complex array, got dtype {arr.dtype}")
    return arr


def as_inexact(name: str, x: object) -> jax.Array:
    """``x`` as a JAX float or complex array; integers become JAX's default float, bools and
    strings are a TypeError. Integers that JAX's default float cannot hold exactly are rejected."""
    arr = _numeric_array(name, x, jnp)
    if jnp.issubdtype(arr.dtype, jnp.integer):
        target = jnp.result_type(float)
        big = 0  # largest |integer|, in Python ints (exact, and no overflow at -2**63)
        if arr.size and is_concrete(arr):
            values = np.asarray(arr)
            big = max(int(values.max()), -int(values.min()))
        if big > 2 ** (jnp.finfo(target).nmant + 1):
            raise ValueError(
                f"{name} holds integers up to {big}, beyond what {np.dtype(target).name} "
                "represents exactly; pass floats"
            )
        arr = arr.astype(target)
    return arr


def as_float64(name: str, x: object) -> np.ndarray:
    """``x`` as a NumPy float64 or complex128 array, whatever JAX's precision setting."""
    arr = _numeric_array(name, x, np)
    return arr.astype(np.result_type(arr.dtype, np.float64))


def check_finite(name: str, x: object) -> None:
    """ValueError if a concrete ``x`` holds NaN or infinity."""
    if is_concrete(x) and not bool(np.all(np.isfinite(np.asarray(x)))):
        raise ValueError(f"{name} contains non-finite values (NaN or inf)")


def check_not_empty(name: str, x: object) -> None:
    """ValueError if ``x`` has no elements."""
    if np.size(x) == 0:
        raise ValueError(f"{name} must not be empty, got shape {np.shape(x)}")


def check_stable(name: str, lam: object) -> None:
    """ValueError if a concrete ``lam`` has an eigenvalue of modulus >= 1."""
    if is_concrete(lam):
        worst = float(np.max(np.abs(np.asarray(lam)), initial=0.0))
        if worst >= 1.0:
            raise ValueError(
                f"{name} must be stable (all |lambda| < 1), but max |lambda| = {worst:.6g}"
            )


def check_ndim(name: str, x: object, at_least: int) -> None:
    """ValueError if ``x`` has fewer than ``at_least`` dimensions."""
    if np.ndim(x) < at_least:
        raise ValueError(
            f"{name} must have at least {at_least} dimensions, got shape {np.shape(x)}"
        )


def check_shape(name: str, x: object, shape: Sequence[int | None]) -> None:
    """ValueError unless ``x.shape`` matches ``shape`` (``None`` matches any size)."""
    got = tuple(np.shape(x))
    ok = len(got) == len(shape) and all(
        w is None or w == g for w, g in zip(shape, got, strict=True)
    )
    if not ok:
        want = "(" + ", ".join("any" if w is None else str(w) for w in shape) + ")"
        raise ValueError(f"{name} must have shape {want}, got {got}")


def check_real(name: str, x: object) -> None:
    """TypeError if ``x`` has a complex dtype."""
    if np.iscomplexobj(x):
        dtype = x.dtype if hasattr(x, "dtype") else np.asarray(x).dtype
        raise TypeError(f"{name} must be real, got dtype {dtype}")


def real_sequences(name: str, u: object, *, batched: bool = False) -> np.ndarray:
    """A real array ``u`` (input sequences, coefficients, a basis) as finite float64, of one or
    two axes, or exactly two with ``batched=True``."""
    u = as_float64(name, u)
    check_real(name, u)
    if batched:
        check_shape(name, u, (None, None))
    elif u.ndim != 1:
        check_shape(name, u, (None, None))
    check_not_empty(name, u)
    check_finite(name, u)
    return u


def eigenvalue_vector(name: str, lam: object, *, max_modulus: float | None = None) -> np.ndarray:
    """A non-empty finite 1-D ``lam`` as complex128 NumPy; ValueError if ``|lam| > max_modulus``."""
    lam = as_float64(name, lam)
    if lam.ndim != 1 or lam.size == 0:
        raise ValueError(
            f"{name} must be a non-empty 1-D array of eigenvalues, got shape {lam.shape}"
        )
    check_finite(name, lam)
    if max_modulus is not None and np.max(np.abs(lam)) > max_modulus:
        raise ValueError(
            f"{name} must satisfy |lambda| <= {max_modulus:g}, "
            f"but max |lambda| = {np.max(np.abs(lam)):.6g}"
        )
    return lam.astype(np.complex128)


def check_scalar_loss(name: str, value: object) -> None:
    """TypeError/ValueError unless ``value`` is a real scalar (shape ``()``), as a loss must be."""
    shape = np.shape(value)
    if shape != ():
        raise ValueError(f"{name} must return a scalar loss, got shape {shape}")
    dtype = getattr(value, "dtype", None)
    if dtype is not None and jnp.issubdtype(dtype, jnp.complexfloating):
        raise TypeError(f"{name} must return a real loss, got dtype {dtype}")
