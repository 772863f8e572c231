"""The demo's computer players, at a simulated physical table that the demo's camera films.

A move a camera can see (a settlement, city, road or ship put down, a ship moved, the robber
or the pirate moved) is made as a person makes it: the piece is put on the table
(:class:`vision.capture.TableScene`, a hand reaching in), and the game learns of it only
through the camera: the live source (:class:`vision.capture.LiveTableSource`) films the
table, the tracker follows it, the camera link reconciles what it saw with the game and
applies it (the engine checks it), and a robber move's question "who was robbed?" is answered
as a player answers it on the page (:meth:`companion.camera_link.CameraLink.confirm`).
What no camera sees (rolls on the simulated dice tower, trades, development cards, discards,
the end of a turn) is entered as the page enters it: an action sent to the Table.

When the camera misses or misreads a move (nothing came of it within ``timeout_s`` seconds
of the camera's own clock, or the camera is not following the board), the player notices,
says so in the log, and enters the move as on the page, so the demo never stalls.
:class:`CameraTally` counts how every visible move got into the game.

Without a camera (``demo --no-camera``) every move is sent to the Table directly.

>>> from companion.layouts import random_board
>>> from companion.game import Game
>>> from companion.actions import BuildSettlement
>>> from companion.board import Vertex
>>> game = Game(random_board(3, seed=1), ["red", "blue", "white"], rng=1)
>>> move = BuildSettlement("red", Vertex(0, 0, "N"))
>>> [p.kind for p in put_down(table_board(game), move).pieces]
['settlement']
>>> is_on_board(game, move)
False
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from companion.actions import (
    Action,
    BuildCity,
    BuildRoad,
    BuildSettlement,
    BuildShip,
    MovePirate,
    MoveRobber,
    MoveShip,
    RollDice,
    action_to_json,
)
from companion.board import Board, Piece, edge_midpoint, hex_center, vertex_position
from companion.bots import GreedyBot
from companion.game import Game, IllegalAction, Phase
from companion.reconcile import ASKS_KIND, game_pieces
from companion.table import ApplyAction, Inspect, Table

if TYPE_CHECKING:
    from companion.camera_link import CameraLink
    from vision.capture import LiveTableSource, TableScene
    from vision.tracker import Tracker

log = logging.getLogger(__name__)

#: The moves a camera sees: something put down or moved on the board.
VISIBLE = (BuildSettlement, BuildCity, BuildRoad, BuildShip, MoveShip, MoveRobber, MovePirate)

#: The board kinds the camera registers by their kind's frame (vision.register); a scenario's
#: map (Seafarers, a country map) is registered by its own frame (vision.known_frame).
CAMERA_KINDS = ("base", "5-6")


def table_board(game: Game) -> Board:
    """What the physical table shows when it agrees with ``game``: the board with the game's
    pieces, robber and pirate."""
    t = game.topology
    return replace(
        game.board,
        robber=t.hexes[game.robber] if game.robber is not None else None,
        pirate=t.hexes[game.pirate] if game.pirate is not None else None,
        pieces=game_pieces(game),
    )


def put_down(board: Board, action: Action) -> Board:
    """The physical board after the piece of a visible ``action`` is put down (or moved)."""
    pieces = list(board.pieces)
    match action:
        case BuildSettlement(player=color, vertex=v):
            pieces.append(Piece("settlement", color, vertex=v))
        case BuildCity(player=color, vertex=v):
            pieces = [p for p in pieces if p.vertex != v] + [Piece("city", color, vertex=v)]
        case BuildRoad(player=color, edge=e):
            pieces.append(Piece("road", color, edge=e))
        case BuildShip(player=color, edge=e):
            pieces.append(Piece("ship", color, edge=e))
        case MoveShip(player=color, edge=e, to=to):
            pieces = [p for p in pieces if p.edge != e] + [Piece("ship", color, edge=to)]
        case MoveRobber(hex=h):
            return replace(board, robber=h)
        case MovePirate(hex=h):
            return replace(board, pirate=h)
        case _:
            raise ValueError(f"{type(action).type} is not something put on the board")
    return replace(board, pieces=pieces)


def reach_of(action: Action) -> tuple[float, float]:
    """The board-plane point a hand reaches to for a visible ``action``."""
    match action:
        case BuildSettlement(vertex=v) | BuildCity(vertex=v):
            return vertex_position(v)
        case BuildRoad(edge=e) | BuildShip(edge=e):
            return edge_midpoint(e)
        case MoveShip(to=e):
            return edge_midpoint(e)
        case MoveRobber(hex=h) | MovePirate(hex=h):
            return hex_center(h)
    raise ValueError(f"{type(action).type} is not something put on the board")


def is_on_board(game: Game, action: Action) -> bool:
    """Whether ``game`` has the result of a visible ``action`` (the move is in the game)."""
    t = game.topology
    p = game.seat(action.player)
    match action:
        case BuildSettlement(vertex=v):
            return game.vertex_owner[t.vertex_index[v]] == p
        case BuildCity(vertex=v):
            i = t.vertex_index[v]
            return game.vertex_owner[i] == p and game.vertex_level[i] == 2
        case BuildRoad(edge=e) | BuildShip(edge=e):
            return game.edge_owner[t.edge_index[e]] == p
        case MoveShip(edge=e, to=to):
            return game.edge_owner[t.edge_index[to]] == p and game.edge_owner[t.edge_index[e]] == -1
        case MoveRobber(hex=h):
            return game.robber == t.hex_index[h] and game.phase != Phase.MOVE_ROBBER
        case MovePirate(hex=h):
            return game.pirate == t.hex_index[h] and game.phase != Phase.MOVE_ROBBER
    raise ValueError(f"{type(action).type} is not something put on the board")


def _as_proposed(action: Action) -> dict[str, Any]:
    """The JSON form of ``action`` as the camera proposes it (a robber move without victim)."""
    if isinstance(action, MoveRobber | MovePirate):
        action = type(action)(action.player, action.hex)
    return action_to_json(action)


@dataclass
class CameraTally:
    """How the visible moves got into the game."""

    #: applied by the camera on its own
    seen: int = 0
    #: proposed by the camera and confirmed by the player (who was robbed, road or ship)
    confirmed: int = 0
    #: entered as on the page after the camera missed or misread the move
    fallbacks: int = 0
    #: of the confirmed, road-or-ship questions (a coast piece whose kind the camera doubts)
    kind_questions: int = 0
    #: actions the camera applied that were not the move made (misreads the engine accepted)
    other: int = 0
    #: why each fallback happened, newest last (bounded)
    reasons: list[str] = field(default_factory=list)

    @property
    def moves(self) -> int:
        return self.seen + self.confirmed + self.fallbacks

    def summary(self) -> str:
        return (
            f"{self.moves} moves on the board: {self.seen} seen by the camera, "
            f"{self.confirmed} proposed by it and confirmed, {self.fallbacks} fallback(s) "
            f"entered as on the page, {self.other} other action(s) the camera applied"
        )


@dataclass
class DemoCamera:
    """The demo's camera: the simulated table, the source filming it, and the tracker.

    ``timeout_s`` is how long (on the camera's clock) a player waits for the camera to make
    something of a move before entering it as on the page: a move seen takes about 1.5 s (the
    hand, then the tracker's stability time), one under a glare spot some seconds more.
    """

    scene: TableScene
    source: LiveTableSource
    tracker: Tracker
    timeout_s: float = 8.0

    @classmethod
    def for_game(
        cls, game: Game, *, speed: float = 1.0, seed: int = 0, fps: float = 5.0
    ) -> DemoCamera:
        """A camera over a table laid out like ``game``'s board, with its pieces on it.

        960x540 at ``fps`` frames per second of its clock (``speed`` times the wall clock),
        tilted like a webcam on a stand; the tracker names corners like the game.

        Raises:
            ValueError: a base or 5-6 board of another shape than its kind's frame.
        """
        from vision.capture import LiveTableSource, TableScene
        from vision.known_board import known_board_registrar, symmetries
        from vision.register import FRAMES
        from vision.synth.render import Conditions
        from vision.tracker import Tracker

        board = game.board
        if board.kind in CAMERA_KINDS and not symmetries(FRAMES[board.kind], set(board.tiles)):
            raise ValueError(
                f"the demo camera follows {board.kind} boards of {len(FRAMES[board.kind])} "
                f"hexes, not of {len(board.tiles)}"
            )

        scene = TableScene(table_board(game))
        source = LiveTableSource(
            scene,
            width=960,
            height=540,
            fps=fps,
            speed=speed,
            seed=seed,
            conditions=Conditions(tilt_deg=12.0, tilt_dir_deg=40.0, rotation_deg=5.0),
        )
        tracker = Tracker(registrar=known_board_registrar(game.board))
        return cls(scene, source, tracker)

    def feed(self) -> tuple[LiveTableSource, Tracker]:
        """The frames and the tracker, for the host's camera link."""
        return self.source, self.tracker

    @property
    def tracking(self) -> bool:
        return bool(self.tracker.status.registered)


class DemoPlayers:
    """Computer players taking turns at a Table, one action every ``pace`` seconds.

    Args:
        table: the running Table.
        bot: chooses every player's actions.
        pace: seconds between two actions.
        roll: rolls the dice for a RollDice (the host's tower, or its generator).
        stopping: set to stop the players.
        camera: the demo camera and the host's link to it, or None to send every move to
            the Table directly.
        wall_guard_s: the longest a player waits for the camera in wall seconds, whatever
            its clock says (a camera that stopped sending frames).
    """

    def __init__(
        self,
        table: Table,
        bot: GreedyBot,
        pace: float,
        roll: Callable[[RollDice], None],
        stopping: threading.Event,
        camera: tuple[DemoCamera, CameraLink] | None = None,
        wall_guard_s: float = 20.0,
    ):
        self.table = table
        self.bot = bot
        self.pace = pace
        self.roll = roll
        self.stopping = stopping
        self.camera = camera
        self.wall_guard_s = wall_guard_s
        self.tally = CameraTally()

    def run(self) -> None:
        """Play until the game is over or the players are stopped."""
        if self.camera is not None:
            self.wait_for_camera()
        while not self.stopping.wait(self.pace):
            if self.table.state()["phase"] == Phase.GAME_OVER.value:
                log.info("the game is over: %s won", self.table.state()["winner"])
                if self.camera is not None:
                    log.info("the camera: %s", self.tally.summary())
                return
            try:
                self.play_one()
            except Exception as exc:  # a refused or failed move is logged; the demo goes on
                log.warning("demo player: %s", exc)

    def play_one(self) -> str:
        """Choose and make one action; returns how it got in: ``camera``, ``confirmed``,
        ``fallback``, ``tower`` or ``page`` (or ``stopped``: the players stopped before the
        camera brought it in)."""
        action = self.table.call(Inspect(self.bot.choose))
        if isinstance(action, RollDice):
            self.roll(action)
            return "tower"
        if self.camera is not None and isinstance(action, VISIBLE):
            return self.through_camera(action)
        self.table.call(ApplyAction(action, source="web"))
        return "page"

    # -- the camera's way ------------------------------------------------------------------

    def wait_for_camera(self) -> None:
        """Wait for the camera to find the board (its first frames), so that the first piece
        put down is a change it sees, not part of the board it starts from."""
        assert self.camera is not None
        cam, _ = self.camera
        deadline = time.monotonic() + self.wall_guard_s
        taken = cam.source.frames_taken
        while not cam.tracking and not self.stopping.is_set() and time.monotonic() < deadline:
            taken = cam.source.wait_frames(taken, timeout=1.0)
        if not cam.tracking:
            log.warning("the demo camera has not found the board: moves go in as on the page")

    def through_camera(self, action: Action) -> str:
        """Put the piece of ``action`` on the table and wait for the camera to bring it into
        the game; enter it as on the page if it does not (see the module docstring)."""
        assert self.camera is not None
        cam, link = self.camera
        before = self._history_length()
        cam.scene.show(put_down(cam.scene.now().board, action), reach_of(action))
        start = cam.source.clock
        deadline = time.monotonic() + self.wall_guard_s
        taken = cam.source.frames_taken
        count = -1  # look at the game at once, then whenever an action came in
        confirmed = False
        reason = ""
        while True:
            now = self.table.state()["action_count"]
            if now != count:
                count = now
                if self.table.call(Inspect(lambda g: is_on_board(g, action))):
                    how = "confirmed" if confirmed else "camera"
                    break
            if not confirmed and self._confirm(link, action):
                confirmed = True
                continue
            waited = cam.source.clock - start
            if self.stopping.is_set():
                how = "stopped"  # the game resumes from the journal, without this move
                break
            if not cam.tracking:
                reason = "the camera is not following the board"
            elif waited >= cam.timeout_s:
                reason = f"nothing from the camera after {waited:.1f} s of its clock"
            elif time.monotonic() > deadline or cam.source.closed:
                reason = "the camera sent no frames"
            if reason:
                how = self._fall_back(action, cam, link, reason)
                break
            taken = cam.source.wait_frames(taken, timeout=1.0)
        self._count(how, action, before)
        return how

    def _confirm(self, link: CameraLink, action: Action) -> bool:
        """Answer the camera's proposal of ``action`` as a player on the page would; True
        when it was confirmed."""
        want = _as_proposed(action)
        for item in link.pending()["proposals"]:
            if item.get("asks") == ASKS_KIND:
                # Road or ship: the player says which it was.
                read = item["action"]
                if not isinstance(action, BuildRoad | BuildShip) or (
                    read.get("player"),
                    read.get("edge"),
                ) != (want["player"], want["edge"]):
                    continue
                choice: str | None = "ship" if isinstance(action, BuildShip) else "road"
            elif item["action"] != want:
                continue
            else:
                choice = getattr(action, "victim", None) if item["choices"] else None
            try:
                link.confirm(item["id"], choice)
            except ValueError as exc:  # the game moved on, or another victim: fall back later
                log.info("camera proposal %s not confirmed: %s", item["text"], exc)
                return False
            self.tally.kind_questions += item.get("asks") == ASKS_KIND
            return True
        return False

    def _fall_back(self, action: Action, cam: DemoCamera, link: CameraLink, reason: str) -> str:
        """Enter ``action`` as on the page (unless the camera got it in meanwhile).

        Raises:
            IllegalAction: the game refuses the move now (something else came in meanwhile);
                the piece is taken back off the table first, so the table shows the game.
        """
        try:
            self.table.call(ApplyAction(action, source="web"))
        except IllegalAction:
            if self.table.call(Inspect(lambda g: is_on_board(g, action))):
                return "camera"  # the camera brought it in at the last moment
            cam.scene.show(self.table.call(Inspect(table_board)), reach_of(action))
            raise
        # A question the camera still asks about this move is answered now.
        want = _as_proposed(action)
        for item in link.pending()["proposals"]:
            if item["action"] == want:
                link.dismiss(item["id"])
        self.tally.reasons = (self.tally.reasons + [f"{action}: {reason}"])[-20:]
        log.warning(
            "camera fallback %d (of %d moves on the board): %s; %s entered as on the page",
            self.tally.fallbacks + 1,
            self.tally.moves + 1,
            reason,
            action,
        )
        return "fallback"

    def _history_length(self) -> int:
        return int(self.table.call(Inspect(lambda _g: len(self.table.jgame.history))))

    def _count(self, how: str, action: Action, before: int) -> None:
        if how == "camera":
            self.tally.seen += 1
        elif how == "confirmed":
            self.tally.confirmed += 1
        elif how == "fallback":
            self.tally.fallbacks += 1
        # Whatever else came in meanwhile came from the camera: the players waited.
        came = self.table.call(Inspect(lambda _g: list(self.table.jgame.history[before:])))
        others = [a for a in came if _as_proposed(a) != _as_proposed(action)]
        if others:
            self.tally.other += len(others)
            log.warning("the camera applied %s, which was not the move made (%s)", others, action)
