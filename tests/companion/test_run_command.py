"""catan-companion run: a real table's start-up, with the board from a file and the sim tower."""

import json
import signal
import urllib.request
from dataclasses import replace

import pytest
from demo_process import DEADLINE, start_companion

from companion.board import Board, Terrain, hex_neighbours
from companion.cli import main
from companion.commands.run import check_setup, start_figures
from companion.journal import JournaledGame
from companion.layouts import random_board
from companion.scenario import list_scenarios, load_scenario, player_counts


def test_players_are_checked(capsys):
    assert main(["run", "--players", "red,purple", "--board", "x.json"]) == 2
    assert "unknown colour 'purple'" in capsys.readouterr().err
    assert main(["run", "--players", "red,red,blue", "--board", "x.json"]) == 2


def test_a_new_game_needs_a_board(tmp_path, capsys):
    assert main(["run", "--journal", str(tmp_path / "j.sqlite")]) == 2
    assert "needs its board" in capsys.readouterr().err


def test_a_board_with_adjacent_red_numbers_is_refused_with_the_rule(tmp_path, capsys):
    board = random_board(4, seed=1)
    sixes = [h for h, t in board.tiles.items() if t.number in (6, 8)]
    data = board.to_json()
    # put a 6 next to an existing red number by swapping chips with a neighbour
    target = sixes[0]
    neighbour = next(
        n
        for n in hex_neighbours(target)
        if n in board.tiles and board.tiles[n].number not in (None, 6, 8)
    )
    other_red = sixes[1]
    by_hex = {(h["q"], h["r"]): h for h in data["hexes"]}
    by_hex[neighbour]["number"], by_hex[other_red]["number"] = (
        by_hex[other_red]["number"],
        by_hex[neighbour]["number"],
    )
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    Board.load(path)  # a valid board JSON, only the setup is wrong
    assert main(["run", "--board", str(path), "--journal", str(tmp_path / "j.sqlite")]) == 2
    err = capsys.readouterr().err
    assert "BASE-RED-ADJ" in err and "--accept-setup" in err
    assert not (tmp_path / "j.sqlite").exists()


@pytest.mark.parametrize("tower", ["sim://run-test", None])
def test_run_serves_the_game_and_stops_cleanly_on_sigterm(tmp_path, tower):
    board = tmp_path / "board.json"
    random_board(4, seed=3).save(board)
    args = [
        "run",
        "--board",
        str(board),
        "--port",
        "0",
        "--players",
        "blue,white,orange",
        "--journal",
        str(tmp_path / "j.sqlite"),
    ]
    if tower:
        args += ["--serial", tower]
    proc, url = start_companion(*args)
    try:
        with urllib.request.urlopen(url + "api/state", timeout=DEADLINE) as r:
            state = json.load(r)
        assert [p["color"] for p in state["players"]] == ["blue", "white", "orange"]
        assert state["phase"] == "founding_settlement"
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=DEADLINE) == 0


def test_run_a_scenario_lays_out_its_map_and_rules(tmp_path):
    args = [
        "run",
        "--scenario",
        "four-islands",
        "--seed",
        "2",
        "--port",
        "0",
        "--players",
        "red,blue,white",
        "--journal",
        str(tmp_path / "j.sqlite"),
    ]
    proc, url = start_companion(*args)
    try:
        with urllib.request.urlopen(url + "api/board", timeout=DEADLINE) as r:
            board = json.load(r)["board"]
        assert board["kind"] == "seafarers"
        assert sum(h["terrain"] == "sea" for h in board["hexes"]) == 15
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=DEADLINE) == 0
    jg = JournaledGame.open(tmp_path / "j.sqlite")
    assert jg.game.rules.victory_points == 13 and jg.game.rules.ships == 15
    jg.close()


def test_run_with_a_camera_shows_its_view_on_request(tmp_path):
    import cv2
    import numpy as np

    from vision.synth.render import render_board

    board = random_board(4, seed=3)
    board.save(tmp_path / "board.json")
    image = render_board(board, width=640, height=480, rng=3).image
    video = tmp_path / "camera.avi"  # a video file stands in for the webcam
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 10, (640, 480))
    for _ in range(5):
        writer.write(image)
    writer.release()
    args = [
        "run",
        "--board",
        str(tmp_path / "board.json"),
        "--camera",
        str(video),
        "--port",
        "0",
        "--journal",
        str(tmp_path / "j.sqlite"),
    ]
    proc, url = start_companion(*args)
    try:
        stream = urllib.request.urlopen(url + "api/events", timeout=DEADLINE)
        for raw in stream:  # wait on the live stream (no sleeping) for the camera's first report
            if raw.startswith(b"data:"):
                update = json.loads(raw[5:])
                camera = update.get("state", {}).get("parts", {}).get("camera", {})
                if update.get("type") == "parts" and "no camera" not in camera.get("detail", ""):
                    break
        with urllib.request.urlopen(url + "api/camera.jpg", timeout=DEADLINE) as r:
            picture = np.frombuffer(r.read(), np.uint8)
        assert cv2.imdecode(picture, cv2.IMREAD_COLOR).shape == (480, 640, 3)
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=DEADLINE) == 0


def test_a_photo_board_with_harbours_left_unread_passes_the_setup_check() -> None:
    """Harbours the camera could not read are not judged missing: the game can start."""
    from dataclasses import replace

    from companion.commands.run import check_setup

    board = random_board(4, seed=3)
    unread = ["uncertain: 7 of 9 harbour(s) could not be read"]
    partial = replace(board, harbors=board.harbors[:2], warnings=unread)
    check_setup(partial, 4, accept=False)
    with pytest.raises(ValueError, match="setup check found"):
        check_setup(replace(partial, warnings=[]), 4, accept=False)


def test_a_scenario_names_its_figures_start_on_any_laying_of_its_map():
    # On the scenario's own set-up, wherever its random parts fell; standard-board scenarios
    # name none (their robber starts on the desert).
    for name in list_scenarios():
        for players in player_counts(name):
            scenario = load_scenario(name, players, seed=4)
            board = scenario.board
            starts = scenario.start_hexes(board, in_map_hexes=True)
            if board.kind in ("base", "5-6"):
                assert starts == (None, None)
            else:
                assert starts == (board.robber, board.pirate), (name, players)


def test_a_map_read_blind_trusts_only_starts_that_name_one_hex():
    # Read blind, the hexes are the reader's: Four Islands' pirate start (by coordinates) and
    # Through the Desert's (the first sea hex) say nothing; the one 12 is the same hex.
    islands = load_scenario("four-islands", 4, seed=1)
    board = islands.board
    robber, pirate = islands.start_hexes(board, in_map_hexes=False)
    assert robber == board.robber and board.tiles[robber].number == 12
    assert pirate is None
    desert = load_scenario("through-the-desert", 4, seed=1)
    assert desert.start_hexes(desert.board, in_map_hexes=False)[1] is None


def test_figures_the_camera_missed_start_where_the_rules_put_them():
    board = load_scenario("four-islands", 3, seed=2).board
    robber, pirate = board.robber, board.pirate
    seen = replace(board, robber=None, pirate=None)
    notes = start_figures(seen, (robber, pirate), pirate=True)
    assert (seen.robber, seen.pirate) == (robber, pirate)
    assert notes == [
        f"the robber was not seen: it starts on {robber}, as the scenario says",
        f"the pirate was not seen: it starts on {pirate}, as the scenario says",
    ]
    # Seen, they stay where the camera saw them.
    moved = replace(
        board, pirate=next(h for h, t in board.tiles.items() if t.terrain == Terrain.SEA)
    )
    assert start_figures(moved, (robber, pirate), pirate=True) == []
    assert moved.pirate != pirate


def test_a_figure_missed_with_no_known_start_is_refused_not_dropped():
    board = load_scenario("new-world", 4, seed=1).board
    with pytest.raises(ValueError, match="the pirate is not in view .* show it to the camera"):
        start_figures(replace(board, pirate=None), (board.robber, None), pirate=True)
    with pytest.raises(ValueError, match="the robber is not in view"):
        start_figures(replace(board, robber=None), (None, board.pirate), pirate=True)
    # A game without a pirate needs none.
    assert start_figures(replace(board, pirate=None), (board.robber, None), pirate=False) == []


def test_a_scenario_board_is_held_to_its_own_set_up(tmp_path, capsys):
    board = load_scenario("four-islands", 3, seed=2).board
    check_setup(board, 3, accept=False, scenario="four-islands")
    land = next(h for h, t in board.tiles.items() if t.number is not None)
    chipless = replace(board, tiles={**board.tiles, land: replace(board.tiles[land], number=None)})
    with pytest.raises(ValueError, match="setup check found"):
        check_setup(chipless, 3, accept=False, scenario="four-islands")
    assert "SEA-CHIP-ON-LAND" in capsys.readouterr().err
    check_setup(chipless, 3, accept=True, scenario="four-islands")


def test_a_scenario_photo_without_its_pirate_starts_the_game_with_it(tmp_path):
    import cv2

    from vision.synth.render import Conditions, render_board

    known = load_scenario("four-islands", 3, seed=2).board
    shot = render_board(
        replace(known, pirate=None),
        width=1200,
        height=900,
        rng=5,
        conditions=Conditions(chip_style="plain", tilt_deg=10),
    )
    photo = tmp_path / "table.png"
    cv2.imwrite(str(photo), shot.image)
    journal = tmp_path / "j.sqlite"
    args = ["run", "--scenario", "four-islands", "--players", "red,blue,white"]
    proc, url = start_companion(
        *args, "--photo", str(photo), "--port", "0", "--journal", str(journal)
    )
    try:
        with urllib.request.urlopen(url + "api/board", timeout=DEADLINE) as r:
            board = json.load(r)["board"]
        assert board["pirate"] == {"q": known.pirate[0], "r": known.pirate[1]}
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=DEADLINE) == 0
