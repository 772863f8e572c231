"""A computer player of the dice game, for the demo: simple, legal, and sometimes clever.

Each call of :meth:`DiceBot.choose` returns one action for the player whose turn it is: roll;
build the most valuable thing the dice pay for; else turn a die with a joker or the gold
exchange when that lets something be built; else hold the dice that pay for the cheapest thing
within reach and roll again; else end the turn. It reads the game only through its public
methods, so it plays by the same rules as the page.

>>> from companion.dice_table import TableDiceGame
>>> game = TableDiceGame(["ann"], rng=4)
>>> bot = DiceBot()
>>> while not game.over:
...     _ = game.apply_at_table(bot.choose(game))
>>> len(game.sheets["ann"].track)
15
"""

from __future__ import annotations

from collections import Counter

from companion.dice_table import Hold, RollFree, TableAction, TableDiceGame
from companion.dicegame import COSTS, Build, DiceGame, EndTurn, ExchangeGold, Piece, UseJoker

#: The order of preference among things to build: what scores more first.
_PREFERENCE = {Piece.CITY: 3, Piece.SETTLEMENT: 2, Piece.KNIGHT: 1, Piece.ROAD: 0}


class DiceBot:
    """A greedy player (see the module docstring)."""

    def choose(self, game: TableDiceGame) -> TableAction:
        player, turn = game.current_player, game.turn
        if turn.rolls == 0:
            return RollFree(player)
        legal = game.legal_actions()
        builds = [a for a in legal if isinstance(a, Build)]
        if builds:
            return max(builds, key=lambda b: (_PREFERENCE[Piece(b.piece)], -b.index))
        for a in legal:
            if isinstance(a, UseJoker | ExchangeGold) and _lets_build(game, a):
                return a
        if not turn.fixed and turn.rolls < 3:
            keep = _dice_towards(game)
            if keep != game.held:
                return Hold(player, keep)
            return RollFree(player)
        return EndTurn(player)


def _lets_build(game: DiceGame, action: UseJoker | ExchangeGold) -> bool:
    """Whether ``action`` would let the player build something (tried on a copy)."""
    trial = DiceGame.from_snapshot(game.snapshot(), layout=game.layout)
    trial.apply(action)
    return any(isinstance(a, Build) for a in trial.legal_actions())


def _dice_towards(game: DiceGame) -> tuple[int, ...]:
    """The dice to hold: those that pay for the cheapest piece the sheet allows next."""
    sheet, layout = game.sheets[game.current_player], game.layout
    targets = []
    for piece in Piece:
        nxt = next((i for i in range(layout.count(piece)) if not sheet.has(piece, i)), None)
        if nxt is not None:
            targets.append((sum(COSTS[piece].values()), -_PREFERENCE[piece], piece))
    if not targets:
        return ()
    need = Counter(COSTS[min(targets)[2]])
    keep = []
    for i, face in enumerate(game.turn.dice):
        if need[face] > 0:
            need[face] -= 1
            keep.append(i)
    return tuple(keep[: len(game.turn.dice) - 1])
