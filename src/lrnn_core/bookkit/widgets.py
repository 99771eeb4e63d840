"""Parameter explorers that keep working on the static website, without a kernel.

:func:`explore` renders ``plot(**params)`` once for every combination of a small grid of
parameter values and returns a widget: one slider per parameter above nested
:class:`ipywidgets.Stack` containers of :class:`ipywidgets.Image` frames. Each slider drives the
stacks of its level through :func:`ipywidgets.jslink`, i.e. in the browser. So the same widget is
live in Jupyter or Colab and, from the widget state saved with the executed notebook, still
responds to the reader's slider on the built website (the ipywidgets HTML manager switches the
pre-rendered frames).

Example::

    def plot(lam, L):
        fig, ax = plt.subplots(figsize=(5, 3))
        ax.plot(lam ** np.arange(L))
        return fig

    explore(plot, {"lam": [0.5, 0.9, 0.99], "L": [10, 50]}, description="Powers of lambda")
"""

from __future__ import annotations

import html
import io
import itertools
import math
import numbers
import warnings
from collections.abc import Callable, Mapping, Sequence

import ipywidgets as widgets
import matplotlib.pyplot as plt
from ipywidgets.widgets.widget_link import Link
from matplotlib.figure import Figure

from lrnn_core.bookkit.scale import current_scale
from lrnn_core.core.validate import check_text, check_type, positive_int, positive_number

#: Default resolution of the frames; a 6 x 3.5 inch figure becomes 480 x 280 pixels (tens of kB).
DEFAULT_DPI = 80
#: Most frames (the product of the grid's lengths) :func:`explore` renders unless told otherwise;
#: each frame is stored in the page, so this keeps a page at a few MB.
MAX_FRAMES = 128
#: Total PNG size above which :func:`explore` warns that the page gets heavy.
WARN_BYTES = 6_000_000


class Explorer(widgets.VBox):
    """The widget :func:`explore` returns: a VBox of (title,) sliders and the nested stacks.

    Besides ``children`` it exposes its parts: ``sliders`` (one per grid name, in grid order),
    ``stacks`` (``stacks[k]`` holds the stacks switched by ``sliders[k]``; ``stacks[0]`` is the
    single outermost one), ``links`` (the jslinks) and ``grid`` (name -> tuple of values).
    """

    def __init__(
        self,
        *,
        title: widgets.Widget | None,
        sliders: Sequence[widgets.SelectionSlider],
        stacks: Sequence[Sequence[widgets.Stack]],
        links: Sequence[Link],
        grid: Mapping[str, tuple[object, ...]],
    ) -> None:
        head = [] if title is None else [title]
        super().__init__(children=[*head, *sliders, stacks[0][0]])
        self.sliders = tuple(sliders)
        self.stacks = tuple(tuple(level) for level in stacks)
        self.links = tuple(links)
        self.grid = dict(grid)

    def frame(self, **params: object) -> widgets.Image:
        """The image shown when each slider is at the given value, e.g. ``frame(lam=0.9, L=50)``."""
        if set(params) != set(self.grid):
            raise ValueError(f"frame needs the parameters {list(self.grid)}, got {list(params)}")
        node: widgets.Widget = self.stacks[0][0]
        for name in self.grid:
            node = node.children[_index_of(self.grid[name], params[name], name)]
        return node


def explore(
    plot: Callable[..., Figure],
    grid: Mapping[str, Sequence[object]],
    *,
    dpi: float = DEFAULT_DPI,
    description: str | None = None,
    labels: Mapping[str, str] | None = None,
    max_frames: int = MAX_FRAMES,
) -> Explorer:
    """Pre-render ``plot(**params)`` for every combination in ``grid``; sliders switch the frames.

    ``grid`` maps each keyword of ``plot`` to the values its slider offers (one slider per name,
    in order; sliders start at the first value). ``plot`` must return a matplotlib Figure; every
    figure it opens is closed after rendering. At most ``max_frames`` combinations are rendered
    (default :data:`MAX_FRAMES`), at ``dpi`` dots per inch. ``description`` is shown above the
    sliders; ``labels`` maps names to slider labels (default: the names), which may hold TeX in
    dollars, e.g. ``{"lam": "$\\lambda$"}``.
    Raises TypeError for a non-callable ``plot`` or a ``plot`` that returns no Figure, and
    ValueError for an empty or too large grid or a repeated value.
    """
    check_type("plot", plot, callable, what="callable (params -> Figure)")
    values = _check_grid(grid)
    slider_labels = _slider_labels(values, labels)
    dpi = positive_number("dpi", dpi)
    max_frames = positive_int("max_frames", max_frames)
    n_frames = math.prod(len(v) for v in values.values())
    if n_frames > max_frames:
        sizes = " x ".join(str(len(v)) for v in values.values())
        raise ValueError(
            f"grid has {sizes} = {n_frames} combinations, more than max_frames={max_frames}; "
            "use fewer values (every frame is stored in the page) or raise max_frames"
        )
    readouts = {name: _readouts(name, vals) for name, vals in values.items()}
    pngs = _render_all(plot, values, dpi)
    sliders = [_slider(slider_labels[name], readouts[name], vals) for name, vals in values.items()]
    stacks: list[list[widgets.Stack]] = [[] for _ in values]
    _nest(_images(pngs), tuple(len(v) for v in values.values()), stacks)
    links = [
        widgets.jslink((slider, "index"), (stack, "selected_index"))
        for slider, level in zip(sliders, stacks, strict=False)
        for stack in level
    ]
    title = None if description is None else widgets.HTML(f"<b>{html.escape(description)}</b>")
    return Explorer(title=title, sliders=sliders, stacks=stacks, links=links, grid=values)


def slider_values(grid: Mapping[str, Sequence[object]]) -> dict[str, tuple[object, ...]]:
    """The values each slider of an explorer offers at the current scale (``LRNN_SCALE``).

    At ``ci`` a slider keeps its first and last value only (``2**k`` frames for ``k`` sliders: the
    widget is exercised, the tests stay fast); at ``book`` and ``paper``, the website's scales,
    every value. A chapter passes its grid through this before computing what the frames show.
    """
    values = _check_grid(grid)
    if current_scale() != "ci":
        return values
    return {name: vals if len(vals) <= 2 else (vals[0], vals[-1]) for name, vals in values.items()}


def figure_to_png(fig: Figure, dpi: float = DEFAULT_DPI) -> bytes:
    """The PNG bytes of ``fig`` at ``dpi`` (the figure's own size, no tight bounding box)."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    return buf.getvalue()


def format_value(value: object) -> str:
    """A short slider label: integers as is, real numbers to 4 significant digits, others by str."""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        return format(float(value), ".4g")
    if isinstance(value, numbers.Complex):
        return format(complex(value), ".4g")
    return str(value)


def _check_grid(grid: Mapping[str, Sequence[object]]) -> dict[str, tuple[object, ...]]:
    check_type("grid", grid, Mapping, what="a mapping name -> sequence of values")
    if not grid:
        raise ValueError("grid is empty: give at least one parameter, e.g. {'lam': [0.5, 0.9]}")
    out: dict[str, tuple[object, ...]] = {}
    for name, vals in grid.items():
        if not isinstance(name, str) or not name.isidentifier():
            raise TypeError(f"grid keys must be keyword names of plot, got {name!r}")
        if isinstance(vals, (str, bytes)) or not hasattr(vals, "__iter__"):
            raise TypeError(
                f"grid[{name!r}] must be a sequence of values, got {type(vals).__name__}"
            )
        out[name] = tuple(vals)
        if not out[name]:
            raise ValueError(f"grid[{name!r}] is empty: give at least one value")
    return out


def _slider_labels(
    values: Mapping[str, object], labels: Mapping[str, str] | None
) -> dict[str, str]:
    labels = {} if labels is None else labels
    check_type("labels", labels, Mapping, what="a mapping name -> str")
    unknown = set(labels) - set(values)
    if unknown:
        raise ValueError(f"labels has names that are not in grid: {sorted(map(str, unknown))}")
    for name, label in labels.items():
        check_text(f"labels[{name!r}]", label)
    return {name: labels.get(name, name) for name in values}


def _readouts(name: str, values: tuple[object, ...]) -> list[str]:
    """Distinct readouts: :func:`format_value`, or ``repr`` where 4 digits merge values."""
    for fmt in (format_value, repr):
        readouts = [fmt(v) for v in values]
        if len(set(readouts)) == len(readouts):
            return readouts
    raise ValueError(f"grid[{name!r}] repeats a value: {list(values)!r}")


def _index_of(values: tuple[object, ...], value: object, name: str) -> int:
    for i, v in enumerate(values):
        if v is value or v == value:
            return i
    raise ValueError(f"{value!r} is not among the values of {name!r}: {list(values)!r}")


def _render_all(
    plot: Callable[..., Figure], values: Mapping[str, tuple[object, ...]], dpi: float
) -> list[bytes]:
    """PNG of every combination, in row-major order (the last parameter varies fastest)."""
    names = list(values)
    combos = itertools.product(*values.values())
    pngs = [_render_one(plot, dict(zip(names, combo, strict=False)), dpi) for combo in combos]
    total = sum(len(p) for p in pngs)
    if total > WARN_BYTES:
        warnings.warn(
            f"explore: {len(pngs)} frames take {total / 1e6:.1f} MB of PNG; "
            "lower dpi or use fewer values",
            stacklevel=3,
        )
    return pngs


def _render_one(plot: Callable[..., Figure], params: dict[str, object], dpi: float) -> bytes:
    """Render ``plot(**params)`` to PNG; close the figure and every other figure the call opened."""
    before = set(plt.get_fignums())
    fig = None
    try:
        try:
            fig = plot(**params)
        except Exception as err:
            err.add_note(f"while rendering plot({_call_args(params)}) for explore")
            raise
        if not isinstance(fig, Figure):
            hint = " (return ax.figure, not the Axes)" if hasattr(fig, "figure") else ""
            raise TypeError(
                f"plot({_call_args(params)}) must return a matplotlib Figure, "
                f"got {type(fig).__name__}{hint}"
            )
        return figure_to_png(fig, dpi)
    finally:
        for num in set(plt.get_fignums()) - before:
            plt.close(num)
        if isinstance(fig, Figure):
            plt.close(fig)


def _call_args(params: Mapping[str, object]) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in params.items())


def _slider(label: str, readouts: list[str], values: tuple[object, ...]) -> widgets.SelectionSlider:
    return widgets.SelectionSlider(
        options=list(zip(readouts, values, strict=False)),
        index=0,
        description=label,
        continuous_update=True,
        style={"description_width": "initial"},
        layout=widgets.Layout(width="min(100%, 28em)"),
    )


def _images(pngs: list[bytes]) -> list[widgets.Image]:
    """One Image per frame; they share a Layout so the saved state stays small."""
    layout = widgets.Layout(max_width="100%", height="auto")
    return [widgets.Image(value=png, format="png", layout=layout) for png in pngs]


def _nest(
    frames: Sequence[widgets.Widget], sizes: tuple[int, ...], stacks: list[list[widgets.Stack]]
) -> widgets.Widget:
    """Nest ``frames`` (row-major over ``sizes``) in Stacks.

    Each Stack of level k is appended to ``stacks[k]``."""
    if not sizes:
        (frame,) = frames
        return frame
    chunk = len(frames) // sizes[0]
    level = len(stacks) - len(sizes)
    children = [
        _nest(frames[i * chunk : (i + 1) * chunk], sizes[1:], stacks) for i in range(sizes[0])
    ]
    stack = widgets.Stack(children=children, selected_index=0)
    stacks[level].append(stack)
    return stack
