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

from functools import lru_cache

import cv2
import numpy as np

from vision.chips import CHIP_VALUES, pip_count

#: chip looks that :func:`render_chip` can draw
CHIP_STYLES: tuple[str, ...] = ("dots", "plain", "grey")

# Glyphs are drawn on a canvas this many pixels wide (or 2x the output, if larger), then
# reduced with area averaging, so that thin serifs and small dots keep anti-aliased edges.
_CANVAS_PX = 384
# Disc radius as a fraction of the image side: a little margin keeps the anti-aliased rim in.
_DISC_RADIUS = 0.47

# Canonical colours (BGR) and jitter range per style.
_PAPER = {"dots": (150, 208, 236), "plain": (190, 228, 242), "grey": (172, 184, 190)}
_BLACK_INK = (32, 30, 34)
_RED_INK = (44, 40, 196)
# OpenCV's own faces (in OpenCV 5 these are sans-serif TrueType faces, not Hershey strokes).
_CV2_FONTS = (
    cv2.FONT_HERSHEY_SIMPLEX,
    cv2.FONT_HERSHEY_DUPLEX,
    cv2.FONT_HERSHEY_TRIPLEX,
    cv2.FONT_HERSHEY_COMPLEX | cv2.FONT_ITALIC,
)
# Probability of drawing the numeral with the project's own serif face, per style.
_OWN_FACE_SHARE = {"dots": 0.8, "plain": 0.6, "grey": 0.4}


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

    side = int(size_px) * max(2, -(-_CANVAS_PX // int(size_px)))
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
    has_dots = style in ("dots", "grey")
    own_face = (style != "grey") if rng is None else bool(rng.random() < _OWN_FACE_SHARE[style])
    if own_face:
        pen = _Pen() if rng is None else _Pen.random(rng)
        if style == "plain" and rng is None:
            pen = _Pen(nib=0.24)
        glyph = draw_serif_numeral(str(value), pen)
    else:
        font = cv2.FONT_HERSHEY_DUPLEX if rng is None else _CV2_FONTS[int(rng.integers(4))]
        weight = 1.0 + jitter(0.35)
        glyph = _cv2_numeral(str(value), font, weight)
    # Numeral height and the vertical position of its centre, in disc radii.
    height = (0.98 if has_dots else 1.05) * (1.0 + jitter(0.1))
    glyph_y = (-0.15 if has_dots else 0.0) + jitter(0.04)
    aspect = 1.0 + jitter(0.15)
    glyph_box = _place_numeral(ink_alpha, glyph, radius, height, aspect, glyph_y)

    if has_dots:
        dot_r = radius * 0.055 * (1.0 + jitter(0.2))
        pitch = dot_r * 2.6 * (1.0 + jitter(0.1))
        n = pip_count(value)
        y = centre + glyph_box[1] + glyph_box[2] + dot_r * 3.5 * (1.0 + jitter(0.2))
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

    shade = None
    if style == "grey" or (rng is not None and rng.random() < 0.3):
        # A faint darker rim, as on chips with a printed border or a worn cut edge.
        rim = np.zeros((side, side), np.float32)
        width = max(1, int(round(radius * 0.05)))
        cv2.circle(rim, _pt(centre, centre), int(radius * 16), 1.0, width, cv2.LINE_AA, shift=4)
        shade = _shrink(1.0 - 0.25 * rim, size_px)

    # Colours are linear in the alphas, so compose after reducing: 16x less work.
    disc_s = _shrink(disc, size_px)
    ink_s = _shrink(ink_alpha, size_px)
    paper32 = paper.astype(np.float32)
    img = disc_s[..., None] * paper32 + ink_s[..., None] * (ink.astype(np.float32) - paper32)
    if shade is not None:
        img *= shade[..., None]
    return (
        np.clip(img + 0.5, 0, 255).astype(np.uint8),
        np.clip(disc_s * 255.0 + 0.5, 0, 255).astype(np.uint8),
    )


def _shrink(plane: np.ndarray, size_px: int) -> np.ndarray:
    """Area-average a supersampled float32 plane down to the output size."""
    return cv2.resize(plane, (size_px, size_px), interpolation=cv2.INTER_AREA)


def _pt(x: float, y: float) -> tuple[int, int]:
    """A point in the 4-bit fixed-point form cv2's ``shift=4`` drawing expects."""
    return (int(round(x * 16)), int(round(y * 16)))


def _disc(alpha: np.ndarray, x: float, y: float, r: float) -> None:
    """Fill an anti-aliased disc of value 1.0 into a float32 alpha plane, in place."""
    cv2.circle(alpha, _pt(x, y), int(round(r * 16)), 1.0, -1, cv2.LINE_AA, shift=4)


def _cv2_numeral(text: str, font: int, weight: float) -> np.ndarray:
    """``text`` in one of OpenCV's faces, cut to its ink: float32 alpha in [0, 1]."""
    return _cv2_numeral_cached(text, font, max(1, int(round(3.5 * weight)))).copy()


@lru_cache(maxsize=256)
def _cv2_numeral_cached(text: str, font: int, thickness: int) -> np.ndarray:
    # OpenCV 5 lays out its TrueType faces slowly (~15 ms a call); there are few variants.
    scale = 4.0
    (tw, th), base = cv2.getTextSize(text, font, scale, thickness)
    pad = 4 * thickness
    scratch = np.zeros((th + base + 2 * pad, tw + 2 * pad), np.uint8)
    cv2.putText(scratch, text, (pad, pad + th), font, scale, 255, thickness, cv2.LINE_AA)
    return _cut_to_ink(scratch)


def _cut_to_ink(img: np.ndarray) -> np.ndarray:
    """Crop a uint8 drawing to the bounding box of its ink, as float32 alpha in [0, 1]."""
    ys, xs = np.nonzero(img)
    return img[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1].astype(np.float32) / 255.0


def _place_numeral(
    alpha: np.ndarray,
    glyph: np.ndarray,
    radius: float,
    height: float,
    aspect: float,
    centre_y: float,
) -> tuple[float, float, float]:
    """Scale a cut glyph (float32 alpha) into ``alpha`` (float32, square), centred on the disc.

    ``aspect`` widens (> 1) or narrows the face's own proportions. ``height`` and ``centre_y``
    are in disc radii (``centre_y`` relative to the disc centre, positive downwards). Returns
    ``(x, y, half_height)`` of the placed numeral in pixels, ``x, y`` relative to the disc
    centre.
    """
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


# --- The project's own serif face -------------------------------------------------------------
# Chips are printed in bold old-style serif faces, which OpenCV does not have. Each digit is
# drawn here as centre lines in a box 0.62 wide and 1 high (y down), stroked with a broad
# nib: a pen whose tip is a short slanted line makes strokes thick across it and thin along it,
# which is where serif faces get their thick and thin strokes. Ball terminals are round blobs.

_DIGIT_W = 0.62


def _arc(cx: float, cy: float, rx: float, ry: float, a0: float, a1: float) -> np.ndarray:
    """Points along an ellipse arc, angles in degrees (0 = right, 90 = down)."""
    t = np.radians(np.linspace(a0, a1, max(8, int(abs(a1 - a0) / 6))))
    return np.column_stack([cx + rx * np.cos(t), cy + ry * np.sin(t)])


def _bezier(*ctrl: tuple[float, float]) -> np.ndarray:
    """Points along a cubic Bezier curve with four control points."""
    t = np.linspace(0.0, 1.0, 30)[:, None]
    p0, p1, p2, p3 = (np.asarray(c, float) for c in ctrl)
    return (1 - t) ** 3 * p0 + 3 * (1 - t) ** 2 * t * p1 + 3 * (1 - t) * t**2 * p2 + t**3 * p3


def _line(p0: tuple[float, float], p1: tuple[float, float]) -> np.ndarray:
    return np.array([p0, p1], float)


Strokes = tuple[list[np.ndarray], list[tuple[float, float]]]


def _six() -> Strokes:
    bowl = _arc(0.32, 0.7, 0.27, 0.28, 0, 360)
    stem = _bezier((0.53, 0.07), (0.25, -0.02), (0.05, 0.3), (0.05, 0.7))
    return [bowl, stem], [(0.53, 0.07)]


def _nine() -> Strokes:
    strokes, balls = _six()
    turned = [np.column_stack([_DIGIT_W - p[:, 0], 1.0 - p[:, 1]]) for p in strokes]
    return turned, [(_DIGIT_W - x, 1.0 - y) for x, y in balls]


def _digit(ch: str) -> Strokes:
    """Centre lines and ball terminals of one digit."""
    if ch == "0":
        return [_arc(0.31, 0.5, 0.27, 0.48, 0, 360)], []
    if ch == "1":
        stem = _line((0.33, 0.02), (0.33, 0.98))
        return [stem, _line((0.33, 0.02), (0.1, 0.16)), _line((0.12, 0.98), (0.54, 0.98))], []
    if ch == "2":
        neck = _bezier((0.525, 0.355), (0.45, 0.62), (0.2, 0.75), (0.04, 0.97))
        body = np.vstack([_arc(0.3, 0.27, 0.24, 0.25, 190, 380), neck])
        return [body, _line((0.04, 0.97), (0.6, 0.97))], [(0.07, 0.23)]
    if ch == "3":
        top = _arc(0.3, 0.26, 0.22, 0.23, 200, 450)
        return [top, _arc(0.3, 0.72, 0.27, 0.26, 270, 520)], [(0.1, 0.19), (0.05, 0.81)]
    if ch == "4":
        return [
            _line((0.45, 0.02), (0.02, 0.7)),
            _line((0.02, 0.7), (0.62, 0.7)),
            _line((0.45, 0.02), (0.45, 0.98)),
            _line((0.28, 0.98), (0.6, 0.98)),
        ], []
    if ch == "5":
        return [
            _line((0.56, 0.03), (0.15, 0.03)),
            _line((0.15, 0.03), (0.11, 0.46)),
            _arc(0.3, 0.68, 0.28, 0.3, 222, 520),
        ], [(0.04, 0.78)]
    if ch == "6":
        return _six()
    if ch == "8":
        return [_arc(0.31, 0.26, 0.21, 0.23, 0, 360), _arc(0.31, 0.73, 0.26, 0.26, 0, 360)], []
    if ch == "9":
        return _nine()
    raise ValueError(f"no glyph for {ch!r}")


class _Pen:
    """Broad-nib pen: nib width and angle, hairline width, ball size and slant, in em units."""

    def __init__(
        self,
        nib: float = 0.2,
        angle_deg: float = 15.0,
        hairline: float = 0.035,
        ball: float = 0.07,
        slant: float = 0.0,
    ) -> None:
        self.nib = nib
        self.angle_deg = angle_deg
        self.hairline = hairline
        self.ball = ball
        self.slant = slant

    @classmethod
    def random(cls, rng: np.random.Generator) -> _Pen:
        """A pen from the range of serif faces seen on chips, including near-monoline ones."""
        return cls(
            nib=float(rng.uniform(0.08, 0.28)),
            angle_deg=float(rng.uniform(-5.0, 35.0)),
            hairline=float(rng.uniform(0.03, 0.08)),
            ball=float(rng.uniform(0.0, 0.09)),
            slant=float(rng.uniform(-0.05, 0.12)),
        )


def draw_serif_numeral(text: str, pen: _Pen, em_px: int = 200) -> np.ndarray:
    """``text`` (digits) in the project's own serif face, cut to its ink.

    Returns:
        float32 alpha in [0, 1], about ``em_px`` pixels high.
    """
    pad = 0.15
    gap = 0.1
    width = len(text) * _DIGIT_W + (len(text) - 1) * gap + 2 * pad
    img = np.zeros((int(em_px * (1 + 2 * pad)), int(em_px * width)), np.uint8)
    a = np.radians(pen.angle_deg)
    half_nib = np.array([np.cos(a), -np.sin(a)]) * pen.nib / 2 * em_px
    hair = max(1, int(pen.hairline * em_px))
    for k, ch in enumerate(text):
        strokes, balls = _digit(ch)
        offset = np.array([pad + k * (_DIGIT_W + gap), pad])

        def to_px(p: np.ndarray, offset: np.ndarray = offset) -> np.ndarray:
            q = np.array(p, float)
            q[..., 0] += pen.slant * (0.5 - q[..., 1])
            return (q + offset) * em_px

        for stroke in strokes:
            pts = to_px(stroke)
            # Sweep the nib along each segment: a parallelogram per segment.
            for p0, p1 in zip(pts[:-1], pts[1:], strict=True):
                quad = np.array([p0 - half_nib, p0 + half_nib, p1 + half_nib, p1 - half_nib])
                cv2.fillConvexPoly(img, np.round(quad * 16).astype(np.int32), 255, cv2.LINE_AA, 4)
            line = np.round(pts * 16).astype(np.int32)
            cv2.polylines(img, [line], False, 255, hair, cv2.LINE_AA, 4)
        for bx, by in balls:
            if pen.ball > 0:
                c = to_px(np.array([bx, by]))
                centre = (int(c[0] * 16), int(c[1] * 16))
                cv2.circle(img, centre, int(pen.ball * em_px * 16), 255, -1, cv2.LINE_AA, 4)
    return _cut_to_ink(img)
