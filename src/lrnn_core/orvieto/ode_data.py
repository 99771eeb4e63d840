"""Data sets of the controlled-ODE experiments of Orvieto et al. (ICML 2024, §4.2, App. E.3):
input/output pairs ``(v, y)``, ``y_k = z_1(k Delta)``, and the two baselines every trained row
is measured against (:mod:`lrnn_core.core.baselines`)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import scipy.signal
from jaxtyping import ArrayLike, Float

from lrnn_core.core.baselines import causal_filter, causal_filter_mse, ignores_input_mse
from lrnn_core.core.validate import (
    as_float64,
    check_choice,
    check_shape,
    nonnegative_int,
    positive_int,
    positive_number,
)
from lrnn_core.orvieto.odes import SYSTEMS, low_frequency_inputs, ode, solve

__all__ = [
    "AMPLITUDE",
    "OUTPUT_SCALE",
    "Dataset",
    "baselines",
    "filter_prediction",
    "make_dataset",
]

#: Input amplitude (expected RMS of ``v``, :func:`lrnn_core.orvieto.odes.low_frequency_inputs`)
#: per system; App. E.3 gives none. Chosen where the least-squares causal linear filter of the
#: input clearly fails (book probe, L = 512): PT 0.5 (at 0.05 the PT map is linear to 4 % and the
#: linear filter wins), LV 0.2 (no trajectory diverges at L = 512; 0.5 diverges often), Lorenz 1
#: (the input moves the output between the attractor's lobes, Fig. 13).
AMPLITUDE: dict[str, float] = {"PT": 0.5, "LV": 0.2, "LZ": 1.0}

#: Factor applied to ``y = z_1`` before training (App. E.3 gives no normalisation). Lorenz's
#: ``z_1`` spans about +-19; Fig. 13 plots outputs within -1.5 ... 1, so we divide by 10.
OUTPUT_SCALE: dict[str, float] = {"PT": 1.0, "LV": 1.0, "LZ": 0.1}


class Dataset(NamedTuple):
    """Training and test pairs ``(v, y)`` of one system (float32, shape ``(n, L)``).

    ``dropped``: share of drawn inputs whose trajectory diverged (non-finite) and was dropped.
    """

    system: str
    v_train: np.ndarray
    y_train: np.ndarray
    v_test: np.ndarray
    y_test: np.ndarray
    dropped: float


def make_dataset(
    system: str,
    n_train: int,
    n_test: int,
    *,
    seed: int,
    L: int | None = None,
    amplitude: float | None = None,
) -> Dataset:
    """``n_train + n_test`` input/output pairs of the App. E.3 ``system`` ("PT", "LV", "LZ").

    Inputs: :func:`low_frequency_inputs` at ``amplitude`` (default :data:`AMPLITUDE`); outputs
    ``OUTPUT_SCALE * z_1(k dt)`` (:func:`lrnn_core.orvieto.odes.solve`), ``k < L`` (default: the
    paper's ``L``; a shorter ``L`` keeps the paper's step ``dt``). Inputs whose trajectory diverges
    are dropped and redrawn; their share is returned as ``dropped``.
    """
    system = check_choice("system", system, tuple(SYSTEMS))
    n_train, n_test = positive_int("n_train", n_train), positive_int("n_test", n_test)
    spec = ode(system)
    spec = spec._replace(L=spec.L if L is None else positive_int("L", L))
    amplitude = AMPLITUDE[system] if amplitude is None else positive_number("amplitude", amplitude)
    rng = np.random.default_rng(nonnegative_int("seed", seed))
    want, drawn, vs, ys = n_train + n_test, 0, [], []
    while sum(len(v) for v in vs) < want:
        batch = max(8, int(1.1 * (want - sum(len(v) for v in vs))))
        v = low_frequency_inputs(rng, batch, spec.L, amplitude=amplitude)
        y = solve(spec, v)
        ok = np.all(np.isfinite(y), axis=1)
        drawn += batch
        vs.append(v[ok])
        ys.append(y[ok])
        if drawn > 20 * want:
            raise ValueError(f"{system}: almost every trajectory diverges at amplitude {amplitude}")
    v = np.concatenate(vs)[:want].astype(np.float32)
    y = (OUTPUT_SCALE[system] * np.concatenate(ys)[:want]).astype(np.float32)
    kept = sum(len(v) for v in vs)
    return Dataset(system, v[:n_train], y[:n_train], v[n_train:], y[n_train:], 1 - kept / drawn)


def baselines(data: Dataset, *, lags: int | None = None) -> dict[str, float]:
    """The two baselines of :mod:`lrnn_core.core.baselines` on ``data``'s test set: "ignores
    input" (the mean training trajectory) and "linear" (the least-squares affine causal filter of
    the input over ``lags`` lags, default all ``L``)."""
    if not isinstance(data, Dataset):
        raise TypeError(f"data must be a Dataset, got {type(data).__name__}")
    return {
        "ignores input": ignores_input_mse(data.y_train, data.y_test),
        "linear": causal_filter_mse(
            data.v_train, data.y_train, data.v_test, data.y_test, lags=lags
        ),
    }


def filter_prediction(
    u_train: Float[ArrayLike, "n L"], y_train: Float[ArrayLike, "n L"], u: Float[ArrayLike, "m L"]
) -> np.ndarray:
    """Predictions for inputs ``u`` of the least-squares causal linear filter fitted on the
    training pairs (the "linear" baseline, :func:`lrnn_core.core.baselines.causal_filter`)."""
    h, ubar, ybar = causal_filter(u_train, y_train)
    u = as_float64("u", u)
    check_shape("u", u, (None, ubar.shape[0]))
    return ybar + scipy.signal.fftconvolve(u - ubar, h[None, :], axes=1)[:, : ubar.shape[0]]
