"""Capture sources: where frames come from, all behind one interface.

A source is an iterable of ``(timestamp_s, frame)`` pairs, ``frame`` a BGR uint8 (H, W, 3)
array and ``timestamp_s`` seconds since the source started (monotonic, float), with a
:meth:`CaptureSource.close`; sources are context managers.

- :class:`CameraSource`: a real camera (``cv2.VideoCapture`` index or stream URL).
- :class:`VideoFileSource`: a video file (timestamps from the file).
- :class:`ImageFolderSource`: the images of a folder in name order, at a given rate.
- :class:`SyntheticGameSource`: the project's renderer playing a scripted game: each step's
  board is rendered once, and every frame adds what changes from frame to frame (a hand
  reaching in while a piece is placed, the lamp's slow drift, a glare spot, a bump that moves
  the board). The truth of the frame being shown is in :attr:`SyntheticGameSource.truth`.

>>> from companion.layouts import random_board
>>> src = SyntheticGameSource([SceneStep(random_board(3, seed=1), duration_s=0.1)],
...                           width=160, height=120, fps=20)
>>> frames = list(src)
>>> [round(t, 2) for t, _ in frames], frames[0][1].shape
([0.0, 0.05], (120, 160, 3))
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np

from companion.board import Board
from vision.synth.render import Conditions, render_board

log = logging.getLogger(__name__)

Frame = tuple[float, np.ndarray]

#: File name endings of the images a folder source reads.
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp")


class CaptureSource:
    """Base class: iterate for ``(timestamp_s, frame)``; ``close()`` releases the device."""

    def __iter__(self) -> Iterator[Frame]:
        raise NotImplementedError

    def close(self) -> None:
        """Release what the source holds (idempotent)."""

    def __enter__(self) -> CaptureSource:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _VideoCaptureSource(CaptureSource):
    """Shared by cameras and files: frames read from a ``cv2.VideoCapture``."""

    def __init__(self, capture: cv2.VideoCapture, what: str):
        if not capture.isOpened():
            capture.release()
            raise ValueError(f"{what}: cannot be opened (check the index, URL or file)")
        self._cap = capture
        self.what = what

    def close(self) -> None:
        self._cap.release()

    def _read(self) -> np.ndarray | None:
        ok, frame = self._cap.read()
        if not ok or frame is None:
            return None
        if frame.ndim == 2:
            frame = cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
        return frame


class CameraSource(_VideoCaptureSource):
    """A live camera: ``device`` is an index (0, 1, ...) or a stream URL.

    Timestamps are wall-clock seconds since the first frame. The stream ends when the camera
    stops delivering (unplugged): the camera link reports that as the camera being down.
    """

    def __init__(self, device: int | str, width: int | None = None, height: int | None = None):
        if isinstance(device, str) and device.isdigit():
            device = int(device)
        if isinstance(device, int) and device < 0:
            raise ValueError(f"camera index must be >= 0, not {device}")
        super().__init__(cv2.VideoCapture(device), f"camera {device}")
        if width:
            self._cap.set(cv2.CAP_PROP_FRAME_WIDTH, width)
        if height:
            self._cap.set(cv2.CAP_PROP_FRAME_HEIGHT, height)

    def __iter__(self) -> Iterator[Frame]:
        start: float | None = None
        while True:
            frame = self._read()
            if frame is None:
                log.warning("%s: no more frames", self.what)
                return
            now = time.monotonic()
            start = now if start is None else start
            yield now - start, frame


class VideoFileSource(_VideoCaptureSource):
    """A video file; timestamps come from the file's frame rate (or its own clock)."""

    def __init__(self, path: str | Path):
        p = Path(path)
        if not p.is_file():
            raise ValueError(f"{p}: no such video file")
        super().__init__(cv2.VideoCapture(str(p)), str(p))
        fps = self._cap.get(cv2.CAP_PROP_FPS)
        self.fps = fps if fps and fps > 0 and math.isfinite(fps) else 30.0

    def __iter__(self) -> Iterator[Frame]:
        index = 0
        while True:
            frame = self._read()
            if frame is None:
                return
            yield index / self.fps, frame
            index += 1


class ImageFolderSource(CaptureSource):
    """The images of a folder, in name order, as frames ``1 / fps`` seconds apart.

    Files that are not images OpenCV can read are skipped with a warning.
    """

    def __init__(self, folder: str | Path, fps: float = 1.0):
        p = Path(folder)
        if not p.is_dir():
            raise ValueError(f"{p}: no such folder")
        if not fps > 0:
            raise ValueError(f"fps must be > 0, not {fps}")
        self.paths = sorted(x for x in p.iterdir() if x.suffix.lower() in IMAGE_SUFFIXES)
        if not self.paths:
            raise ValueError(f"{p}: no images ({', '.join(IMAGE_SUFFIXES)}) in the folder")
        self.fps = fps

    def __iter__(self) -> Iterator[Frame]:
        index = 0
        for path in self.paths:
            frame = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if frame is None:
                log.warning("%s: not an image, skipped", path)
                continue
            yield index / self.fps, frame
            index += 1


# --- the synthetic game -----------------------------------------------------------------------


@dataclass(frozen=True)
class SceneStep:
    """One step of a scripted game: the board after it, and how the change happens.

    Attributes:
        board: what the table shows once the step is done (pieces, robber, pirate).
        reach: board-plane point (hex radii) a hand reaches to while the change is made, or
            None for a change made without a hand in view (or no change).
        duration_s: how long the step lasts, hand included.
        glare: a glare spot shines on the board during the step.
        shadow: someone leaning in casts a soft shadow over part of the board.
        bump: the board is bumped at the start of the step (moves a little, for good).
        label: what happened (for reports).
    """

    board: Board
    reach: tuple[float, float] | None = None
    duration_s: float = 2.0
    glare: bool = False
    shadow: bool = False
    bump: bool = False
    label: str = ""


@dataclass
class FrameTruth:
    """What the synthetic source's latest frame shows.

    Attributes:
        step: index of the step being played.
        board: the board visible in the frame.
        homography: float64 (3, 3) board plane -> image pixels of this frame.
        hand_mask: bool (H, W) pixels covered by a hand, or None.
        glare: whether a glare spot is on.
        changed_at: timestamp at which this step's board became visible (None before).
    """

    step: int
    board: Board
    homography: np.ndarray
    hand_mask: np.ndarray | None
    glare: bool
    changed_at: float | None


class SyntheticGameSource(CaptureSource):
    """Frames of a scripted game, rendered by :mod:`vision.synth`.

    Each step's board is rendered once (under the camera of its epoch: a bump starts a new
    one); the frames of the step add a hand that reaches to ``step.reach`` during the first
    ``reach_s`` seconds (the new board appears halfway, under the hand), a slow sinusoidal
    drift of the lamp's brightness and colour, and a glare spot on glare steps.

    Args:
        steps: the script (at least one step).
        width, height: frame size in pixels.
        fps: frames per second of the (simulated) timeline; timestamps are simulated.
        seed: the renders' seed (the same seed gives the same video).
        conditions: the camera (tilt, rotation, ...); lighting fields are ignored (the
            source animates its own), a clean top view if None.
        drift: amplitude of the lamp's brightness drift (fraction).
        reach_s: how long a hand stays in view on a step with a reach.
    """

    def __init__(
        self,
        steps: Sequence[SceneStep],
        *,
        width: int = 1280,
        height: int = 720,
        fps: float = 30.0,
        seed: int = 0,
        conditions: Conditions | None = None,
        drift: float = 0.1,
        reach_s: float = 0.8,
    ):
        if not steps:
            raise ValueError("the script has no steps")
        if not fps > 0:
            raise ValueError(f"fps must be > 0, not {fps}")
        if not 0.0 <= drift < 0.5:
            raise ValueError(f"drift must be within 0..0.5, not {drift}")
        if any(s.duration_s <= 0 for s in steps):
            raise ValueError("every step needs a duration > 0")
        self.steps = list(steps)
        self.width, self.height, self.fps = width, height, fps
        self.seed = seed
        self.drift = drift
        self.reach_s = reach_s
        base = conditions or Conditions()
        # The source animates light itself: the render is made under a steady lamp.
        self._base = replace(base, light_gradient=0.0, glare=0.0, shadow=0.0, hands=0)
        self._cache: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}
        self.truth: FrameTruth | None = None
        self._closed = False

    def close(self) -> None:
        self._closed = True
        self._cache.clear()

    @property
    def duration_s(self) -> float:
        return sum(s.duration_s for s in self.steps)

    def _epoch_conditions(self, epoch: int) -> Conditions:
        if epoch == 0:
            return self._base
        rng = np.random.default_rng((self.seed, epoch))
        # A bump slides and turns the board a little; the camera stays.
        return replace(
            self._base,
            rotation_deg=self._base.rotation_deg + float(rng.uniform(-6, 6)),
            offset=(
                self._base.offset[0] + float(rng.uniform(-0.03, 0.03)),
                self._base.offset[1] + float(rng.uniform(-0.03, 0.03)),
            ),
        )

    def _render(self, step: int, epoch: int) -> tuple[np.ndarray, np.ndarray]:
        key = (step, epoch)
        if key not in self._cache:
            if len(self._cache) > 4:
                self._cache.pop(next(iter(self._cache)))
            r = render_board(
                self.steps[step].board,
                width=self.width,
                height=self.height,
                rng=self.seed,
                conditions=self._epoch_conditions(epoch),
            )
            self._cache[key] = (r.image, r.homography)
        return self._cache[key]

    def __iter__(self) -> Iterator[Frame]:
        dt = 1.0 / self.fps
        t = 0.0
        epoch = 0
        index = 0
        rng = np.random.default_rng(self.seed)
        for i, step in enumerate(self.steps):
            if step.bump:
                epoch += 1
            hand_path = None
            if step.reach is not None:
                hand_path = _hand_path(rng, self.width, self.height)
            start = t
            changed_at: float | None = None
            n = max(1, int(round(step.duration_s * self.fps)))
            for k in range(n):
                if self._closed:
                    return
                local = k * dt
                in_reach = hand_path is not None and local < self.reach_s
                # The new board appears halfway through the reach (under the hand).
                show_new = not in_reach or local >= self.reach_s / 2 or i == 0
                shown = i if show_new else i - 1
                base_img, hom = self._render(shown, epoch)
                if show_new and changed_at is None:
                    changed_at = start + local
                frame = base_img.astype(np.float32)
                frame *= _lamp(t, self.drift)[None, None, :]
                if step.glare:
                    _add_glare(frame, rng_seed=(self.seed, i))
                if step.shadow:
                    _add_shadow(frame, rng_seed=(self.seed, i))
                mask = None
                if in_reach and hand_path is not None:
                    tip = _project(hom, np.array([step.reach]))[0]
                    phase = min(1.0, local / (self.reach_s / 2))  # reach in, then hold
                    mask = _draw_hand(frame, hand_path, tip, phase, self.width, self.height)
                out = np.clip(frame, 0, 255).astype(np.uint8)
                self.truth = FrameTruth(
                    i,
                    self.steps[shown].board,
                    hom,
                    mask,
                    step.glare,
                    changed_at,
                )
                yield t, out
                index += 1
                t = index * dt


# --- a live, simulated table -------------------------------------------------------------------


@dataclass(frozen=True)
class TableChange:
    """What a :class:`TableScene` shows: its board now, and how it last changed.

    Attributes:
        board: the board with everything on it now.
        before: the board before the latest change (shown until the hand has placed it).
        reach: board-plane point (hex radii) the hand placing the latest change reaches to.
        version: counts the changes (0: none yet).
    """

    board: Board
    before: Board
    reach: tuple[float, float] | None
    version: int


class TableScene:
    """A simulated physical table: the board and what lies on it, changed by whoever plays.

    A player puts a piece down with :meth:`show` (the board as it is once the piece is down,
    and where the hand reaches); a :class:`LiveTableSource` films it. Thread-safe: players and
    the camera run in their own threads.
    """

    def __init__(self, board: Board):
        self._lock = threading.Lock()
        self._now = TableChange(board, board, None, 0)

    def show(self, board: Board, reach: tuple[float, float] | None) -> None:
        """The table shows ``board`` from now on, put there by a hand reaching to ``reach``."""
        with self._lock:
            self._now = TableChange(board, self._now.board, reach, self._now.version + 1)

    def now(self) -> TableChange:
        with self._lock:
            return self._now


def board_key(board: Board) -> tuple[object, ...]:
    """What a render of ``board`` depends on that changes during a game (pieces, robber,
    pirate): the key of the render cache."""
    return (frozenset(board.pieces), board.robber, board.pirate)


class LiveTableSource(CaptureSource):
    """A camera filming a :class:`TableScene`, frame after frame, until closed.

    Each state of the table is rendered once (:func:`vision.synth.render.render_board`; the
    last few renders are kept) and every frame adds what changes from frame to frame: a hand
    that reaches in for ``reach_s`` seconds after each change (the change appears halfway,
    under the hand), the lamp's slow drift, and now and then a glare spot for ``glare_s``
    seconds (one spell in every ``glare_every_s``).

    Time: frame ``i`` has the timestamp ``i / fps`` on the source's own clock (what the
    tracker's stability times are measured in). The clock runs ``speed`` times as fast as
    the wall clock, and frames are never made faster than ``max_rate`` per wall second: a
    fast-forwarded demo films more frames per second, up to that, and a loaded computer
    simply gets fewer frames per wall second (the source never skips clock time, so the
    hand and the stability times last as many frames whatever the load).

    :meth:`wait_frames` lets another thread wait until the consumer has taken (and so
    finished with) more frames: a player waiting for the camera waits on its frames.

    >>> from companion.layouts import random_board
    >>> scene = TableScene(random_board(3, seed=1))
    >>> cam = LiveTableSource(scene, width=160, height=120, fps=10, speed=100)
    >>> frames = iter(cam)
    >>> [round(next(frames)[0], 2) for _ in range(3)]
    [0.0, 0.1, 0.2]
    >>> cam.close()
    """

    def __init__(
        self,
        scene: TableScene,
        *,
        width: int = 960,
        height: int = 540,
        fps: float = 5.0,
        speed: float = 1.0,
        max_rate: float = 30.0,
        seed: int = 0,
        conditions: Conditions | None = None,
        drift: float = 0.1,
        reach_s: float = 0.8,
        glare_every_s: float = 60.0,
        glare_s: float = 2.5,
    ):
        if not fps > 0 or not speed > 0 or not max_rate > 0:
            raise ValueError("fps, speed and max_rate must be > 0")
        if not 0.0 <= drift < 0.5:
            raise ValueError(f"drift must be within 0..0.5, not {drift}")
        self.scene = scene
        self.width, self.height, self.fps = width, height, fps
        self.speed, self.max_rate = speed, max_rate
        self.seed, self.drift, self.reach_s = seed, drift, reach_s
        self.glare_every_s, self.glare_s = glare_every_s, glare_s
        base = conditions or Conditions()
        self._conditions = replace(base, light_gradient=0.0, glare=0.0, shadow=0.0, hands=0)
        self._cache: dict[tuple[object, ...], tuple[np.ndarray, np.ndarray]] = {}
        self.renders = 0
        self._closed = threading.Event()
        self._taken = threading.Condition()
        self.frames_taken = 0
        self.clock = 0.0

    def close(self) -> None:
        self._closed.set()
        with self._taken:
            self._taken.notify_all()

    @property
    def closed(self) -> bool:
        return self._closed.is_set()

    def wait_frames(self, after: int, timeout: float) -> int:
        """Wait until more than ``after`` frames were taken (or ``timeout`` wall seconds, or
        the source closed); returns how many were taken."""
        with self._taken:
            self._taken.wait_for(lambda: self.frames_taken > after or self.closed, timeout)
            return self.frames_taken

    def _render(self, board: Board) -> tuple[np.ndarray, np.ndarray]:
        key = board_key(board)
        if key in self._cache:
            self._cache[key] = self._cache.pop(key)  # most recently used last
        else:
            if len(self._cache) >= 4:
                self._cache.pop(next(iter(self._cache)))
            r = render_board(
                board,
                width=self.width,
                height=self.height,
                rng=self.seed,
                conditions=self._conditions,
            )
            self._cache[key] = (r.image, r.homography)
            self.renders += 1
        return self._cache[key]

    def _glare_spell(self, t: float) -> int | None:
        """The number of the glare spell on at clock time ``t``, or None."""
        if self.glare_every_s <= 0:
            return None
        spell = int(t // self.glare_every_s)
        rng = np.random.default_rng((self.seed, spell))
        start = rng.uniform(0.0, max(0.0, self.glare_every_s - self.glare_s))
        return spell if start <= t - spell * self.glare_every_s < start + self.glare_s else None

    def __iter__(self) -> Iterator[Frame]:
        rng = np.random.default_rng(self.seed)
        started = time.monotonic()
        version, changed_at = 0, 0.0
        hand: tuple[np.ndarray, np.ndarray] | None = None
        index = 0
        while not self.closed:
            t = index / self.fps
            # The clock runs `speed` times the wall clock, at most `max_rate` frames a second.
            due = started + max(t / self.speed, index / self.max_rate)
            if self._closed.wait(max(0.0, due - time.monotonic())):
                return
            now = self.scene.now()
            if now.version != version:
                version, changed_at = now.version, t
                hand = _hand_path(rng, self.width, self.height) if now.reach else None
            local = t - changed_at
            in_reach = hand is not None and local < self.reach_s
            shown = now.before if in_reach and local < self.reach_s / 2 else now.board
            image, hom = self._render(shown)
            lamp = _lamp(t, self.drift)
            spell = self._glare_spell(t)
            if spell is None and not in_reach:
                # Most frames: only the lamp changes, a table look-up per channel (the same
                # pixels as the floating-point composition below, at a fraction of its cost).
                levels = np.arange(256, dtype=np.float32)[:, None] * lamp[None, :]
                out = cv2.LUT(image, np.clip(levels, 0, 255).astype(np.uint8)[:, None, :])
            else:
                frame = image.astype(np.float32)
                frame *= lamp[None, None, :]
                if spell is not None:
                    _add_glare(frame, rng_seed=(self.seed, spell))
                if in_reach and hand is not None and now.reach is not None:
                    tip = _project(hom, np.array([now.reach]))[0]
                    phase = min(1.0, local / (self.reach_s / 2))  # reach in, then hold
                    _draw_hand(frame, hand, tip, phase, self.width, self.height)
                out = np.clip(frame, 0, 255).astype(np.uint8)
            self.clock = t
            yield t, out
            # Back here, the consumer is done with the frame.
            index += 1
            with self._taken:
                self.frames_taken = index
                self._taken.notify_all()


def _project(m: np.ndarray, points: np.ndarray) -> np.ndarray:
    p = np.hstack([points, np.ones((len(points), 1))]) @ m.T
    return p[:, :2] / p[:, 2:3]


def _lamp(t: float, drift: float) -> np.ndarray:
    """The lamp's BGR gain at time ``t``: a slow brightness swing and a slight colour swing."""
    b = 1.0 + drift * math.sin(2 * math.pi * t / 23.0)
    warm = 0.3 * drift * math.sin(2 * math.pi * t / 37.0)
    return np.array([b * (1 - warm), b, b * (1 + warm)], np.float32)


def _add_glare(frame: np.ndarray, rng_seed: tuple[int, int]) -> None:
    """A soft bright spot (a lamp's reflection), at a place fixed for the step."""
    h, w = frame.shape[:2]
    rng = np.random.default_rng(rng_seed)
    cx, cy = rng.uniform(0.3, 0.7) * w, rng.uniform(0.3, 0.7) * h
    sigma = rng.uniform(0.03, 0.06) * min(w, h)
    ys, xs = np.ogrid[0:h, 0:w]
    spot = 150.0 * np.exp(-((xs - cx) ** 2 + (ys - cy) ** 2) / (2 * sigma**2))
    frame += spot.astype(np.float32)[..., None]


def _add_shadow(frame: np.ndarray, rng_seed: tuple[int, int]) -> None:
    """A soft dark region (someone leaning over the table), fixed for the step."""
    h, w = frame.shape[:2]
    rng = np.random.default_rng((*rng_seed, 1))
    cx, cy = rng.uniform(0.3, 0.7) * w, rng.uniform(0.3, 0.7) * h
    sigma = rng.uniform(0.1, 0.2) * min(w, h)
    ys, xs = np.ogrid[0:h, 0:w]
    dark = 0.4 * np.exp(-((xs - cx) ** 2 + (ys - cy) ** 2) / (2 * sigma**2))
    frame *= (1.0 - dark).astype(np.float32)[..., None]


def _hand_path(rng: np.random.Generator, w: int, h: int) -> tuple[np.ndarray, np.ndarray]:
    """Where an arm comes from (a point beyond an image border) and its skin colour."""
    side = int(rng.integers(4))
    u = rng.uniform(0.2, 0.8)
    entry = {
        0: (u * w, -0.15 * h),
        1: (1.15 * w, u * h),
        2: (u * w, 1.15 * h),
        3: (-0.15 * w, u * h),
    }[side]
    skin = np.array([rng.uniform(90, 160), rng.uniform(120, 180), rng.uniform(180, 235)])
    return np.array(entry, np.float64), skin.astype(np.float32)


def _draw_hand(
    frame: np.ndarray,
    path: tuple[np.ndarray, np.ndarray],
    tip: np.ndarray,
    phase: float,
    w: int,
    h: int,
) -> np.ndarray:
    """Draw an arm from its entry point towards ``tip`` (``phase`` 0..1 of the way) with a
    soft shadow; returns the bool (H, W) mask it covers."""
    entry, skin = path
    end = entry + (tip - entry) * phase
    d = end - entry
    norm = float(np.linalg.norm(d)) or 1.0
    d /= norm
    n = np.array([-d[1], d[0]])
    unit = 0.035 * min(w, h)
    arm = np.array(
        [entry + n * 1.3 * unit, end + n * 1.1 * unit, end - n * 1.1 * unit, entry - n * 1.3 * unit]
    )
    mask = np.zeros((h, w), np.uint8)
    cv2.fillConvexPoly(mask, np.round(arm).astype(np.int32), 255)
    cv2.circle(mask, (int(round(end[0])), int(round(end[1]))), int(1.4 * unit), 255, -1)
    shadow = np.roll(mask, (int(0.5 * unit), int(0.5 * unit)), axis=(0, 1))
    shade = cv2.blur(shadow, (int(unit) | 1, int(unit) | 1)).astype(np.float32) / 255.0
    frame *= (1.0 - 0.35 * shade)[..., None]
    m = mask > 0
    frame[m] = skin
    return m
