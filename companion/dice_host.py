"""A dice-game table's running parts: the Table, the page, the tower, the computer players.

:class:`DiceTableHost` is :class:`companion.host.TableHost` for the dice game: the same start
and stop order and the same way of going on without a part that fails to start (with no
tower, the page's roll button rolls with the host's generator). There is no camera: the sheets
are kept on the page.
"""

from __future__ import annotations

import logging
import threading
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

from companion.dice_bot import DiceBot
from companion.dice_table import RollFree, TableDiceGame
from companion.dice_tower import DiceTowerLink
from companion.host import TableHost
from companion.table import ApplyAction, Inspect, ReportPart

log = logging.getLogger(__name__)


@dataclass
class DiceTableHost(TableHost):
    """The running parts of one dice-game table (see the module docstring)."""

    dice_link: DiceTowerLink | None = None

    def start(self) -> None:
        self.table.start()
        if self.web is not None:
            self.server = self.web(self)
        self._start_tower()

    def _start_tower(self) -> None:
        if self.tower_url is None:
            self.table.post(ReportPart("tower", False, "no tower configured: the page rolls"))
            return
        from firmware_bridge.driver import DiceTower, TowerError

        try:
            self.tower = DiceTower(self.tower_url).open()
            self.dice_link = DiceTowerLink(self.table, self.tower)
            self.dice_link.start()
        except (TowerError, OSError, ValueError) as exc:
            log.warning("dice tower at %s: %s; the game goes on without it", self.tower_url, exc)
            self.table.post(ReportPart("tower", False, str(exc)))
            if self.tower is not None:
                self.tower.close()
            self.tower = self.dice_link = None

    def roll(self, player: str, source: str = "web") -> Future[Any]:
        """Roll ``player``'s free dice: with the tower if it answers, else on the host.

        The future has the roll's events, or the refusal (not this player's turn, no roll
        left). ``source`` names who asked, for the Table's update.
        """

        def may_roll(game: TableDiceGame) -> bool:
            return game.is_legal(game.free_roll(player))

        # The tower is asked only for a roll that will count: a throw it shows stays shown.
        if self.dice_link is not None and self.table.call(Inspect(may_roll)):
            try:
                future = self.dice_link.roll()
                if future is not None:
                    return future
            except Exception as exc:  # an unplugged tower must not stop the game
                log.warning("dice tower: %s; rolling on the host", exc)
        return self.table.post(ApplyAction(RollFree(player, "host"), source=source))

    def stop(self) -> None:
        self._stopping.set()
        if self.dice_link is not None:
            self.dice_link.stop()
        super().stop()

    def play_with_bots(self, pace: float, seed: int | None = None) -> None:  # type: ignore[override]
        """Let computer players play the dice game, one action every ``pace`` seconds."""
        t = threading.Thread(target=self._bots, args=(pace,), name="dice-players", daemon=True)
        t.start()
        self._threads.append(t)

    def _bots(self, pace: float) -> None:
        bot = DiceBot()
        while not self._stopping.wait(pace):
            state = self.table.state()
            if state["phase"] == "over":
                log.info("the dice game is over: %s won", ", ".join(state["winners"]))
                return
            try:
                action = self.table.call(Inspect(bot.choose))
                if isinstance(action, RollFree):
                    self.roll(action.player, source="demo").result(10)
                else:
                    self.table.call(ApplyAction(action, source="demo"))
            except Exception as exc:  # a refused or failed move is logged; the demo goes on
                log.warning("demo player: %s", exc)
