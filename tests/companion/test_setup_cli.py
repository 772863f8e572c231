"""check-setup, generate-board and bench setup through the real command line entry point."""

from __future__ import annotations

import json
import logging
import re
import sys
import types
from pathlib import Path

import pytest

from companion.board import Board, Piece, Tile, Vertex
from companion.cli import main
from companion.layouts import random_board


def red_pair_board() -> Board:
    """A legal board with a 6 and an 8 made neighbours by one chip swap."""
    board = random_board(4, seed=1)
    t = board.tiles
    for six in (h for h in t if t[h].number == 6):
        for dq, dr in ((1, -1), (1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1)):
            nb = (six[0] + dq, six[1] + dr)
            if nb not in t or t[nb].number in (None, 6, 8):
                continue
            eight = next(h for h in t if t[h].number == 8)
            n = t[nb].number
            t[nb] = Tile(t[nb].terrain, 8)
            t[eight] = Tile(t[eight].terrain, n)
            return board
    raise AssertionError("no red pair possible")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_generate_then_check_round_trip(tmp_path: Path, capsys, caplog):
    caplog.set_level(logging.INFO)
    code, out, err = run(
        capsys, "generate-board", "--seed", "5", "--balance", "tournament", "--json"
    )
    assert code == 0
    doc = json.loads(out)
    assert doc["generator"]["seed"] == 5 and doc["generator"]["balance"] == "tournament"
    assert "seed 5" in caplog.text  # a log message, not part of the document on stdout
    again = json.loads(
        run(capsys, "generate-board", "--seed", "5", "--balance", "tournament", "--json")[1]
    )
    assert again == doc
    path = tmp_path / "board.json"
    path.write_text(out)
    code, out, _ = run(capsys, "check-setup", str(path), "--json")
    assert code == 0
    assert json.loads(out) == {
        "ok": True,
        "violations": [],
        "suggestions": [],
        "fixable": True,
        "reason": "",
        "notes": [],
    }


def test_check_reports_violations_and_swaps_as_json(tmp_path: Path, capsys):
    path = tmp_path / "bad.json"
    red_pair_board().save(path)
    code, out, _ = run(capsys, "check-setup", str(path), "--json")
    assert code == 1
    doc = json.loads(out)
    assert doc["ok"] is False
    (v,) = doc["violations"]
    assert v["rule"] == "BASE-RED-ADJ" and len(v["hexes"]) == 2 and v["message"]
    (s,) = doc["suggestions"]
    assert s["fixes"] == ["BASE-RED-ADJ"] and s["what"] == "chips" and len(s["swap"]) == 2
    assert any(h in v["hexes"] for h in s["swap"])


def test_check_draws_the_board_with_marks_and_the_fix(tmp_path: Path, capsys):
    path = tmp_path / "bad.json"
    red_pair_board().save(path)
    code, out, _ = run(capsys, "check-setup", str(path), "--players", "4")
    assert code == 1
    assert len(re.findall(r"\*[a-z~?]{2}[ \d]{2}\*", out)) == 2  # the two red hexes
    assert "BASE-RED-ADJ" in out and "1. swap chip" in out


def test_generate_human_output_names_seed_and_score(capsys):
    code, out, _ = run(capsys, "generate-board", "--players", "6", "--seed", "2")
    assert code == 0
    assert out.startswith("5-6 board, seed 2, balance fair")
    assert "balance score" in out and len(out.splitlines()) == 1 + 7 + 2


def test_image_without_vision_module_is_a_clear_error(tmp_path: Path, capsys, monkeypatch):
    photo = tmp_path / "table.jpg"
    photo.write_bytes(b"\xff\xd8\xff")
    monkeypatch.setitem(sys.modules, "vision.read_board", None)
    code, _, err = run(capsys, "check-setup", str(photo))
    assert code == 2
    assert "vision.read_board" in err and "JSON" in err and "Traceback" not in err


def test_image_is_read_by_the_vision_module_when_present(tmp_path: Path, capsys, monkeypatch):
    photo = tmp_path / "table.jpg"
    photo.write_bytes(b"\xff\xd8\xff")
    fake = types.ModuleType("vision.read_board")
    seen = []

    def read_board(path):
        seen.append(Path(path))
        return random_board(4, seed=3)

    fake.read_board = read_board  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "vision.read_board", fake)
    code, out, _ = run(capsys, "check-setup", str(photo), "--json")
    assert code == 0 and json.loads(out)["ok"] is True
    assert seen == [photo]


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["check-setup", "{dir}/missing.json"], "no such file"),
        (["check-setup", "{dir}/garbage.json"], "not a JSON document"),
        (["check-setup", "{dir}/badfield.json"], "hexes[0].terrain"),
        (["check-setup", "{dir}/good.json", "--players", "9"], "--players 9"),
        (["check-setup", "{dir}/good.json", "--players", "5"], "3/4 players"),
        (["check-setup", "{dir}/good.json", "--scenario", "atlantis"], "known scenarios"),
        (["check-setup", "{dir}/good.json", "--scenario", "5-6"], "is a base board"),
        (["check-setup", "{dir}/good.json", "--max-swaps", "0"], "--max-swaps 0"),
        (["check-setup", "{dir}/seafarers.json"], "--scenario"),
        (["check-setup", "{dir}/nophoto.png"], "no such file"),
        (["generate-board", "--players", "7"], "--players 7"),
        (["generate-board", "--scenario", "atlantis"], "known scenarios"),
        (["bench", "setup", "--boards", "0"], "--boards 0"),
    ],
)
def test_bad_input_exits_2_with_one_line(tmp_path: Path, capsys, argv, needle):
    (tmp_path / "garbage.json").write_text("{not json")
    (tmp_path / "badfield.json").write_text(
        json.dumps({"hexes": [{"q": 0, "r": 0, "terrain": "lava"}]})
    )
    random_board(4, seed=1).save(tmp_path / "good.json")
    sea = random_board(4, seed=1).to_json()
    sea["kind"] = "seafarers"
    (tmp_path / "seafarers.json").write_text(json.dumps(sea))
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    code, out, err = run(capsys, *(a.format(dir=tmp_path) for a in argv))
    assert code == 2
    assert out == ""
    assert needle in err and len(err.strip().splitlines()) == 1
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


def test_bench_setup_reports_each_case_as_json(capsys):
    code, out, _ = run(capsys, "bench", "setup", "--boards", "5", "--json")
    assert code == 0
    doc = json.loads(out)
    assert set(doc["cases"]) == {"base", "5-6", "seafarers-like"}
    for case in doc["cases"].values():
        assert case["boards"] == 5 and case["boards_per_s"] > 0
    assert doc["balance"] == "tournament" and isinstance(doc["goal_met"], bool)


def test_beginner_flag_adds_the_three_player_colour_rule(tmp_path: Path, capsys):
    board = random_board(4, seed=2)
    board.pieces = [Piece("settlement", "red", vertex=Vertex(0, 0, "N"))]
    path = tmp_path / "red.json"
    board.save(path)
    code, out, _ = run(capsys, "check-setup", str(path), "--players", "3", "--json")
    assert code == 0 and json.loads(out)["ok"]
    code, out, _ = run(capsys, "check-setup", str(path), "--players", "3", "--beginner", "--json")
    assert code == 1
    doc = json.loads(out)
    assert [v["rule"] for v in doc["violations"]] == ["BASE-3P-COLOURS"]
    assert doc["fixable"] is False and "BASE-3P-COLOURS" in doc["reason"]
