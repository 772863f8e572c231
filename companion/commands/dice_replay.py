"""``catan-companion replay JOURNAL`` of a dice game: each action in a line, then the scores.

:mod:`companion.commands.replay` hands a dice-game journal over to :func:`run` (the journal's
set-up record says which kind of game it holds).
"""

from __future__ import annotations

import argparse
from typing import Any

from companion.commands.replay import print_outcome
from companion.dice_table import JournaledDiceGame, action_of_record, fresh_game
from companion.game import Event


def describe(player: str, events: list[Event]) -> str:
    """One line a person can read, e.g. ``ann built settlement 0; ann scores 3``."""
    parts: list[str] = []
    for e in events:
        match e["type"]:
            case "rolled":
                parts.append(
                    f"{player} rolled (roll {e['roll']}, {e['source']}): {', '.join(e['dice'])}"
                )
            case "held":
                held = ", ".join(str(d) for d in e["dice"]) or "none"
                parts.append(f"{player} holds dice {held}")
            case "built":
                parts.append(f"{player} built {e['piece']} {e['index']}")
            case "joker":
                parts.append(f"{player} used joker {e['joker']}: die {e['die']} is {e['to']}")
            case "gold_exchanged":
                parts.append(f"{player} exchanged gold dice {e['dice']} for {e['to']}")
            case "scored":
                parts.append(f"{player} scores {e['entry']}")
            case "largest_army" | "longest_road":
                parts.append(f"{e['type'].replace('_', ' ').title()}: {e['player']}")
            case "turn":
                parts.append(f"{player} ends the turn")
            case "game_over":
                parts.append(f"game over: {', '.join(e['winners'])} won")
    return "; ".join(parts) or f"{player}: nothing"


def run(args: argparse.Namespace) -> int:
    jg = JournaledDiceGame.open(args.journal)
    try:
        game = fresh_game(jg.config)
        lines: list[dict[str, Any]] = []
        last_turn = -1
        for n, record in enumerate(jg.history, start=1):
            turn, player = game.turn_number, game.current_player
            source = record.get("source", "host")
            events, _ = game.apply_at_table(action_of_record(record), source=source)
            line = describe(player, events)
            if args.json:
                lines.append({"n": n, "turn": turn, "action": record, "text": line})
                continue
            if turn != last_turn:
                last_turn = turn
                print(f"-- turn {turn + 1}: {player}")
            print(f"{n:5d}  {line}")
        score = {p: game.score(p) for p in game.players}
        document = {
            "game": "dice",
            "variant": game.variant.value,
            "actions": lines,
            "score": score,
            "winners": list(game.winners),
        }
        return print_outcome(args, document, score, list(game.winners), jg)
    finally:
        jg.close()
