"""bench vision runs end to end on renders alone (no shared datasets needed)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from companion.cli import main


def test_bench_vision_json_without_datasets(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["bench", "vision", "--json", "--renders", "3", "--datasets", str(tmp_path)])
    assert code == 0
    doc = json.loads(capsys.readouterr().out)
    syn = doc["synthetic"]
    assert syn["renders"] == 3
    assert 0.0 <= syn["terrain_accuracy"] <= 1.0
    wrong = sum(syn["terrain_wrong_hexes"].values())
    hexes = 19 + 30 + 37  # a base board, a 5-6 board, a Seafarers map
    assert wrong == round((1.0 - syn["terrain_accuracy"]) * hexes)
    assert syn["wrong_but_certain"] <= syn["reported_certain"]
    assert doc["coins_dev"] is None and doc["boards_dev"] is None
    assert doc["timing"]["median_seconds"] > 0 and doc["timing"]["render_median_seconds"] > 0
    assert doc["timing"]["board_only_median_cpu_seconds"] > 0
    figures = syn["figures_on_boards_read_right"]
    assert set(figures) == {
        f"{who}_{what}" for who in ("robber", "pirate") for what in ("right", "unseen", "wrong")
    }
    assert set(syn["figures_wrong_on_any_board"]) == {"robber", "pirate"}
    harbours = syn["harbours_on_boards_read_right"]
    assert set(harbours) == {"right", "unseen", "wrong", "extra"}
    assert isinstance(syn["chips_hidden_by_hands"], int) and syn["chips_hidden_by_hands"] >= 0
    assert 0.0 <= syn["chip_accuracy_of_chips_not_hidden"] <= 1.0
    assert doc["command"].startswith("catan-companion bench vision")


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("--renders", "-1"),
        ("--scenario-maps", "-1"),
        ("--real-hands", "-1"),
        ("--pieces", "1.5"),
        ("--pieces", "-0.1"),
        ("--robber-on-chip", "2"),
        ("--robber-off-desert", "-1"),
    ],
)
def test_bench_vision_refuses_bad_counts_and_shares_before_reading_anything(
    option: str,
    value: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from vision import bench

    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("a render was read before the options were checked")

    monkeypatch.setattr(bench, "synthetic", never)
    args = ["bench", "vision", "--renders", "1", option, value, "--datasets", str(tmp_path)]
    assert main(args) == 2
    assert option in capsys.readouterr().err


def test_robber_truth_is_read_from_the_groundtruth_words() -> None:
    from companion.board import base_frame, rows_of
    from vision.bench import _figure_outcome, _robber_truth

    rows = rows_of(base_frame())
    assert _robber_truth({"robber": "On the desert (row3 hex5)."}) == rows[2][4]
    assert _robber_truth({"robber": "On the hills hex column4 hex2 (black)"}) == rows[3][1]
    assert _robber_truth({"robber": "Not visible in any photo. Desert (row1 hex3)."}) is None
    assert _figure_outcome((0, 0), (0, 0)) == "right"
    assert _figure_outcome(None, (0, 0)) == "unseen"
    assert _figure_outcome((1, 0), (0, 0)) == "wrong"
    assert _figure_outcome((1, 0), None) == "wrong"


def _hand_share(hand_mask: np.ndarray, polygon: np.ndarray) -> float:
    """The share of a polygon's pixels (image coordinates, float (N, 2)) under the hand mask."""
    import cv2

    inside = np.zeros(hand_mask.shape, np.uint8)
    cv2.fillPoly(inside, [np.round(polygon).astype(np.int32)], 1)
    return float(hand_mask[inside > 0].mean())


def test_hexes_hidden_by_a_hand_are_those_under_its_mask() -> None:
    from vision.bench import hidden_by_hands
    from vision.synth.boards import standard_board
    from vision.synth.render import Conditions, render_board

    board = standard_board("base", np.random.default_rng(0))
    seen_hidden = False
    for seed in range(6):
        conditions = Conditions(hands=1, fill=0.6)
        render = render_board(board, rng=seed, conditions=conditions)
        hidden = hidden_by_hands(render, conditions.distortion)
        for h, poly in render.hex_polygons.items():
            share = _hand_share(render.hand_mask, poly)
            # The ring is most of a hex: a hex mostly under the hand has it hidden.
            assert (h in hidden) == (share > 0.9) or 0.4 < share <= 0.9
        seen_hidden |= bool(hidden)
    assert seen_hidden
    bare = render_board(board, rng=0, conditions=Conditions())
    assert hidden_by_hands(bare, 0.0) == set()


def test_chips_hidden_by_a_hand_are_those_it_covers_by_half() -> None:
    from companion.board import hex_center
    from vision.bench import chips_hidden_by_hands
    from vision.register import circle_points, project
    from vision.synth.boards import standard_board
    from vision.synth.render import Conditions, render_board

    board = standard_board("base", np.random.default_rng(0))
    circle = circle_points([0.4], 64)
    seen_hidden = False
    for seed in range(6):
        conditions = Conditions(hands=1, fill=0.6)
        render = render_board(board, rng=seed, conditions=conditions)
        hidden = chips_hidden_by_hands(render, conditions.distortion)
        assert all(board.tiles[h].number is not None for h in hidden)
        for h, tile in board.tiles.items():
            if tile.number is None:
                continue
            disc = project(render.homography, circle + hex_center(h))
            share = _hand_share(render.hand_mask, disc)
            assert (h in hidden) == (share > 0.7) or 0.3 < share <= 0.7
        seen_hidden |= bool(hidden)
    assert seen_hidden


def test_a_robber_moved_onto_a_chip_is_scored_where_the_render_put_it() -> None:
    from vision import bench

    figures = bench.synthetic(1, 0, robber_on_chip=1.0)["figures_on_boards_read_right"]
    assert figures["robber_right"] == 1 and figures["robber_wrong"] == 0


def test_known_map_renders_are_read_with_their_map(monkeypatch: pytest.MonkeyPatch) -> None:
    from companion.board import Board
    from vision import bench
    from vision.synth.render import Render

    given: list[Board | None] = []
    drawn: list[Board] = []
    render_board = bench.render_board

    def draw(board: Board, **kwargs: object) -> Render:
        drawn.append(board)
        return render_board(board, width=320, height=240, **kwargs)  # type: ignore[arg-type]

    def read(image: np.ndarray, known: Board | None = None) -> Board:
        given.append(known)
        raise ValueError("no board found: not read in this test")

    monkeypatch.setattr(bench, "render_board", draw)
    monkeypatch.setattr(bench, "read_board", read)
    assert bench.synthetic(3, 0, known_map=True)["refused_as_no_board"] == 3
    assert given == drawn and [b.kind for b in drawn] == ["base", "5-6", "seafarers"]
    bench.synthetic(1, 0)
    assert given[-1] is None


def test_a_wrong_figure_on_a_board_read_wrong_is_still_counted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Figures are scored on boards read right, but a wrong robber is counted wherever it is
    presented: here on a board with one hex's terrain read wrong."""
    from dataclasses import replace

    import vision.bench as bench
    from companion.board import Terrain, Tile

    real = bench.read_board

    def misread(image: np.ndarray, **kwargs: object):  # noqa: ANN202
        board = real(image, **kwargs)
        land = sorted(h for h, t in board.tiles.items() if t.terrain.is_land)
        elsewhere = next(h for h in land if h != board.robber)
        wrong = next(h for h in land if board.tiles[h].terrain != Terrain.DESERT)
        terrain = (
            Terrain.MOUNTAINS
            if board.tiles[wrong].terrain != Terrain.MOUNTAINS
            else (Terrain.HILLS)
        )
        tiles = {**board.tiles, wrong: Tile(terrain, board.tiles[wrong].number, 1.0)}
        return replace(board, tiles=tiles, robber=elsewhere)

    monkeypatch.setattr(bench, "read_board", misread)
    syn = bench.synthetic(1, 0)
    assert syn["figures_on_boards_read_right"]["robber_wrong"] == 0  # not judged there
    assert syn["figures_wrong_on_any_board"] == {"robber": 1, "pirate": 0}


def test_scenario_maps_are_read_with_their_own_map_and_scored_in_its_names(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Each render is a set-up of its own of a scenario's map, read with the map known (not the
    # set-up); a reading is scored in the map's own hex names, a certain wrong board counted.
    from dataclasses import replace

    from companion.board import Board, Harbor, Terrain
    from vision import bench
    from vision.synth.render import Render

    drawn: list[Board] = []
    given: list[Board | None] = []
    render_board = bench.render_board

    def draw(board: Board, **kwargs: object) -> Render:
        drawn.append(board)
        return render_board(board, width=320, height=240, **kwargs)  # type: ignore[arg-type]

    def read(image: np.ndarray, known: Board | None = None, pieces: bool = True) -> Board:
        given.append(known)
        if len(drawn) == 2:
            raise ValueError("no board found: not read in this test")
        truth = drawn[-1]
        if len(drawn) == 3:  # all right but a harbour where Corsica's sea has none
            return replace(truth, harbors=[Harbor(*next(iter(truth.tiles)), "E", "ore")])
        tiles = dict(truth.tiles)
        land = [h for h, t in tiles.items() if t.number is not None]
        tiles[land[0]] = replace(tiles[land[0]], terrain=Terrain.SEA)  # one hex wrong
        tiles[land[1]] = replace(tiles[land[1]], number=None)  # one chip unread
        other = 2 if tiles[land[2]].number != 2 else 3
        tiles[land[2]] = replace(tiles[land[2]], number=other)  # one chip read wrong
        return replace(truth, tiles=tiles, warnings=[])

    monkeypatch.setattr(bench, "render_board", draw)
    monkeypatch.setattr(bench, "read_board", read)
    out = bench.scenario_maps(3, seed=3)
    assert all(k is not None and k.kind in ("seafarers", "country") for k in given)
    assert given[0] is not drawn[0] and set(given[0].tiles) == set(drawn[0].tiles)
    assert out["refused_as_no_board"] == 1
    first, second, third = drawn
    assert third.harbors == []
    assert out["hexes"] == sum(len(b.tiles) for b in drawn)
    assert out["terrain_right"] == len(first.tiles) - 1 + len(third.tiles)
    chips = [sum(t.number is not None for t in b.tiles.values()) for b in drawn]
    assert out["chips"] == sum(chips)
    assert out["chips_right"] == chips[0] - 2 + chips[2] and out["chip_values_wrong"] == 1
    # The first is wrong in its terrain and chips, the third in its harbours only.
    assert out["reported_certain"] == out["wrong_but_certain"] == 2
    assert sum(m["renders"] for m in out["per_map"].values()) == 3
    assert out["harbours"] == {"right": len(first.harbors), "unseen": 0, "wrong": 0, "extra": 1}


def test_a_robber_off_the_desert_is_rendered_and_scored_where_the_render_put_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from dataclasses import replace

    from vision import bench

    home = bench.hard_render(0, 0)
    off = bench.hard_render(0, 0, robber_off_desert=1.0)
    moved = off.render.board.robber
    assert moved != home.truth.robber and home.truth.tiles[moved].number is not None
    assert replace(off.conditions, robber_off_desert=None) == home.conditions
    # A reader that sees the robber where the render put it is scored right.
    monkeypatch.setattr(
        bench, "read_board", lambda image, known=None: replace(off.truth, robber=moved)
    )
    figures = bench.synthetic(1, 0, robber_off_desert=1.0)["figures_on_boards_read_right"]
    assert figures["robber_right"] == 1 and figures["robber_wrong"] == 0


def test_a_render_with_pieces_keeps_its_board_and_conditions() -> None:
    from dataclasses import replace

    from vision import bench

    bare = bench.hard_render(0, 1)
    assert bare.truth.pieces == [] and bench.hard_render(0, 1, pieces=0.0).truth == bare.truth
    dressed = bench.hard_render(0, 1, pieces=1.0)
    kinds = {p.kind for p in dressed.truth.pieces}
    assert {"settlement", "city", "road"} <= kinds
    assert replace(dressed.truth, pieces=[]) == bare.truth
    assert dressed.conditions == bare.conditions
    # The pieces are drawn: the photo differs where they stand.
    assert not np.array_equal(dressed.render.image, bare.render.image)


def test_a_board_in_doubt_only_over_its_pieces_is_counted_apart(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from dataclasses import replace

    from companion.board import Terrain
    from vision import bench
    from vision.read_board import PIECE_DOUBTS

    doubt = f"uncertain: 1 {PIECE_DOUBTS[0]}: red city at (0, 0, N)"
    reads: list[object] = []

    def read(image: np.ndarray, known: object = None) -> object:
        truth = bench.hard_render(0, len(reads)).truth
        if len(reads) == 1:  # the second board's desert is read as fields
            desert = next(h for h, t in truth.tiles.items() if t.terrain == Terrain.DESERT)
            tiles = dict(truth.tiles)
            tiles[desert] = replace(tiles[desert], terrain=Terrain.FIELDS)
            truth = replace(truth, tiles=tiles)
        reads.append(truth)
        return replace(truth, warnings=[doubt])

    monkeypatch.setattr(bench, "read_board", read)
    out = bench.synthetic(2, 0)
    assert out["reported_certain"] == 0
    assert out["board_certain_but_pieces"] == 2
    assert out["wrong_but_board_certain_but_pieces"] == 1


def test_only_doubts_over_pieces_leave_a_board_certain_but_for_its_pieces() -> None:
    from companion.board import Board
    from vision.read_board import PIECE_DOUBTS, is_certain

    for what in PIECE_DOUBTS:
        board = Board("base", {}, warnings=[f"uncertain: 2 {what}: ...", "3 piece(s) read"])
        assert not is_certain(board) and is_certain(board, pieces=False)
    hexes = Board("base", {}, warnings=["uncertain: 1 hex(es) read with confidence below 0.9"])
    assert not is_certain(hexes) and not is_certain(hexes, pieces=False)


@pytest.mark.parametrize(
    ("option", "position"), [("--robber-on-chip", 2), ("--robber-off-desert", 4), ("--pieces", 5)]
)
def test_bench_vision_passes_and_names_each_share_of_renders(
    option: str,
    position: int,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from vision import bench

    given: list[tuple[object, ...]] = []

    def synthetic(*args: object) -> dict:
        given.append(args)
        return {}

    monkeypatch.setattr(bench, "synthetic", synthetic)
    monkeypatch.setattr(bench, "timing", lambda datasets: {})
    argv = ["bench", "vision", "--json", "--renders", "1", option, "0.5"]
    assert main([*argv, "--datasets", str(tmp_path)]) == 0
    doc = json.loads(capsys.readouterr().out)
    (args,) = given
    # The share goes to its own parameter, the others stay 0.
    assert [a for i, a in enumerate(args) if i in (2, 4, 5)] == [
        0.5 if i == position else 0.0 for i in (2, 4, 5)
    ]
    assert f"{option} 0.5" in doc["command"]
