"""Train the chip glyph classifier on synthetic chips only; write ``vision/chips_model.npz``.

    .venv/bin/python -m vision.training.train_chips [--chips 14000] [--seed 0] [--out PATH]

Every chip is drawn by :func:`vision.synth.chip_art.render_chip` in a random style, value and
rotation, put on a random background and put through a camera: perspective squash, warm and
uneven light, glare, a partly covering object, blur, low resolution, noise and JPEG, and cut
out a little loosely or tightly. The reader's own :func:`vision.chips.analyse_chip` then
measures it exactly as it will at run time, and the glyph, turned upright (by the dots when
the reader finds them, else by the known rotation), is a training sample of its value; the
same glyph at a wrong rotation, and with a large part cut away, are samples of the "not a
numeral upright" class. The result is deterministic for a seed, whatever the number of
processes (the shipped model is byte-identical when retrained on the same machine).
"""

from __future__ import annotations

import argparse
import dataclasses
import logging
import math
import multiprocessing
import sys
from pathlib import Path

import cv2
import numpy as np

from vision.chips import (
    CHIP_VALUES,
    FEATURE_LENGTH,
    MODEL_PATH,
    ChipAnalysis,
    ChipModel,
    analyse_chip,
    glyph_features,
    glyph_image,
)
from vision.synth.chip_art import CHIP_STYLES, render_chip

log = logging.getLogger("vision.training.train_chips")

_STYLE_WEIGHTS = {"dots": 0.5, "plain": 0.25, "grey": 0.25}
_JUNK = len(CHIP_VALUES)


def photograph_chip(
    value: int, style: str, rng: np.random.Generator, *, size_px: int | None = None
) -> tuple[np.ndarray, float]:
    """A synthetic photo crop of one chip, as a camera in a warm-lit room would take it.

    Args:
        value: chip value.
        style: one of :data:`vision.synth.chip_art.CHIP_STYLES`.
        rng: all randomness comes from here.
        size_px: chip diameter in pixels; random in 44..150 when ``None``.

    Returns:
        ``(crop, down_deg)``: BGR uint8 crop (square, 0.85-1.25 chip diameters) and the
        direction the chip's "down" points to in it (degrees, as in
        :class:`vision.chips.ChipAnalysis`).
    """
    d = int(size_px if size_px is not None else rng.integers(44, 151))
    rotation = float(rng.uniform(0.0, 360.0))
    chip, mask = render_chip(value, style=style, size_px=d, rotation_deg=rotation, rng=rng)
    side = int(round(d * rng.uniform(1.0, 1.25)))
    canvas = _background(side, rng)
    off = rng.uniform(-0.08, 0.08, size=2) * d + (side - d) / 2.0
    ox, oy = int(round(off[0])), int(round(off[1]))
    ox, oy = min(max(ox, 0), side - d), min(max(oy, 0), side - d)
    a = (mask.astype(np.float32) / 255.0)[..., None]
    roi = canvas[oy : oy + d, ox : ox + d]
    canvas[oy : oy + d, ox : ox + d] = roi * (1.0 - a) + chip.astype(np.float32) * a

    # Seen at an angle (or from a top view that is not quite rectified), the disc becomes an
    # ellipse: squash along a random axis.
    squash = rng.uniform(0.55, 1.0)
    phi = rng.uniform(0.0, math.pi)
    rot = np.array([[math.cos(phi), -math.sin(phi)], [math.sin(phi), math.cos(phi)]])
    lin = rot @ np.diag([1.0, squash]) @ rot.T
    lin = lin @ np.array([[1.0, rng.uniform(-0.08, 0.08)], [0.0, 1.0]])
    c = np.array([side / 2.0, side / 2.0])
    m = np.column_stack([lin, c - lin @ c])
    canvas = cv2.warpAffine(canvas, m, (side, side), borderMode=cv2.BORDER_REFLECT)
    # The image y axis points down, so on-screen counter-clockwise is the usual matrix sense
    # with the sign of the angle flipped; compute the new "down" by mapping the vector.
    t = math.radians(rotation)
    down = lin @ np.array([math.sin(t), math.cos(t)])
    down_deg = math.degrees(math.atan2(down[0], down[1]))
    if rng.random() < 0.3:
        # A tight crop that clips the rim, as a board reader's fixed-size crops can be.
        cut = int(round(side * rng.uniform(0.85, 1.0)))
        x0, y0 = (int(v) for v in rng.integers(0, side - cut + 1, size=2))
        canvas = np.ascontiguousarray(canvas[y0 : y0 + cut, x0 : x0 + cut])

    canvas = _light(canvas, rng)
    if rng.random() < 0.2:
        _occlude(canvas, rng)
    sigma = rng.uniform(0.0, 0.022) * d
    if sigma > 0.3:
        canvas = cv2.GaussianBlur(canvas, (0, 0), sigma)
    if rng.random() < 0.25:
        canvas = _motion_blur(canvas, rng.uniform(0.02, 0.06) * d, rng.uniform(0, 180))
    if rng.random() < 0.2:
        # A chip only 16-32 px wide in the photo, enlarged by the board reader's top view.
        small = int(rng.integers(16, 33))
        full = canvas.shape[0]
        canvas = cv2.resize(canvas, (small, small), interpolation=cv2.INTER_AREA)
        canvas = cv2.resize(canvas, (full, full), interpolation=cv2.INTER_LINEAR)
    canvas += rng.normal(0.0, rng.uniform(0.0, 9.0), canvas.shape).astype(np.float32)
    img = np.clip(canvas, 0, 255).astype(np.uint8)
    quality = int(rng.integers(25, 96))
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if ok:
        img = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return img, down_deg


def _background(side: int, rng: np.random.Generator) -> np.ndarray:
    """A blotchy table/terrain-like background, float32 (side, side, 3)."""
    base = rng.uniform(20, 230, size=3)
    grid = rng.integers(2, 7)
    blotch = rng.normal(0.0, rng.uniform(5, 50), (grid, grid, 3)).astype(np.float32)
    blotch = cv2.resize(blotch, (side, side), interpolation=cv2.INTER_CUBIC)
    fine = rng.normal(0.0, rng.uniform(0, 20), (side, side, 3)).astype(np.float32)
    return np.clip(base + blotch + fine, 0, 255).astype(np.float32)


def _light(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Warm, uneven room light, sometimes a glare spot."""
    side = img.shape[0]
    # Tungsten and candle-like light dims blue most and green a little; never the reverse.
    blue = rng.uniform(0.35, 1.0)
    gains = np.array([blue, rng.uniform(max(blue, 0.75), 1.0), rng.uniform(0.95, 1.05)])
    gains *= rng.uniform(0.55, 1.3)
    yy, xx = np.mgrid[0:side, 0:side].astype(np.float32) / side - 0.5
    ang = rng.uniform(0, 2 * math.pi)
    ramp = 1.0 + rng.uniform(-0.35, 0.35) * (xx * math.cos(ang) + yy * math.sin(ang))
    out = img * gains.astype(np.float32) * ramp[..., None]
    if rng.random() < 0.15:
        gx, gy = rng.uniform(-0.3, 0.3, size=2)
        spot = np.exp(-((xx - gx) ** 2 + (yy - gy) ** 2) / (2 * rng.uniform(0.05, 0.2) ** 2))
        out += rng.uniform(40, 140) * spot[..., None]
    return out


def _occlude(img: np.ndarray, rng: np.random.Generator) -> None:
    """Cover part of the rim with an object (a piece, a finger) in place."""
    side = img.shape[0]
    ang = rng.uniform(0, 2 * math.pi)
    dist = side * rng.uniform(0.45, 0.6)
    centre = (
        int(side / 2 + dist * math.cos(ang)),
        int(side / 2 + dist * math.sin(ang)),
    )
    axes = (int(side * rng.uniform(0.1, 0.3)), int(side * rng.uniform(0.05, 0.2)))
    colour = tuple(float(x) for x in rng.uniform(0, 255, size=3))
    cv2.ellipse(img, centre, axes, float(rng.uniform(0, 180)), 0, 360, colour, -1, cv2.LINE_AA)


def _motion_blur(img: np.ndarray, length: float, angle_deg: float) -> np.ndarray:
    """Blur along a line of ``length`` pixels at ``angle_deg``."""
    k = max(3, int(round(length)) | 1)
    kernel = np.zeros((k, k), np.float32)
    kernel[k // 2, :] = 1.0
    m = cv2.getRotationMatrix2D(((k - 1) / 2.0, (k - 1) / 2.0), angle_deg, 1.0)
    kernel = cv2.warpAffine(kernel, m, (k, k))
    return cv2.filter2D(img, -1, kernel / max(float(kernel.sum()), 1e-6))


def _angle_gap(a: float, b: float) -> float:
    """Smallest absolute difference of two angles in degrees."""
    return abs((a - b + 180.0) % 360.0 - 180.0)


def _cut_numeral(analysis: ChipAnalysis, rng: np.random.Generator) -> ChipAnalysis | None:
    """The analysis with 35-65% of the numeral's ink removed by a random straight cut."""
    pts = analysis.numeral_points
    theta = rng.uniform(0.0, 2.0 * math.pi)
    normal = np.array([math.cos(theta), math.sin(theta)], np.float32)
    proj = pts @ normal
    cut = float(np.quantile(proj, rng.uniform(0.35, 0.65)))
    keep = proj < cut
    if keep.sum() < 10:
        return None
    yy, xx = np.mgrid[0 : analysis.darkness.shape[0], 0 : analysis.darkness.shape[1]]
    gone = xx * normal[0] + yy * normal[1] >= cut
    darkness = np.where(gone, 0.0, analysis.darkness).astype(np.float32)
    return dataclasses.replace(analysis, numeral_points=pts[keep], darkness=darkness)


def make_samples(seed: np.random.SeedSequence, chips: int) -> tuple[np.ndarray, np.ndarray]:
    """Features and labels from ``chips`` synthetic chips: (N, FEATURE_LENGTH), (N,) int."""
    rng = np.random.default_rng(seed)
    styles = list(CHIP_STYLES)
    weights = np.array([_STYLE_WEIGHTS[s] for s in styles])
    glyphs: list[np.ndarray] = []
    labels: list[int] = []
    for _ in range(chips):
        cls = int(rng.integers(len(CHIP_VALUES)))
        style = styles[int(rng.choice(len(styles), p=weights / weights.sum()))]
        img, true_down = photograph_chip(CHIP_VALUES[cls], style, rng)
        analysis = analyse_chip(img)
        if analysis is None:
            continue
        # Upright as the reader will turn it (by its dots) when it can, and as the truth has it.
        ups = [true_down + rng.uniform(-10.0, 10.0)]
        if analysis.down_deg is not None and _angle_gap(analysis.down_deg, true_down) <= 25.0:
            ups.append(analysis.down_deg)
        for down in ups:
            glyphs.append(glyph_image(analysis, down))
            labels.append(cls)
        glyphs.append(glyph_image(analysis, true_down + rng.uniform(35.0, 325.0)))
        labels.append(_JUNK)
        # A numeral with a large part missing (cut by the crop, covered by a piece) is not a
        # reading either: without this a lone "1" left of "10" would read as "11".
        part = _cut_numeral(analysis, rng)
        if part is not None:
            glyphs.append(glyph_image(part, true_down + rng.uniform(-10.0, 10.0)))
            labels.append(_JUNK)
    if not glyphs:
        return np.zeros((0, FEATURE_LENGTH), np.float32), np.zeros(0, np.int64)
    return glyph_features(np.stack(glyphs)), np.array(labels, np.int64)


def _make_samples_job(args: tuple[np.random.SeedSequence, int]) -> tuple[np.ndarray, np.ndarray]:
    return make_samples(*args)


def train_mlp(
    x: np.ndarray,
    y: np.ndarray,
    rng: np.random.Generator,
    *,
    hidden: int = 128,
    epochs: int = 40,
    batch: int = 128,
    lr: float = 1e-3,
    weight_decay: float = 5e-4,
) -> dict[str, np.ndarray]:
    """Fit the one-hidden-layer softmax classifier of :class:`vision.chips.ChipModel` with Adam.

    Args:
        x: float32 (N, F) features; y: int (N,) labels in 0..10.

    Returns:
        The model arrays (``mean``, ``std``, ``w1``, ``b1``, ``w2``, ``b2``).
    """
    classes = _JUNK + 1
    mean = x.mean(axis=0)
    std = x.std(axis=0) + 1e-3
    xs = ((x - mean) / std).astype(np.float32)
    f = xs.shape[1]
    params = {
        "w1": (rng.normal(0, math.sqrt(2.0 / f), (f, hidden))).astype(np.float32),
        "b1": np.zeros(hidden, np.float32),
        "w2": (rng.normal(0, math.sqrt(1.0 / hidden), (hidden, classes))).astype(np.float32),
        "b2": np.zeros(classes, np.float32),
    }
    m1 = {k: np.zeros_like(v) for k, v in params.items()}
    m2 = {k: np.zeros_like(v) for k, v in params.items()}
    step = 0
    for epoch in range(epochs):
        order = rng.permutation(len(xs))
        rate = lr * 0.5 * (1 + math.cos(math.pi * epoch / epochs))
        total = 0.0
        for start in range(0, len(order), batch):
            idx = order[start : start + batch]
            xb, yb = xs[idx], y[idx]
            h_pre = xb @ params["w1"] + params["b1"]
            h = np.maximum(h_pre, 0.0)
            logits = h @ params["w2"] + params["b2"]
            logits -= logits.max(axis=1, keepdims=True)
            p = np.exp(logits)
            p /= p.sum(axis=1, keepdims=True)
            total += float(-np.log(p[np.arange(len(yb)), yb] + 1e-12).sum())
            g = p
            g[np.arange(len(yb)), yb] -= 1.0
            g /= len(yb)
            grads = {
                "w2": h.T @ g + weight_decay * params["w2"],
                "b2": g.sum(axis=0),
            }
            gh = (g @ params["w2"].T) * (h_pre > 0)
            grads["w1"] = xb.T @ gh + weight_decay * params["w1"]
            grads["b1"] = gh.sum(axis=0)
            step += 1
            for k in params:
                m1[k] = 0.9 * m1[k] + 0.1 * grads[k]
                m2[k] = 0.999 * m2[k] + 0.001 * grads[k] ** 2
                mh = m1[k] / (1 - 0.9**step)
                vh = m2[k] / (1 - 0.999**step)
                params[k] -= (rate * mh / (np.sqrt(vh) + 1e-8)).astype(np.float32)
        log.info("epoch %d: loss %.4f", epoch + 1, total / len(xs))
    return {"mean": mean.astype(np.float32), "std": std.astype(np.float32), **params}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chips", type=int, default=14000, help="synthetic chips to render")
    parser.add_argument("--seed", type=int, default=0, help="random seed")
    parser.add_argument("--epochs", type=int, default=40, help="training epochs")
    parser.add_argument("--workers", type=int, default=2, help="processes rendering chips")
    parser.add_argument("--out", type=Path, default=MODEL_PATH, help="model file to write")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stderr)
    if args.chips < 100:
        parser.error("--chips must be at least 100")

    # Fixed-size jobs with spawned seeds: the data do not depend on the number of workers.
    per_job = 250
    jobs = -(-args.chips // per_job)
    seeds = np.random.SeedSequence(args.seed).spawn(jobs + 2)
    work = [(seeds[i], min(per_job, args.chips - i * per_job)) for i in range(jobs)]
    log.info("rendering %d chips in %d jobs", args.chips, jobs)
    with multiprocessing.get_context("spawn").Pool(max(1, args.workers)) as pool:
        parts = pool.map(_make_samples_job, work)
    x = np.concatenate([p[0] for p in parts])
    y = np.concatenate([p[1] for p in parts])
    log.info("%d samples (%d upright)", len(y), int((y != _JUNK).sum()))

    split = np.random.default_rng(seeds[-2]).permutation(len(y))
    n_val = len(y) // 10
    val, tr = split[:n_val], split[n_val:]
    arrays = train_mlp(x[tr], y[tr], np.random.default_rng(seeds[-1]), epochs=args.epochs)
    proba = ChipModel(arrays).predict_proba(x[val])
    acc = float((proba.argmax(axis=1) == y[val]).mean())
    upright = y[val] != _JUNK
    acc_up = float((proba[upright, :_JUNK].argmax(axis=1) == y[val][upright]).mean())
    log.info("held-out synthetic: %.4f all classes, %.4f values of upright glyphs", acc, acc_up)
    np.savez_compressed(args.out, **arrays)
    log.info("wrote %s (%d bytes)", args.out, args.out.stat().st_size)
    return 0


if __name__ == "__main__":
    sys.exit(main())
