"""lrnn_core.bookkit.widgets.explore: frames, order, jslinks, labels, validation and cleanup."""

from __future__ import annotations

import io
import math

import ipywidgets as widgets
import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from ipywidgets.embed import embed_data  # noqa: E402
from ipywidgets.widgets.widget_link import DirectionalLink, Link  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from PIL import Image  # noqa: E402

from lrnn_core.bookkit.widgets import (  # noqa: E402
    MAX_FRAMES,
    Explorer,
    explore,
    figure_to_png,
    format_value,
    slider_values,
)

DPI = 20
GRID = {"a": [0, 1, 2], "b": [0.25, 0.5], "c": ["x", "y", "z", "w"]}
C_LEVEL = {"x": 0.0, "y": 0.3, "z": 0.6, "w": 1.0}


def colour_plot(a: int, b: float, c: str) -> Figure:
    """A 1 x 1 inch figure filled with the colour (a / 2, b, C_LEVEL[c]): each frame is distinct."""
    fig = plt.figure(figsize=(1, 1))
    fig.patch.set_facecolor((a / 2, b, C_LEVEL[c]))
    return fig


def expected_rgb(a: int, b: float, c: str) -> tuple[int, int, int]:
    return tuple(round(255 * v) for v in (a / 2, b, C_LEVEL[c]))


def same_colour(got: tuple[int, ...], want: tuple[int, ...]) -> bool:
    """Equal up to 8-bit rounding (matplotlib rounds 76.5 up, Python's round to even)."""
    return all(abs(g - w) <= 1 for g, w in zip(got, want, strict=True))


def centre_rgb(png: bytes) -> tuple[int, int, int]:
    img = Image.open(io.BytesIO(png)).convert("RGB")
    return img.getpixel((img.width // 2, img.height // 2))


def walk(explorer: Explorer, *indices: int) -> widgets.Widget:
    """The child reached from the outermost stack by following one index per level."""
    node = explorer.stacks[0][0]
    for i in indices:
        node = node.children[i]
    return node


def stacks_by_depth(
    node: widgets.Widget, depth: int = 0, out: dict | None = None
) -> dict[int, list]:
    """Every Stack in the tree under ``node``, grouped by nesting depth (walking children)."""
    out = {} if out is None else out
    if isinstance(node, widgets.Stack):
        out.setdefault(depth, []).append(node)
        for child in node.children:
            stacks_by_depth(child, depth + 1, out)
    return out


@pytest.fixture(scope="module")
def explorer() -> Explorer:
    return explore(colour_plot, GRID, dpi=DPI, description="Colours <b>&</b>")


def test_layout_of_the_returned_box(explorer: Explorer) -> None:
    assert isinstance(explorer, widgets.VBox)
    title, *sliders, outer = explorer.children
    assert isinstance(title, widgets.HTML) and "Colours &lt;b&gt;&amp;&lt;/b&gt;" in title.value
    assert sliders == list(explorer.sliders)
    assert [s.description for s in sliders] == ["a", "b", "c"]
    assert outer is explorer.stacks[0][0] and isinstance(outer, widgets.Stack)
    assert [s.index for s in sliders] == [0, 0, 0]


def test_number_of_frames_is_the_grid_product(explorer: Explorer) -> None:
    sizes = [len(v) for v in GRID.values()]
    by_depth = stacks_by_depth(explorer.stacks[0][0])
    # Level k holds prod(sizes[:k]) stacks of sizes[k] children each.
    assert [len(by_depth[k]) for k in range(3)] == [1, 3, 6]
    assert [len(level) for level in explorer.stacks] == [1, 3, 6]
    for k, level in enumerate(explorer.stacks):
        assert all(len(stack.children) == sizes[k] for stack in level)
        assert all(stack.selected_index == 0 for stack in level)
    frames = [child for stack in explorer.stacks[-1] for child in stack.children]
    assert len(frames) == math.prod(sizes) == 24
    assert all(isinstance(f, widgets.Image) and f.format == "png" for f in frames)
    assert len({f.value for f in frames}) == 24  # all distinct
    assert len({id(f) for f in frames}) == 24


@pytest.mark.parametrize("ia, ib, ic", [(0, 0, 0), (2, 1, 3), (1, 0, 2), (2, 0, 1)])
def test_frame_at_slider_position_is_plot_of_those_values(
    explorer: Explorer, ia: int, ib: int, ic: int
) -> None:
    params = {"a": GRID["a"][ia], "b": GRID["b"][ib], "c": GRID["c"][ic]}
    frame = walk(explorer, ia, ib, ic)
    assert isinstance(frame, widgets.Image)
    # Same bytes as an independent rendering of plot(**params) ...
    fig = colour_plot(**params)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI)
    plt.close(fig)
    assert frame.value == buf.getvalue()
    # ... and the pixels say which parameters made it.
    assert same_colour(centre_rgb(frame.value), expected_rgb(**params))
    assert Image.open(io.BytesIO(frame.value)).size == (DPI, DPI)
    assert explorer.frame(**params) is frame


def test_jslinks_connect_each_slider_to_every_stack_of_its_level(explorer: Explorer) -> None:
    by_depth = stacks_by_depth(explorer.stacks[0][0])
    assert len(explorer.links) == sum(len(v) for v in by_depth.values()) == 10
    linked: dict[int, list] = {}
    for link in explorer.links:
        assert isinstance(link, Link) and not isinstance(link, DirectionalLink)  # two-way jslink
        slider, source_trait = link.source
        stack, target_trait = link.target
        assert (source_trait, target_trait) == ("index", "selected_index")
        k = explorer.sliders.index(slider)
        linked.setdefault(k, []).append(stack)
    for k in range(3):
        assert [id(s) for s in linked[k]] == [id(s) for s in by_depth[k]]  # each once, in order
        assert len(by_depth[k][0].children) == len(explorer.sliders[k].options)


def test_saved_widget_state_holds_frames_and_links(explorer: Explorer) -> None:
    data = embed_data(views=[explorer])
    state = data["manager_state"]["state"]
    models = [m["model_name"] for m in state.values()]
    assert models.count("ImageModel") == 24
    assert models.count("StackModel") == 10
    assert models.count("LinkModel") == 10
    assert models.count("SelectionSliderModel") == 3
    link_states = [m["state"] for m in state.values() if m["model_name"] == "LinkModel"]
    slider_ids = {f"IPY_MODEL_{s.model_id}" for s in explorer.sliders}
    assert all(ls["source"][0] in slider_ids and ls["source"][1] == "index" for ls in link_states)
    assert all(ls["target"][1] == "selected_index" for ls in link_states)
    assert data["view_specs"][0]["model_id"] == explorer.model_id


def test_slider_readouts() -> None:
    w = explore(
        lambda x, n, s: colour_plot(0, 0.0, "x"),
        {"x": [0.1, np.pi, 2e-5, 12345.678], "n": np.array([16, 256]), "s": ["rnn", True]},
        dpi=DPI,
    )
    assert [lab for lab, _ in w.sliders[0].options] == ["0.1", "3.142", "2e-05", "1.235e+04"]
    assert [lab for lab, _ in w.sliders[1].options] == ["16", "256"]
    assert [lab for lab, _ in w.sliders[2].options] == ["rnn", "True"]
    assert w.sliders[0].value == 0.1 and w.sliders[1].value == 16
    assert w.grid["x"] == (0.1, np.pi, 2e-5, 12345.678)


def test_readouts_fall_back_to_repr_when_four_digits_merge_values() -> None:
    w = explore(lambda x: colour_plot(0, 0.0, "x"), {"x": [0.12341, 0.12342]}, dpi=DPI)
    assert [lab for lab, _ in w.sliders[0].options] == ["0.12341", "0.12342"]


def test_format_value() -> None:
    assert format_value(np.float32(0.5)) == "0.5"
    assert format_value(np.int64(7)) == "7"
    assert format_value(1 + 2j) == "1+2j"
    assert format_value(False) == "False"
    assert format_value(None) == "None"


def test_labels_set_slider_descriptions_without_changing_the_grid() -> None:
    plot = lambda lam, T: colour_plot(0, 0.0, "x")  # noqa: E731
    w = explore(plot, {"lam": [0.5], "T": [1, 2]}, labels={"lam": r"$\lambda$"}, dpi=DPI)
    assert [s.description for s in w.sliders] == [r"$\lambda$", "T"]
    assert list(w.grid) == ["lam", "T"]
    assert len(w.children) == 3  # no title without description


def test_one_parameter_grid_is_a_single_stack_of_images() -> None:
    w = explore(lambda a: colour_plot(a, 0.0, "x"), {"a": [0, 1, 2]}, dpi=DPI)
    assert len(w.stacks) == 1 and len(w.links) == 1
    for a, img in zip((0, 1, 2), w.stacks[0][0].children, strict=True):
        assert same_colour(centre_rgb(img.value), expected_rgb(a, 0.0, "x"))


def test_all_figures_are_closed() -> None:
    plt.close("all")

    def plot_with_extra_figure(a: int) -> Figure:
        plt.figure()  # a stray figure the plot forgets to close
        return colour_plot(a, 0.0, "x")

    explore(plot_with_extra_figure, {"a": [0, 1]}, dpi=DPI)
    assert plt.get_fignums() == []


def test_figure_to_png_uses_the_figure_size_and_dpi() -> None:
    fig = Figure(figsize=(2, 1))
    assert Image.open(io.BytesIO(figure_to_png(fig, dpi=30))).size == (60, 30)


# --- bad input ----------------------------------------------------------------------------------


def test_empty_grid() -> None:
    with pytest.raises(ValueError, match="grid is empty"):
        explore(colour_plot, {})


def test_empty_values() -> None:
    with pytest.raises(ValueError, match=r"grid\['b'\] is empty"):
        explore(colour_plot, {"a": [0], "b": []})


def test_grid_not_a_mapping_or_values_not_a_sequence() -> None:
    with pytest.raises(TypeError, match="grid must be a mapping"):
        explore(colour_plot, [("a", [0])])
    with pytest.raises(TypeError, match=r"grid\['a'\] must be a sequence"):
        explore(colour_plot, {"a": "012"})
    with pytest.raises(TypeError, match=r"grid\['a'\] must be a sequence"):
        explore(colour_plot, {"a": 3})
    with pytest.raises(TypeError, match="keyword names"):
        explore(colour_plot, {"not a name": [0]})


def test_repeated_values() -> None:
    with pytest.raises(ValueError, match=r"grid\['a'\] repeats a value"):
        explore(colour_plot, {"a": [1, 2, 1]})


def test_plot_not_callable() -> None:
    with pytest.raises(TypeError, match="plot must be callable"):
        explore("colour_plot", {"a": [0]})


def test_plot_returning_axes_or_none() -> None:
    plt.close("all")

    def axes_plot(a: int):
        return plt.subplots()[1]

    expected = r"plot\(a=0\) must return a matplotlib Figure, got Axes \(return ax.figure"
    with pytest.raises(TypeError, match=expected):
        explore(axes_plot, {"a": [0, 1]})
    with pytest.raises(TypeError, match="got NoneType"):
        explore(lambda a: None, {"a": [0]})
    assert plt.get_fignums() == []  # the figure axes_plot opened was closed


def test_error_inside_plot_names_the_parameters() -> None:
    def broken(a: int) -> Figure:
        if a == 2:
            raise ZeroDivisionError("boom")
        return colour_plot(a, 0.0, "x")

    with pytest.raises(ZeroDivisionError, match="boom") as info:
        explore(broken, {"a": [0, 1, 2]}, dpi=DPI)
    assert any("plot(a=2)" in note for note in info.value.__notes__)


def test_too_many_frames_fails_before_rendering() -> None:
    calls = []

    def counting_plot(a: int, b: int) -> Figure:
        calls.append((a, b))
        return colour_plot(0, 0.0, "x")

    big = {"a": range(20), "b": range(10)}  # 200 > MAX_FRAMES
    assert 200 > MAX_FRAMES
    with pytest.raises(ValueError, match=r"20 x 10 = 200 combinations, more than max_frames=128"):
        explore(counting_plot, big)
    with pytest.raises(ValueError, match="more than max_frames=5"):
        explore(counting_plot, {"a": range(3), "b": range(2)}, max_frames=5)
    assert calls == []
    w = explore(counting_plot, {"a": range(3), "b": range(2)}, max_frames=6, dpi=DPI)
    assert len(calls) == 6 and len(w.links) == 1 + 3


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"dpi": 0}, ValueError, "dpi must be > 0"),
        ({"dpi": -5}, ValueError, "dpi must be > 0"),
        ({"dpi": float("nan")}, ValueError, "dpi must be finite"),
        ({"dpi": True}, TypeError, "dpi must be a real number"),
        ({"max_frames": 0}, ValueError, "max_frames must be >= 1"),
        ({"max_frames": 2.5}, TypeError, "max_frames must be an int"),
    ],
)
def test_bad_numbers(kwargs: dict, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        explore(colour_plot, {"a": [0]}, **kwargs)


def test_bad_labels() -> None:
    with pytest.raises(ValueError, match="not in grid"):
        explore(colour_plot, {"a": [0]}, labels={"z": "zeta"})
    with pytest.raises(TypeError, match=r"labels\['a'\] must be a str"):
        explore(colour_plot, {"a": [0]}, labels={"a": 1})


def test_frame_lookup_errors(explorer: Explorer) -> None:
    with pytest.raises(ValueError, match="needs the parameters"):
        explorer.frame(a=0)
    with pytest.raises(ValueError, match="not among the values of 'a'"):
        explorer.frame(a=7, b=0.25, c="x")


@pytest.mark.parametrize("scale", ["ci", "book", "paper"])
def test_slider_values_keep_each_sliders_ends_at_ci_only(monkeypatch, scale):
    monkeypatch.setenv("LRNN_SCALE", scale)
    grid = {"N": [16, 64, 256], "r_max": [0.95, 1.0], "law": ("a",), "k": range(5)}
    got = slider_values(grid)
    if scale == "ci":  # 2 * 2 * 1 * 2 = 8 frames instead of 3 * 2 * 1 * 5 = 30
        assert got == {"N": (16, 256), "r_max": (0.95, 1.0), "law": ("a",), "k": (0, 4)}
    else:
        assert got == {k: tuple(v) for k, v in grid.items()}
    with pytest.raises(ValueError, match="empty"):
        slider_values({"N": []})
