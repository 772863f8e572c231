"""The link between the Table and the dice tower: rolls in, LEDs and the turn light out.

The tower's rolls become ``RollDice`` actions (recorded with their source); the Table's updates
light the producing hexes, show rolls made elsewhere and show whose turn it is. The link has its
own thread for the tower's output, so an unplugged or slow tower never blocks the game: it is
reported as a part that is down, and the game goes on with dice typed in on the page.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable
from typing import Any, Protocol

from companion.actions import RollDice
from companion.board import Hex
from companion.table import ApplyAction, ReportPart, Subscription, Table
from firmware_bridge.dice import DiceRoll, DiceSource
from firmware_bridge.protocol import DiceKind

log = logging.getLogger(__name__)

#: The LED colour of each player colour, for the tower's turn light.
PLAYER_RGB: dict[str, tuple[int, int, int]] = {
    "red": (255, 0, 0),
    "blue": (0, 64, 255),
    "orange": (255, 100, 0),
    "white": (255, 255, 255),
    "green": (0, 200, 0),
    "brown": (120, 60, 10),
}
#: The colour of producing hexes, and of a blocked (robber) one.
PRODUCING_RGB = (255, 140, 0)


class Tower(Protocol):
    """What the link needs of a tower driver (firmware_bridge.driver.DiceTower has it)."""

    def subscribe(self, callback: Callable[[Any], None]) -> Callable[[], None]: ...
    def roll(self) -> Any: ...
    def show_roll(self, roll: Any) -> None: ...
    def light_hexes(self, hexes: Iterable[Hex], color: tuple[int, int, int] = ...) -> None: ...
    def set_player(self, index: int, color: tuple[int, int, int]) -> None: ...


class TowerOutputs:
    """What a link between one Table and one tower does whatever the game: a thread of its own
    shows the Table's updates on the tower (:meth:`_show`, the game's), so a slow or failing
    tower is reported as a part that is down and never blocks the game; the turn light; and
    :meth:`wait_shown` for whoever needs the tower to have caught up."""

    def __init__(self, table: Table, tower: Any):
        self.table = table
        self.tower = tower
        self._unsubscribe: Callable[[], None] | None = None
        self._sub: Subscription | None = None
        self._thread: threading.Thread | None = None
        #: the version of the Table's latest update the tower has been shown
        self.shown_version = 0
        self._shown = threading.Condition()

    def _start(self, thread_name: str, detail: str) -> None:
        """Listen to the tower, start showing the Table's updates, and report the tower up
        with ``detail`` (what the page says of it)."""
        self._unsubscribe = self.tower.subscribe(self._on_tower_event)
        self._sub = self.table.subscribe()
        self._thread = threading.Thread(target=self._drive_outputs, name=thread_name, daemon=True)
        self._thread.start()
        self.table.post(ReportPart("tower", True, detail))
        self._show_turn(self.table.state())

    def stop(self) -> None:
        if self._unsubscribe:
            self._unsubscribe()
        if self._sub:
            self._sub.close()
        if self._thread:
            self._thread.join(timeout=2)

    def _on_tower_event(self, event: Any) -> None:
        """What the tower reports (a roll, a lost connection), as the game takes it."""
        raise NotImplementedError

    def _show(self, update: dict[str, Any]) -> None:
        """Show the Table's ``update`` (its events) on the tower, as the game shows it."""
        raise NotImplementedError

    def _drive_outputs(self) -> None:
        assert self._sub is not None
        while not self._sub.closed:
            update = self._sub.get(timeout=0.5)
            if update is None:
                continue
            if update.get("type") == "events":
                try:
                    self._show(update)
                except Exception as exc:  # the tower failing must not stop the link
                    self._report_failure(exc)
            with self._shown:
                self.shown_version = update["version"]
                self._shown.notify_all()

    def wait_shown(self, version: int, timeout: float = 5.0) -> bool:
        """Wait until the tower shows the Table's update ``version`` (True) or time runs out."""
        with self._shown:
            return self._shown.wait_for(lambda: self.shown_version >= version, timeout)

    def _show_turn(self, state: dict[str, Any]) -> None:
        colors = [p["color"] for p in state["players"]]
        current = state["current"]
        try:
            self.tower.set_player(colors.index(current), PLAYER_RGB.get(current, (255, 255, 255)))
        except Exception as exc:
            self._report_failure(exc)

    def _report_failure(self, exc: Exception) -> None:
        log.warning("dice tower: %s", exc)
        self.table.post(ReportPart("tower", False, str(exc)))


class TowerLink(TowerOutputs):
    """Connects one tower to one Table. ``start()`` it once both are running."""

    def start(self) -> None:
        self._start("tower-out", "connected")

    # -- in: the tower's rolls -----------------------------------------------------------------

    def _on_tower_event(self, event: Any) -> None:
        kind = type(event).__name__
        if kind == "DiceRolled":
            self.apply_roll(tuple(event.roll.values), str(event.roll.source))
        elif kind == "ConnectionChanged":
            self.table.post(ReportPart("tower", bool(event.connected), str(event.reason)))
        elif kind == "TowerReset":
            log.warning("the dice tower reset (boot %s); its display was restored", event.boot_id)

    def apply_roll(self, dice: tuple[int, ...], source: str) -> Any:
        """Apply a roll for the player to roll now; a roll at the wrong moment is refused."""
        state = self.table.state()
        if state["phase"] != "roll" or len(dice) != 2:
            log.warning("a roll of %s from the %s came when nobody was to roll", dice, source)
            return None
        action = RollDice(state["current"], (dice[0], dice[1]), source)
        return self.table.post(ApplyAction(action, source="tower"))

    def roll(self) -> Any:
        """Ask the tower to roll for the current player (the demo's and the host's way)."""
        roll = self.tower.roll()
        return self.apply_roll(tuple(roll.values), str(roll.source))

    # -- out: LEDs and the turn light ----------------------------------------------------------

    def _show(self, update: dict[str, Any]) -> None:
        for event in update["events"]:
            if event["type"] == "rolled":
                if event.get("source") not in ("tower", "button"):
                    # A roll made elsewhere (typed in, or the host's) is shown on the tower too.
                    source = (
                        DiceSource.MANUAL if event.get("source") == "manual" else DiceSource.HOST
                    )
                    self.tower.show_roll(DiceRoll(DiceKind.TWO_D6, tuple(event["dice"]), source))
                producing = [tuple(h) for h in event.get("producing", [])]
                self.tower.light_hexes(producing, PRODUCING_RGB)
            elif event["type"] == "turn":
                self._show_turn(self.table.state())
