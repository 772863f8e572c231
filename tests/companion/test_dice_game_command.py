"""``catan-companion dice-game`` and ``demo --dice-game``: bad input, and kill -9 with resume."""

from __future__ import annotations

import json
import signal
import urllib.request
from pathlib import Path

import pytest
from demo_process import DEADLINE, start_companion

from companion.cli import main
from companion.dice_bot import DiceBot
from companion.dice_table import JournaledDiceGame, RollFree
from companion.dicegame import Build, EndTurn
from companion.journal import JournaledGame
from companion.layouts import random_board

KILLS = 5


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--players", "ann,<b>"], "'<b>' is no name"),
        (["--players", "ann,ann"], "different names"),
        (["--players", "ann", "--variant", "plus"], "players: give 2 to 4"),
        (["--players", "a,b,c,d,e"], "players: give 1 to 4"),
    ],
)
def test_bad_players_are_refused_in_one_line_and_make_no_journal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    journal = tmp_path / "dice.sqlite"
    assert main(["dice-game", "--journal", str(journal), *args]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err
    assert not journal.exists()


def test_each_command_refuses_the_other_kind_of_journal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    board = tmp_path / "board.sqlite"
    JournaledGame.create(board, random_board(4, seed=1), ["red", "blue", "white"]).close()
    assert main(["dice-game", "--journal", str(board), "--port", "0"]) == 2
    assert "holds a board game" in capsys.readouterr().err
    dice = tmp_path / "dice.sqlite"
    JournaledDiceGame.create(dice, ["ann"]).close()
    assert main(["run", "--journal", str(dice), "--port", "0"]) == 2
    assert "catan-companion dice-game --journal" in capsys.readouterr().err


def test_the_dice_demo_has_no_scenarios(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--dice-game", "--scenario", "new-shores", "--port", "0"]) == 2
    assert "no scenarios" in capsys.readouterr().err


def test_a_real_table_with_the_tower_serves_the_dice_game_and_stops_cleanly(
    tmp_path: Path,
) -> None:
    journal = tmp_path / "dice.sqlite"
    proc, url = start_companion(
        "dice-game", "--players", "ann,ben", "--variant", "plus", "--port", "0",
        "--journal", str(journal), "--serial", "sim://dice-command",
    )  # fmt: skip
    try:
        with urllib.request.urlopen(url + "api/state", timeout=DEADLINE) as r:
            state = json.load(r)
        assert state["game"] == "dice" and state["variant"] == "plus"
        assert [p["color"] for p in state["players"]] == ["ann", "ben"]
        with urllib.request.urlopen(url + "dice", timeout=DEADLINE) as r:
            assert b"dice.js" in r.read()
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=DEADLINE) == 0
    assert JournaledDiceGame.open(journal).damage is None


def test_kill_9_loses_nothing_the_page_was_told_and_the_game_goes_on(tmp_path: Path) -> None:
    journal = tmp_path / "dice.sqlite"
    known: list[dict] = []
    for cycle in range(KILLS):
        proc, url = start_companion(
            "demo", "--dice-game", "plus", "--port", "0", "--journal", str(journal),
            "--speed", "300", "--seed", "5",
        )  # fmt: skip
        try:
            told = len(known)
            with urllib.request.urlopen(url + "api/events", timeout=DEADLINE) as stream:
                for raw in stream:
                    if raw.startswith(b"data:"):
                        shown = json.loads(raw[5:]).get("state", json.loads(raw[5:]))
                        assert shown["action_count"] >= len(known), f"cycle {cycle}"
                        told = max(told, shown["action_count"])
                        if told >= len(known) + 10 or shown["phase"] == "over":
                            break
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=DEADLINE)
        jg = JournaledDiceGame.open(journal)
        assert jg.damage is None, f"cycle {cycle}: {jg.damage}"
        history = list(jg.history)
        jg.close()
        assert len(history) >= told, f"cycle {cycle}: the page saw {told}, journal {len(history)}"
        assert history[: len(known)] == known, f"cycle {cycle}: the journal's past changed"
        known = history
        if jg.game.over:
            break
    assert len(known) >= 10


def test_replay_prints_a_dice_game_line_by_line_with_its_scores(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    journal = tmp_path / "dice.sqlite"
    jg = JournaledDiceGame.create(journal, ["ann", "ben"])
    jg.apply(RollFree("ann", "tower", ("brick", "lumber", "wool", "grain", "ore", "ore")))
    jg.apply(Build("ann", "settlement", 0))
    jg.apply(EndTurn("ann"))
    jg.close()
    assert main(["replay", str(journal)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "-- turn 1: ann"
    assert "ann rolled (roll 1, tower): brick, lumber, wool, grain, ore, ore" in out[1]
    assert "ann built settlement 0" in out[2] and "ann scores 3" in out[3]
    assert out[-1] == "score: ann 3, ben 0"


def test_replay_json_of_a_finished_dice_game_matches_the_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    journal = tmp_path / "dice.sqlite"
    jg = JournaledDiceGame.create(journal, ["ann", "ben"], "plus", seed=8)
    bot = DiceBot()
    while not jg.game.over:
        jg.apply(bot.choose(jg.game))
    played = {p: jg.game.score(p) for p in jg.game.players}, list(jg.game.winners)
    jg.close()
    assert main(["replay", str(journal), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["score"], out["winners"]) == played
    assert out["game"] == "dice" and len(out["actions"]) == len(jg.history)
