"""The Catan Dice Game at the table: held dice, the page's view, and the journal.

:class:`companion.table.Table` runs a dice game as it runs a board game: it owns a
:class:`JournaledDiceGame`, which has the same face as :class:`companion.journal.JournaledGame`
(``apply``, ``game``, ``history``, ``journal``, ``close``). Two actions exist only at the table:
:class:`Hold` sets dice aside before a roll (the page's choice, which the tower's button must
know), and :class:`RollFree` throws the dice that are not held, with the faces the tower threw or
drawn by the engine. Both are resolved in the Table's owner thread, so a button press never
races a change of the held dice.

The journal is the board game's file format (:class:`companion.journal.Journal`); its set-up
record says ``"game": "dice"``, which is how a dice game is told from a board game.

>>> import tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "dice.sqlite")
>>> jg = JournaledDiceGame.create(path, ["ann", "ben"], "basic")
>>> faces = ("brick", "lumber", "wool", "grain", "ore", "gold")
>>> jg.apply(RollFree("ann", "tower", faces))[0]["dice"]
['brick', 'lumber', 'wool', 'grain', 'ore', 'gold']
>>> jg.apply(Hold("ann", (0, 1)))[0]["dice"]
[0, 1]
>>> jg.apply(RollFree("ann", "tower", ("ore",) * 6))[0]["dice"]
['brick', 'lumber', 'ore', 'ore', 'ore', 'ore']
>>> jg.close()
>>> JournaledDiceGame.open(path).game.public_view()["dice"]["faces"][:3]
['brick', 'lumber', 'ore']
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.dicegame import (
    DICE,
    PLUS_VP,
    ROLLS_PER_TURN,
    TURNS,
    DiceAction,
    DiceGame,
    EndTurn,
    Piece,
    Roll,
    Variant,
    action_from_json,
    action_to_json,
)
from companion.game import Event, IllegalAction, RandomSource
from companion.journal import Damage, Journal, JournalError

log = logging.getLogger(__name__)

#: The set-up record's marker of a dice-game journal.
GAME = "dice"
#: Where a roll's faces came from (firmware_bridge.dice.DiceSource, and the engine's draw).
SOURCES = frozenset({"button", "tower", "host", "manual"})


@dataclass(frozen=True)
class Hold:
    """Set dice ``dice`` (indices) aside: the next roll throws only the others (6.2.1)."""

    player: str
    dice: tuple[int, ...]


@dataclass(frozen=True)
class RollFree:
    """Throw every die that is not held.

    ``faces`` are what the tower threw, by die position: die ``i`` (when it is free) shows
    ``faces[i]``; the tower always throws six, so a turn of fewer dice (the Plus ramp) uses
    the first of them. Left out, the engine draws the faces.
    """

    player: str
    source: str = "host"
    faces: tuple[str, ...] | None = None


TableAction = DiceAction | Hold | RollFree


def table_action_from_json(data: dict[str, Any]) -> TableAction:
    """A page's action: the engine's, or ``{"type": "hold", "player", "dice": [...]}``.

    Rolls are not taken from here (the API rolls through the tower): see :class:`RollFree`.
    ValueError names what is wrong.
    """
    if isinstance(data, dict) and data.get("type") == "hold":
        player, dice = data.get("player"), data.get("dice")
        if not isinstance(player, str) or not isinstance(dice, list):
            raise ValueError("action hold: give player and dice (a list of die numbers)")
        return Hold(player, tuple(dice))
    if isinstance(data, dict) and data.get("type") == "roll":
        raise ValueError("action roll: roll with POST /api/dice/roll (the tower throws)")
    return action_from_json(data)


class TableDiceGame(DiceGame):
    """A :class:`DiceGame` with the dice held for the next roll and the page's view of it."""

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.held: tuple[int, ...] = ()

    def apply_at_table(
        self,
        action: TableAction,
        journal: Callable[[dict[str, Any]], None] | None = None,
        source: str = "host",
    ) -> tuple[list[Event], dict[str, Any]]:
        """Apply an action of the table; return its events and its journal record.

        ``journal`` gets the record before the state changes; IllegalAction leaves it alone.
        ``source`` is where the faces of an engine :class:`Roll` came from (a replayed roll's).
        """
        records: list[dict[str, Any]] = []
        if isinstance(action, Hold):
            self._check_hold(action)
            record = {"type": "hold", "player": action.player, "dice": sorted(action.dice)}
            if journal is not None:
                journal(record)
            self.held = tuple(sorted(action.dice))
            return [{"type": "held", "player": action.player, "dice": list(self.held)}], record
        if isinstance(action, RollFree):
            source = action.source
            action = self._roll_of(action)
        events = self.apply(action, journal=lambda a: records.append(_record(a, source, journal)))
        if isinstance(action, Roll):
            events[0]["source"] = source
            events[0]["held"] = list(self.held)
        if self.turn.fixed or isinstance(action, EndTurn):
            self.held = ()  # nothing more is rolled this turn, or a new turn starts
        return events, records[0]

    def _check_hold(self, a: Hold) -> None:
        if self.over:
            raise IllegalAction("6.2.4", "the game is over")
        if a.player != self.current_player:
            raise IllegalAction("6.2", "it is {}'s turn, not {}'s", self.current_player, a.player)
        t = self.turn
        if t.rolls == 0:
            raise IllegalAction("6.2.1", "roll the dice first; the first roll throws them all")
        if t.fixed or t.rolls >= ROLLS_PER_TURN:
            raise IllegalAction("6.2.1", "no roll is left in this turn to hold dice for")
        n = len(t.dice)
        if len(set(a.dice)) != len(a.dice) or any(
            not isinstance(i, int) or isinstance(i, bool) or not 0 <= i < n for i in a.dice
        ):
            raise IllegalAction("6.2.1", "dice: give different die numbers from 0 to {}", n - 1)
        if len(a.dice) == n:
            raise IllegalAction("6.2.1", "a roll must throw at least one die: free one")

    def free_roll(self, player: str) -> Roll:
        """The roll ``player`` would make now: every die but the held ones.

        >>> TableDiceGame(["ann"]).free_roll("ann")
        Roll(player='ann', keep=(), faces=None)
        """
        return Roll(player, self.held if self.turn.rolls else ())

    def _roll_of(self, a: RollFree) -> Roll:
        """The engine's roll for ``a``: the held dice kept, the free ones given their faces."""
        if a.source not in SOURCES:
            raise ValueError(f"source: give one of {', '.join(sorted(SOURCES))}")
        keep = self.free_roll(a.player).keep
        if a.faces is None:
            return Roll(a.player, keep)
        n = len(self.turn.dice) if self.turn.rolls else self.dice_this_turn()
        if len(a.faces) < n:
            raise IllegalAction("6.2.1", "faces: give {} faces, one per die position", n)
        return Roll(a.player, keep, tuple(a.faces[i] for i in range(n) if i not in keep))

    # -- the page's view -------------------------------------------------------------------

    def public_view(self) -> dict[str, Any]:
        """Everything the page shows (nothing in the dice game is hidden)."""
        t, lay = self.turn, self.layout
        players = []
        for p in self.players:
            sheet = self.sheets[p]
            players.append(
                {
                    "color": p,
                    "score": self.score(p),
                    "built": {k.value: list(v) for k, v in sheet.built.items()},
                    "counts": {k.value: sheet.count(k) for k in Piece},
                    "jokers_used": list(sheet.jokers_used),
                    "track": list(sheet.track),
                    "turns": sheet.turns,
                    "longest_road": sheet.longest_road(),
                    "largest_army": self.army == p,
                    "has_longest_road": self.road == p,
                }
            )
        rolls_left = 0 if t.fixed or self.over else ROLLS_PER_TURN - t.rolls
        basic = self.variant is Variant.BASIC
        return {
            "game": GAME,
            "variant": self.variant.value,
            "players": players,
            "current": None if self.over else self.current_player,
            "turn": self.turn_number,
            "round": min(self.turn_number // len(self.players) + 1, TURNS) if basic else None,
            "rounds": TURNS if basic else None,
            "goal": None if basic else PLUS_VP,
            # The Plus ramp (6.6.4) as DiceGame.dice_this_turn throws it: 3, 4, 5, then 6.
            "ramp": None if basic else [min(DICE, 3 + i) for i in range(DICE - 2)],
            "dice": {
                "faces": list(t.dice),
                "count": len(t.dice) if t.rolls else self.dice_this_turn(),
                "rolls": t.rolls,
                "rolls_left": rolls_left,
                "held": list(self.held),
                "spent": list(t.spent),
                "void": list(t.void),
                "fixed": t.fixed,
                "built": t.built,
            },
            "phase": "over" if self.over else ("roll" if t.rolls == 0 else "build"),
            "largest_army": self.army,
            "longest_road": self.road,
            "winners": list(self.winners),
            "layout": {
                "roads": [list(r) for r in lay.roads],
                "settlements": list(lay.settlements),
                "settlement_values": list(lay.settlement_values),
                "cities": list(lay.cities),
                "city_values": list(lay.city_values),
                "knight_values": list(lay.knight_values),
                "jokers": [
                    {"resource": j.resource, "knights": list(j.knights)} for j in lay.jokers
                ],
                "road_value": lay.road_value,
                "marked_road": lay.marked_road,
            },
        }

    def private_view(self, player: str) -> dict[str, Any]:
        """The same as the public view: a dice game has no hidden cards."""
        return self.public_view()


def _record(
    action: DiceAction, source: str, journal: Callable[[dict[str, Any]], None] | None
) -> dict[str, Any]:
    record = action_to_json(action)
    if isinstance(action, Roll):
        record["source"] = source
    if journal is not None:
        journal(record)
    return record


def dice_config(players: Sequence[str], variant: str, seed: int | None) -> dict[str, Any]:
    return {"game": GAME, "variant": Variant(variant).value, "players": list(players), "seed": seed}


def is_dice_config(config: dict[str, Any]) -> bool:
    return config.get("game") == GAME


def _rng(seed: int | None, salt: int) -> RandomSource:
    # A seeded game's host rolls after a resume must not repeat the first turns' (salt: rows).
    return RandomSource(None if seed is None else seed * 1_000_003 + salt)


def fresh_game(config: dict[str, Any]) -> TableDiceGame:
    """The dice game of a journal's set-up, before any action (for a replay)."""
    return _game_of(config, 0)


def _game_of(config: dict[str, Any], salt: int) -> TableDiceGame:
    try:
        return TableDiceGame(config["players"], config["variant"], _rng(config.get("seed"), salt))
    except (KeyError, TypeError, ValueError) as exc:
        raise JournalError(f"the dice game set-up in the journal is invalid ({exc})") from None


class JournaledDiceGame:
    """A dice game whose every accepted action is journaled before it takes effect."""

    def __init__(self, game: TableDiceGame, journal: Journal, config: dict[str, Any]):
        self.game = game
        self.journal = journal
        self.config = config
        #: the accepted actions, as journaled (rolls with their faces and source)
        self.history: list[dict[str, Any]] = []
        self.damage: Damage | None = None

    @classmethod
    def create(
        cls,
        path: str | Path,
        players: Sequence[str],
        variant: str = "basic",
        seed: int | None = None,
    ) -> JournaledDiceGame:
        config = dice_config(players, variant, seed)
        # Bad players are refused (ValueError naming them) before a file is made.
        game = TableDiceGame(players, variant, _rng(seed, 0))
        return cls(game, Journal.create(path, config), config)

    @classmethod
    def open(cls, path: str | Path) -> JournaledDiceGame:
        """Reopen a dice-game journal and replay it; damage is reported in :attr:`damage`."""
        journal, config = Journal.open_raw(path)
        if not is_dice_config(config):
            journal.close()
            raise JournalError(f"{path}: this journal holds a board game, not a dice game")
        records = []
        damage = None
        for seq, record, error in journal.rows():
            if error is not None:
                damage = Damage(seq, error)
                break
            assert record is not None
            records.append((seq, record))
        jg = cls(_game_of(config, len(records)), journal, config)
        jg.damage = damage
        for seq, record in records:
            try:
                jg.game.apply_at_table(
                    action_of_record(record), source=record.get("source", "host")
                )
            except (IllegalAction, ValueError) as exc:
                jg.damage = Damage(seq, f"refused by the rules ({exc})")
                break
            jg.history.append(record)
        if jg.damage is not None:
            log.warning("%s: %s; %d actions recovered", path, jg.damage, len(jg.history))
        return jg

    def apply(self, action: TableAction) -> list[Event]:
        """Apply ``action``; it is on disk before the state changes and before this returns."""
        events, record = self.game.apply_at_table(action, journal=self._write)
        self.history.append(record)
        return events

    def _write(self, record: dict[str, Any]) -> None:
        if self.damage is not None:
            raise JournalError(f"{self.journal.path}: {self.damage}; continue_after_damage() first")
        self.journal.append(record)

    def undo(self) -> Any:
        raise IllegalAction("6.2", "the dice game takes nothing back: a mark on the sheet stays")

    def continue_after_damage(self) -> Path | None:
        """Set the damaged rows aside (see :meth:`companion.journal.Journal.rewrite`)."""
        if self.damage is None:
            return None
        self.journal, aside = self.journal.rewrite(self.config, self.damage.seq - 1)
        self.damage = None
        return aside

    def close(self) -> None:
        self.journal.close()


def action_of_record(record: dict[str, Any]) -> TableAction:
    """The action a journal record replays: a roll with the faces it threw, as recorded."""
    if record.get("type") == "roll":
        return action_from_json({k: v for k, v in record.items() if k != "source"})
    return table_action_from_json(record)


def open_or_create_dice(
    path: Path, players: Sequence[str], variant: str, seed: int | None
) -> JournaledDiceGame:
    """Resume the dice game in ``path`` if it has one, else start one there."""
    if path.exists() and path.stat().st_size > 0:
        jg = JournaledDiceGame.open(path)
        if jg.damage is not None:
            log.warning("%s: %s; continuing after the last good action", path, jg.damage)
            jg.continue_after_damage()
        config = jg.config
        log.info(
            "resumed the %s dice game of %s in %s at action %d (the journal's players and variant)",
            config["variant"],
            ", ".join(config["players"]),
            path,
            len(jg.history),
        )
        return jg
    return JournaledDiceGame.create(path, players, variant, seed)


__all__ = [
    "GAME",
    "Hold",
    "JournaledDiceGame",
    "RollFree",
    "TableDiceGame",
    "action_of_record",
    "fresh_game",
    "is_dice_config",
    "open_or_create_dice",
    "table_action_from_json",
]
