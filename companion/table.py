"""The Table: one thread owns the game; every input reaches it through one queue.

Inputs (the web page, the dice tower, the camera) call :meth:`Table.call` or :meth:`Table.post`
from their own threads. The owner thread takes one message at a time, applies it to the
journaled game (the journal is written first), then publishes the resulting events to every
subscriber (the web page's live updates, the LED display). A slow or vanished subscriber never
blocks the owner: its bounded queue drops the oldest events and marks it as lagging, and it can
re-read the whole state.

>>> import tempfile, os
>>> from companion.layouts import random_board
>>> from companion.journal import JournaledGame
>>> path = os.path.join(tempfile.mkdtemp(), "t.sqlite")
>>> table = Table(JournaledGame.create(path, random_board(4, seed=2), ["red", "blue", "white"]))
>>> table.start()
>>> sub = table.subscribe()
>>> from companion.actions import BuildSettlement
>>> from companion.board import Vertex
>>> table.call(ApplyAction(BuildSettlement("red", Vertex(0, 0, "N"))))[0]["type"]
'built'
>>> sub.get(timeout=1)["events"][0]["piece"]
'settlement'
>>> table.state()["action_count"]
1
>>> table.stop()
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

from companion.actions import Action
from companion.game import Event
from companion.journal import JournaledGame

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ApplyAction:
    """Apply an action to the game (from the page, the tower or the camera)."""

    action: Action
    source: str = "web"


@dataclass(frozen=True)
class Undo:
    """Take back the last action (journaled, never erased)."""

    source: str = "web"


@dataclass(frozen=True)
class Inspect:
    """Run a read-only function on the game in the owner thread (consistent reads)."""

    fn: Callable[[Any], Any]


@dataclass(frozen=True)
class ReportPart:
    """A part's health (camera, tower, ...), shown on the page."""

    name: str
    up: bool
    detail: str = ""


Command = ApplyAction | Undo | Inspect | ReportPart


@dataclass
class _Message:
    command: Command
    reply: Future[Any] = field(default_factory=Future)


class UpdateQueue:
    """A bounded queue of updates for one reader: the oldest is dropped when it is full (and
    ``lagged`` says so, so the reader re-reads the whole state); ``get`` waits for the next."""

    def __init__(self, maxlen: int = 64):
        self._items: deque[dict[str, Any]] = deque(maxlen=maxlen)
        self._ready = threading.Condition()
        self.lagged = False
        self.closed = False

    def _put(self, item: dict[str, Any]) -> None:
        with self._ready:
            if len(self._items) == self._items.maxlen:
                self.lagged = True  # the oldest update is dropped: re-read the state
            self._items.append(item)
            self._ready.notify()

    def get(self, timeout: float | None = None) -> dict[str, Any] | None:
        """The next update, or None after ``timeout`` seconds (or when closed)."""
        with self._ready:
            if not self._items and not self.closed:
                self._ready.wait(timeout)
            return self._items.popleft() if self._items else None

    def close(self) -> None:
        with self._ready:
            self.closed = True
            self._ready.notify_all()


class Subscription(UpdateQueue):
    """A subscriber's queue of the Table's published updates."""

    def __init__(self, table: Table, maxlen: int):
        super().__init__(maxlen)
        self._table = table

    def close(self) -> None:
        super().close()
        self._table._unsubscribe(self)


class Table:
    """The game's single owner, with its inbox and its subscribers."""

    def __init__(self, game: JournaledGame, subscriber_queue: int = 256):
        self.jgame = game
        self._inbox: queue.Queue[_Message | None] = queue.Queue()
        self._subscribers: list[Subscription] = []
        self._sub_lock = threading.Lock()
        self._subscriber_queue = subscriber_queue
        self._thread: threading.Thread | None = None
        self._state: dict[str, Any] = {}
        self._state_lock = threading.Lock()
        #: status of the parts around the game: name -> {"up": bool, "detail": str}
        self.parts: dict[str, dict[str, Any]] = {}
        self.version = 0
        self._refresh_state()

    # -- lifecycle ---------------------------------------------------------------------------

    def start(self) -> None:
        if self._thread is not None:
            return
        self._thread = threading.Thread(target=self._run, name="table-owner", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        if self._thread is None:
            return
        self._inbox.put(None)
        self._thread.join(timeout)
        self._thread = None
        with self._sub_lock:
            subs = list(self._subscribers)
        for s in subs:
            s.close()
        self.jgame.close()

    # -- inputs ------------------------------------------------------------------------------

    def post(self, command: Command) -> Future[Any]:
        """Queue a command; the future gets its result or its exception."""
        msg = _Message(command)
        self._inbox.put(msg)
        return msg.reply

    def call(self, command: Command, timeout: float = 10.0) -> Any:
        """Queue a command and wait for its result (re-raising a refusal)."""
        return self.post(command).result(timeout)

    # -- outputs -----------------------------------------------------------------------------

    def subscribe(self) -> Subscription:
        sub = Subscription(self, self._subscriber_queue)
        with self._sub_lock:
            self._subscribers.append(sub)
        return sub

    def _unsubscribe(self, sub: Subscription) -> None:
        with self._sub_lock:
            if sub in self._subscribers:
                self._subscribers.remove(sub)

    def state(self) -> dict[str, Any]:
        """The latest public state (a snapshot made by the owner thread; safe to read)."""
        with self._state_lock:
            return self._state

    # -- the owner thread --------------------------------------------------------------------

    def _run(self) -> None:
        while True:
            msg = self._inbox.get()
            if msg is None:
                return
            try:
                result = self._handle(msg.command)
            except Exception as exc:  # a refusal or a failure goes back to the caller
                if not isinstance(exc, ValueError):
                    log.exception("command %r failed", msg.command)
                msg.reply.set_exception(exc)
            else:
                msg.reply.set_result(result)

    def _handle(self, command: Command) -> Any:
        match command:
            case ApplyAction(action=action, source=source):
                events = self.jgame.apply(action)
                self._publish({"type": "events", "source": source, "events": events})
                return events
            case Undo(source=source):
                undone = self.jgame.undo()
                events: list[Event] = [{"type": "undone", "action": type(undone).type}]
                self._publish({"type": "events", "source": source, "events": events})
                return events
            case Inspect(fn=fn):
                return fn(self.jgame.game)
            case ReportPart(name=name, up=up, detail=detail):
                if self.parts.get(name) != {"up": up, "detail": detail}:
                    self.parts[name] = {"up": up, "detail": detail}
                    self._publish({"type": "parts", "parts": dict(self.parts)})
                return None
        raise TypeError(f"unknown command {command!r}")

    def _refresh_state(self) -> None:
        game = self.jgame.game
        view = game.public_view()
        view["action_count"] = len(self.jgame.history)
        view["journal_length"] = self.jgame.journal.length
        view["version"] = self.version
        view["parts"] = dict(self.parts)
        with self._state_lock:
            self._state = view

    def _publish(self, update: dict[str, Any]) -> None:
        self.version += 1
        self._refresh_state()
        update = {**update, "version": self.version, "at": time.time()}
        with self._sub_lock:
            subs = list(self._subscribers)
        for s in subs:
            s._put(update)
