"""Linear recurrences (the foundations chapter): the dense recurrence run one step at a time,
against which the chapter checks the diagonal :func:`lrnn_core.core.scan.linear_scan`, and the
measured half-life of a mode ``lambda``."""

from __future__ import annotations

import jax
import numpy as np
from jaxtyping import Float

from lrnn_core.core.scan import linear_scan


def dense_recurrence(
    A: Float[np.ndarray, "N N"],
    B: Float[np.ndarray, "N H"],
    C: Float[np.ndarray, "M N"],
    D: Float[np.ndarray, "M H"],
    u: Float[np.ndarray, "L H"],
) -> Float[np.ndarray, "L M"]:
    """``x_k = A x_{k-1} + B u_k``, ``y_k = C x_k + D u_k`` from ``x_0 = 0``, one step at a time
    (the dense linear recurrence); returns the outputs ``y_1 .. y_L``."""
    x = np.zeros(A.shape[0])
    y = []
    for u_k in u:
        x = A @ x + B @ u_k
        y.append(C @ x + D @ u_k)
    return np.array(y)


def half_life(lam: complex, steps: int) -> int:
    """The steps ``k`` after a unit impulse until its weight ``|lam|^k`` in
    ``h_k = lam h_{k-1} + u_k`` is at most 1/2 (``ceil(log 2 / log(1/|lam|))``), read off a
    float64 :func:`linear_scan` of the impulse over ``steps`` steps."""
    impulse = np.zeros((steps, 1))
    impulse[0] = 1.0
    # float64: at |lam| = 0.999 the weight is compared with 1/2 after ~700 products
    with jax.enable_x64(True):
        weight = np.abs(np.asarray(linear_scan(np.array([lam]), impulse))[:, 0])
    return int(np.argmax(weight <= 0.5))  # index k - 1 = steps since the impulse
