"""The dice tower at a dice-game table: its six resource dice in, the dice and the turn out.

The tower's button (or the page, through :meth:`DiceTowerLink.roll`) throws the six resource
dice; the throw becomes a :class:`companion.dice_table.RollFree` for the player whose turn it is,
so the held dice keep their faces and only the free ones take the tower's (die ``i`` takes the
tower's die ``i``). The protocol is the board game's: nothing is new on the wire.

What the tower shows: after a roll, the turn's dice (the held ones with the faces they kept),
so the display always reads what the players use; in a Plus turn of fewer than six dice the
positions past the turn's dice show what the tower threw there and count for nothing. The turn
light shows whose turn it is. The board LEDs have no hexes to light and stay dark.
"""

from __future__ import annotations

import logging
from concurrent.futures import Future
from typing import Any

from companion.dice_table import RollFree
from companion.table import ApplyAction, ReportPart, Table
from companion.tower_link import TowerOutputs
from firmware_bridge.dice import DiceRoll, DiceSource
from firmware_bridge.protocol import RESOURCE_FACES, ButtonMode, DiceKind

log = logging.getLogger(__name__)

#: What the page says of a tower that works.
CONNECTED = "connected: its button rolls the free dice"


class DiceTowerLink(TowerOutputs):
    """Connects one tower to one dice-game Table. ``start()`` it once both are running."""

    def __init__(self, table: Table, tower: Any):
        super().__init__(table, tower)
        #: the faces of the tower's latest throw (what its display shows after a roll)
        self._throw: tuple[str, ...] | None = None

    def start(self) -> None:
        self.tower.set_button_mode(ButtonMode.ROLL, DiceKind.RESOURCE)
        self.tower.set_leds([])
        self._start("dice-tower", CONNECTED)

    # -- in: the tower's throws ----------------------------------------------------------------

    def _on_tower_event(self, event: Any) -> None:
        kind = type(event).__name__
        if kind == "DiceRolled" and event.roll.kind == DiceKind.RESOURCE:
            self.apply_throw(event.roll.faces, str(event.roll.source))
        elif kind == "DiceRolled":
            log.warning("the tower rolled %s dice in a dice game; ignored", event.roll.kind.name)
        elif kind == "ConnectionChanged":
            self.table.post(ReportPart("tower", bool(event.connected), str(event.reason)))

    def apply_throw(self, faces: tuple[str, ...], source: str) -> Future[Any] | None:
        """Roll the current player's free dice with the tower's ``faces`` (refused at the
        wrong moment: the refusal is logged and the game is unchanged)."""
        player = self.table.state()["current"]
        if player is None:
            log.warning("the tower threw %s after the game ended", ", ".join(faces))
            return None
        self._throw = tuple(faces)
        future = self.table.post(ApplyAction(RollFree(player, source, tuple(faces)), "tower"))
        future.add_done_callback(self._after_throw)
        return future

    def _after_throw(self, future: Future[Any]) -> None:
        # The page says why a throw did not count (pressed after the result was fixed...).
        exc = future.exception()
        if exc is not None:
            log.warning("the tower's throw was refused: %s", exc)
        detail = CONNECTED if exc is None else f"its last throw did not count: {exc}"
        self.table.post(ReportPart("tower", True, detail))

    def roll(self) -> Future[Any] | None:
        """The tower throws for the current player (the page's roll button, the demo)."""
        roll = self.tower.roll(DiceKind.RESOURCE)
        return self.apply_throw(roll.faces, str(roll.source))

    # -- out: the dice and the turn light ------------------------------------------------------

    def _show(self, update: dict[str, Any]) -> None:
        for event in update["events"]:
            if event["type"] == "rolled":
                shown = self.display_of(event["dice"])
                if shown is not None:
                    self.tower.show_roll(DiceRoll(DiceKind.RESOURCE, shown, DiceSource.HOST))
            elif event["type"] == "turn":
                self._show_turn(self.table.state())

    def display_of(self, dice: list[str]) -> tuple[int, ...] | None:
        """The six face indices to show for the turn's ``dice``: the tower's latest throw with
        the turn's dice in front; None when fewer than six dice and no throw to fill in."""
        rest = self._throw[len(dice) :] if self._throw is not None else ()
        faces = [*dice, *rest]
        if len(faces) < len(RESOURCE_FACES):
            return None
        return tuple(RESOURCE_FACES.index(f) for f in faces[: len(RESOURCE_FACES)])

    def _show_turn(self, state: dict[str, Any]) -> None:
        if state["current"] is not None:  # a finished dice game has no turn to light
            super()._show_turn(state)
