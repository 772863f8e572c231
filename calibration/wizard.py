"""The calibration wizard behind the web page: camera (optional), colours, board lock.

The web page shows a live preview and one instruction at a time; this class keeps the
wizard's state and does the work, so that the page only relays frames and button presses.
Every method returns a JSON-safe dict; :meth:`CalibrationWizard.preview` returns a JPEG of the
last frame with what was found drawn on it (pattern corners and the coverage grid, or the
board's hex grid). Methods may be called from several request threads.

Steps, in order: ``camera`` (may be skipped: a default model is used), ``colors``, ``board``,
then ``done``. The profile is saved after each finished step, so leaving half-way keeps
what was done.

Typical wiring (in the web layer)::

    wizard = CalibrationWizard(ProfileStore(), "kitchen", players=["red", "blue"])
    every frame:        wizard.feed(frame)        -> {"step", "message", "can_finish", ...}
    GET preview.jpg:    wizard.preview()          -> bytes
    POST finish/skip:   wizard.finish() / wizard.skip()
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import cv2
import numpy as np

from calibration.board_lock import BoardLock
from calibration.camera import ViewCollector
from calibration.colors import ColorError, learn_colors
from calibration.pattern import Pattern
from calibration.profiles import ProfileStore
from calibration.registration import register_board
from companion.board import hex_corner_points

STEPS = ("camera", "colors", "board", "done")
_INSTRUCTIONS = {
    "camera": "Hold the printed pattern in front of the camera; move and tilt it slowly.",
    "colors": "Set up the board with every player's first two settlements and roads, "
    "in the usual light, and keep hands away.",
    "board": "Put the camera where it stays for the game; the whole board must be in view.",
    "done": "Calibration is complete.",
}
_PREVIEW_SIDE = 960


class WizardError(ValueError):
    """A wizard action that is not possible now (the message says why)."""


class CalibrationWizard:
    """State of one calibration session for profile ``name``.

    Args:
        store: where profiles live.
        name: the profile to fill (created if new; an existing one is updated).
        pattern: the printed pattern for the camera step.
        players: player colours on the board for the colour step.
        kind: board kind if known (base, 5-6); None to detect it.
    """

    def __init__(
        self,
        store: ProfileStore,
        name: str,
        *,
        pattern: Pattern | None = None,
        players: Sequence[str] = (),
        kind: str | None = None,
    ) -> None:
        self._store = store
        self._profile = store.load_or_new(name)
        self._pattern = pattern or Pattern()
        self._players = list(players)
        self._kind = kind
        self._lock = threading.Lock()
        self._step = 0
        self._collector: ViewCollector | None = None
        self._frame: np.ndarray | None = None
        self._overlay: list[tuple[str, np.ndarray]] = []
        self._board: tuple[np.ndarray, Any] | None = None  # frame and its registration
        self._last: dict[str, Any] = {}

    @property
    def step(self) -> str:
        """The current step's name."""
        return STEPS[self._step]

    def state(self) -> dict[str, Any]:
        """Where the wizard is, for a page that just (re)loaded."""
        with self._lock:
            return self._state()

    def _state(self) -> dict[str, Any]:
        return {
            "profile": self._profile.name,
            "step": self.step,
            "steps": list(STEPS),
            "instruction": _INSTRUCTIONS[self.step],
            "done": self._profile.sections(),
            "can_skip": self.step == "camera",
            **self._last,
        }

    def _undistorted(self, frame: np.ndarray) -> np.ndarray:
        if self._profile.camera is None:
            return frame
        h, w = frame.shape[:2]
        return self._profile.camera.scaled_to(w, h).undistort(frame)

    def feed(self, frame: np.ndarray) -> dict[str, Any]:
        """Look at one frame (BGR uint8) for the current step; returns the feedback."""
        if frame.dtype != np.uint8 or frame.ndim != 3 or frame.shape[2] != 3:
            raise WizardError("frames must be BGR uint8 (H, W, 3)")
        with self._lock:
            if self.step == "done":
                return self._state()
            if self.step == "camera":
                self._feed_camera(frame)
            else:
                self._feed_board(self._undistorted(frame))
            return self._state()

    def _feed_camera(self, frame: np.ndarray) -> None:
        h, w = frame.shape[:2]
        if self._collector is None or self._collector.image_size != (w, h):
            self._collector = ViewCollector(self._pattern, (w, h))
        fb = self._collector.add(frame)
        self._frame = frame
        self._overlay = [("corners", fb.points)]
        message = "view kept" if fb.accepted else fb.reason
        self._last = {
            "message": f"{message}. {fb.hint}",
            "feedback": fb.to_json(),
            "can_finish": fb.views >= 3,
            "ready": fb.ready,
        }

    def _feed_board(self, frame: np.ndarray) -> None:
        self._frame = frame
        try:
            reg = register_board(frame, self._kind)
        except ValueError as exc:
            self._overlay = []
            self._last = {"message": str(exc), "board_found": False, "can_finish": False}
            return
        self._board = (frame, reg)
        grid = [
            cv2.perspectiveTransform(
                np.array(hex_corner_points(h), np.float64).reshape(-1, 1, 2), reg.homography
            ).reshape(-1, 2)
            for h in reg.hexes
        ]
        self._overlay = [("hexes", np.array(grid))]
        note = " (the board's placement is ambiguous: check the grid)" if reg.ambiguous else ""
        self._last = {
            "message": f"{reg.kind} board found{note}: finish when the grid sits on the hexes",
            "board_found": True,
            "kind": reg.kind,
            "can_finish": True,
        }

    def finish(self) -> dict[str, Any]:
        """Complete the current step with what was collected, save, and go on."""
        with self._lock:
            if self.step == "done":
                raise WizardError("the wizard is complete")
            if self.step == "camera":
                if self._collector is None or len(self._collector.views) < 3:
                    raise WizardError("keep showing the pattern: at least 3 views are needed")
                result = self._collector.solve()
                self._profile.camera = result.model
                summary = {"rms_px": round(result.rms_px, 3), "warnings": result.warnings}
            else:
                if self._board is None:
                    raise WizardError("the board has not been found yet")
                frame, reg = self._board
                if self.step == "colors":
                    if reg.kind not in ("base", "5-6"):
                        raise WizardError(
                            f"colours are learned on a base or 5-6 board, this is {reg.kind}"
                        )
                    try:
                        self._profile.colors = learn_colors(
                            frame,
                            reg.homography,
                            list(reg.hexes),
                            kind=reg.kind,
                            players=self._players,
                        )
                    except ColorError as exc:
                        raise WizardError(str(exc)) from None
                    summary = {"players": sorted(self._profile.colors.players)}
                else:
                    self._profile.board_lock = BoardLock.create(
                        frame, reg.homography, list(reg.hexes), reg.kind
                    )
                    summary = {"kind": reg.kind}
            self._store.save(self._profile)
            self._advance()
            self._last = {"message": f"saved: {summary}", "can_finish": False, "saved": summary}
            return self._state()

    def skip(self) -> dict[str, Any]:
        """Skip the camera step (the default camera model is then used)."""
        with self._lock:
            if self.step != "camera":
                raise WizardError(f"the {self.step} step cannot be skipped")
            self._advance()
            self._last = {
                "message": "camera step skipped: the default model is used",
                "can_finish": False,
            }
            return self._state()

    def _advance(self) -> None:
        self._step += 1
        self._board = None
        self._overlay = []
        self._frame = None

    def preview(self, quality: int = 80) -> bytes:
        """JPEG of the last frame with the current step's findings drawn on it."""
        with self._lock:
            if self._frame is None:
                canvas = np.full((360, 640, 3), 40, np.uint8)
                cv2.putText(
                    canvas,
                    "no frame yet",
                    (200, 190),
                    cv2.FONT_HERSHEY_SIMPLEX,
                    1.0,
                    (200, 200, 200),
                    2,
                    cv2.LINE_AA,
                )
            else:
                canvas = self._draw()
        ok, buf = cv2.imencode(".jpg", canvas, [cv2.IMWRITE_JPEG_QUALITY, quality])
        if not ok:
            raise WizardError("could not encode the preview")
        return buf.tobytes()

    def _draw(self) -> np.ndarray:
        assert self._frame is not None
        canvas = self._frame.copy()
        h, w = canvas.shape[:2]
        if self.step == "camera" and self._collector is not None:
            # Grid cells the kept views already cover are tinted green.
            tint = canvas.copy()
            for x0, y0, x1, y1 in self._collector.covered_cells():
                cv2.rectangle(tint, (int(x0), int(y0)), (int(x1), int(y1)), (0, 160, 0), -1)
            canvas = cv2.addWeighted(tint, 0.25, canvas, 0.75, 0)
        for kind, pts in self._overlay:
            if kind == "corners":
                for x, y in pts:
                    cv2.circle(canvas, (round(x), round(y)), 3, (0, 0, 255), -1, cv2.LINE_AA)
            else:
                polys = [np.round(p).astype(np.int32) for p in pts]
                cv2.polylines(canvas, polys, True, (255, 255, 0), 2, cv2.LINE_AA)
        scale = min(1.0, _PREVIEW_SIDE / max(h, w))
        if scale < 1.0:
            canvas = cv2.resize(
                canvas, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA
            )
        return canvas
