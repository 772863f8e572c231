"""Reading one chip: every value, style and rotation; red ink, dots; honest nulls; bad input."""

from __future__ import annotations

import dataclasses
import math

import cv2
import numpy as np
import pytest

from vision.chips import (
    CHIP_VALUES,
    FEATURE_LENGTH,
    GLYPH_SIDE,
    MIN_CONFIDENCE,
    ChipModel,
    ChipReading,
    analyse_chip,
    default_model,
    glyph_features,
    glyph_image,
    pip_count,
    read_chip,
)
from vision.synth.chip_art import CHIP_STYLES, render_chip
from vision.training.train_chips import photograph_chip


def _on_table(
    value: int, style: str, rotation: float, size: int = 120, contrast: float = 1.0
) -> np.ndarray:
    """A rendered chip on a textured brown table, cropped a little wider than the chip;
    its print ``contrast`` times as dark as printed."""
    chip, mask = render_chip(value, style=style, size_px=size, rotation_deg=rotation)
    if contrast != 1.0:
        paper = np.median(chip[mask > 250].reshape(-1, 3), axis=0)
        chip = paper + (chip.astype(np.float64) - paper) * contrast
    side = int(size * 1.2)
    rng = np.random.default_rng(value)
    table = np.clip(rng.normal((40, 70, 110), 12, (side, side, 3)), 0, 255)
    o = (side - size) // 2
    a = mask[..., None] / 255.0
    table[o : o + size, o : o + size] = table[o : o + size, o : o + size] * (1 - a) + chip * a
    return table.astype(np.uint8)


@pytest.mark.parametrize("style", CHIP_STYLES)
@pytest.mark.parametrize("rotation", [0.0, 77.0, 180.0, 263.0])
def test_reads_every_value_in_every_style_at_any_rotation(style: str, rotation: float) -> None:
    for value in CHIP_VALUES:
        reading = read_chip(_on_table(value, style, rotation))
        assert reading.value == value, (style, rotation, value, reading)
        assert reading.confidence >= MIN_CONFIDENCE
        assert reading.red == (value in (6, 8))


@pytest.mark.parametrize("value", CHIP_VALUES)
def test_counts_the_probability_dots_and_finds_down(value: int) -> None:
    for rotation in (0.0, 130.0):
        analysis = analyse_chip(_on_table(value, "dots", rotation))
        assert analysis is not None
        assert analysis.dots == pip_count(value)
        assert analysis.down_deg is not None
        gap = abs((analysis.down_deg - rotation + 180) % 360 - 180)
        assert gap < 12.0, (value, rotation, analysis.down_deg)


def test_mark_under_six_and_nine_gives_their_rotation() -> None:
    for value in (6, 9):
        analysis = analyse_chip(_on_table(value, "plain", 200.0))
        assert analysis is not None and analysis.dots == 1
        assert abs((analysis.down_deg - 200.0 + 180) % 360 - 180) < 15.0


def test_reads_photographed_chips_and_never_guesses_wrong_with_confidence() -> None:
    """Warm light, blur, squash, JPEG, occlusion: mostly right, and wrong ones are not sure."""
    rng = np.random.default_rng(2024)
    right = wrong_sure = total = 0
    for i in range(80):
        value = CHIP_VALUES[i % len(CHIP_VALUES)]
        style = CHIP_STYLES[i % len(CHIP_STYLES)]
        image, _ = photograph_chip(value, style, rng, size_px=int(rng.integers(60, 150)))
        reading = read_chip(image)
        total += 1
        right += reading.value == value
        wrong_sure += reading.value is not None and reading.value != value
    assert right / total >= 0.85
    assert wrong_sure / total <= 0.05


def test_scores_are_a_distribution_and_reading_is_frozen() -> None:
    reading = read_chip(_on_table(10, "dots", 45.0))
    assert set(reading.scores) == set(CHIP_VALUES)
    # What the values leave of 1 is the chance that there is no readable numeral at all.
    assert 0.9 < sum(reading.scores.values()) <= 1.0 + 1e-9
    assert all(0.0 <= s <= 1.0 for s in reading.scores.values())
    assert 0.0 <= reading.confidence <= 1.0
    assert max(reading.scores, key=reading.scores.__getitem__) == reading.value
    with pytest.raises(dataclasses.FrozenInstanceError):
        reading.value = 3  # type: ignore[misc]


def test_any_crop_size_and_grey_images_are_read() -> None:
    for size in (40, 300):
        chip = cv2.resize(_on_table(3, "dots", 30.0), (size, size))
        assert read_chip(chip).value == 3
    # A crop a little wider than tall, padded as the reader pads it.
    wide = cv2.copyMakeBorder(_on_table(11, "dots", 0.0), 0, 0, 12, 12, cv2.BORDER_REPLICATE)
    assert read_chip(wide).value == 11
    grey = cv2.cvtColor(_on_table(5, "plain", 10.0), cv2.COLOR_BGR2GRAY)
    assert read_chip(grey).value == 5


@pytest.mark.parametrize(
    "image",
    [
        np.full((100, 100, 3), 200, np.uint8),
        np.random.default_rng(0).integers(0, 256, (100, 100, 3), dtype=np.uint8),
        cv2.circle(np.full((100, 100, 3), 60, np.uint8), (50, 50), 45, (150, 210, 235), -1),
    ],
    ids=["flat", "noise", "blank-disc"],
)
def test_no_numeral_reads_null(image: np.ndarray) -> None:
    reading = read_chip(image)
    assert reading.value is None
    assert reading.confidence < MIN_CONFIDENCE


def test_a_finger_over_the_rim_does_not_change_the_reading() -> None:
    for value, angle in ((12, 0.0), (9, 120.0), (4, 250.0)):
        image = _on_table(value, "dots", angle)
        side = image.shape[0]
        for corner in ((0, 0), (side, 0), (0, side)):
            covered = image.copy()
            cv2.ellipse(covered, corner, (side // 3, side // 5), 45.0, 0, 360, (90, 120, 200), -1)
            assert read_chip(covered).value == value, (value, corner)


@pytest.mark.parametrize(
    ("image", "message"),
    [
        ([[1, 2], [3, 4]], "numpy array"),
        (np.zeros((20, 20, 3), np.float32), "uint8"),
        (np.zeros((20, 20, 2), np.uint8), "shape"),
        (np.zeros((5, 20, 3), np.uint8), "at least 8x8"),
    ],
)
def test_bad_images_are_refused(image: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        read_chip(image)  # type: ignore[arg-type]


def test_glyph_features_batch_matches_single() -> None:
    analysis = analyse_chip(_on_table(8, "dots", 0.0))
    assert analysis is not None
    glyphs = np.stack([glyph_image(analysis, a) for a in (0.0, 90.0)])
    assert glyphs.shape == (2, GLYPH_SIDE, GLYPH_SIDE) and glyphs.dtype == np.float32
    batch = glyph_features(glyphs)
    assert batch.shape == (2, FEATURE_LENGTH)
    assert np.allclose(batch[1], glyph_features(glyphs[1]))
    assert not np.allclose(batch[0], batch[1])


def test_a_numerals_views_start_from_its_offsets_and_leave_them_alone() -> None:
    analysis = analyse_chip(_on_table(8, "dots", 0.0))
    assert analysis is not None
    want = analysis.numeral_points - np.array(analysis.centre, np.float32)
    first = glyph_image(analysis, 30.0)
    assert np.array_equal(analysis.numeral_offsets, want)
    assert not analysis.numeral_offsets.flags.writeable
    # Views taken after others are the same views: nothing cached is written to.
    for a in (0.0, 90.0, 200.0):
        glyph_image(analysis, a)
    assert np.array_equal(glyph_image(analysis, 30.0), first)
    assert np.array_equal(analysis.numeral_offsets, want)


def test_model_refuses_arrays_of_the_wrong_shape() -> None:
    good = dict(vars(default_model()))
    ChipModel(good)
    with pytest.raises(ValueError, match="lacks the array 'w2'"):
        ChipModel({k: v for k, v in good.items() if k != "w2"})
    with pytest.raises(ValueError, match="wrong shapes"):
        ChipModel({**good, "mean": good["mean"][:-1]})


def test_reading_type_fields() -> None:
    fields = {f.name for f in dataclasses.fields(ChipReading)}
    assert fields == {"value", "confidence", "scores", "red", "dots"}


def test_dots_evidence_forgives_missed_dots_more_than_extra_ones() -> None:
    from vision.chips import _dots_likelihood

    for value in CHIP_VALUES:
        assert _dots_likelihood(pip_count(value), value) == max(
            _dots_likelihood(n, value) for n in range(6)
        )
    # Blur merges three dots of a 10 into one more often than glare invents a fourth.
    assert _dots_likelihood(1, 10) > _dots_likelihood(4, 10)
    # One blob is a 2's or 12's dot, but as often a row merged by blur or the mark under
    # 6 and 9: it favours 2 and 12 only mildly. No dots at all is common.
    assert _dots_likelihood(1, 2) > _dots_likelihood(1, 9) == _dots_likelihood(1, 10)
    assert _dots_likelihood(1, 10) > 0.5 * _dots_likelihood(1, 12)
    assert _dots_likelihood(0, 5) > _dots_likelihood(2, 5)


def test_a_stray_mark_is_weaker_evidence_than_dots_along_the_numeral() -> None:
    from vision.chips import _dots_likelihood, _stray_dots_likelihood

    # Marks found in a view across the numeral are not its dots: fewer of them line up.
    assert _stray_dots_likelihood(0) == _dots_likelihood(0, 5)
    assert _stray_dots_likelihood(1) < _dots_likelihood(1, 5) < _dots_likelihood(1, 2)
    assert _stray_dots_likelihood(3) < _stray_dots_likelihood(2) < _stray_dots_likelihood(1)


def test_a_clear_five_whose_dots_blur_merged_into_two_is_not_read_as_three() -> None:
    from vision.chips import _posterior

    # Classifier outputs of a blurred board chip: a sure 5 a little off the dots' direction,
    # a faint 3-like view along them; the 5's four dots merged into two blobs.
    proba = _views({5: 0.99, "junk": 0.01}, {3: 0.2, "junk": 0.7})
    post = _posterior(proba, np.array([True, True]), dots=2, p_red=0.0)
    assert CHIP_VALUES[int(np.argmax(post))] == 5
    assert post.max() >= MIN_CONFIDENCE


def test_reads_chips_as_small_as_a_board_photo_gives() -> None:
    """A chip of 30-40 px (a whole board in one photo): read, or at worst left unread."""
    rng = np.random.default_rng(31)
    right = 0
    for i, value in enumerate(CHIP_VALUES):
        size = 30 + i
        style = CHIP_STYLES[i % len(CHIP_STYLES)]
        chip, mask = render_chip(value, style=style, size_px=size, rotation_deg=37.0 * i, rng=rng)
        side = int(size * 1.15) + 1
        o = (side - size) // 2
        crop = np.zeros((side, side, 3), np.float32) + (60, 140, 90)
        a = mask[..., None] / 255.0
        crop[o : o + size, o : o + size] = crop[o : o + size, o : o + size] * (1 - a) + chip * a
        crop = cv2.GaussianBlur(crop, (0, 0), 0.6)
        reading = read_chip(crop.astype(np.uint8))
        assert reading.value in (value, None), (value, size, reading.value)
        right += reading.value == value
    assert right >= len(CHIP_VALUES) - 1


def test_a_known_disc_is_used_where_the_crop_alone_misleads() -> None:
    # A small chip off the crop's centre, among light blobs a disc search could take for a rim:
    # the caller (the board reader) knows where the disc is.
    rng = np.random.default_rng(3)
    crop = np.clip(rng.normal((60, 150, 80), 30, (128, 128, 3)), 0, 255).astype(np.float32)
    for x, y in ((20, 20), (110, 100), (25, 110)):
        cv2.circle(crop, (x, y), 14, (200, 230, 240), -1)
    chip, mask = render_chip(10, style="plain", size_px=64, rotation_deg=140.0)
    x0, y0 = 48, 30
    a = mask[..., None] / 255.0
    crop[y0 : y0 + 64, x0 : x0 + 64] = crop[y0 : y0 + 64, x0 : x0 + 64] * (1 - a) + chip * a
    crop = crop.astype(np.uint8)
    analysis = analyse_chip(crop, disc=(x0 + 31.5, y0 + 31.5, 30.0))
    assert analysis is not None
    assert abs(analysis.radius - 30.0) < 4.0
    assert np.hypot(analysis.centre[0] - x0 - 31.5, analysis.centre[1] - y0 - 31.5) < 4.0
    assert read_chip(crop, disc=(x0 + 31.5, y0 + 31.5, 30.0)).value == 10


def test_a_known_disc_is_given_in_the_crops_own_pixels() -> None:
    # Crops of any shape are padded and resampled inside the reader; the disc follows them.
    crop = _on_table(8, "dots", 20.0, size=90)
    wide = cv2.copyMakeBorder(crop, 0, 0, 40, 0, cv2.BORDER_REPLICATE)
    side = crop.shape[0]
    analysis = analyse_chip(wide, disc=(40 + side / 2.0, side / 2.0, 45.0))
    assert analysis is not None
    # Resampled to 128 px: the wide crop is 148 px, so the 45 px radius becomes ~39 px.
    scale = 128 / wide.shape[1]
    assert abs(analysis.radius - 45.0 * scale) < 0.12 * 45.0 * scale
    assert read_chip(wide, disc=(40 + side / 2.0, side / 2.0, 45.0)).value == 8


def _views(*rows: dict[int | str, float]) -> np.ndarray:
    """Classifier outputs (views, 11) from {value or "junk": probability} per view."""
    out = np.zeros((len(rows), len(CHIP_VALUES) + 1))
    for i, row in enumerate(rows):
        for key, p in row.items():
            out[i, len(CHIP_VALUES) if key == "junk" else CHIP_VALUES.index(key)] = p
    return out


def test_a_numeral_upright_across_a_single_mark_is_not_read_as_two() -> None:
    from vision.chips import _posterior

    # A clear 10 in a view that does not look along the one "dot" (a smudge above it), and a
    # faint 2-like view along it: the mark is stray, and the chip is a 10.
    proba = _views({10: 1.0}, {2: 0.17, "junk": 0.72})
    post = _posterior(proba, np.array([False, True]), dots=1, p_red=0.0)
    assert CHIP_VALUES[int(np.argmax(post))] == 10
    assert post.max() >= MIN_CONFIDENCE
    # The same 2-like view with the dot along it still reads 2 when nothing else does.
    post = _posterior(_views({2: 0.9, "junk": 0.1}), np.array([True]), dots=1, p_red=0.0)
    assert CHIP_VALUES[int(np.argmax(post))] == 2


def test_a_single_dot_along_the_numeral_tells_six_from_nine() -> None:
    from vision.chips import _posterior

    # Plain edition, black ink blurred to "unknown colour": the mark is under the 6.
    proba = _views({6: 0.9, "junk": 0.1}, {9: 0.9, "junk": 0.1})
    post = _posterior(proba, np.array([True, False]), dots=1, p_red=0.5)
    assert post[CHIP_VALUES.index(6)] > 2 * post[CHIP_VALUES.index(9)]


def test_a_row_of_fragments_that_gives_no_upright_numeral_is_searched_all_round() -> None:
    # A red 8 lying on its side, with two ink specks under it that pass for a row of dots
    # pointing the wrong way: no view along them shows a numeral, the full search finds it.
    image = _on_table(8, "plain", 90.0)
    c = image.shape[0] // 2
    for dx in (-5, 5):
        cv2.circle(image, (c + dx, c + 33), 3, (45, 45, 190), -1, cv2.LINE_AA)
    analysis = analyse_chip(image)
    assert analysis is not None and analysis.dots == 2
    reading = read_chip(image)
    assert reading.value == 8, reading


@pytest.mark.parametrize("side_deg", [0.0, 90.0, 180.0, 270.0])
def test_a_numeral_reaching_the_edge_of_a_disc_found_off_centre_is_read_whole(
    side_deg: float,
) -> None:
    # The board reader's disc may be a little small and off centre: a wide numeral then
    # reaches the disc's edge, where ink is the table's as a rule. Central print is kept.
    image = _on_table(12, "plain", 120.0)
    c = (image.shape[1] - 1) / 2.0
    r = 0.47 * 120
    off = 0.15 * r
    dx, dy = off * math.cos(math.radians(side_deg)), off * math.sin(math.radians(side_deg))
    reading = read_chip(image, disc=(c + dx, c + dy, 0.95 * r))
    assert reading.value == 12, reading


@pytest.mark.parametrize("rotation", [0.0, 60.0, 150.0])
@pytest.mark.parametrize(("share", "off"), [(0.75, 0.0), (0.8, 0.1), (0.7, 0.0)])
def test_a_two_digit_numeral_whose_digits_both_reach_the_edge_is_read(
    rotation: float, share: float, off: float
) -> None:
    # A disc found well inside the chip's rim: both digits of the 12 reach its edge.
    image = _on_table(12, "plain", rotation)
    c = (image.shape[1] - 1) / 2.0
    r = 0.47 * 120
    reading = read_chip(image, disc=(c + off * r, c, share * r))
    assert reading.value == 12, reading


@pytest.mark.parametrize("rotation", [0.0, 40.0, 90.0])
def test_a_two_whose_disc_edge_cut_a_digit_away_may_be_a_twelve(rotation: float) -> None:
    # A disc found small and off centre towards the 2 of a 12: its 1 reaches the edge and is
    # dropped as the rim's ink, and the 2 left over must not be read as a sure 2.
    image = _on_table(12, "grey", rotation)
    c = (image.shape[1] - 1) / 2.0
    r = 0.47 * 120
    a = math.radians(rotation)
    disc = (c + 0.3 * r * math.cos(a), c - 0.3 * r * math.sin(a), 0.7 * r)
    analysis = analyse_chip(image, disc)
    assert analysis is not None and analysis.cut
    reading = read_chip(image, disc=disc)
    assert reading.value is None, reading
    assert reading.scores[12] == pytest.approx(reading.scores[2], abs=0.05)


@pytest.mark.parametrize("value", [2, 4, 12, 10])
def test_a_numeral_counts_its_digits_as_parts(value: int) -> None:
    image = _on_table(value, "dots", 0.0)
    analysis = analyse_chip(image)
    assert analysis is not None
    assert analysis.parts == (2 if value >= 10 else 1)
    # Print kept at the disc's edge may be joined to ink along it: its parts are not counted.
    kept = analyse_chip(image, rim_print=True)
    assert kept is not None and kept.parts == 0


def test_a_numeral_seen_as_one_part_favours_a_single_digit() -> None:
    # A glyph the classifier finds as like a 2 as a 12 (a 2 in a bold face, say): seen as one
    # blob, with nothing cut away at the edge, it is the 2.
    from vision.chips import _read_analysis

    analysis = analyse_chip(_on_table(2, "dots", 0.0))
    assert analysis is not None and analysis.parts == 1

    class Undecided:
        def predict_proba(self, features: np.ndarray) -> np.ndarray:
            p = np.zeros((len(features), len(CHIP_VALUES) + 1))
            p[:, CHIP_VALUES.index(2)] = p[:, CHIP_VALUES.index(12)] = 0.5
            return p

    model = Undecided()
    one = _read_analysis(analysis, model)  # type: ignore[arg-type]
    assert one.value == 2 and one.scores[2] > 3 * one.scores[12]
    two = _read_analysis(dataclasses.replace(analysis, parts=2), model)  # type: ignore[arg-type]
    assert two.scores[2] == pytest.approx(two.scores[12])
    # A digit cut away at the edge: the 2 may be what is left of a 12, one part says nothing.
    cut = _read_analysis(dataclasses.replace(analysis, cut=True), model)  # type: ignore[arg-type]
    assert cut.scores[2] == pytest.approx(cut.scores[12])


def test_a_blob_as_wide_as_two_digits_may_be_two_joined() -> None:
    # A 12 whose 1 and 2 blur into one blob: upright it is far wider than any single digit,
    # and one blob then says nothing against two digits.
    from vision.chips import _JOINED, _read_analysis, _width_over_height, candidate_angles

    twelve = analyse_chip(_on_table(12, "dots", 0.0))
    two = analyse_chip(_on_table(2, "dots", 0.0))
    assert twelve is not None and two is not None and twelve.down_deg is not None
    assert _width_over_height(twelve, twelve.down_deg) > _JOINED
    assert two.down_deg is not None and _width_over_height(two, two.down_deg) < _JOINED
    joined = dataclasses.replace(twelve, parts=1)

    class Upright:
        """As like a 2 as a 12 in every view, most in the view along the dots."""

        def predict_proba(self, features: np.ndarray) -> np.ndarray:
            p = np.zeros((len(features), len(CHIP_VALUES) + 1))
            p[:, CHIP_VALUES.index(2)] = p[:, CHIP_VALUES.index(12)] = 0.3
            p[:, -1] = 0.4
            upright = candidate_angles(joined).index(joined.down_deg)
            p[upright, :] = 0.0
            p[upright, CHIP_VALUES.index(2)] = p[upright, CHIP_VALUES.index(12)] = 0.5
            return p

    reading = _read_analysis(joined, Upright())  # type: ignore[arg-type]
    assert reading.scores[12] == pytest.approx(reading.scores[2])
    # The same blob narrower than two digits (a bold 2): one digit, as before.
    narrow = dataclasses.replace(joined, numeral_points=two.numeral_points, centre=two.centre)
    one = _read_analysis(narrow, Upright())  # type: ignore[arg-type]
    assert one.scores[2] > 3 * one.scores[12]


def _faint(value: int, style: str, contrast: float, size: int = 120) -> np.ndarray:
    """A chip on the table of :func:`_on_table`, turned 30 degrees, whose print is
    ``contrast`` as dark."""
    return _on_table(value, style, 30.0, size, contrast)


@pytest.mark.parametrize(("value", "style"), [(5, "dots"), (12, "plain"), (10, "grey")])
def test_faint_print_is_read_at_a_lower_ink_level(value: int, style: str) -> None:
    # Print a sixth as dark as usual stays under the usual ink level: no ink at all is found,
    # and the chip is read again at the lower level.
    image = _faint(value, style, 0.17)
    assert analyse_chip(image) is None
    assert analyse_chip(image, faint=True) is not None
    assert read_chip(image).value == value


def test_print_too_faint_for_either_level_stays_unread() -> None:
    reading = read_chip(_faint(5, "dots", 0.1))
    assert reading.value is None and not any(reading.scores.values())


@pytest.mark.parametrize(("value", "rotation", "side_deg"), [(3, 0.0, 90.0), (3, 90.0, 0.0)])
def test_a_numeral_is_read_though_a_disc_found_off_centre_takes_in_the_table(
    value: int, rotation: float, side_deg: float
) -> None:
    # A disc a quarter radius off the chip's centre: the numeral reaches its edge on one
    # side, and on the other the chip's rim and the table lie inside it, a glyph-sized blob
    # at the edge that may be a digit cut away (``cut``). The reading of the print kept at
    # the edge keeps that doubt; it is not refused for it.
    image = _on_table(value, "grey", rotation)
    c = (image.shape[1] - 1) / 2.0
    r = 0.5 * 120
    a = math.radians(side_deg)
    reading = read_chip(image, disc=(c + 0.25 * r * math.cos(a), c + 0.25 * r * math.sin(a), r))
    assert reading.value == value, reading
