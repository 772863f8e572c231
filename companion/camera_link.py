"""The link between the Table and the camera: stable observations in, actions and questions out.

The link has its own thread: it reads frames from a capture source, feeds them to the tracker,
and turns each stable observation into a reconciliation with the game (computed in the Table's
owner thread, so the game cannot change under it). Then:

- a proposal that needs nobody's word (a legal build the camera saw) is applied at once with
  ``ApplyAction(action, source="camera")``: the engine checks it again, and a refusal (the
  game moved on meanwhile) turns it into a discrepancy;
- a proposal that needs a choice (the robber moved: who was robbed?) and every discrepancy are
  kept as *pending* for the web page.

The tracker reports where something that is no piece changed (``changed_hexes``); the link
reads a robber (or pirate) move from it with the game's knowledge of where the robber was
(:func:`with_robber`), and asks the table about any other such change (:func:`unread_changes`).

The web page reads the pending items with :meth:`CameraLink.pending` (a JSON-safe dict), is
told when they change through :meth:`CameraLink.subscribe` (a queue of ``{"type": "camera",
...}`` updates, like the Table's subscriptions), and answers with :meth:`CameraLink.confirm`
(optionally with the victim, or road or ship) or :meth:`CameraLink.dismiss`. The camera's
health goes to the Table as ``ReportPart("camera", up, detail)``.

The pieces the camera reads are in the coordinates of ``vision.register``'s canonical
orientation: the game's board must come from the same camera (``read-board``), which names
hexes the same way for a fixed camera.
"""

from __future__ import annotations

import itertools
import logging
import threading
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any, Protocol

from companion.actions import BuildRoad, BuildShip, MovePirate, MoveRobber
from companion.board import Hex
from companion.game import Game, IllegalAction
from companion.reconcile import (
    ASKS_KIND,
    Discrepancy,
    Proposal,
    Reconciliation,
    Seen,
    SeenBoard,
    reconcile,
)
from companion.table import ApplyAction, Inspect, ReportPart, Table, UpdateQueue

log = logging.getLogger(__name__)


class FrameTracker(Protocol):
    """What the link needs of a tracker (vision.tracker.Tracker has it)."""

    status: Any

    def update(self, t: float, frame: Any) -> SeenBoard | None: ...


@dataclass(frozen=True)
class Pending:
    """A proposal waiting for the page's word, or a discrepancy waiting to be fixed."""

    id: int
    proposal: Proposal | None = None
    discrepancy: Discrepancy | None = None

    def to_json(self) -> dict[str, Any]:
        if self.proposal is not None:
            return {"id": self.id, "kind": "proposal", **self.proposal.to_json()}
        assert self.discrepancy is not None
        return {"id": self.id, "kind": "discrepancy", **self.discrepancy.to_json()}


#: A reader's queue of the link's updates (the web page's stream).
PendingUpdates = UpdateQueue


def with_robber(game: Game, observation: SeenBoard) -> SeenBoard:
    """The observation with the robber (or pirate) placed from the hexes that changed.

    The tracker does not know what the robber looks like; it reports the hexes where
    something that is no piece changed (``changed_hexes``). When the game's robber hex is one
    of them and exactly one other land hex is the other, the robber went there (the same for
    the pirate on sea hexes). Anything else leaves the observation as it is.
    """
    changed = tuple(tuple(h) for h in getattr(observation, "changed_hexes", ()))
    if not changed:
        return observation
    t = game.topology
    found: dict[str, Hex] = {}
    for piece, index, is_place in (
        ("robber", game.robber, game.hex_land),
        ("pirate", game.pirate, game.hex_sea),
    ):
        if index is None or getattr(observation, piece, None) is not None:
            continue
        here = t.hexes[index]
        others = [h for h in changed if h != here and h in t.hex_index and is_place[t.hex_index[h]]]
        if here in changed and len(others) == 1:
            found[piece] = others[0]
    if not found:
        return observation
    return Seen(
        tuple(observation.pieces),
        found.get("robber", observation.robber),
        found.get("pirate", observation.pirate),
        dict(observation.numbers),
        tuple(getattr(observation, "doubtful_kinds", ())),
        getattr(observation, "changed", None),
    )


def unread_changes(game: Game, observation: SeenBoard, placed: SeenBoard) -> list[Discrepancy]:
    """The hexes where something that is no piece changed and stayed, that no robber or
    pirate move explains (``placed`` is the observation after :func:`with_robber`).

    The tracker takes such a change into its reference so as not to read it again and again;
    left unsaid, a piece it could not make out there would be lost without a word. The table
    is asked instead, until the next observation.
    """
    changed = {tuple(h) for h in getattr(observation, "changed_hexes", ())}
    t = game.topology
    for piece, index in (("robber", game.robber), ("pirate", game.pirate)):
        if index is None:
            continue
        seen_on = getattr(placed, piece, None)
        if seen_on is not None and tuple(seen_on) != t.hexes[index]:
            changed -= {t.hexes[index], tuple(seen_on)}  # the move left one hex, reached another
        elif changed == {t.hexes[index]}:
            # The figure's own hex alone: it was set straight where it stands, nothing to ask.
            changed.clear()
    if not changed:
        return []
    names = ", ".join(str(h) for h in sorted(changed))  # hexes are tuples: "(0, -2)"
    return [
        Discrepancy(
            "unread",
            f"something changed on {names} and stayed, but the camera cannot tell what",
            "if a piece was built or moved there, enter it on the page; if something was left "
            "on the board, take it away",
            where=tuple(sorted(changed)),
        )
    ]


class CameraLink:
    """Connects one capture source and tracker to one Table. ``start()`` it once the Table runs.

    Args:
        table: the running Table.
        source: an iterable of ``(timestamp_s, frame)`` with ``close()`` (vision.capture).
        tracker: the frame-by-frame tracker (vision.tracker.Tracker).
    """

    def __init__(self, table: Table, source: Iterable[tuple[float, Any]], tracker: FrameTracker):
        self.table = table
        self.source = source
        self.tracker = tracker
        self._pending: dict[int, Pending] = {}
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._readers: list[PendingUpdates] = []
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._health: tuple[bool, str] | None = None
        #: what the link did, newest last: (timestamp, "applied"|"pending", text); bounded,
        #: the camera runs all game long
        self.log: deque[tuple[float, str, str]] = deque(maxlen=1000)

    # -- lifecycle ---------------------------------------------------------------------------

    def start(self) -> None:
        if self._thread is not None:
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="camera-in", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        # The loop stops after its frame; only then is the source closed: releasing a camera
        # from another thread in the middle of a read can block (OpenCV).
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None
        close = getattr(self.source, "close", None)
        if close is not None:
            close()
        with self._lock:
            readers = list(self._readers)
        for r in readers:
            r.close()

    def join(self, timeout: float | None = None) -> None:
        """Wait for the source to run out (a finite video or a synthetic game)."""
        if self._thread is not None:
            self._thread.join(timeout)

    # -- the camera thread -------------------------------------------------------------------

    def _run(self) -> None:
        try:
            for t, frame in self.source:
                if self._stop.is_set():
                    break
                observation = self.tracker.update(t, frame)
                self._report_health()
                if observation is not None:
                    self.handle(observation, t)
            else:
                self._report(False, "the camera stopped sending frames")
        except Exception as exc:  # a broken camera must not take the table down
            log.exception("camera link failed")
            self._report(False, f"camera failed: {exc}")

    def _report_health(self) -> None:
        status = self.tracker.status
        up = bool(getattr(status, "registered", False))
        self._report(up, str(getattr(status, "detail", "")))

    def _report(self, up: bool, detail: str) -> None:
        if self._health != (up, detail):
            self._health = (up, detail)
            self.table.post(ReportPart("camera", up, detail))

    # -- observations ------------------------------------------------------------------------

    def handle(self, observation: SeenBoard, t: float = 0.0) -> list[Any]:
        """Reconcile one stable observation with the game and act on it.

        Returns the events of the actions applied (one list per action). Pending items from
        earlier observations are replaced: the latest observation is the whole truth.
        """

        def judged(game: Game) -> tuple[Reconciliation, list[Discrepancy]]:
            placed = with_robber(game, observation)
            return reconcile(game, placed), unread_changes(game, observation, placed)

        result, unread = self.table.call(Inspect(judged))
        applied: list[Any] = []
        pending: list[Pending] = []
        for proposal in result.proposals:
            if proposal.confirm:
                pending.append(Pending(next(self._ids), proposal=proposal))
                continue
            try:
                applied.append(self.table.call(ApplyAction(proposal.action, source="camera")))
                self.log.append((t, "applied", proposal.text))
            except IllegalAction as exc:
                d = Discrepancy(
                    "refused",
                    f"{proposal.text}, but the game refuses it: {exc.reason}",
                    "take the piece back, or enter what happened on the page",
                    rule=exc.rule,
                )
                pending.append(Pending(next(self._ids), discrepancy=d))
        pending += [
            Pending(next(self._ids), discrepancy=d) for d in [*result.discrepancies, *unread]
        ]
        for p in pending:
            self.log.append((t, "pending", p.to_json()["text"]))
        with self._lock:
            self._pending = {p.id: p for p in pending}
        self._publish()
        return applied

    # -- the web page's side -----------------------------------------------------------------

    def pending(self) -> dict[str, Any]:
        """What waits for the page: ``{"proposals": [...], "discrepancies": [...]}``, each
        item with its ``id``, ``text``, and for proposals ``choices`` and the ``action``."""
        with self._lock:
            items = list(self._pending.values())
        return {
            "proposals": [p.to_json() for p in items if p.proposal is not None],
            "discrepancies": [p.to_json() for p in items if p.discrepancy is not None],
        }

    def subscribe(self) -> PendingUpdates:
        """A queue of ``{"type": "camera", **pending()}`` updates, one per change."""
        reader = PendingUpdates()
        with self._lock:
            self._readers.append(reader)
        return reader

    def _publish(self) -> None:
        update = {"type": "camera", **self.pending()}
        with self._lock:
            readers = [r for r in self._readers if not r.closed]
            self._readers = readers
        for r in readers:
            r._put(update)

    def confirm(self, item_id: int, choice: str | None = None) -> Any:
        """Apply a pending proposal, with ``choice`` when it offers choices: the victim, or
        for a road-or-ship question the kind ("road" builds a road on the side, "ship" a ship).

        Raises:
            ValueError: an unknown id, a discrepancy, a choice not offered, or the engine's
                refusal (IllegalAction); the item then stays pending.
        """
        with self._lock:
            item = self._pending.get(item_id)
        if item is None or item.proposal is None:
            raise ValueError(f"no camera proposal {item_id} is waiting")
        proposal = item.proposal
        action = proposal.action
        if proposal.choices:
            if choice not in proposal.choices:
                offered = ", ".join(proposal.choices)
                raise ValueError(f"choose one of: {offered} (not {choice!r})")
            if isinstance(action, MoveRobber | MovePirate):
                action = replace(action, victim=choice)
            elif proposal.asks == ASKS_KIND and isinstance(action, BuildRoad | BuildShip):
                build = BuildShip if choice == "ship" else BuildRoad
                action = build(action.player, action.edge)
        elif choice is not None:
            raise ValueError(f"camera proposal {item_id} offers no choice")
        events = self.table.call(ApplyAction(action, source="camera"))
        with self._lock:
            self._pending.pop(item_id, None)
        self._publish()
        return events

    def dismiss(self, item_id: int) -> None:
        """Drop a pending item (the table dealt with it another way)."""
        with self._lock:
            if self._pending.pop(item_id, None) is None:
                raise ValueError(f"nothing with id {item_id} is waiting from the camera")
        self._publish()
