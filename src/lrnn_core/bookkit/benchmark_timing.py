"""Wall-clock timing of jitted (or NumPy) calls: medians over rounds that take turns, and paired
ratios of two calls."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

import jax

from lrnn_core.core.validate import positive_int


def time_call(fn: Callable[..., Any], args: Sequence[Any], repeats: int) -> tuple[float, Any]:
    """Median wall time of ``fn(*args)`` over ``repeats`` calls after one warm-up (compile) call,
    and its output: :func:`interleaved_medians` with one entry."""
    times, outs = interleaved_medians({"call": (lambda: tuple(args), fn)}, repeats)
    return times["call"], outs["call"]


def paired_time_ratio(
    fn_a: Callable[..., Any], fn_b: Callable[..., Any], args: Sequence[Any], repeats: int
) -> float:
    """Median over ``repeats`` interleaved pairs of ``time(fn_a(*args)) / time(fn_b(*args))``.

    The calls alternate (a, b, a, b, ...) after one warm-up call each, so a load spike that slows
    one call of a pair is unlikely to decide the median; two medians taken one after the other
    (:func:`time_call`) can swap under load, as when two test workers share two cores.
    """
    repeats = positive_int("repeats", repeats)
    for fn in (fn_a, fn_b):
        jax.block_until_ready(fn(*args))
    ratios = []
    for _ in range(repeats):
        pair = []
        for fn in (fn_a, fn_b):
            start = time.perf_counter()
            jax.block_until_ready(fn(*args))
            pair.append(time.perf_counter() - start)
        ratios.append(pair[0] / pair[1])
    return statistics.median(ratios)


def interleaved_medians(
    calls: dict[str, tuple[Callable[[], tuple], Callable[..., Any]]], repeats: int
) -> tuple[dict[str, float], dict[str, Any]]:
    """Median time per entry of ``calls`` (key -> (make the arguments, function)) over ``repeats``
    rounds that call every entry once, in turn, after one untimed round that compiles.

    The arguments are made before each call's clock starts (a fresh copy for a function that
    donates its argument), and taking turns spreads a burst of load over all entries alike.
    Returns the medians and the last output of each entry.
    """
    samples: dict[str, list[float]] = {key: [] for key in calls}
    outs: dict[str, Any] = {}
    for round_ in range(repeats + 1):
        for key, (make, fn) in calls.items():
            args = jax.block_until_ready(make())
            start = time.perf_counter()
            outs[key] = jax.block_until_ready(fn(*args))
            if round_:
                samples[key].append(time.perf_counter() - start)
    return {key: statistics.median(t) for key, t in samples.items()}, outs
