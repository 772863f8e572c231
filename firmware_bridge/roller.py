"""The table's choice of dice: the tower's button, the host, or physical dice typed in.

:class:`DiceRoller` is the one place a game gets its rolls from. Whatever the source, every roll
reaches ``on_roll`` as a :class:`~firmware_bridge.dice.DiceRoll` carrying that source, and is
shown on the tower when there is one:

* ``BUTTON``: a press of the tower's button rolls on the tower (its own entropy);
* ``TOWER``: :meth:`DiceRoller.roll` asks the tower to roll (e.g. a "roll" button on the page);
* ``HOST``: :meth:`DiceRoller.roll`, or a press of the tower's button, rolls with the host's
  generator and shows the result on the tower;
* ``MANUAL``: :meth:`DiceRoller.enter` takes the values of physical dice typed in.

A roll that does not belong to the chosen source never reaches ``on_roll``: calls raise
ValueError (typing dice in while the host rolls, say), and a button roll that was under way while
the source changed is logged and dropped.
"""

from __future__ import annotations

import logging
import random
import threading
from collections.abc import Callable

from firmware_bridge.dice import DiceRoll, DiceSource, host_roll, manual_roll, parse_dice
from firmware_bridge.driver import ButtonPressed, DiceRolled, DiceTower, TowerEvent
from firmware_bridge.protocol import ButtonMode, DiceKind

log = logging.getLogger(__name__)


class DiceRoller:
    """Routes rolls from the chosen source to ``on_roll``; safe to call from any thread."""

    def __init__(
        self,
        on_roll: Callable[[DiceRoll], None],
        tower: DiceTower | None = None,
        source: DiceSource = DiceSource.HOST,
        kind: DiceKind = DiceKind.TWO_D6,
        rng: random.Random | None = None,
    ) -> None:
        self._on_roll = on_roll
        self._tower = tower
        self._rng = rng
        self._lock = threading.Lock()
        self.source = DiceSource.HOST
        self.kind = DiceKind.TWO_D6
        self.set_source(source, kind)
        self._unsubscribe = tower.subscribe(self._on_tower_event) if tower else None

    def set_source(self, source: DiceSource, kind: DiceKind | None = None) -> None:
        """Chooses where rolls come from (and which dice: two d6 or the dice game's six)."""
        source = DiceSource(source)
        kind = self.kind if kind is None else DiceKind(kind)
        if self._tower is None and source in (DiceSource.BUTTON, DiceSource.TOWER):
            raise ValueError(f"dice source {source.value!r} needs a dice tower; none is connected")
        if self._tower is not None:
            # the button rolls on the tower only when it is the source; otherwise it just
            # reports the press (a trigger for host dice, ignored for typed-in dice)
            mode = ButtonMode.ROLL if source == DiceSource.BUTTON else ButtonMode.EVENT_ONLY
            self._tower.set_button_mode(mode, kind)
        with self._lock:
            self.source, self.kind = source, kind

    def roll(self) -> DiceRoll:
        """A roll now, from the tower or the host (whichever is the source)."""
        with self._lock:
            source, kind = self.source, self.kind
        if source == DiceSource.TOWER:
            assert self._tower is not None
            roll = self._tower.roll(kind)
        elif source == DiceSource.HOST:
            roll = host_roll(kind, self._rng)
            self._show(roll)
        else:
            raise ValueError(
                f"the dice come from the {source.value} source: "
                + ("press the tower's button" if source == DiceSource.BUTTON else "type them in")
            )
        self._on_roll(roll)
        return roll

    def enter(self, text: str) -> DiceRoll:
        """Physical dice typed in, e.g. ``"3 4"``; raises ValueError naming what is wrong."""
        with self._lock:
            source, kind = self.source, self.kind
        if source != DiceSource.MANUAL:
            raise ValueError(f"typed-in dice are refused: the dice come from the {source.value}")
        roll = manual_roll(kind, parse_dice(text))
        self._show(roll)
        self._on_roll(roll)
        return roll

    def close(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

    def _show(self, roll: DiceRoll) -> None:
        if self._tower is not None:
            self._tower.show_roll(roll)

    def _on_tower_event(self, event: TowerEvent) -> None:
        with self._lock:
            source = self.source
        if isinstance(event, DiceRolled):
            if source == DiceSource.BUTTON:
                self._on_roll(event.roll)
            else:
                # pressed in the moment before the source changed: not a roll anyone chose
                log.warning("dice tower: ignored a button roll; the source is %s", source.value)
        elif isinstance(event, ButtonPressed) and source == DiceSource.HOST:
            # runs on the driver's event thread, which may send commands
            self.roll()
