"""The chip renderer: shapes, styles, ink colours, dots, rotation, determinism, bad input."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.chips import CHIP_VALUES, pip_count
from vision.synth.chip_art import CHIP_STYLES, draw_serif_numeral, render_chip


def _ink_components(image: np.ndarray, mask: np.ndarray) -> list[tuple[int, float, float]]:
    """(area, x, y) of the dark or red blobs on the disc, largest first."""
    g = image[..., 1].astype(np.float32)
    paper = np.median(g[mask > 250])
    ink = ((g < 0.6 * paper) & (mask > 250)).astype(np.uint8)
    n, _, stats, cents = cv2.connectedComponentsWithStats(ink)
    comps = [(int(stats[i, cv2.CC_STAT_AREA]), *map(float, cents[i])) for i in range(1, n)]
    return sorted(comps, reverse=True)


@pytest.mark.parametrize("style", CHIP_STYLES)
@pytest.mark.parametrize("size", [16, 40, 97])
def test_shapes_dtypes_and_mask(style: str, size: int) -> None:
    image, mask = render_chip(5, style=style, size_px=size)
    assert image.shape == (size, size, 3) and image.dtype == np.uint8
    assert mask.shape == (size, size) and mask.dtype == np.uint8
    assert mask[size // 2, size // 2] == 255
    assert mask[0, 0] == 0 and mask[-1, -1] == 0
    # Outside the disc the image is background (black), inside it is paper or ink.
    assert image[mask == 0].max() == 0
    assert image[mask == 255].mean() > 60


@pytest.mark.parametrize("value", CHIP_VALUES)
def test_red_ink_exactly_on_six_and_eight(value: int) -> None:
    for style in CHIP_STYLES:
        image, mask = render_chip(value, style=style, size_px=96)
        g = image[..., 1].astype(float)
        ink = (g < 0.6 * np.median(g[mask > 250])) & (mask > 250)
        b, gg, r = (image[..., c][ink].astype(float).mean() for c in range(3))
        assert (r > gg + 60) == (value in (6, 8)), (style, value, b, gg, r)


@pytest.mark.parametrize("style", ["dots", "grey"])
@pytest.mark.parametrize("value", CHIP_VALUES)
def test_dotted_styles_carry_one_dot_per_dice_combination(style: str, value: int) -> None:
    image, mask = render_chip(value, style=style, size_px=160)
    comps = _ink_components(image, mask)
    numeral_bottom = max(y for a, _, y in comps if a > 150)
    dots = [c for c in comps if c[0] < 150 and c[2] > numeral_bottom]
    assert len(dots) == pip_count(value)


@pytest.mark.parametrize("value", CHIP_VALUES)
def test_plain_style_marks_only_six_and_nine(value: int) -> None:
    image, mask = render_chip(value, style="plain", size_px=160)
    small = [c for c in _ink_components(image, mask) if c[0] < 150]
    assert len(small) == (1 if value in (6, 9) else 0)


def test_rotation_turns_the_art_counter_clockwise() -> None:
    upright, _ = render_chip(4, size_px=96)
    turned, _ = render_chip(4, size_px=96, rotation_deg=90.0)
    # np.rot90 turns an array counter-clockwise as displayed.
    expected = np.rot90(upright)
    assert np.abs(turned.astype(int) - expected.astype(int)).mean() < 3.0
    other_way = np.rot90(upright, -1)
    assert np.abs(turned.astype(int) - other_way.astype(int)).mean() > 6.0


def test_seeded_variation_is_deterministic_and_varies() -> None:
    a = render_chip(9, style="plain", rng=np.random.default_rng(7))[0]
    b = render_chip(9, style="plain", rng=np.random.default_rng(7))[0]
    c = render_chip(9, style="plain", rng=np.random.default_rng(8))[0]
    assert np.array_equal(a, b)
    assert not np.array_equal(a, c)
    assert np.array_equal(render_chip(9)[0], render_chip(9)[0])


def test_own_serif_face_draws_every_digit_distinctly() -> None:
    from vision.synth.chip_art import _Pen

    glyphs = {d: draw_serif_numeral(d, _Pen()) for d in "012345689"}
    for d, g in glyphs.items():
        assert g.dtype == np.float32 and g.max() == pytest.approx(1.0, abs=0.01), d
        assert 0.9 < g.shape[0] / 200 < 1.2, d
    sized = {d: cv2.resize(g, (24, 40), interpolation=cv2.INTER_AREA) for d, g in glyphs.items()}
    for a in sized:
        for b in sized:
            if a < b:
                assert np.abs(sized[a] - sized[b]).mean() > 0.05, (a, b)
    assert draw_serif_numeral("10", _Pen()).shape[1] > 1.5 * glyphs["1"].shape[1]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"value": 7}, "chip value"),
        ({"value": 1}, "chip value"),
        ({"value": 5, "style": "gold"}, "chip style"),
        ({"value": 5, "size_px": 8}, "size_px"),
        ({"value": 5, "size_px": 40.5}, "size_px"),
        ({"value": 5, "rotation_deg": float("nan")}, "rotation_deg"),
    ],
)
def test_bad_arguments_are_refused(kwargs: dict, message: str) -> None:
    value = kwargs.pop("value")
    with pytest.raises(ValueError, match=message):
        render_chip(value, **kwargs)
