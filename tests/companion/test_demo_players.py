"""The demo's players at the simulated table: moves through the camera, and the fallback."""

from __future__ import annotations

import copy
import threading
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from companion.actions import Action, BuildShip, MovePirate, MoveRobber, MoveShip, RollDice
from companion.bots import GreedyBot
from companion.demo_players import (
    VISIBLE,
    DemoCamera,
    DemoPlayers,
    _as_proposed,
    is_on_board,
    put_down,
    table_board,
)
from companion.game import Game, IllegalAction, Phase
from companion.host import TableHost
from companion.journal import JournaledGame
from companion.layouts import random_board
from companion.scenario import load_scenario
from companion.table import ApplyAction, Inspect
from vision.tracker import Tracker

PLAYERS = ["red", "blue", "white"]


def pieces_of(board) -> set:
    return set(board.pieces)


def test_the_table_shows_what_a_move_puts_down_as_the_game_has_it() -> None:
    game = Game(random_board(4, seed=6), PLAYERS + ["orange"], rng=6)
    bot = GreedyBot(seed=6)
    checked = 0
    while game.phase != Phase.GAME_OVER and game.turn_number < 60:
        action = game.resolve(bot.choose(game))
        if isinstance(action, VISIBLE):
            before = table_board(game)
            assert not is_on_board(game, action)
            physical = put_down(before, action)
            game.apply(action)
            assert is_on_board(game, action)
            after = table_board(game)
            assert pieces_of(physical) == pieces_of(after)
            assert (physical.robber, physical.pirate) == (after.robber, after.pirate)
            checked += 1
        else:
            game.apply(action)
    assert checked >= 30


def test_only_board_moves_are_put_down() -> None:
    board = random_board(3, seed=1)
    with pytest.raises(ValueError, match="not something put on the board"):
        put_down(board, RollDice("red"))


def test_the_demo_camera_follows_base_and_extension_boards_and_scenario_maps() -> None:
    # A scenario's map is registered by its own frame (vision.known_frame).
    scenario = load_scenario("new-shores", 4, seed=1)
    DemoCamera.for_game(Game(scenario.board, PLAYERS + ["orange"], scenario.rules, rng=1))
    # A board called base but laid out in another shape has no frame the camera knows.
    odd = replace(random_board(5, seed=1), kind="base")
    with pytest.raises(ValueError, match="base boards of 19 hexes, not of 30"):
        DemoCamera.for_game(Game(odd, PLAYERS, rng=1))
    DemoCamera.for_game(Game(random_board(5, seed=1), PLAYERS, rng=1))  # 5-6 is followed


# --- the players and the camera, on a running Table ------------------------------------------


class Bench:
    """A host with the demo camera (no page, no tower) and players that never start on
    their own: the test makes each move."""

    def __init__(self, jg: JournaledGame, seed: int):
        self.camera = DemoCamera.for_game(jg.game, speed=20.0, seed=seed)
        self.camera.source.glare_every_s = 0.0  # no glare: every move here is seen at once
        self.host = TableHost(jg, demo_camera=self.camera)
        self.host.start()
        self.players = DemoPlayers(
            self.host.table,
            GreedyBot(seed),
            pace=0.0,
            roll=lambda action: None,
            stopping=threading.Event(),
            camera=(self.camera, self.host.camera_link),
        )
        self.players.wait_for_camera()
        assert self.camera.tracking

    def choose(self) -> Action:
        return self.host.table.call(Inspect(self.players.bot.choose))

    def last_action(self) -> Action:
        return self.host.table.call(Inspect(lambda _g: self.host.jgame.history[-1]))


@pytest.fixture
def bench(tmp_path: Path) -> Iterator[Bench]:
    jg = JournaledGame.create(tmp_path / "j.sqlite", random_board(3, seed=3), PLAYERS, seed=3)
    b = Bench(jg, seed=3)
    yield b
    b.host.stop()


def test_a_piece_put_down_reaches_the_game_through_the_camera(bench: Bench) -> None:
    updates = bench.host.table.subscribe()
    action = bench.choose()
    assert type(action).type == "build_settlement"  # the founding round
    assert bench.players.through_camera(action) == "camera"
    assert bench.last_action() == action
    assert bench.players.tally.seen == 1 and bench.players.tally.fallbacks == 0
    sources = []
    while (update := updates.get(timeout=0)) is not None:
        sources.append(update.get("source"))
    assert "camera" in sources and "web" not in sources
    road = bench.choose()
    assert bench.players.through_camera(road) == "camera"  # the founding road beside it
    assert bench.last_action() == road
    assert bench.players.tally.seen == 2


def test_a_move_the_camera_misses_is_entered_as_on_the_page(
    bench: Bench, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The hand goes through the motion, but the piece never shows: the camera cannot see it.
    scene = bench.camera.scene
    monkeypatch.setattr(
        scene, "show", lambda board, reach: type(scene).show(scene, scene.now().board, reach)
    )
    bench.camera.timeout_s = 1.5
    action = bench.choose()
    start = bench.camera.source.clock
    assert bench.players.through_camera(action) == "fallback"
    assert bench.camera.source.clock - start >= 1.5  # it waited for the camera first
    assert bench.last_action() == action
    tally = bench.players.tally
    assert (tally.seen, tally.fallbacks) == (0, 1)
    assert "nothing from the camera" in tally.reasons[-1]


def test_without_a_board_in_view_the_move_is_entered_at_once(tmp_path: Path) -> None:
    jg = JournaledGame.create(tmp_path / "j.sqlite", random_board(3, seed=3), PLAYERS, seed=3)
    camera = DemoCamera.for_game(jg.game, speed=20.0, seed=3)

    def nothing_there(frame):
        raise ValueError("no board found")

    camera.tracker = Tracker(registrar=nothing_there)
    host = TableHost(jg, demo_camera=camera)
    host.start()
    try:
        players = DemoPlayers(
            host.table,
            GreedyBot(3),
            0.0,
            lambda a: None,
            threading.Event(),
            camera=(camera, host.camera_link),
        )
        action = host.table.call(Inspect(players.bot.choose))
        assert players.through_camera(action) == "fallback"
        assert "not following" in players.tally.reasons[-1]
        assert host.table.call(Inspect(lambda g: is_on_board(g, action)))
    finally:
        host.stop()


def robber_to_move(tmp_path: Path) -> tuple[JournaledGame, MoveRobber]:
    """A journaled game played by the bots up to a robber move that robs someone."""
    jg = JournaledGame.create(tmp_path / "j.sqlite", random_board(3, seed=8), PLAYERS, seed=8)
    bot = GreedyBot(8)
    while True:
        action = bot.choose(copy.deepcopy(jg.game))
        if isinstance(action, MoveRobber) and action.victim is not None:
            return jg, action
        jg.apply(action)


def test_a_robber_move_is_proposed_by_the_camera_and_the_player_says_who_was_robbed(
    tmp_path: Path,
) -> None:
    jg, move = robber_to_move(tmp_path)
    bench = Bench(jg, seed=8)
    try:
        assert bench.players.through_camera(move) == "confirmed"
        done = bench.last_action()
        assert isinstance(done, MoveRobber)
        assert (done.hex, done.victim) == (move.hex, move.victim) and done.stolen is not None
        asked = [text for _, kind, text in bench.host.camera_link.log if kind == "pending"]
        assert any("who was robbed?" in text for text in asked)
        assert bench.host.camera_link.pending()["proposals"] == []
        assert bench.players.tally.confirmed == 1
    finally:
        bench.host.stop()


def test_stopping_the_players_leaves_an_unseen_move_out_of_the_game(bench: Bench) -> None:
    bench.players.stopping.set()
    action = bench.choose()
    assert bench.players.through_camera(action) == "stopped"
    assert not bench.host.table.call(Inspect(lambda g: is_on_board(g, action)))
    bench.host.table.call(ApplyAction(action))  # still legal: nothing was applied


def test_a_move_the_game_no_longer_takes_is_taken_back_off_the_table(bench: Bench) -> None:
    bench.camera.timeout_s = 1.5
    action = bench.choose()
    # Meanwhile the page took another founding settlement for the same player.
    other = next(
        a
        for a in bench.host.table.call(Inspect(lambda g: g.legal_actions()))
        if a != action and type(a) is type(action)
    )
    bench.host.table.call(ApplyAction(other))
    # The camera sees the piece, the game refuses it, and so it does when entered by hand.
    with pytest.raises(IllegalAction):
        bench.players.through_camera(action)
    game_board = bench.host.table.call(Inspect(table_board))
    assert set(bench.camera.scene.now().board.pieces) == set(game_board.pieces)


def seafarers_to(tmp_path: Path, kind: type[Action]) -> tuple[JournaledGame, Action]:
    """A journaled New Shores game played by the bots up to where ``kind`` is legal (a pirate
    move that robs someone), which the test then makes: the bots seldom move a ship or the
    pirate themselves."""
    scenario = load_scenario("new-shores", 3, seed=4)
    jg = JournaledGame.create(
        tmp_path / "j.sqlite", scenario.board, PLAYERS, scenario.rules, seed=4
    )
    bot = GreedyBot(4)
    while True:
        wanted = [
            a
            for a in jg.game.legal_actions()
            if isinstance(a, kind) and getattr(a, "victim", "") is not None
        ]
        if wanted:
            return jg, wanted[0]
        jg.apply(bot.choose(copy.deepcopy(jg.game)))


@pytest.mark.parametrize("kind", [BuildShip, MoveShip, MovePirate])
def test_a_ship_or_the_pirate_on_a_scenario_map_reaches_the_game_through_the_camera(
    tmp_path: Path, kind: type[Action]
) -> None:
    jg, move = seafarers_to(tmp_path, kind)
    bench = Bench(jg, seed=5)
    try:
        # The pirate robs: the camera proposes the move and the player says who was robbed.
        # The ship is built on a coast side where a road fits too, and the camera cannot tell
        # its kind there (the renderer turns a ship at random): the player says it was a ship.
        expected = "camera" if kind is MoveShip else "confirmed"
        assert bench.players.through_camera(move) == expected
        done = bench.last_action()
        assert type(done) is kind and _as_proposed(done) == _as_proposed(move)
        assert bench.players.tally.fallbacks == 0 and bench.players.tally.other == 0
        assert bench.players.tally.kind_questions == (kind is BuildShip)
    finally:
        bench.host.stop()
