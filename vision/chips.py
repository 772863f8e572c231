"""Reading number chips: one cropped chip, or all the chips of a board jointly.

Method
------
A chip offers four independent cues, and :func:`read_chip` uses them all:

1. **Ink.** The disc is found (Hough circle, else the crop's centre) and the ink is separated
   from the paper on the green channel divided by a local paper estimate: black and red ink are
   both dark there, while warm room light, which mostly dims the blue channel, barely moves it.
2. **Probability dots, or the mark under 6/9.** Small round ink blobs in a row beside the
   numeral are counted (at several ink levels, since blur merges neighbouring dots), and the
   direction from the numeral to them is "down": this gives the chip's rotation. Views 15 and
   30 degrees either side are tried too; chips without dots, or with a single dot, are tried at
   all :data:`SEARCH_ANGLES`.
3. **Glyph shape.** The numeral's ink, turned upright and scaled to a fixed box, is described by
   a histogram of oriented gradients and scored by a small neural network trained only on the
   project's own synthetic chips (``vision/training/train_chips.py``; the weights ship as
   ``vision/chips_model.npz``). The network has an extra class for "no whole upright numeral"
   (wrong rotations, numerals cut in part); each value is judged in its own best view.
4. **Red ink**, which only 6 and 8 carry in every edition.

The cues are combined as independent likelihoods into a posterior over the ten values and one
more hypothesis, "no readable numeral", which wins when the cues contradict each other. A chip
whose best value is not clearly ahead reads ``None``: an honest "unreadable" is worth more than
a guess, because the board reading can still fill it from the multiset of chips
(:func:`read_chips_jointly`).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path

import cv2
import numpy as np
from scipy.optimize import linear_sum_assignment

from vision.numeric import median, quantile

#: the numbers printed on chips
CHIP_VALUES: tuple[int, ...] = (2, 3, 4, 5, 6, 8, 9, 10, 11, 12)

#: rotations (degrees) tried for a chip whose rotation cannot be read from its dots
SEARCH_ANGLES: tuple[float, ...] = tuple(float(a) for a in range(0, 360, 20))

#: a chip whose posterior for its best value is below this reads ``None``
MIN_CONFIDENCE = 0.5

MODEL_PATH = Path(__file__).with_name("chips_model.npz")

# Side of the square the crop is resampled to before anything else: real crops are 100-160
# px, and at this size a probability dot is still ~25 pixels.
_WORK = 128
# Side of the upright glyph image the classifier sees, and its HOG layout.
GLYPH_SIDE = 32
_CELL = 8
_BINS = 9
_CELLS = GLYPH_SIDE // _CELL
#: length of the feature vector of one glyph: 2x2-cell blocks at a one-cell stride
FEATURE_LENGTH = (_CELLS - 1) ** 2 * 4 * _BINS
# Index of the "not upright / not a numeral" class after the ten values.
_JUNK = len(CHIP_VALUES)


def pip_count(value: int) -> int:
    """Number of probability dots under ``value``: the ways two dice can roll it."""
    return 6 - abs(7 - value)


@dataclass(frozen=True)
class ChipReading:
    """What was read on one chip.

    ``value`` is ``None`` when the chip cannot be read honestly. ``scores`` maps every chip
    value to its posterior probability; what they leave of 1 is the probability that the crop
    shows no readable numeral (all 0 when no ink was found at all). ``confidence`` is the
    score of ``value`` (or of the best value when ``value`` is None). ``red`` tells whether the
    ink is red, ``dots`` how many probability dots (or 6/9 marks) were found, ``None`` if none.
    """

    value: int | None
    confidence: float
    scores: dict[int, float]
    red: bool
    dots: int | None

    @classmethod
    def unread(cls) -> ChipReading:
        """A chip with nothing read on it: no ink, every value scored 0."""
        return cls(None, 0.0, dict.fromkeys(CHIP_VALUES, 0.0), False, None)


@dataclass(frozen=True)
class ChipAnalysis:
    """The measurements of one chip crop, before classification.

    Coordinates are pixels (x, y) of the 128-pixel square the crop is resampled to; ``centre``
    and ``radius`` are the disc's. ``darkness`` (float32, shape (128, 128), 0 = paper,
    1 = black) is already restricted to the numeral's ink; ``numeral_points`` (float32, (N, 2))
    are the numeral's ink pixels; ``dots`` counts the probability dots (0 if none were found).
    ``down_deg`` is the direction from the numeral to its dots (0 = image
    down, counter-clockwise on screen), ``None`` without dots. ``redness`` is how much redder
    the ink is (see ``_redness``: about 0 for black ink, 0.25 and more for red).
    """

    centre: tuple[float, float]
    radius: float
    darkness: np.ndarray
    numeral_points: np.ndarray
    dots: int
    down_deg: float | None
    redness: float
    #: a blob reaching the disc's edge, central and nearly all well inside it, was left out as
    #: the table's or a rim's ink: it may be a numeral the edge cuts (see ``rim_print``)
    rim_print: bool = False
    #: a glyph-sized blob reaching the disc's edge, with a good part of it well inside, was
    #: left out: part of the numeral may be missing
    cut: bool = False
    #: blobs of the numeral larger than any dot (see ``_PART``): a two-digit numeral shows two
    #: as a rule, a single digit one (a dot row blurred into a bar or the 6/9 mark adds one);
    #: 0 when not counted (print kept at the disc's edge)
    parts: int = 0

    @cached_property
    def numeral_offsets(self) -> np.ndarray:
        """``numeral_points`` less ``centre``, float32 (N, 2), read-only: where every view of
        the numeral (:func:`glyph_image`, 5-18 a chip) starts from."""
        offsets = self.numeral_points - self.centre32
        offsets.flags.writeable = False
        return offsets

    @cached_property
    def centre32(self) -> np.ndarray:
        """``centre`` as float32 (2,), where every view's arithmetic is done (read-only)."""
        centre = np.array(self.centre, np.float32)
        centre.flags.writeable = False
        return centre


def analyse_chip(
    image: np.ndarray,
    disc: tuple[float, float, float] | None = None,
    *,
    rim_print: bool = False,
    faint: bool = False,
) -> ChipAnalysis | None:
    """Find the disc, the numeral's ink, the dots, the rotation and the ink colour of a crop.

    Args:
        image: BGR uint8 array of shape (H, W, 3), roughly centred on one chip.
        disc: where the chip's disc is, ``(x, y, radius)`` in pixels of ``image``, when the
            caller knows it (the board reader does); it is then only refined.
        rim_print: keep blobs that reach the disc's edge when they are central and nearly
            all well inside it (print that the edge cuts) instead of dropping them as the
            table's or a rim's ink.
        faint: cut the ink at a lower level than the usual one (see :data:`_FAINT`): for
            faint print, which the usual level keeps only in part.

    Returns:
        The measurements, or ``None`` when no numeral-like ink is found on the disc.
    """
    work = _square(image)
    prior = None
    if disc is not None:
        h, w = image.shape[:2]
        side = max(h, w)
        # _square pads the crop to a square about its centre, then scales it to _WORK.
        k = _WORK / side
        prior = (
            (disc[0] + (side - w) // 2) * k,
            (disc[1] + (side - h) // 2) * k,
            disc[2] * k,
        )
    cx, cy, radius = _find_disc(work, prior)
    green = work[..., 1].astype(np.float32)
    # Paper level: a closing wider than any stroke removes the ink and keeps light gradients.
    # (On the 8-bit channel: a closing only picks values, and 8-bit is several times faster.)
    k = max(3, int(radius * 0.35) | 1)
    paper = cv2.morphologyEx(
        work[..., 1], cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    ).astype(np.float32)
    paper = cv2.GaussianBlur(paper, (0, 0), radius * 0.1)
    darkness = np.clip(1.0 - green / np.maximum(paper, 1.0), 0.0, 1.0)

    yy, xx = (g.astype(np.float32) for g in np.ogrid[0:_WORK, 0:_WORK])
    inside = (xx - cx) ** 2 + (yy - cy) ** 2 < (0.92 * radius) ** 2
    values = darkness[inside]
    if values.size == 0:
        return None
    thresh, _ = cv2.threshold(
        np.clip(values * 255, 0, 255).astype(np.uint8), 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU
    )
    # Below this contrast there is no print on the disc (an empty or fully blurred crop).
    thresh = max(float(thresh) / 255.0, 0.18)
    if faint:
        thresh = max(_FAINT * thresh, _FAINT_FLOOR)
    # The disc's edge and its inner part, for every cut of the ink below.
    dist = np.hypot(xx - cx, yy - cy)
    rings = (dist > 0.9 * radius, dist < _INNER * radius)
    mask, labels, stats, centroids, dot_ids, glyph_ids, held_back, cut = _components(
        darkness, inside, thresh, rings, (cx, cy, radius), rim_print
    )
    if not glyph_ids:
        return None
    pts = np.column_stack(np.nonzero(_labelled(labels, glyph_ids, len(stats)))[::-1])
    pts = pts.astype(np.float32)
    glyph_c = pts.mean(axis=0)

    # Blur merges neighbouring dots at the Otsu level; higher levels split them again.
    ink_top = quantile(values, 0.995)
    dots, down, dot_pts = _dot_row(stats, centroids, dot_ids, glyph_c, radius)
    for frac in (0.35, 0.65):
        level = thresh + frac * (ink_top - thresh)
        if level <= thresh:
            break
        _, _, st, ce, ids, _, _, _ = _components(
            darkness, inside, level, rings, (cx, cy, radius), rim_print
        )
        n, d, p = _dot_row(st, ce, ids, glyph_c, radius)
        if n > dots:
            dots, down, dot_pts = n, d, p
    if dots:
        # A small blob holding a dot is merged dots, not the numeral; a large one is the
        # numeral with a dot blurred onto it, and stays.
        held = {int(labels[int(round(y)), int(round(x))]) for x, y in dot_pts}
        small = 0.07 * radius * radius
        glyph_ids = [i for i in glyph_ids if i not in held or stats[i, cv2.CC_STAT_AREA] > small]
        if not glyph_ids:
            return None
    else:
        # Dots that could not be grouped may still be serif fragments of the numeral.
        glyph_ids = glyph_ids + dot_ids
    glyph_mask = _labelled(labels, glyph_ids, len(stats))
    pts = np.column_stack(np.nonzero(glyph_mask)[::-1]).astype(np.float32)
    # Print kept at the edge may be joined to more ink along it: its blobs are not counted.
    parts = (
        0
        if rim_print
        else sum(1 for i in glyph_ids if stats[i, cv2.CC_STAT_AREA] >= _PART * radius * radius)
    )

    ink = glyph_mask & (darkness > thresh)
    redness = _redness(work, ink, inside & ~mask.astype(bool))
    keep = cv2.dilate(glyph_mask.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)
    return ChipAnalysis(
        centre=(cx, cy),
        radius=radius,
        darkness=np.where(keep, darkness, 0.0).astype(np.float32),
        numeral_points=pts,
        dots=dots,
        down_deg=down,
        redness=redness,
        rim_print=held_back,
        cut=cut,
        parts=parts,
    )


def _labelled(labels: np.ndarray, ids: list[int], count: int) -> np.ndarray:
    """Where ``labels`` (as from ``cv2.connectedComponentsWithStats``, ``count`` labels) is one
    of ``ids``: bool, the shape of ``labels`` (a lookup, faster than ``np.isin``)."""
    chosen = np.zeros(count, bool)
    chosen[ids] = True
    return chosen[labels]


def _components(
    darkness: np.ndarray,
    inside: np.ndarray,
    level: float,
    rings: tuple[np.ndarray, np.ndarray],
    disc: tuple[float, float, float],
    rim_print: bool = False,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, list[int], list[int], bool, bool]:
    """Ink blobs darker than ``level`` on the disc ``(x, y, radius)`` (``rings``: bool masks
    of the pixels farther than 0.9 radii from its centre and nearer than ``_INNER`` radii),
    sorted into dot candidates and glyph parts.

    Returns:
        (mask uint8, labels int32, stats, centroids as from
        ``cv2.connectedComponentsWithStats``, dot candidate labels, glyph part labels, and
        whether a blob that may be print, or part of it, was dropped for reaching the edge:
        ``rim_print`` and ``cut`` of :class:`ChipAnalysis`).
    """
    cx, cy, radius = disc
    mask = ((darkness > level) & inside).astype(np.uint8)
    count, labels, stats, centroids = cv2.connectedComponentsWithStats(mask, connectivity=8)
    r2 = radius * radius
    # Ink reaching the edge of the searched disc is the table, a rim or a finger, not print;
    # but a numeral (or one digit of it) centred and nearly all well inside the disc may touch
    # the edge too, when the disc was found a little small or off centre, or under blur.
    edge = np.zeros(count, bool)
    outer_ring, inner_disc = rings
    edge[labels[outer_ring]] = True
    edge[0] = False
    inner = np.bincount(labels[inner_disc], minlength=count)
    off = np.hypot(centroids[:, 0] - cx, centroids[:, 1] - cy)
    glyph_sized = edge & (stats[:, cv2.CC_STAT_AREA] >= 0.012 * r2)
    central = (inner >= _INNER_SHARE * stats[:, cv2.CC_STAT_AREA]) & (off < _CENTRAL * radius)
    # Print is strokes: a numeral's ink covers at most a quarter of the disc, blurred.
    central &= glyph_sized & (stats[:, cv2.CC_STAT_AREA] <= 0.8 * r2)
    held_back = bool(central.any()) and not rim_print
    if rim_print:
        edge &= ~central
    # A dropped blob with a good part well inside may be a digit the edge cuts.
    cut = bool((edge & glyph_sized & (inner >= _CUT_SHARE * stats[:, cv2.CC_STAT_AREA])).any())
    at_edge = edge.tolist()
    dot_ids: list[int] = []
    glyph_ids: list[int] = []
    # Python integers: a blob's few tests cost less than indexing NumPy rows one by one.
    rows = stats.tolist()
    for i in range(1, count):
        _, _, w, h, area = rows[i]
        if area < 0.0015 * r2 or at_edge[i]:
            continue
        fill = area / float(w * h)
        aspect = max(w, h) / max(1, min(w, h))
        if area <= 0.035 * r2 and fill >= 0.45 and aspect <= 2.2:
            dot_ids.append(i)
        elif area >= 0.012 * r2:
            glyph_ids.append(i)
    return mask, labels, stats, centroids, dot_ids, glyph_ids, held_back, cut


# The ink level of a second reading of an unread chip (``faint``): this share of the first
# level, not below the floor. Chosen on read_board's crops of bench vision seeds 0 and 5 (8609
# chips no hand half covers, 2026-12-01): 0.75 and 0.12 read 20 unread chips right and none
# wrong; 0.6 and 0.1 read one more right and 2 wrong.
_FAINT, _FAINT_FLOOR = 0.75, 0.12
# A blob reaching the disc's edge may be print when this share of it lies within _INNER radii
# and its centre within _CENTRAL radii of the disc's (a digit of a 10 lies about 0.35 off).
_INNER, _INNER_SHARE, _CENTRAL = 0.8, 0.5, 0.65
# A dropped blob reaching the edge with this share within _INNER radii may be a cut digit: a
# serif 12's 1 the edge cuts shows 0.39 of itself there (bench vision seed 13, render 66).
_CUT_SHARE = 0.35
# A blob of the numeral this large (in squared disc radii) is no dot (dots stay under 0.035).
_PART = 0.04


def glyph_image(analysis: ChipAnalysis, down_deg: float) -> np.ndarray:
    """The numeral turned upright (its "down" at ``down_deg``) and scaled into a square.

    Returns:
        float32 array of shape (GLYPH_SIDE, GLYPH_SIDE), 0 = paper, 1 = full ink.
    """
    theta = math.radians(down_deg)
    down = np.array([math.sin(theta), math.cos(theta)], np.float32)
    right = np.array([math.cos(theta), -math.sin(theta)], np.float32)
    rel = analysis.numeral_offsets
    u = rel @ right
    v = rel @ down
    u_lo, u_hi, v_lo, v_hi = u.min(), u.max(), v.min(), v.max()
    half = 0.5 * max(float(u_hi - u_lo), float(v_hi - v_lo), 1.0) * 1.15 + 1.0
    mid_u = 0.5 * (float(u_lo) + float(u_hi))
    mid_v = 0.5 * (float(v_lo) + float(v_hi))
    scale = 2.0 * half / GLYPH_SIDE
    origin = analysis.centre32 + (mid_u - half) * right + (mid_v - half) * down
    # Map from glyph pixel (i, j) to the work image; sample at pixel centres.
    m = np.empty((2, 3), np.float32)
    m[:, 0] = right * scale
    m[:, 1] = down * scale
    m[:, 2] = origin + 0.5 * scale * (right + down)
    out = cv2.warpAffine(
        analysis.darkness,
        m,
        (GLYPH_SIDE, GLYPH_SIDE),
        flags=cv2.INTER_AREA | cv2.WARP_INVERSE_MAP
        if scale > 1
        else cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
    )
    peak = float(out.max())
    return out / peak if peak > 0 else out


def glyph_features(glyphs: np.ndarray) -> np.ndarray:
    """Histograms of oriented gradients of upright glyph images from :func:`glyph_image`.

    Unsigned gradient orientation in 9 bins, 8x8-pixel cells, 2x2-cell blocks normalised with
    L2-Hys (the Dalal-Triggs recipe), written out here because OpenCV 5 moved its HOG away.

    Args:
        glyphs: float32 (GLYPH_SIDE, GLYPH_SIDE) or a batch (N, GLYPH_SIDE, GLYPH_SIDE).

    Returns:
        float32 (FEATURE_LENGTH,) or (N, FEATURE_LENGTH).
    """
    batch = np.asarray(glyphs, np.float32)
    single = batch.ndim == 2
    if single:
        batch = batch[None]
    n = batch.shape[0]
    gx = np.zeros_like(batch)
    gy = np.zeros_like(batch)
    gx[:, :, 1:-1] = batch[:, :, 2:] - batch[:, :, :-2]
    gy[:, 1:-1, :] = batch[:, 2:, :] - batch[:, :-2, :]
    mag = np.hypot(gx, gy)
    # The unsigned angle: the angle % pi exactly as NumPy's float32 remainder gives it (checked
    # bit for bit on every seventh float32 of -pi..pi and on the edges), ten times faster.
    angle = np.arctan2(gy, gx)
    half_turn = np.float32(np.pi)
    unsigned = np.where(angle < 0, angle + half_turn, angle)
    unsigned[(angle == half_turn) | (angle == 0)] = 0
    pos = unsigned * (_BINS / np.pi) - 0.5
    lo = np.floor(pos)
    frac = pos - lo
    # The bins modulo _BINS (pos lies in -0.5..8.5): masked steps, three times faster than %.
    lo = lo.astype(np.intp)
    lo[lo < 0] += _BINS
    lo[lo >= _BINS] -= _BINS
    hi = lo + 1
    hi[hi == _BINS] = 0

    def pixels_first(a: np.ndarray) -> np.ndarray:
        """(n, 32, 32) -> flat, in (pixel row, pixel column, n, cell row, cell column) order."""
        by_cell = a.reshape(n, _CELLS, _CELL, _CELLS, _CELL).transpose(2, 4, 0, 1, 3)
        return np.ascontiguousarray(by_cell).ravel()

    # Votes split linearly between the two nearest orientation bins (two different bins),
    # each cell's 64 pixels first, then summed along them: one after another, in the order a
    # sum over axes (2, 4) of the (n, cell row, pixel row, cell column, pixel column, bin)
    # view takes (the same float32 sums, checked bit for bit), several times faster.
    pixels = batch.size
    votes = np.zeros(pixels * _BINS, np.float32)
    start = np.arange(0, pixels * _BINS, _BINS)
    votes[start + pixels_first(lo)] = pixels_first(mag * (1.0 - frac))
    votes[start + pixels_first(hi)] = pixels_first(mag * frac)
    cells = votes.reshape(_CELL * _CELL, n, _CELLS, _CELLS, _BINS).sum(axis=0)
    blocks = np.concatenate(
        [cells[:, :-1, :-1], cells[:, :-1, 1:], cells[:, 1:, :-1], cells[:, 1:, 1:]], axis=3
    )
    blocks = blocks / np.sqrt((blocks**2).sum(axis=3, keepdims=True) + 1e-6)
    blocks = np.minimum(blocks, 0.2)
    blocks = blocks / np.sqrt((blocks**2).sum(axis=3, keepdims=True) + 1e-6)
    out = blocks.reshape(n, FEATURE_LENGTH)
    return out[0] if single else out


def candidate_angles(analysis: ChipAnalysis) -> list[float]:
    """Rotations to try: around the one a row of dots gives, else the full search.

    A single dot is weak evidence (a 2 or 12's dot, the mark under 6/9, or a stray blob), so
    with one dot the full search is added; blurred dots put "down" a little off, so views 15
    and 30 degrees either side are tried too.
    """
    if analysis.down_deg is None:
        return list(SEARCH_ANGLES)
    near = [analysis.down_deg + d for d in (-30.0, -15.0, 0.0, 15.0, 30.0)]
    return near + list(SEARCH_ANGLES) if analysis.dots == 1 else near


class ChipModel:
    """The glyph classifier: standardised HOG -> one ReLU layer -> softmax over 10 values + junk.

    Weights come from an ``.npz`` with arrays ``mean``, ``std`` (F,), ``w1`` (F, H), ``b1``
    (H,), ``w2`` (H, 11), ``b2`` (11,).
    """

    def __init__(self, arrays: dict[str, np.ndarray]) -> None:
        try:
            self.mean = np.asarray(arrays["mean"], np.float32)
            self.std = np.asarray(arrays["std"], np.float32)
            self.w1 = np.asarray(arrays["w1"], np.float32)
            self.b1 = np.asarray(arrays["b1"], np.float32)
            self.w2 = np.asarray(arrays["w2"], np.float32)
            self.b2 = np.asarray(arrays["b2"], np.float32)
        except KeyError as exc:
            raise ValueError(f"chip model lacks the array {exc.args[0]!r}") from None
        shapes_ok = (
            self.mean.shape == self.std.shape == (FEATURE_LENGTH,)
            and self.w1.shape[0] == FEATURE_LENGTH
            and self.b1.shape == (self.w1.shape[1],)
            and self.w2.shape == (self.w1.shape[1], _JUNK + 1)
            and self.b2.shape == (_JUNK + 1,)
        )
        if not shapes_ok:
            raise ValueError("chip model arrays have the wrong shapes for this version")

    @classmethod
    def load(cls, path: Path = MODEL_PATH) -> ChipModel:
        """Load weights saved by the training script."""
        with np.load(path) as data:
            return cls({k: data[k] for k in data.files})

    def predict_proba(self, features: np.ndarray) -> np.ndarray:
        """Class probabilities.

        Args:
            features: float32 (N, FEATURE_LENGTH) from :func:`glyph_features`.

        Returns:
            float32 (N, 11): columns follow :data:`CHIP_VALUES`, the last is "not upright".
        """
        x = (features - self.mean) / self.std
        h = np.maximum(x @ self.w1 + self.b1, 0.0)
        logits = h @ self.w2 + self.b2
        logits -= logits.max(axis=1, keepdims=True)
        e = np.exp(logits)
        return e / e.sum(axis=1, keepdims=True)


@lru_cache(maxsize=1)
def default_model() -> ChipModel:
    """The shipped model, loaded once."""
    return ChipModel.load(MODEL_PATH)


def read_chip(
    image: np.ndarray,
    model: ChipModel | None = None,
    *,
    disc: tuple[float, float, float] | None = None,
) -> ChipReading:
    """Read the number on one cropped chip.

    Args:
        image: BGR uint8 array of shape (H, W, 3) (any size, at least 8 px a side), roughly
            centred on one chip; a grey (H, W) image is accepted too.
        model: glyph classifier; the shipped one by default.
        disc: the chip's disc ``(x, y, radius)`` in pixels of ``image`` when known (see
            :func:`analyse_chip`); found in the crop otherwise.

    Returns:
        The reading; ``value`` is ``None`` when the chip cannot be read honestly.

    Raises:
        ValueError: the array is not an image.
    """
    image = _as_bgr(image)
    model = model or default_model()
    unread = ChipReading.unread()
    analysis = analyse_chip(image, disc)
    reading = _read_analysis(analysis, model) if analysis is not None else unread
    if analysis is None or analysis.rim_print:
        # Was a blob at the edge print? Read the chip that way too; that reading wins when it
        # is read (it explains the chip better). A glyph-sized blob still cut away at the edge
        # may be a digit (``cut``: a 2 read may be a 12's) or the chip's own rim, seen inside
        # a disc found off centre: the reading keeps that doubt and is not refused for it.
        # Where the first reading found no numeral at all, one that narrows the chip to two
        # values (the 2 or 12 of a cut 12) is worth more than nothing to the joint reading.
        other = analyse_chip(image, disc, rim_print=True)
        if other is not None:
            alternative = _read_analysis(other, model)
            narrowed = analysis is None and _two_best(alternative) >= MIN_CONFIDENCE
            if (alternative.value is not None or narrowed) and (
                alternative.confidence > reading.confidence
            ):
                return alternative
    if reading.value is None:
        # Faint print (low contrast, blur, a hairline serif face) passes the ink level only
        # in part: a 2 shows its foot, a 4 no crossbar. An unread chip is read once more at
        # a lower level, and that reading wins when it reads a value, is more confident and
        # nothing is cut away at the edge (accepting it with a cut, as the print kept at the
        # edge is, read a Seafarers 2 as 9 at 0.70 and gained nothing: docs/vision-chips.md).
        other = analyse_chip(image, disc, faint=True)
        if other is not None and not other.cut:
            alternative = _read_analysis(other, model)
            if alternative.value is not None and alternative.confidence > reading.confidence:
                return alternative
    return reading


def _two_best(reading: ChipReading) -> float:
    """The summed scores of the reading's two likeliest values."""
    return sum(sorted(reading.scores.values())[-2:])


def _read_analysis(analysis: ChipAnalysis, model: ChipModel) -> ChipReading:
    """The reading of one analysed chip (see :func:`read_chip`)."""
    angles = candidate_angles(analysis)
    proba = _view_probabilities(analysis, angles, model)
    if len(angles) < len(SEARCH_ANGLES) and float(proba[:, :_JUNK].max()) < 0.5:
        # No upright numeral where a row of dots says "down": the row may be fragments of
        # the numeral or of a stray mark, so every rotation is tried after all.
        angles = angles + list(SEARCH_ANGLES)
        proba = np.concatenate([proba, _view_probabilities(analysis, list(SEARCH_ANGLES), model)])
    if analysis.cut:
        # A digit was cut away at the disc's edge: a 2 may be what is left of a 12.
        i2, i12 = CHIP_VALUES.index(2), CHIP_VALUES.index(12)
        proba[:, i12] = np.maximum(proba[:, i12], proba[:, i2])
    if analysis.parts == 1 and not analysis.cut:
        # One blob is one digit as a rule: a two-digit numeral shows one only when blur or a
        # bold face joins its digits (on coins-dev 3 of 145 two-digit chips, 365 of 375 single
        # digits; on the board renders' crops 13 of 281 and 549 of 700). Unless part of the
        # numeral was cut away: then what shows may be one digit of two. And unless, in the
        # view where it looks most like a numeral, the blob is as wide as two digits: then
        # it may be two joined.
        upright = angles[int(np.argmax(proba[:, :_JUNK].max(axis=1)))]
        if _width_over_height(analysis, upright) < _JOINED:
            proba[:, [v >= 10 for v in CHIP_VALUES] + [False]] *= _ONE_PART_TWO_DIGITS
    p_red = 1.0 / (1.0 + math.exp(-(analysis.redness - RED_THRESHOLD) / 0.03))
    post = _posterior(proba, _along_dots(analysis, angles), analysis.dots, p_red)
    top = int(np.argmax(post))
    confidence = float(post[top])
    value = CHIP_VALUES[top] if confidence >= MIN_CONFIDENCE else None
    scores = {v: float(p) for v, p in zip(CHIP_VALUES, post, strict=True)}
    dots = analysis.dots if analysis.dots > 0 else None
    return ChipReading(value, confidence, scores, p_red > 0.5, dots)


#: ink this much redder than its paper (see :class:`ChipAnalysis`) is as likely red as black:
#: black ink measures about 0, red ink 0.25 and more
RED_THRESHOLD = 0.17

# Dots and ink-colour likelihoods of the "unreadable" hypothesis: typical values of
# _dots_likelihood and _red_likelihood, so that they neither favour nor count against it.
_UNREADABLE_CUES = 0.25 * 0.5


def _width_over_height(analysis: ChipAnalysis, down_deg: float) -> float:
    """How much wider than high the numeral's ink is in the view whose "down" is at
    ``down_deg`` (as in :func:`glyph_image`)."""
    theta = math.radians(down_deg)
    rel = analysis.numeral_offsets
    u = rel @ np.array([math.cos(theta), -math.sin(theta)], np.float32)
    v = rel @ np.array([math.sin(theta), math.cos(theta)], np.float32)
    return float(u.max() - u.min() + 1.0) / float(v.max() - v.min() + 1.0)


#: a numeral seen as one blob this much wider than high in a view may be two digits joined
#: there: single digits upright measure 0.58-0.94 (5-95%), two-digit numerals seen as one blob
#: 1.47-1.8 (25-95%; read_board's crops of bench vision seeds 0 and 5, 4889 and 17 chips)
_JOINED = 1.2


#: likelihood of a numeral seen as one blob given two digits, against one digit: far milder
#: than measured (1/16 on the board renders' crops, 1/48 on coins-dev), so that a clear
#: two-digit glyph still outweighs it
_ONE_PART_TWO_DIGITS = 0.25


def _posterior(proba: np.ndarray, along: np.ndarray, dots: int, p_red: float) -> np.ndarray:
    """Posterior of the ten values (what they leave of 1 is "no readable numeral").

    Args:
        proba: the classifier's (views, 11) probabilities, one row per view of the numeral.
        along: bool per view, whether it looks along the ``dots`` found (see
            :func:`_along_dots`).
        dots: how many dots were found.
        p_red: how surely the ink is red.
    """
    # Each value is judged in its own best view, and the rotation is part of the hypothesis:
    # in a view along the dots they are the chip's own; in any other view the value's own
    # dots were missed and what was found are stray marks (a serif, a smudge, the table).
    glyph_along = proba[along, :_JUNK].max(axis=0) if along.any() else np.zeros(_JUNK)
    glyph_across = proba[~along, :_JUNK].max(axis=0) if (~along).any() else np.zeros(_JUNK)
    stray = _stray_dots_likelihood(dots)
    likelihood = np.array(
        [
            max(
                (glyph_along[i] + 1e-4) * _dots_likelihood(dots, v),
                (glyph_across[i] + 1e-4) * stray,
            )
            * _red_likelihood(p_red, v)
            for i, v in enumerate(CHIP_VALUES)
        ]
    )
    # "None of the values": what the classifier calls no upright numeral in the view that
    # looks most like one, with cues that say nothing. Cues that contradict the glyph (black
    # ink on a numeral that looks like 6, dots that fit no reading) leave this as the most
    # likely hypothesis, and the chip unread.
    best_view = int(np.argmax(proba[:, :_JUNK].max(axis=1)))
    unreadable = (float(proba[best_view, _JUNK]) + 1e-4) * _UNREADABLE_CUES
    return likelihood / (float(likelihood.sum()) + unreadable)


def _view_probabilities(
    analysis: ChipAnalysis, angles: list[float], model: ChipModel
) -> np.ndarray:
    """The classifier's probabilities (len(angles), 11) for the numeral seen at each angle."""
    views = np.stack([glyph_image(analysis, a) for a in angles])
    return model.predict_proba(glyph_features(views)).astype(np.float64)


def _along_dots(analysis: ChipAnalysis, angles: list[float]) -> np.ndarray:
    """Which views (bool per angle) look along the dots found: within the 30 degrees either
    side that blur leaves "down" uncertain by. Every view does when no dots were found."""
    if analysis.down_deg is None:
        return np.ones(len(angles), bool)
    off = (np.asarray(angles, np.float64) - analysis.down_deg + 180.0) % 360.0 - 180.0
    return np.abs(off) <= _ALONG_DOTS_DEG


# Views this close (degrees) to the direction of the dots look along them.
_ALONG_DOTS_DEG = 31.0


def _stray_dots_likelihood(dots: int) -> float:
    """P(``dots`` dot-like marks found | the chip's own dots missed or absent): the 0.25 of
    finding none of a value's dots, times the chance that stray marks (a serif cut off by
    blur, a smudge, a corner of the table) line up as that many dots, which falls fast with
    their number. With no dots found it is the plain 0.25 of :func:`_dots_likelihood`."""
    return 0.25 * 0.6**dots


def _dots_likelihood(dots: int, value: int) -> float:
    """P(dots found | value), in views along the dots, over the editions: with dots, plain
    (mark under 6/9), misses.

    Too few dots is a common error (blur merges neighbours, glare hides one); too many is rare.
    The commonest is one: a whole row blurred into a single blob, or the plain edition's mark
    under 6 and 9. On the bench's hard board renders a single dot is found on 23-65% of the
    chips of each value from 3 to 11, and on 76-80% of the 2s and 12s (read_board's crops of
    60 renders, seed 1), so a single dot only mildly favours 2 and 12. Blur also merges a row
    in part: two blobs are found on 5% of the 5s and 8% of the 4s against 15% of the 3s
    (crops of 300 renders, seed 0), so two blobs favour a 3 by three times, not more; a clear
    4 or 5 glyph must outweigh them.
    """
    if dots == pip_count(value):
        return 0.6
    if dots == 0:
        return 0.25
    if dots == 1:
        return 0.4
    if dots < pip_count(value):
        return 0.2
    return 0.03


def _red_likelihood(p_red: float, value: int) -> float:
    """Likelihood of the ink colour seen (``p_red``: how surely it is red) given ``value``.

    Red ink is 6 and 8 only; a little is left to the other side for light and blur.
    """
    seen = p_red if value in (6, 8) else 1.0 - p_red
    return 0.05 + 0.9 * seen


def read_chips_jointly(readings: list[ChipReading], expected: Counter[int]) -> list[int | None]:
    """Assign values to the chips of one board so that the multiset of chips is respected.

    Each chip gets at most one value and each value at most ``expected[value]`` chips; the
    assignment maximises the summed log-scores (a min-cost assignment, solved exactly). A chip
    whose assigned value is still implausible (score below ``MIN_JOINT_SCORE``) is left ``None``
    rather than forced: a chip hidden under the robber has no honest reading.

    Args:
        readings: one :class:`ChipReading` per chip position.
        expected: how many chips of each value the board holds (e.g. base game: one 2, two 3...).

    Returns:
        A value or ``None`` per reading, in the same order.

    Raises:
        ValueError: ``expected`` names a value that is not a chip value or a negative count.
    """
    return assign_values(score_table(readings), expected)


def score_table(readings: list[ChipReading]) -> np.ndarray:
    """The readings' scores, float64 (len(readings), len(CHIP_VALUES)): row i holds reading
    i's score of each value of :data:`CHIP_VALUES` (0 where it has none)."""
    table = np.zeros((len(readings), len(CHIP_VALUES)))
    for i, r in enumerate(readings):
        table[i] = [r.scores.get(v, 0.0) for v in CHIP_VALUES]
    return table


def assign_values(table: np.ndarray, expected: Counter[int]) -> list[int | None]:
    """:func:`read_chips_jointly` on the readings' :func:`score_table` (a board reader that
    solves for many subsets of its chips makes the table once)."""
    for v, n in expected.items():
        if v not in CHIP_VALUES or n < 0:
            raise ValueError(f"expected chip counts must map chip values to counts >= 0: {v}: {n}")
    slots = [v for v in CHIP_VALUES for _ in range(expected.get(v, 0))]
    if not len(table) or not slots:
        return [None] * len(table)
    # Cost of chip i taking slot j; a chip may also stay unassigned at the cost of the floor.
    floor = -math.log(MIN_JOINT_SCORE)
    n, m = len(table), len(slots)
    cost = np.full((n, m + n), floor)
    scores = table[:, [CHIP_VALUES.index(v) for v in slots]]
    cost[:, :m] = -np.log(np.maximum(scores, 1e-9))
    _, rows = linear_sum_assignment(cost)
    return [slots[j] if j < m and cost[i, j] < floor else None for i, j in enumerate(rows)]


#: the joint reading leaves a chip unread rather than give it a value scored below this
MIN_JOINT_SCORE = 0.02


def _as_bgr(image: np.ndarray) -> np.ndarray:
    """Validate an image array and return it as 3-channel uint8 BGR."""
    if not isinstance(image, np.ndarray):
        raise ValueError(f"a chip image must be a numpy array, not {type(image).__name__}")
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    if image.ndim != 3 or image.shape[2] not in (3, 4):
        raise ValueError(f"a chip image must have shape (H, W, 3), not {image.shape}")
    if image.dtype != np.uint8:
        raise ValueError(f"a chip image must be uint8, not {image.dtype}")
    if min(image.shape[:2]) < 8:
        raise ValueError(
            f"a chip image must be at least 8x8 pixels, not {image.shape[1]}x{image.shape[0]}"
        )
    return image[..., :3]


def _square(image: np.ndarray) -> np.ndarray:
    """Pad a crop to a square about its centre and resample it to _WORK pixels."""
    h, w = image.shape[:2]
    side = max(h, w)
    top = (side - h) // 2
    left = (side - w) // 2
    padded = cv2.copyMakeBorder(
        image, top, side - h - top, left, side - w - left, cv2.BORDER_REPLICATE
    )
    interp = cv2.INTER_AREA if side > _WORK else cv2.INTER_CUBIC
    return cv2.resize(padded, (_WORK, _WORK), interpolation=interp)


def _find_disc(
    work: np.ndarray, prior: tuple[float, float, float] | None = None
) -> tuple[float, float, float]:
    """The chip's circle in the work image as (x, y, radius) in pixels.

    Without a ``prior``, the strongest Hough circle near the centre of the crop, of radius
    0.34-0.52 crop sides, wins; a crop cut tightly around the chip, where the rim may not show,
    falls back to the inscribed circle. Smaller circles are not looked for: a numeral's loops
    and the ring of ink make them too, and crops are cut around one chip (the chip at least
    ~70% of the crop). With a ``prior`` (the caller's disc), only circles within 12% of its
    radius and close to its centre are taken, and the prior itself failing those: a wrong rim
    (a numeral's curve, the tile's art) cuts the numeral off far worse than a prior a few
    pixels off.
    """
    gray = cv2.GaussianBlur(cv2.cvtColor(work, cv2.COLOR_BGR2GRAY), (0, 0), 1.5)
    if prior is None:
        centre, near = (_WORK / 2.0, _WORK / 2.0), 0.15 * _WORK
        lo, hi = int(0.34 * _WORK), int(0.52 * _WORK)
        fallback = (_WORK / 2.0, _WORK / 2.0, 0.46 * _WORK)
    else:
        centre, near = (prior[0], prior[1]), 0.12 * prior[2]
        lo, hi = int(0.88 * prior[2]), int(math.ceil(1.12 * prior[2]))
        fallback = prior
    circles = cv2.HoughCircles(
        gray,
        cv2.HOUGH_GRADIENT,
        dp=1.5,
        minDist=_WORK,
        param1=80,
        param2=25,
        minRadius=lo,
        maxRadius=hi,
    )
    if circles is not None:
        for x, y, r in circles[0]:
            if math.hypot(x - centre[0], y - centre[1]) < near:
                return float(x), float(y), float(r)
    return fallback


def _dot_row(
    stats: np.ndarray,
    centroids: np.ndarray,
    dot_ids: list[int],
    glyph_c: np.ndarray,
    radius: float,
) -> tuple[int, float | None, np.ndarray]:
    """Group dot candidates into the chip's row of dots.

    Returns:
        (number of dots, direction from the numeral to the dots in degrees as in
        :class:`ChipAnalysis`, (N, 2) dot centres), or (0, None, empty) when no plausible row
        exists.
    """
    none = (0, None, np.zeros((0, 2), np.float32))
    if not dot_ids:
        return none
    pts = centroids[dot_ids]
    sizes = np.sqrt(stats[dot_ids, cv2.CC_STAT_AREA] / math.pi)
    link = 4.0 * float(np.median(sizes))
    # Single-linkage clusters of dots no further apart than a couple of dot pitches.
    label = list(range(len(dot_ids)))

    def find(i: int) -> int:
        while label[i] != i:
            label[i] = label[label[i]]
            i = label[i]
        return i

    for i in range(len(dot_ids)):
        for j in range(i + 1, len(dot_ids)):
            if np.hypot(*(pts[i] - pts[j])) <= link:
                label[find(i)] = find(j)
    groups: dict[int, list[int]] = {}
    for i in range(len(dot_ids)):
        groups.setdefault(find(i), []).append(i)

    best: tuple[int, float] | None = None
    best_dir: float | None = None
    best_pts = none[2]
    for members in groups.values():
        if len(members) > 5:
            continue
        g = pts[members]
        c = g.mean(axis=0)
        d = c - glyph_c
        dist = float(np.hypot(*d))
        if not 0.25 * radius <= dist <= 0.95 * radius:
            continue
        if len(members) >= 2:
            # A row of dots runs across the numeral-to-dots direction.
            axis = g[-1] - g[0] if len(members) == 2 else _principal_axis(g)
            cos = abs(float(np.dot(axis, d))) / (float(np.hypot(*axis)) * dist + 1e-9)
            if cos > 0.5:
                continue
        key = (len(members), -dist)
        if best is None or key > best:
            best = key
            best_dir = math.degrees(math.atan2(float(d[0]), float(d[1])))
            best_pts = g
    if best is None:
        return none
    return best[0], best_dir, best_pts


def _principal_axis(points: np.ndarray) -> np.ndarray:
    """Unit direction of largest spread of a (N, 2) point set."""
    centred = points - points.mean(axis=0)
    _, _, vt = np.linalg.svd(centred, full_matrices=False)
    return vt[0]


def _redness(work: np.ndarray, ink: np.ndarray, paper: np.ndarray) -> float:
    """How much more the ink darkens the green channel than the red one, relative to paper.

    Each channel is divided by the paper's own level, so the colour of the light cancels out:
    black ink darkens both channels alike (about 0), red ink keeps most of its red (0.25 and
    more).
    """
    if not ink.any() or not paper.any():
        return 0.0
    g = work[..., 1].astype(np.float32) + 1.0
    r = work[..., 2].astype(np.float32) + 1.0
    # The darkest half of the ink, away from the stroke edges that blur mixes with paper.
    dark = g[ink]
    core = ink.copy()
    core[ink] = dark <= median(dark)
    red = median(r[core]) / median(r[paper])
    green = median(g[core]) / median(g[paper])
    return float(red - green)
