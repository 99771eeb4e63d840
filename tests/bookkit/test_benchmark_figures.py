"""The performance appendix's figure draws the median times of the rows, one panel per shape."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from lrnn_core.bookkit.benchmark_figures import timing_figure  # noqa: E402


def _row(shape, label, kind, t):
    return {"shape": shape, "label": label, "kind": kind, "time_s": t}


def test_timing_figure_draws_ms_bars_per_shape_on_a_log_axis():
    rows = [
        _row((1, 2, 3), "a", "method", 0.002),
        _row((1, 2, 3), "b", "peer", 0.004),
        _row((1, 2, 3), "c", "peer", None),  # skipped: not drawn
        _row((4, 5, 6), "a", "method", 0.001),
    ]
    fig = timing_figure(rows, "ci")
    ax1, ax2 = fig.axes
    np.testing.assert_allclose([p.get_width() for p in ax1.patches], [2.0, 4.0])
    np.testing.assert_allclose([p.get_width() for p in ax2.patches], [1.0])
    assert ax1.get_xscale() == "log" and ax1.get_title() == "B, L, N = 1x2x3"
    assert "scale: ci" in fig._suptitle.get_text()
    plt.close(fig)
