"""Procedural textures of the terrain art, the sea frame and the table.

Each texture is a float32 BGR patch with values in 0..255. The look is a coarse imitation of the
printed art (forest: dark tree crowns; pasture: light grass with sheep; fields: rows of grain;
hills: ochre clay; mountains: grey rock ridges with snow; desert: sand dunes; gold: a bright
yellow field with glints; sea: blue with wave lines). Colours are jittered per render, the way
print runs and editions differ, so that nothing downstream can rely on one exact colour.
"""

from __future__ import annotations

import cv2
import numpy as np

from companion.board import Terrain

#: Central BGR colour of each terrain's art and how far (per channel) a render may move it.
BASE_COLOURS: dict[Terrain, tuple[float, float, float]] = {
    Terrain.FOREST: (45, 105, 50),
    Terrain.PASTURE: (75, 190, 130),
    Terrain.FIELDS: (70, 185, 220),
    Terrain.HILLS: (55, 100, 175),
    Terrain.MOUNTAINS: (150, 135, 135),
    Terrain.DESERT: (135, 195, 215),
    Terrain.GOLD: (25, 150, 225),
    Terrain.SEA: (175, 115, 45),
    Terrain.UNEXPLORED: (90, 90, 90),
}

_JITTER = 14.0


def palette(rng: np.random.Generator) -> dict[Terrain, np.ndarray]:
    """One render's terrain colours: the base colours with a small random shift each."""
    return {
        t: np.clip(np.array(c, np.float32) + rng.uniform(-_JITTER, _JITTER, 3), 0, 255)
        for t, c in BASE_COLOURS.items()
    }


def smooth_noise(h: int, w: int, cell: float, rng: np.random.Generator) -> np.ndarray:
    """Value noise in 0..1 with features about ``cell`` pixels wide, float32 of shape (h, w)."""
    gh, gw = max(2, int(h / cell) + 2), max(2, int(w / cell) + 2)
    grid = rng.random((gh, gw), dtype=np.float32)
    return cv2.resize(grid, (w, h), interpolation=cv2.INTER_CUBIC).clip(0.0, 1.0)


def _blobs(
    img: np.ndarray,
    rng: np.random.Generator,
    count: int,
    radius: tuple[float, float],
    colour: np.ndarray,
) -> None:
    h, w = img.shape[:2]
    for _ in range(count):
        x, y = int(rng.integers(0, w)), int(rng.integers(0, h))
        r = max(1, int(rng.uniform(*radius)))
        c = (colour * rng.uniform(0.85, 1.15)).tolist()
        cv2.circle(img, (x, y), r, c, -1, cv2.LINE_AA)


def terrain_texture(
    terrain: Terrain, size: int, colour: np.ndarray, rng: np.random.Generator
) -> np.ndarray:
    """A square patch of terrain art.

    Args:
        terrain: which art to draw.
        size: side of the patch in pixels (about two hex radii).
        colour: the terrain's BGR colour for this render, float32 (3,).
        rng: source of the variation.

    Returns:
        float32 BGR patch of shape (size, size, 3), values 0..255.
    """
    s = size
    low = smooth_noise(s, s, s / 4, rng)[..., None]
    img = np.empty((s, s, 3), np.float32)
    img[:] = colour
    img *= 0.85 + 0.3 * low
    yy, xx = np.mgrid[0:s, 0:s].astype(np.float32)
    match terrain:
        case Terrain.FOREST:
            _blobs(img, rng, int(s * s / 90), (s * 0.03, s * 0.07), colour * 0.6)
            _blobs(img, rng, int(s * s / 400), (s * 0.015, s * 0.03), colour * 1.35)
        case Terrain.PASTURE:
            _blobs(img, rng, 6, (s * 0.015, s * 0.025), np.array([235, 240, 240], np.float32))
            img *= 0.95 + 0.1 * smooth_noise(s, s, s / 20, rng)[..., None]
        case Terrain.FIELDS:
            angle = rng.uniform(0, np.pi)
            stripes = np.sin((xx * np.cos(angle) + yy * np.sin(angle)) * (2 * np.pi / (s * 0.08)))
            img *= (0.9 + 0.1 * stripes)[..., None]
        case Terrain.HILLS:
            speck = smooth_noise(s, s, s / 30, rng)
            img *= (0.8 + 0.35 * speck)[..., None]
            _blobs(img, rng, 8, (s * 0.02, s * 0.05), colour * 0.7)
        case Terrain.MOUNTAINS:
            ridge = np.abs(np.sin(yy / s * 6.0 + 4.0 * smooth_noise(s, s, s / 3, rng)))
            img *= (0.75 + 0.4 * ridge)[..., None]
            _blobs(img, rng, 4, (s * 0.03, s * 0.06), np.array([235, 235, 240], np.float32))
        case Terrain.DESERT:
            dunes = np.sin(yy / s * 14.0 + 3.0 * smooth_noise(s, s, s / 3, rng))
            img *= (0.94 + 0.06 * dunes)[..., None]
        case Terrain.GOLD:
            _blobs(img, rng, 25, (s * 0.01, s * 0.025), np.array([140, 235, 255], np.float32))
            _blobs(img, rng, 6, (s * 0.02, s * 0.04), colour * 0.75)
        case Terrain.SEA:
            waves = np.sin(yy / s * 30.0 + 5.0 * smooth_noise(s, s, s / 3, rng))
            img *= (0.92 + 0.08 * waves)[..., None]
        case Terrain.UNEXPLORED:
            pass
    return np.clip(img, 0, 255)


def table_texture(h: int, w: int, rng: np.random.Generator) -> np.ndarray:
    """A table, floor or cloth under the board: uint8 BGR (h, w, 3), never sea-blue."""
    # Drawn at half resolution: a table's texture is out of focus and unimportant.
    h2, w2 = max(2, h // 2), max(2, w // 2)
    img = _table_half(h2, w2, rng)
    return cv2.resize(img, (w, h), interpolation=cv2.INTER_LINEAR)


def _table_half(h: int, w: int, rng: np.random.Generator) -> np.ndarray:
    kind = int(rng.integers(3))
    if kind == 0:  # wood
        base = np.array([rng.uniform(40, 90), rng.uniform(90, 140), rng.uniform(140, 200)])
        grain = smooth_noise(h, w, 6, rng)
        grain = cv2.resize(grain[:, :: max(1, w // 40)], (w, h), interpolation=cv2.INTER_LINEAR)
        img = base * (0.8 + 0.35 * grain[..., None])
    elif kind == 1:  # carpet or cloth
        base = np.full(3, rng.uniform(120, 200)) + rng.uniform(-12, 12, 3) * [0.3, 1, 1]
        img = base * (0.8 + 0.4 * rng.random((h, w, 1), dtype=np.float32))
        img = cv2.GaussianBlur(img.astype(np.float32), (0, 0), 0.8)
    else:  # green baize or grey tiles
        if rng.random() < 0.5:
            base = np.array([rng.uniform(40, 80), rng.uniform(100, 150), rng.uniform(40, 80)])
        else:
            base = np.full(3, rng.uniform(170, 225))
        img = base * (0.9 + 0.2 * smooth_noise(h, w, 80, rng)[..., None])
    return np.clip(img, 0, 255).astype(np.uint8)
