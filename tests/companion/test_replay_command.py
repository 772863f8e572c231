"""``catan-companion replay`` of a board game: the lines, the JSON document, the winner, and a
damaged journal (replayed up to the damage, exit 1)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from conftest import PLAYERS, fixed_board, play_random

from companion.cli import main
from companion.journal import JournaledGame


def _journal(path: Path, steps: int, seed: int) -> JournaledGame:
    jg = JournaledGame.create(path, fixed_board(), PLAYERS, seed=seed)
    play_random(jg, steps, seed=seed)
    jg.close()
    return jg


def test_replay_json_matches_the_game_that_wrote_the_journal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    jg = _journal(tmp_path / "g.sqlite", 60, seed=3)
    assert main(["replay", str(tmp_path / "g.sqlite"), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    game = jg.game
    assert out["score"] == {c: game.victory_points(i) for i, c in enumerate(game.players)}
    assert out["winner"] == game.winner_color and out["damage"] is None
    assert [a["n"] for a in out["actions"]] == list(range(1, len(jg.history) + 1))


def test_replay_lines_end_with_the_score_and_a_finished_game_with_its_winner(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    jg = _journal(tmp_path / "g.sqlite", 5000, seed=5)
    game = jg.game
    assert game.winner_color is not None  # random play of this seed ends the game
    assert main(["replay", str(tmp_path / "g.sqlite")]) == 0
    out = capsys.readouterr().out.splitlines()
    score = ", ".join(f"{c} {game.victory_points(i)}" for i, c in enumerate(game.players))
    assert out[-2:] == [f"score: {score}", f"winner: {game.winner_color}"]


def test_a_damaged_journal_is_replayed_up_to_the_damage_and_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "g.sqlite"
    _journal(path, 30, seed=7)
    db = sqlite3.connect(path)
    with db:
        db.execute("DELETE FROM actions WHERE seq = 20")
    db.close()
    assert main(["replay", str(path), "--json"]) == 1
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    assert len(out["actions"]) == 19 and "action 20" in out["damage"]
    assert "replayed the 19 actions before it" in captured.err
