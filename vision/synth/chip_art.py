"""Rendering of number chips in the looks of several editions.

Three styles (see :data:`CHIP_STYLES`):

``"dots"``
    4th-edition art: a beige disc, a serif numeral and, under it, one probability dot per way
    two dice can roll the value (1 for 2 and 12, up to 5 for 6 and 8). 6 and 8 are printed in
    red ink.
``"plain"``
    current art: a cream disc with the numeral only; 6 and 9 carry a mark under the numeral (a
    dot or a short bar) so they can be told apart at any rotation; 6 and 8 in red.
``"grey"``
    older-edition look: a greyish disc, a plainer numeral with thinner strokes, probability dots,
    6 and 8 in red.

Without a random generator a chip is drawn in the canonical look of its style; with one, paper
and ink colours, font, stroke weight, numeral size and placement, and the dots vary the way
they vary between print runs and editions. Camera effects (blur, noise, light, perspective)
are not applied here: they belong to the scene renderer and to the training augmentation.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.chips import CHIP_VALUES, pip_count

#: chip looks that :func:`render_chip` can draw
CHIP_STYLES: tuple[str, ...] = ("dots", "plain", "grey")

# Supersampling factor: glyphs are drawn this many times larger, then reduced with area
# averaging, so that thin serifs and small dots keep anti-aliased edges at 40-100 px.
_SUPERSAMPLE = 4
# Disc radius as a fraction of the image side: a little margin keeps the anti-aliased rim in.
_DISC_RADIUS = 0.47

# Canonical colours (BGR) and jitter range per style.
_PAPER = {"dots": (150, 208, 236), "plain": (190, 228, 242), "grey": (172, 184, 190)}
_BLACK_INK = (32, 30, 34)
_RED_INK = (44, 40, 196)
# Serif faces for the numeral; the first of each list is the canonical one.
_FONTS = {
    "dots": (cv2.FONT_HERSHEY_TRIPLEX, cv2.FONT_HERSHEY_COMPLEX),
    "plain": (cv2.FONT_HERSHEY_COMPLEX, cv2.FONT_HERSHEY_TRIPLEX),
    "grey": (cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_COMPLEX, cv2.FONT_HERSHEY_SIMPLEX),
}


def render_chip(
    value: int,
    *,
    style: str = "dots",
    size_px: int = 96,
    rotation_deg: float = 0.0,
    rng: np.random.Generator | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Draw one number chip, seen straight from above.

    Args:
        value: the number on the chip, one of 2-6 and 8-12.
        style: one of :data:`CHIP_STYLES`.
        size_px: side of the square output in pixels (at least 16).
        rotation_deg: rotation of the chip's art, degrees counter-clockwise as seen on screen.
        rng: source of the print-run variation; ``None`` draws the canonical look.

    Returns:
        ``(image, mask)``: ``image`` is BGR uint8 of shape ``(size_px, size_px, 3)`` with the
        chip on a black background; ``mask`` is uint8 of shape ``(size_px, size_px)``, 255
        inside the disc, 0 outside, anti-aliased at the rim. Composite with ``mask / 255``.

    Raises:
        ValueError: unknown value or style, or a size too small to draw a chip.
    """
    if value not in CHIP_VALUES:
        raise ValueError(f"chip value must be one of {list(CHIP_VALUES)}, not {value!r}")
    if style not in CHIP_STYLES:
        raise ValueError(f"chip style must be one of {list(CHIP_STYLES)}, not {style!r}")
    if not isinstance(size_px, int | np.integer) or size_px < 16:
        raise ValueError(f"size_px must be an integer of at least 16, not {size_px!r}")
    if not np.isfinite(rotation_deg):
        raise ValueError(f"rotation_deg must be a finite number, not {rotation_deg!r}")

    side = int(size_px) * _SUPERSAMPLE
    centre = side / 2.0
    radius = _DISC_RADIUS * side

    def jitter(scale: float) -> float:
        return 0.0 if rng is None else float(rng.uniform(-scale, scale))

    paper = np.clip(np.array(_PAPER[style], float) + [jitter(18) for _ in range(3)], 0, 255)
    red = value in (6, 8)
    ink = np.array(_RED_INK if red else _BLACK_INK, float) + [jitter(14) for _ in range(3)]
    ink = np.clip(ink, 0, 255)

    # Alpha of the ink on the disc, drawn upright; rotated with the disc afterwards.
    ink_alpha = np.zeros((side, side), np.float32)
    fonts = _FONTS[style]
    font = fonts[0] if rng is None else fonts[int(rng.integers(len(fonts)))]
    weight = {"dots": 1.0, "plain": 0.9, "grey": 0.7}[style] * (1.0 + jitter(0.3))
    has_dots = style in ("dots", "grey")
    # Numeral height and the vertical position of its centre, in disc radii.
    height = (0.78 if has_dots else 0.9) * (1.0 + jitter(0.1))
    glyph_y = (-0.12 if has_dots else 0.0) + jitter(0.04)
    aspect = 1.0 + jitter(0.15)
    glyph_box = _draw_numeral(ink_alpha, str(value), font, weight, radius, height, aspect, glyph_y)

    if has_dots:
        dot_r = radius * 0.055 * (1.0 + jitter(0.2))
        pitch = dot_r * 2.6 * (1.0 + jitter(0.1))
        n = pip_count(value)
        y = centre + glyph_box[1] + glyph_box[2] + dot_r * 3.2 * (1.0 + jitter(0.2))
        for i in range(n):
            x = centre + (i - (n - 1) / 2.0) * pitch
            _disc(ink_alpha, x, y, dot_r)
    elif value in (6, 9):
        # The mark that tells 6 from 9 sits under the numeral.
        y = centre + glyph_box[1] + glyph_box[2] + radius * 0.1
        if rng is not None and rng.random() < 0.5:
            half = radius * 0.14
            thick = radius * 0.045
            cv2.rectangle(
                ink_alpha,
                _pt(centre - half, y - thick),
                _pt(centre + half, y + thick),
                1.0,
                -1,
                cv2.LINE_AA,
                shift=4,
            )
        else:
            _disc(ink_alpha, centre, y + radius * 0.03, radius * 0.065)

    disc = np.zeros((side, side), np.float32)
    _disc(disc, centre, centre, radius)
    if rotation_deg:
        m = cv2.getRotationMatrix2D((centre - 0.5, centre - 0.5), float(rotation_deg), 1.0)
        ink_alpha = cv2.warpAffine(ink_alpha, m, (side, side), flags=cv2.INTER_LINEAR)
    ink_alpha *= disc

    img = disc[..., None] * paper + ink_alpha[..., None] * (ink - paper)
    if style == "grey" or (rng is not None and rng.random() < 0.3):
        # A faint darker rim, as on chips with a printed border or a worn cut edge.
        rim = np.zeros((side, side), np.float32)
        width = max(1, int(round(radius * 0.05)))
        cv2.circle(rim, _pt(centre, centre), int(radius * 16), 1.0, width, cv2.LINE_AA, shift=4)
        img *= 1.0 - 0.25 * (rim * disc)[..., None]
    out = cv2.resize(img, (size_px, size_px), interpolation=cv2.INTER_AREA)
    mask = cv2.resize(disc, (size_px, size_px), interpolation=cv2.INTER_AREA)
    return (
        np.clip(out + 0.5, 0, 255).astype(np.uint8),
        np.clip(mask * 255.0 + 0.5, 0, 255).astype(np.uint8),
    )


def _pt(x: float, y: float) -> tuple[int, int]:
    """A point in the 4-bit fixed-point form cv2's ``shift=4`` drawing expects."""
    return (int(round(x * 16)), int(round(y * 16)))


def _disc(alpha: np.ndarray, x: float, y: float, r: float) -> None:
    """Fill an anti-aliased disc of value 1.0 into a float32 alpha plane, in place."""
    cv2.circle(alpha, _pt(x, y), int(round(r * 16)), 1.0, -1, cv2.LINE_AA, shift=4)


def _draw_numeral(
    alpha: np.ndarray,
    text: str,
    font: int,
    weight: float,
    radius: float,
    height: float,
    aspect: float,
    centre_y: float,
) -> tuple[float, float, float]:
    """Draw ``text`` into ``alpha`` (float32, square) centred on the disc, scaled to a height.

    ``aspect`` widens (> 1) or narrows the font's own proportions. ``height`` and ``centre_y``
    are in disc radii (``centre_y`` relative to the disc centre,
    positive downwards). Returns ``(x, y, half_height)`` of the drawn numeral in pixels, with
    ``x, y`` relative to the disc centre.
    """
    # Draw large on a scratch canvas, cut to the ink, then scale into place: Hershey fonts do
    # not report tight ink boxes, and this also lets the stroke weight be set independently.
    scale = 4.0
    thickness = max(1, int(round(3.5 * weight)))
    (tw, th), base = cv2.getTextSize(text, font, scale, thickness)
    pad = 4 * thickness
    scratch = np.zeros((th + base + 2 * pad, tw + 2 * pad), np.uint8)
    cv2.putText(scratch, text, (pad, pad + th), font, scale, 255, thickness, cv2.LINE_AA)
    ys, xs = np.nonzero(scratch)
    glyph = scratch[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1].astype(np.float32) / 255
    target_h = height * radius
    target_w = aspect * glyph.shape[1] * target_h / glyph.shape[0]
    # Two-digit numbers must stay inside the disc.
    if target_w > 1.35 * radius:
        target_h *= 1.35 * radius / target_w
        target_w = 1.35 * radius
    side = alpha.shape[0]
    cx = side / 2.0
    cy = side / 2.0 + centre_y * radius
    m = np.array(
        [
            [target_w / glyph.shape[1], 0.0, cx - target_w / 2.0],
            [0.0, target_h / glyph.shape[0], cy - target_h / 2.0],
        ]
    )
    placed = cv2.warpAffine(glyph, m, (side, side), flags=cv2.INTER_LINEAR)
    np.maximum(alpha, placed, out=alpha)
    return (0.0, centre_y * radius, target_h / 2.0)
