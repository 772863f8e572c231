"""The training script's pieces: synthetic photos, sample making, the classifier fit."""

from __future__ import annotations

import numpy as np

from vision.chips import FEATURE_LENGTH, ChipModel, analyse_chip, pip_count
from vision.training.train_chips import make_samples, photograph_chip, train_mlp


def test_photographed_chip_reports_where_down_points() -> None:
    rng = np.random.default_rng(5)
    checked = 0
    for value in (2, 3, 4, 5, 9, 10, 11, 12):
        image, down = photograph_chip(value, "dots", rng, size_px=150)
        assert image.dtype == np.uint8 and image.ndim == 3
        assert 127 <= image.shape[0] == image.shape[1] <= 188
        analysis = analyse_chip(image)
        if analysis is None or analysis.dots != pip_count(value):
            continue
        checked += 1
        assert analysis.down_deg is not None
        assert abs((analysis.down_deg - down + 180) % 360 - 180) < 35
    assert checked >= 4


def test_samples_are_deterministic_and_labelled() -> None:
    x1, y1 = make_samples(np.random.SeedSequence(3), 6)
    x2, y2 = make_samples(np.random.SeedSequence(3), 6)
    assert np.array_equal(x1, x2) and np.array_equal(y1, y2)
    assert x1.shape == (len(y1), FEATURE_LENGTH) and x1.dtype == np.float32
    # Per chip: one or two upright samples of its value; one at a wrong rotation and usually
    # one cut in part, both "not a numeral upright" (label 10).
    junk = int((y1 == 10).sum())
    assert 6 <= junk <= 12
    assert 6 <= len(y1) - junk <= 12
    assert set(y1.tolist()) <= set(range(11))


def test_classifier_fit_separates_classes() -> None:
    rng = np.random.default_rng(0)
    centres = rng.normal(0, 1, (11, FEATURE_LENGTH)).astype(np.float32)
    y = np.repeat(np.arange(11), 30)
    x = centres[y] + rng.normal(0, 0.5, (len(y), FEATURE_LENGTH)).astype(np.float32)
    arrays = train_mlp(x, y, np.random.default_rng(1), hidden=16, epochs=30)
    model = ChipModel(arrays)
    test_y = np.repeat(np.arange(11), 5)
    test_x = centres[test_y] + rng.normal(0, 0.5, (len(test_y), FEATURE_LENGTH))
    proba = model.predict_proba(test_x.astype(np.float32))
    assert proba.shape == (len(test_y), 11)
    assert np.allclose(proba.sum(axis=1), 1.0, atol=1e-5)
    assert (proba.argmax(axis=1) == test_y).mean() > 0.95
