import numpy as np
import pytest
from scipy import ndimage

from lrnn_core.data.pathfinder import draw_path, pathfinder_images, rasterise


def connected(image: np.ndarray, dots: np.ndarray) -> bool:
    """The label's reference: whether the two dot centres ``dots`` ``(2, 2)`` lie in one
    8-connected component of the image's lit pixels thickened by one pixel (a 3 x 3 dilation, which
    closes the gaps of at most one pixel between consecutive dashes and, at ``clearance >= 4``,
    never joins two strokes)."""
    image = np.asarray(image)
    if image.ndim != 2:
        raise ValueError(f"image must be 2-D, got shape {image.shape}")
    grown = ndimage.binary_dilation(image > 0.5, structure=np.ones((3, 3)))
    labelled, _ = ndimage.label(grown, structure=np.ones((3, 3)))
    (x0, y0), (x1, y1) = np.rint(np.asarray(dots)).astype(int)
    return bool(labelled[y0, x0] and labelled[y0, x0] == labelled[y1, x1])


KW = dict(dashes=6, dash_length=2.0, gap=1.5, max_turn=np.pi / 6)


@pytest.fixture(scope="module")
def batch():
    return pathfinder_images(40, seed=3)


def test_shapes_values_labels_and_determinism(batch):
    images, labels, samples = batch
    assert images.shape == (40, 1024) and images.dtype == np.float64
    assert set(np.unique(images)) == {0.0, 1.0}
    np.testing.assert_array_equal(labels, [1, 0] * 20)
    again = pathfinder_images(40, seed=3)[0]
    np.testing.assert_array_equal(images, again)
    assert not np.array_equal(images, pathfinder_images(40, seed=4)[0])
    for img, s in zip(images, samples, strict=True):
        np.testing.assert_array_equal(img, s.image.ravel())  # row by row


def test_dash_lengths_gaps_and_turns_are_the_law():
    rng = np.random.default_rng(0)
    for _ in range(20):
        path = draw_path(rng, 32, margin=1.5, **KW)
        steps = path[:, 1] - path[:, 0]
        np.testing.assert_allclose(np.linalg.norm(steps, axis=1), 2.0, rtol=1e-12)
        np.testing.assert_allclose(np.linalg.norm(path[1:, 0] - path[:-1, 1], axis=1), 1.5)
        heading = np.arctan2(steps[:, 1], steps[:, 0])
        turn = np.angle(np.exp(1j * np.diff(heading)))
        assert np.all(np.abs(turn) <= np.pi / 6 + 1e-12)
        # the gap continues the *next* dash's heading
        gaps = path[1:, 0] - path[:-1, 1]
        np.testing.assert_allclose(np.arctan2(gaps[:, 1], gaps[:, 0]), heading[1:], atol=1e-12)
        assert path.min() >= 1.5 and path.max() <= 32 - 1 - 1.5


def test_dots_sit_on_path_ends_and_image_is_dashes_plus_dots(batch):
    _, _, samples = batch
    for s in samples:
        ends0 = [s.paths[0][0, 0], s.paths[0][-1, 1]]
        ends1 = [s.paths[1][0, 0], s.paths[1][-1, 1]]
        assert any(np.array_equal(s.dots[0], e) for e in ends0)
        other = ends0 if s.label else ends1
        assert any(np.array_equal(s.dots[1], e) for e in other)
        # every lit pixel is on a dash or within the dot radius (1.5 px) of a dot centre
        dashes = np.zeros((32, 32))
        for p in s.paths:
            rasterise(dashes, p)
        ys, xs = np.nonzero(s.image - dashes)
        for x, y in zip(xs, ys, strict=True):
            assert np.min(np.hypot(s.dots[:, 0] - x, s.dots[:, 1] - y)) <= 1.5
        assert np.all(s.image >= dashes)
        for cx, cy in s.dots:  # the dot's nearest pixel is lit
            assert s.image[int(np.rint(cy)), int(np.rint(cx))] == 1.0


def test_positive_dots_are_joined_by_the_target_path_when_gaps_are_closed():
    """With the gaps filled in, path 0 alone is one 8-connected stroke from dot to dot."""
    _, _, samples = pathfinder_images(10, seed=5, gap=0.0)
    for s in samples[::2]:
        img = np.zeros((32, 32))
        rasterise(img, s.paths[0])
        for cx, cy in s.dots:
            img[int(np.rint(cy)), int(np.rint(cx))] = 1.0
        labelled, count = ndimage.label(img, structure=np.ones((3, 3)))
        assert count == 1


def test_rasterise_marks_a_horizontal_dash_exactly():
    img = np.zeros((8, 8))
    rasterise(img, np.array([[[1.0, 2.0], [4.0, 2.0]]]))
    expected = np.zeros((8, 8))
    expected[2, 1:5] = 1.0
    np.testing.assert_array_equal(img, expected)


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"n": 0}, ValueError),
        ({"n": 2, "distractors": 0}, ValueError),
        ({"n": 2, "max_turn": 4.0}, ValueError),
        ({"n": 2, "dashes": 40, "dash_length": 8.0, "max_turn": 0.0}, ValueError),
    ],
)
def test_bad_arguments_raise(kwargs, error):
    with pytest.raises(error):
        pathfinder_images(**kwargs)


@pytest.fixture(scope="module")
def large():
    """400 training and 400 held-out images (independent seeds)."""
    return pathfinder_images(400, seed=11), pathfinder_images(400, seed=12)


def test_label_is_connectivity_and_strokes_never_touch(large):
    ys, xs = np.ogrid[:32, :32]
    for _, _, samples in large:
        for s in samples:
            assert connected(s.image, s.dots) == bool(s.label)
            # each path with the dots on it (dot 0 on path 0; dot 1 on path 0 or 1)
            on = {0: [s.dots[0]] + ([s.dots[1]] if s.label else []), 1: []}
            if not s.label:
                on[1] = [s.dots[1]]
            strokes = []
            for p, path in enumerate(s.paths):
                img = np.zeros((32, 32))
                rasterise(img, path)
                for cx, cy in on.get(p, []):
                    img[(xs - cx) ** 2 + (ys - cy) ** 2 <= 1.5**2] = 1
                strokes.append(np.argwhere(img > 0))
            for a in range(len(strokes)):
                for b in range(a):
                    gaps = np.abs(strokes[a][:, None] - strokes[b][None]).max(-1)
                    assert gaps.min() >= 4  # Chebyshev distance between two strokes


def _features(images, samples):
    ys, xs = np.mgrid[:32, :32]
    near = np.array(
        [
            [s.image[(xs - cx) ** 2 + (ys - cy) ** 2 <= 4.0**2].sum() for cx, cy in s.dots]
            for s in samples
        ]
    )
    grown = [ndimage.binary_dilation(s.image > 0, np.ones((3, 3))) for s in samples]
    return {
        "dot distance": np.array([np.linalg.norm(s.dots[1] - s.dots[0]) for s in samples]),
        "ink": images.sum(axis=1),
        "ink near dot 0": near[:, 0],
        "ink near dot 1": near[:, 1],
        "ink near both dots": near.sum(axis=1),
        "strokes": np.array([ndimage.label(g, np.ones((3, 3)))[1] for g in grown]),
    }


def _histogram_classifier_accuracy(f_train, y_train, f_test, y_test, bins=10):
    """Majority label per quantile bin of one feature (any monotone or not rule on it)."""
    edges = np.unique(np.quantile(f_train, np.linspace(0, 1, bins + 1)[1:-1]))
    b_train, b_test = np.digitize(f_train, edges), np.digitize(f_test, edges)
    rule = {b: np.mean(y_train[b_train == b]) >= 0.5 for b in np.unique(b_train)}
    guess = np.array([rule.get(b, True) for b in b_test])
    return np.mean(guess == y_test)


def test_no_single_handmade_feature_predicts_the_label(large):
    (im_tr, y_tr, s_tr), (im_te, y_te, s_te) = large
    f_tr, f_te = _features(im_tr, s_tr), _features(im_te, s_te)
    for name in f_tr:
        acc = _histogram_classifier_accuracy(f_tr[name], y_tr, f_te[name], y_te)
        assert acc <= 0.60, (name, acc)


def test_the_feature_classifier_finds_a_leak_when_there_is_one(large):
    """Negative control: the same classifier on a feature that carries the label (the dot
    distance of a generator whose negatives put the second dot anywhere) is far above chance."""
    (im_tr, y_tr, s_tr), (im_te, y_te, s_te) = large
    rng = np.random.default_rng(0)

    def leaky(samples):
        d = [np.linalg.norm(s.dots[1] - s.dots[0]) for s in samples]
        return np.array(
            [di if s.label else rng.uniform(0, 40) for di, s in zip(d, samples, strict=True)]
        )

    acc = _histogram_classifier_accuracy(leaky(s_tr), y_tr, leaky(s_te), y_te)
    assert acc >= 0.75
