"""Everything a table runs around the game: the Table, the web server, the tower, the players.

:class:`TableHost` starts the parts in order and stops them in reverse, and every part that
fails to start is reported on the page as down while the game goes on without it (a table with
the tower unplugged still plays with dice typed in on the page).
"""

from __future__ import annotations

import logging
import signal
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from companion.actions import RollDice
from companion.board import Board
from companion.bots import GreedyBot
from companion.demo_players import DemoCamera, DemoPlayers
from companion.game import Rules
from companion.journal import JournaledGame
from companion.table import ApplyAction, ReportPart, Table
from companion.tower_link import TowerLink

log = logging.getLogger(__name__)


def open_or_create(
    path: Path,
    board: Board | None,
    players: list[str],
    seed: int | None,
    rules: Rules | None = None,
) -> JournaledGame:
    """Resume the game in ``path`` if it has one, else start a new game on ``board`` there."""
    if path.exists() and path.stat().st_size > 0:
        jg = JournaledGame.open(path)
        if jg.damage is not None:
            log.warning("%s: %s; continuing after the last good action", path, jg.damage)
            jg.continue_after_damage()
        log.info("resumed %s at action %d", path, len(jg.history))
        return jg
    if board is None:
        raise ValueError(f"{path}: there is no game to resume, and no board to start one")
    return JournaledGame.create(path, board, players, rules, seed)


class WebPage(Protocol):
    """A served page of the table (web.server.WebServer is one)."""

    url: str
    table_code: str

    def close(self) -> None: ...


#: Starts the page of a table's host; the CLI passes a call of web.server.serve_table (companion
#: never imports web: the dependency goes the other way, DESIGN.md).
WebStarter = Callable[["TableHost"], WebPage]


class LatestFrame:
    """A capture source passed through, remembering its latest frame for the page's
    calibration wizard (read from another thread)."""

    def __init__(self, source: Iterable[tuple[float, Any]]):
        self.source = source
        self._frame: Any = None
        self._lock = threading.Lock()

    def __iter__(self) -> Iterator[tuple[float, Any]]:
        for t, frame in self.source:
            with self._lock:
                self._frame = frame
            yield t, frame

    def latest(self) -> Any:
        with self._lock:
            return self._frame

    def close(self) -> None:
        close = getattr(self.source, "close", None)
        if close is not None:
            close()


@dataclass
class TableHost:
    """The running parts of one table (see the module docstring)."""

    jgame: JournaledGame
    web: WebStarter | None = None
    tower_url: str | None = None
    #: a camera index or URL whose view follows the game (vision.capture, vision.tracker)
    camera: str | None = None
    #: the demo's simulated camera instead of a real one (its frames and tracker)
    demo_camera: DemoCamera | None = None
    table: Table = field(init=False)
    server: WebPage | None = None
    camera_link: Any = None
    frames: LatestFrame | None = None
    tower: Any = None
    link: TowerLink | None = None
    _threads: list[threading.Thread] = field(default_factory=list)
    _stopping: threading.Event = field(default_factory=threading.Event)

    def __post_init__(self) -> None:
        self.table = Table(self.jgame)

    @property
    def url(self) -> str:
        assert self.server is not None
        return self.server.url + "/"

    @property
    def table_code(self) -> str:
        return self.server.table_code if self.server is not None else ""

    def start(self) -> None:
        self.table.start()
        self._make_camera_link()  # before the page, which confirms what the camera proposes
        if self.web is not None:
            self.server = self.web(self)
        self._start_tower()
        if self.camera_link is not None:
            self.camera_link.start()

    def camera_view(self) -> bytes | None:
        """The camera's latest frame as a JPEG, with the grid the tracker registered drawn
        on it (the page shows it on request); None without a frame."""
        frame = self.latest_frame()
        if frame is None:
            return None
        import cv2

        from vision.debug import draw_camera_grid

        detector = getattr(getattr(self.camera_link, "tracker", None), "detector", None)
        if detector is not None:
            frame = draw_camera_grid(frame, detector.homography, detector.hexes)
        ok, jpeg = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 80])
        return jpeg.tobytes() if ok else None

    def latest_frame(self) -> Any:
        """The camera's latest frame (BGR), or None (no camera, or no frame yet)."""
        return None if self.frames is None else self.frames.latest()

    def _make_camera_link(self) -> None:
        from companion.camera_link import CameraLink

        if self.demo_camera is not None:
            source, tracker = self.demo_camera.feed()
            self.frames = LatestFrame(source)
            self.camera_link = CameraLink(self.table, self.frames, tracker)
            return
        if self.camera is None:
            self.table.post(ReportPart("camera", False, "no camera: enter moves on the page"))
            return
        from vision.capture import CameraSource
        from vision.tracker import Tracker

        try:
            source = CameraSource(int(self.camera) if self.camera.isdigit() else self.camera)
        except (OSError, ValueError) as exc:
            log.warning("camera %s: %s; the game goes on without it", self.camera, exc)
            self.table.post(ReportPart("camera", False, str(exc)))
            return
        self.frames = LatestFrame(source)
        from vision.known_board import known_board_registrar

        board = self.jgame.game.board
        # The camera names corners like the game's board, whichever way the reader would
        # have turned it: a board from JSON or a resumed journal, or read from another
        # frame, is named the game's way, and a scenario's map is found by its own frame
        # (vision.known_board).
        tracker = Tracker(registrar=known_board_registrar(board))
        self.camera_link = CameraLink(self.table, self.frames, tracker)

    def _start_tower(self) -> None:
        if self.tower_url is None:
            self.table.post(ReportPart("tower", False, "no tower configured: type dice in"))
            return
        from firmware_bridge.driver import DiceTower, TowerError
        from firmware_bridge.leds import LedMap

        try:
            self.tower = DiceTower(self.tower_url).open()
            self.tower.set_led_map(LedMap.serpentine(self.jgame.game.board.tiles))
        except (TowerError, OSError, ValueError) as exc:
            log.warning("dice tower at %s: %s; the game goes on without it", self.tower_url, exc)
            self.table.post(ReportPart("tower", False, str(exc)))
            self.tower = None
            return
        self.link = TowerLink(self.table, self.tower)
        self.link.start()

    def play_with_bots(self, pace: float, seed: int | None = None) -> DemoPlayers:
        """Let computer players play the game, one action every ``pace`` seconds; with a
        demo camera, what they put on the board reaches the game through it
        (companion.demo_players)."""
        camera = None
        if self.demo_camera is not None and self.camera_link is not None:
            camera = (self.demo_camera, self.camera_link)
        players = DemoPlayers(
            self.table, GreedyBot(seed), pace, self._roll, self._stopping, camera=camera
        )
        t = threading.Thread(target=players.run, name="demo-players", daemon=True)
        t.start()
        self._threads.append(t)
        return players

    def _roll(self, action: RollDice) -> None:
        """Roll with the tower if it answers, else with the host's generator."""
        if self.link is not None:
            try:
                future = self.link.roll()  # the tower rolls, as if its button was pressed
                if future is not None:
                    future.result(10)
                return
            except Exception as exc:
                log.warning("dice tower: %s; rolling on the host", exc)
        self.table.call(ApplyAction(RollDice(action.player, source="host"), source="demo"))

    def stop(self) -> None:
        self._stopping.set()
        if self.demo_camera is not None:
            # A simulated camera can be closed from here at once (unlike a real one, see
            # CameraLink.stop): its loop then ends without waiting for the next frame's time.
            self.demo_camera.source.close()
        if self.camera_link is not None:
            self.camera_link.stop()
        if self.link is not None:
            self.link.stop()
        if self.tower is not None:
            self.tower.close()
        if self.server is not None:
            self.server.close()
        for t in self._threads:
            t.join(timeout=5)
        self.table.stop()

    def serve(self, banner: str) -> None:
        """Print where the page is, then run until Ctrl-C or SIGTERM, and stop cleanly."""
        print(f"{banner}: open {self.url}", flush=True)
        print(f"table code: {self.table_code}   journal: {self.jgame.journal.path}", flush=True)
        # `kill` (SIGTERM) stops as cleanly as Ctrl-C: the journal is closed, the port freed.
        signal.signal(signal.SIGTERM, lambda *_: self.request_stop())
        try:
            self.wait()
        except KeyboardInterrupt:
            print("stopping...", file=sys.stderr)
        finally:
            self.stop()

    def request_stop(self) -> None:
        """Ask :meth:`wait` to return (safe from a signal handler)."""
        self._stopping.set()

    def wait(self) -> None:
        """Block until :meth:`stop` or Ctrl-C (a timed wait, so the signal gets through)."""
        while not self._stopping.wait(0.5):
            pass
