"""The performance appendix's printouts: missed targets, spreads and the training-step line."""

from lrnn_core.bookkit import benchmark_report as report


def _target(shape, auto_loop, auto_floor):
    ratios = {"auto / NumPy loop": auto_loop, "auto / floor": auto_floor, "gradient / forward": 2.0}
    met = {"auto / NumPy loop": auto_loop <= 1.0, "auto / floor": auto_floor <= 1.15}
    return {
        "shape": shape,
        "load": 1.0,
        "ratios": ratios,
        "met": met | {"gradient / forward": True},
    }


TARGETS = [_target((1, 2, 3), 0.5, 1.1), _target((4, 5, 6), 1.5, 1.3)]


def test_targets_report_lists_missed_targets_and_floor_over_loop():
    rows = [{"shape": (1, 2, 3), "name": "stream", "vs_numpy": 0.25}]
    text = report.targets_report(TARGETS, rows).splitlines()
    assert text[0] == "(1, 2, 3): all targets met"
    assert text[1] == "(4, 5, 6): missed ['auto / NumPy loop', 'auto / floor']"
    assert text[2] == "the streaming floor's time / the NumPy loop's, per shape: (1, 2, 3): 0.25"


def test_allocator_report_gives_each_ratio_s_range_per_setting():
    text = report.allocator_report({"default": TARGETS, "huge": TARGETS[:1]}).splitlines()
    assert len(text) == 6 and text[0] == "default: auto / NumPy loop 0.50 to 1.50"
    assert text[3] == "huge: auto / NumPy loop 0.50 to 0.50"


def test_train_step_report_in_ms_and_ratio():
    assert report.train_step_report(0.012, 0.010) == (
        "training step: library 12.0 ms, plain lax.scan 10.0 ms, ratio 1.20"
    )


def test_setup_report_names_device_method_shapes_and_load():
    lines = report.setup_report().splitlines()
    assert [line.split(":")[0] for line in lines] == [
        "device",
        'method="auto" uses',
        "shapes (B, L, N)",
        "load average (1, 5, 15 min) before the run",
    ]
