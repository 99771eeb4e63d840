"""The one training loop of the book: optax, a tqdm bar, ``vmap`` over runs, early stopping.

:func:`train_params` trains R runs at once (R seeds, or R targets of the same shape). It works on a
*pytree of parameters* whose every leaf carries a leading run axis R and a pure loss
``loss(params, batch) -> scalar``; each step draws the batch of run ``r`` with
``batch_at(streams[r], step)`` (``streams``: a pytree with leading axis R, e.g. one PRNG key per
run), so that a run depends on its own stream only: the same stream gives the same losses, alone
or next to other runs. Steps are grouped into *rounds* of ``steps_per_round`` steps compiled into
one ``lax.scan`` (an epoch, say): after every round the bar is updated, an optional ``evaluate``
runs (a test loss, say) and training stops early once an optional ``stop_when`` says so (every
run's mean loss below a level, every run past its target).

Callers supply the model, the loss and the data:

* :func:`train`: Flax NNX modules (the LRU models, the LSTM of
  :mod:`lrnn_core.wang_li_li.sentiment`), split into parameters and other state with
  ``nnx.split`` and merged back inside the loss (a thin adapter);
* ``lrnn_core.wang_li_li.fitting.train_ctrnn`` (continuous-time RNNs, a ``NamedTuple`` pytree),
  ``lrnn_core.wang_li_li.fitting.train_sequential_widths`` (the authors' width-by-width protocol)
  and ``lrnn_core.wang_li_li.classification.train_classifier`` (sequential MNIST) call
  :func:`train_params` with epochs of shuffled mini-batches (:func:`epoch_order`, computed once
  per round, and :func:`epoch_indices`).

Every caller gets the same :class:`TrainResult`.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax import nnx
from jaxtyping import Array, ArrayLike, Float, Int, PyTree
from tqdm.auto import tqdm

from lrnn_core.core.validate import (
    check_flag,
    check_scalar_loss,
    check_text,
    check_type,
    positive_int,
    positive_number,
    real_number,
    seed_list,
)

#: A pytree of arrays: the inputs and targets of one step.
Batch = PyTree
#: A pytree of arrays: a model's trainable parameters (an ``nnx.State`` of ``nnx.Param`` for NNX).
Params = PyTree
#: A pytree of arrays: a model's non-parameter state, or an optimiser's state.
State = PyTree

#: The LRU's recurrent parameters (:class:`lrnn_core.core.lru.LRU`), which the LRU code base trains
#: at a reduced learning rate and without weight decay.
RECURRENT_PARAMS = frozenset({"nu_log", "theta_log", "gamma_log", "B_re", "B_im"})


def mse_loss(model: Callable[[ArrayLike], Array], batch: tuple[ArrayLike, ArrayLike]) -> Array:
    """Mean squared error ``mean((model(u) - y)^2)`` for ``batch = (u, y)``."""
    u, y = batch
    return jnp.mean((model(u) - y) ** 2)


@dataclass(frozen=True)
class TrainResult:
    """Outcome of :func:`train_params` (and of every training function built on it).

    ``params``: the trained parameters, stacked over runs along axis 0 (no run axis when a single
    int seed was given to :func:`train`). ``losses`` ``(R, steps)``: the training loss of every
    step, evaluated before that step's update (``(steps,)`` for a single int seed).
    ``round_losses`` ``(R, rounds)``: the mean of ``losses`` over each round of ``steps_per_round``
    steps (the mean training loss of each epoch when a round is an epoch). ``eval_losses``
    ``(R, rounds)``: the value of ``evaluate`` after each round, or ``None``. ``stopped_early``:
    ``stop_when`` ended training before the last step. ``seeds``, ``graphdef`` and ``state`` are
    set by :func:`train` (NNX); :meth:`model` rebuilds a module.
    """

    params: Params
    losses: np.ndarray
    round_losses: np.ndarray
    eval_losses: np.ndarray | None
    steps_per_round: int
    stopped_early: bool
    seeds: tuple[int, ...] | None = None
    graphdef: nnx.GraphDef | None = None
    state: State | None = None

    @property
    def steps(self) -> int:
        """Number of steps made (fewer than asked for after an early stop)."""
        return self.losses.shape[-1]

    @property
    def rest(self) -> State | None:
        """The non-parameter NNX state (an alias of ``state``)."""
        return self.state

    def model(self, index: int = 0) -> nnx.Module:
        """The trained NNX model of run ``index`` (the only one for a single int seed)."""
        if self.graphdef is None:
            raise ValueError(
                "model() needs a result of train() (an NNX model), not of train_params"
            )
        params, state = self.params, self.state
        if self.losses.ndim == 2:
            runs = self.losses.shape[0]
            if not -runs <= index < runs:
                raise ValueError(f"index must address one of {runs} runs, got {index}")
            params, state = jax.tree.map(lambda a: a[index], (params, state))
        return nnx.merge(self.graphdef, params, state)


def named_in(params: Params, names: frozenset[str]) -> Params:
    """A pytree like ``params`` holding, per leaf, whether its path names one of ``names`` (an
    NNX parameter such as ``nu_log`` anywhere in the model): the mask of optax transforms."""

    def named(path: tuple, _: object) -> bool:
        return bool({getattr(k, "key", getattr(k, "name", None)) for k in path} & names)

    return jax.tree_util.tree_map_with_path(named, params)


def stack_models(models: Sequence[nnx.Module]) -> tuple[nnx.GraphDef, Params, State]:
    """``nnx.split`` each model into (graph, ``nnx.Param`` state, other state) and stack the two
    states along a new leading run axis: the form :func:`train_params` trains. Every model must
    have the same structure (one graph for all runs)."""
    if not models:
        raise ValueError("models must not be empty")
    graphdefs, params, rests = zip(*(nnx.split(m, nnx.Param, ...) for m in models), strict=True)
    if any(g != graphdefs[0] for g in graphdefs):
        raise ValueError("every model must have the same structure (one graph for all runs)")
    stack = lambda *leaves: jnp.stack(leaves)  # noqa: E731
    return graphdefs[0], jax.tree.map(stack, *params), jax.tree.map(stack, *rests)


def lru_optimizer(
    steps: int,
    *,
    lr: float = 1e-3,
    recurrent_factor: float = 0.5,
    weight_decay: float = 0.05,
    lr_min: float = 1e-7,
) -> optax.GradientTransformation:
    """The LRU code base's optimiser (Orvieto et al., 2023; ``NicolasZucchet/minimal-LRU``).

    Parameters named in :data:`RECURRENT_PARAMS` (anywhere in the parameter tree): Adam at
    ``recurrent_factor * lr``, no weight decay; every other parameter: AdamW at ``lr`` with
    ``weight_decay``. Both learning rates follow one cosine decay over ``steps`` steps down to
    ``lr_min`` (the code base's ``lr_base``, ``lr_factor``, ``weight_decay``, ``lr_min``,
    ``cosine_anneal``).
    """
    steps = positive_int("steps", steps)
    lr = positive_number("lr", lr)
    recurrent_factor = positive_number("recurrent_factor", recurrent_factor)
    weight_decay = real_number("weight_decay", weight_decay, low=0.0)
    lr_min = real_number("lr_min", lr_min, low=0.0, high=lr)

    def cosine(peak: float) -> optax.Schedule:
        return optax.cosine_decay_schedule(peak, steps, alpha=min(lr_min / peak, 1.0))

    def labels(params: Params) -> Params:
        recurrent = named_in(params, RECURRENT_PARAMS)
        return jax.tree.map(lambda r: "recurrent" if r else "rest", recurrent)

    return optax.multi_transform(
        {
            "recurrent": optax.adam(cosine(recurrent_factor * lr)),
            "rest": optax.adamw(cosine(lr), weight_decay=weight_decay),
        },
        labels,
    )


def epoch_order(
    key: Array | Callable[[Int[Array, ""]], Array],
    step: Int[ArrayLike, ""],
    *,
    n_seqs: int,
    batch_size: int,
) -> Int[Array, " n_seqs"]:
    """The order ``permutation(key_e, n_seqs)`` in which the epoch ``e = step // (n_seqs //
    batch_size)`` of global step ``step`` visits the sequences, ``key_e = key(e)`` if ``key`` is
    callable, else ``fold_in(key, e)``. Traceable. Compute it once per epoch (``train_params``'
    ``per_round``): permuting 60,000 indices takes ~40 ms on a CPU core, more than a small step."""
    epoch = step // (n_seqs // batch_size)
    key_e = key(epoch) if callable(key) else jax.random.fold_in(key, epoch)
    return jax.random.permutation(key_e, n_seqs)


def epoch_indices(
    order: Int[Array, " n_seqs"], step: Int[ArrayLike, ""], *, batch_size: int
) -> Int[Array, " batch_size"]:
    """The indices of the mini-batch of global step ``step`` in epochs that visit the sequences in
    ``order`` (:func:`epoch_order` of the step's epoch), ``batch_size`` at a time; the last
    incomplete batch of an epoch is dropped. Traceable (``step`` may be a tracer)."""
    i = step % (order.shape[0] // batch_size)
    return jax.lax.dynamic_slice(order, (i * batch_size,), (batch_size,))


def warn_if_diverged(losses: Float[np.ndarray, "R steps"], desc: str) -> None:
    """A ``RuntimeWarning`` naming the runs (rows of ``losses``) whose training loss became
    non-finite, and the first such step of each: a diverged run is never silent."""
    bad = ~np.isfinite(losses)
    runs = np.flatnonzero(bad.any(axis=1))
    if runs.size:
        first = {int(r): int(np.argmax(bad[r])) for r in runs}
        warnings.warn(
            f"{desc}: the training loss of {runs.size} of {len(losses)} runs became "
            f"non-finite (run: first step {first}); lower the learning rate",
            RuntimeWarning,
            stacklevel=3,
        )


def train_params(
    loss: Callable[..., Float[Array, ""]],
    params: Params,
    batch_at: Callable[[PyTree, Int[Array, ""]], Batch],
    streams: PyTree,
    *,
    steps: int,
    optimizer: optax.GradientTransformation,
    steps_per_round: int = 1,
    evaluate: Callable[[Params, PyTree], Float[Array, ""]] | None = None,
    per_round: Callable[[PyTree, Int[Array, ""]], PyTree] | None = None,
    stop_when: Callable[[list[np.ndarray], list[np.ndarray]], bool] | None = None,
    state: State | None = None,
    opt_state: State | None = None,
    progress: bool = True,
    desc: str = "train",
) -> TrainResult:
    """Train R runs at once with ``optimizer`` (one ``jax.vmap`` of one pure optax step).

    ``params`` and ``streams``: pytrees whose every leaf has a leading run axis R. Step ``t`` of
    run ``r`` draws ``batch = batch_at(streams[r], t)`` and moves ``params[r]`` by the optimizer's
    update of ``grad loss(params[r], batch)``; ``loss`` must return a real scalar. With ``state``
    (a pytree with leading axis R of non-trained state, e.g. NNX counters) the loss is called as
    ``loss(params, state, batch)`` and returns ``(scalar, new_state)``. ``opt_state`` (leading
    axis R) replaces the default ``vmap(optimizer.init)(params)``, e.g. to give every run its own
    learning rate through ``optax.inject_hyperparams``.

    ``steps`` must be a multiple of ``steps_per_round``. After each round, ``evaluate(params[r],
    streams[r])`` (if given) is recorded, then training stops if ``stop_when(means, evaluations)``
    (if given) is true, on lists per round so far of the runs' mean losses (R,) and ``evaluate``
    outputs (R, ...; empty without ``evaluate``). ``progress=False`` hides the bar.
    ``per_round(streams[r], start)`` (if given) is computed once per round from its first step
    ``start`` and passed to ``batch_at`` instead of ``streams[r]``: work every step of a round
    shares (an epoch's order).
    """
    steps = positive_int("steps", steps)
    steps_per_round = positive_int("steps_per_round", steps_per_round)
    if steps % steps_per_round:
        raise ValueError(
            f"steps must be a multiple of steps_per_round={steps_per_round}, got {steps}"
        )
    progress = check_flag("progress", progress)
    desc = check_text("desc", desc)
    check_type(
        "optimizer", optimizer, optax.GradientTransformation, what="an optax.GradientTransformation"
    )
    for name, fn in (("loss", loss), ("batch_at", batch_at)):
        check_type(name, fn, callable)
    for name, fn in (("per_round", per_round), ("stop_when", stop_when)):
        if fn is not None:
            check_type(name, fn, callable)
    leaves = jax.tree.leaves(params)
    if not leaves:
        raise ValueError("params must hold at least one array")
    runs = int(np.shape(leaves[0])[0]) if np.ndim(leaves[0]) else 0
    for name, tree in (
        ("params", params),
        ("streams", streams),
        ("state", state),
        ("opt_state", opt_state),
    ):
        for leaf in jax.tree.leaves(tree):
            if np.ndim(leaf) == 0 or np.shape(leaf)[0] != runs or runs == 0:
                raise ValueError(
                    f"{name} must have a leading run axis R={runs} on every leaf, "
                    f"got a leaf of shape {np.shape(leaf)}"
                )

    stateful = state is not None
    loss_of = loss if stateful else (lambda p, s, b: (loss(p, b), s))
    prepare = per_round or (lambda stream, start: stream)

    def one_step(carry, t, stream):
        p, opt_state, s = carry
        batch = batch_at(stream, t)
        (value, s), grads = jax.value_and_grad(loss_of, has_aux=True)(p, s, batch)
        updates, opt_state = optimizer.update(grads, opt_state, p)
        return (optax.apply_updates(p, updates), opt_state, s), value

    # A non-scalar loss is caught here, before anything is compiled, with the argument's name.
    first = jax.tree.map(lambda a: a[0], (params, state, streams))
    zero = jnp.asarray(0)
    value_shape = jax.eval_shape(
        lambda p, s, st: loss_of(p, s, batch_at(prepare(st, zero), zero))[0], *first
    )
    check_scalar_loss("loss", value_shape)

    def one_round(p, opt_state, s, stream, start):
        stream, ts = prepare(stream, start), start + jnp.arange(steps_per_round)
        carry, values = jax.lax.scan(lambda c, t: one_step(c, t, stream), (p, opt_state, s), ts)
        return (*carry, values, jnp.mean(values))

    run_round = jax.jit(jax.vmap(one_round, in_axes=(0, 0, 0, 0, None)))
    run_eval = None if evaluate is None else jax.jit(jax.vmap(evaluate))
    if opt_state is None:
        opt_state = jax.vmap(optimizer.init)(params)
    s = state if stateful else jnp.zeros((runs,))
    losses, means, evals = [], [], []
    stopped = False
    rounds = steps // steps_per_round
    with tqdm(range(rounds), disable=not progress, desc=f"{desc} ({runs} runs)") as bar:
        for r in bar:
            params, opt_state, s, values, mean = run_round(
                params, opt_state, s, streams, r * steps_per_round
            )
            losses.append(np.asarray(values))
            means.append(np.asarray(mean))
            if run_eval is not None:
                evals.append(np.asarray(run_eval(params, streams)))
            if progress:
                bar.set_postfix(loss=f"{float(np.mean(means[-1])):.3e}")
            if stop_when is not None and stop_when(means, evals) and r < rounds - 1:
                stopped = True
                break
    losses = np.concatenate(losses, axis=1)
    warn_if_diverged(losses, desc)
    return TrainResult(
        params=params,
        losses=losses,
        round_losses=np.stack(means, axis=1),
        eval_losses=np.stack(evals, axis=1) if evals else None,
        steps_per_round=steps_per_round,
        stopped_early=stopped,
        state=s if stateful else None,
    )


def train(
    make_model: Callable[[nnx.Rngs], nnx.Module],
    loss_fn: Callable[[nnx.Module, Batch], Array],
    data: Batch | Callable[[Array], Batch],
    *,
    steps: int,
    seed: int | Sequence[int] = 0,
    optimizer: optax.GradientTransformation | None = None,
    stop_when: Callable[[list[np.ndarray], list[np.ndarray]], bool] | None = None,
    progress: bool = True,
) -> TrainResult:
    """Train ``make_model(nnx.Rngs(...))`` for ``steps`` steps, once per seed (NNX adapter).

    Seed ``s`` splits ``jax.random.key(s)`` into an initialisation key and a data key. ``data`` is a
    fixed batch (full-batch training) or a function ``key -> batch`` called at step ``t`` with
    ``fold_in(data_key, t)``. ``loss_fn(model, batch)`` returns a scalar. ``optimizer`` defaults to
    ``optax.adam(1e-3)``. Only ``nnx.Param`` state is trained; other state (e.g. counters) is
    carried along as the model updates it. The models are split with ``nnx.split`` and the loop is
    :func:`train_params`. A single int seed gives results without a seed axis.
    """
    single = isinstance(seed, (int, np.integer)) and not isinstance(seed, (bool, np.bool_))
    seeds = seed_list("seed", seed)
    for s in seeds:
        if s >= 2**32:
            raise ValueError(f"seed must be < 2**32, got {s}")
    tx = optax.adam(1e-3) if optimizer is None else optimizer
    check_type("make_model", make_model, callable)
    sample = data if callable(data) else (lambda key: data)

    # Initialise seed by seed (eagerly, so a seed's model does not depend on the other seeds), then
    # stack along a new leading axis.
    init_keys, data_keys = zip(*(jax.random.split(jax.random.key(s)) for s in seeds), strict=True)
    try:
        graphdef, params, rest = stack_models([make_model(nnx.Rngs(k)) for k in init_keys])
    except ValueError as err:
        raise ValueError("make_model must build the same model structure for every seed") from err
    data_keys = jnp.stack(data_keys)

    def loss(p, r, batch):
        model = nnx.merge(graphdef, p, r)
        value = loss_fn(model, batch)
        return value, nnx.split(model, nnx.Param, ...)[2]

    result = train_params(
        loss,
        params,
        lambda key, t: sample(jax.random.fold_in(key, t)),
        data_keys,
        steps=steps,
        optimizer=tx,
        stop_when=stop_when,
        state=rest,
        progress=progress,
        desc="train",
    )
    params, rest, losses = result.params, result.state, result.losses
    round_losses = result.round_losses
    if single:
        params, rest = jax.tree.map(lambda a: a[0], (params, rest))
        losses, round_losses = losses[0], round_losses[0]
    return TrainResult(
        params=params,
        losses=losses,
        round_losses=round_losses,
        eval_losses=None,
        steps_per_round=1,
        stopped_early=result.stopped_early,
        seeds=seeds,
        graphdef=graphdef,
        state=rest,
    )
