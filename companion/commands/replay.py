"""``catan-companion replay JOURNAL``: print a journaled game turn by turn."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from typing import Any

from companion.actions import Action, action_to_json
from companion.dice_table import JournaledDiceGame, is_dice_config
from companion.game import Event
from companion.journal import Journal, JournaledGame, game_from_config


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("journal", help="the journal file (SQLite) of a game")
    parser.add_argument("--json", action="store_true", help="one JSON document: turns and score")


def describe(action: Action, events: list[Event]) -> str:
    """One line a person can read, e.g. ``red rolled 3+4 = 7``."""
    who = action.player
    parts: list[str] = []
    for e in events:
        match e["type"]:
            case "rolled":
                line = f"{who} rolled {e['dice'][0]}+{e['dice'][1]} = {e['total']}"
                gains = e.get("gains") or {}
                if gains:
                    line += ": " + "; ".join(f"{p} +{_cards(c)}" for p, c in gains.items())
                if e.get("blocked"):
                    line += f" (robber blocks {', '.join(map(str, e['blocked']))})"
                if e.get("shortage"):
                    line += f" (bank short of {', '.join(e['shortage'])})"
                parts.append(line)
            case "built":
                where = e.get("vertex") or e.get("edge")
                parts.append(f"{who} built a {e['piece']} at {tuple(where)}")
            case "starting_resources":
                parts.append(f"{who} takes starting cards {_cards(e['cards'])}")
            case "bought_card":
                parts.append(f"{who} bought a development card")
            case "played_card":
                parts.append(f"{who} played {e['card'].replace('_', ' ')}")
            case "discarded":
                parts.append(f"{who} discarded {_cards(e['cards'])}")
            case "robber_moved":
                victim = f", robbing {e['victim']}" if e.get("victim") else ""
                parts.append(f"{who} moved the robber to {tuple(e['hex'])}{victim}")
            case "maritime_trade":
                parts.append(
                    f"{who} traded {_cards(e['give'])} for {_cards(e['get'])} with the bank"
                )
            case "domestic_trade":
                parts.append(
                    f"{who} gave {_cards(e['give'])} to {e['partner']} for {_cards(e['get'])}"
                )
            case "longest_road":
                holder = e["player"] or "nobody (set aside)"
                parts.append(f"Longest Road: {holder}")
            case "largest_army":
                parts.append(f"Largest Army: {e['player']} ({e['knights']} knights)")
            case "won":
                parts.append(f"{e['player']} wins with {e['victory_points']} victory points")
            case "turn":
                pass
            case _ if "text" in e:  # a scenario's event says what happened in words
                parts.append(f"{e.get('player', who)} {e['text']}")
    return "; ".join(parts) if parts else f"{who}: {type(action).type.replace('_', ' ')}"


def _cards(cards: dict[str, int]) -> str:
    return ", ".join(f"{n} {r}" for r, n in cards.items()) or "nothing"


def replay(jg: JournaledGame) -> Iterator[tuple[int, int, Action, list[Event]]]:
    """Apply the journal's actions to a fresh game: (number, turn it was in, action, events)."""
    game = game_from_config(jg.config)
    for i, action in enumerate(jg.history, start=1):
        turn = game.turn_number
        yield i, turn, action, game.apply(action)


def run(args: argparse.Namespace) -> int:
    journal, config = Journal.open_raw(args.journal)
    journal.close()
    if is_dice_config(config):
        from companion.commands import dice_replay

        return dice_replay.run(args)
    jg = JournaledGame.open(args.journal)
    try:
        turns: list[dict[str, Any]] = []
        last_turn = -1
        for i, turn, action, events in replay(jg):
            line = describe(action, events)
            if args.json:
                turns.append({"n": i, "turn": turn, "action": action_to_json(action), "text": line})
                continue
            if turn != last_turn:
                last_turn = turn
                print(f"-- turn {turn}: {action.player}" if turn else "-- founding phase")
            print(f"{i:5d}  {line}")
        final = jg.game
        score = {c: final.victory_points(i) for i, c in enumerate(final.players)}
        winner = final.winner_color
        document = {"actions": turns, "score": score, "winner": winner}
        return print_outcome(args, document, score, [winner] if winner else [], jg)
    finally:
        jg.close()


def print_outcome(
    args: argparse.Namespace,
    document: dict[str, Any],
    score: dict[str, int],
    winners: list[str],
    jg: JournaledGame | JournaledDiceGame,
) -> int:
    """The end of a replay: ``document`` and the journal's damage as the one JSON document
    (``--json``), or the score and the winners in lines; a damaged journal says so on stderr
    and exits 1."""
    if args.json:
        json.dump({**document, "damage": None if jg.damage is None else str(jg.damage)}, sys.stdout)
        sys.stdout.write("\n")
    else:
        print("score: " + ", ".join(f"{c} {vp}" for c, vp in score.items()))
        if winners:
            print(f"winner: {', '.join(winners)}")
    if jg.damage is not None:
        print(
            f"catan-companion: {jg.damage} (replayed the {len(jg.history)} actions before it)",
            file=sys.stderr,
        )
        return 1
    return 0
