"""Board model: canonical names, adjacency, frames, JSON."""

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.board import (
    CORNERS,
    SIDES,
    Board,
    BoardError,
    Edge,
    Topology,
    Vertex,
    base_frame,
    edge,
    edge_hexes,
    edge_vertices,
    extension_frame,
    hex_edges,
    hex_neighbour,
    hex_vertices,
    iter_coast_sides,
    rows_of,
    vertex,
    vertex_edges,
    vertex_hexes,
    vertex_neighbours,
    vertex_position,
)
from companion.layouts import (
    BASE_HARBOR_SITES,
    EXTENSION_HARBOR_SITES,
    random_board,
    red_pairs,
)

coords = st.integers(-6, 6)


def test_base_frame_rows_are_3_4_5_4_3_centred_on_origin():
    rows = rows_of(base_frame())
    assert [len(r) for r in rows] == [3, 4, 5, 4, 3]
    assert (0, 0) in base_frame()
    assert rows[0] == [(0, -2), (1, -2), (2, -2)]


def test_extension_frame_rows_are_3_4_5_6_5_4_3():
    assert [len(r) for r in rows_of(extension_frame())] == [3, 4, 5, 6, 5, 4, 3]


@given(coords, coords, st.sampled_from(CORNERS))
def test_every_corner_name_is_one_canonical_vertex_at_the_same_point(q, r, c):
    v = vertex(q, r, c)
    assert v.corner in ("N", "S")
    assert (q, r) in vertex_hexes(v)
    # the same point in the plane, whichever hex names it
    import math

    from companion.board import CORNER_ANGLE, hex_center

    cx, cy = hex_center((q, r))
    a = math.radians(CORNER_ANGLE[c])
    px, py = vertex_position(v)
    assert px == pytest.approx(cx + math.cos(a)) and py == pytest.approx(cy + math.sin(a))


@given(coords, coords, st.sampled_from(SIDES))
def test_every_side_name_is_one_canonical_edge_shared_with_the_neighbour(q, r, s):
    e = edge(q, r, s)
    assert e.side in ("NE", "E", "SE")
    assert set(edge_hexes(e)) == {(q, r), hex_neighbour((q, r), s)}


@given(coords, coords)
def test_adjacency_is_symmetric_and_consistent(q, r):
    for c in ("N", "S"):
        v = Vertex(q, r, c)
        for n in vertex_neighbours(v):
            assert v in vertex_neighbours(n)
        for e in vertex_edges(v):
            assert v in edge_vertices(e)
        # the three edges lead exactly to the three neighbours
        others = {next(x for x in edge_vertices(e) if x != v) for e in vertex_edges(v)}
        assert others == set(vertex_neighbours(v))
        # a corner's hexes all list it among their corners
        for h in vertex_hexes(v):
            assert v in hex_vertices(h)
    for e in hex_edges((q, r)):
        a, b = edge_vertices(e)
        assert b in vertex_neighbours(a)
        assert set(vertex_hexes(a)) & set(vertex_hexes(b)) == set(edge_hexes(e))


def test_topology_counts_of_the_standard_frames():
    t = Topology.of(base_frame())
    assert (len(t.hexes), len(t.vertices), len(t.edges)) == (19, 54, 72)
    t30 = Topology.of(extension_frame())
    assert (len(t30.hexes), len(t30.vertices), len(t30.edges)) == (30, 80, 109)
    # coastal corners touch 1 or 2 hexes, inland ones 3
    assert sorted({len(h) for h in t.vertex_hexes}) == [1, 2, 3]
    assert Topology.of(reversed(base_frame())) is t


def test_topology_edge_between():
    t = Topology.of(base_frame())
    e = t.edge_index[Edge(0, 0, "E")]
    a, b = t.edge_vertices[e]
    assert t.edge_between(a, b) == e
    assert t.edge_between(a, a) is None


def test_harbour_sites_are_distinct_coast_sides_of_their_frames():
    for players, sites in ((4, BASE_HARBOR_SITES), (6, EXTENSION_HARBOR_SITES)):
        board = random_board(players, seed=3)
        coast = set(iter_coast_sides(board))
        assert set(sites) <= coast
        assert len({edge(h[0], h[1], s) for h, s in sites}) == len(sites)


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_random_board_uses_the_whole_pool_and_no_red_pair(players):
    b = random_board(players, seed=players)
    assert not red_pairs(b.tiles)
    assert b.tiles[b.robber].terrain.value == "desert"
    assert all((t.number is None) == (t.terrain.value == "desert") for t in b.tiles.values())


def test_random_board_is_reproducible_by_seed():
    assert random_board(4, seed=7).to_json() == random_board(4, seed=7).to_json()
    assert random_board(4, seed=7).to_json() != random_board(4, seed=8).to_json()


def test_board_json_round_trip(tmp_path):
    b = random_board(4, seed=11)
    b.warnings.append("hex (0, 0) was covered by a hand")
    path = tmp_path / "board.json"
    b.save(path)
    again = Board.load(path)
    assert again.to_json() == b.to_json()
    assert json.loads(path.read_text())["kind"] == "base"


def test_board_json_with_pieces_canonicalises_their_names():
    data = random_board(4, seed=1).to_json()
    data["pieces"] = [
        {"kind": "settlement", "color": "red", "vertex": [0, 0, "SE"]},
        {"kind": "road", "color": "red", "edge": [1, 0, "W"]},
    ]
    b = Board.from_json(data)
    assert b.pieces[0].vertex == Vertex(0, 1, "N")
    assert b.pieces[1].edge == Edge(0, 0, "E")


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d.update(kind="chess"), "kind"),
        (lambda d: d.update(hexes=[]), "hexes"),
        (lambda d: d["hexes"][3].update(terrain="lava"), "hexes[3].terrain"),
        (lambda d: d["hexes"][4].update(number=7), "hexes[4].number"),
        (lambda d: d["hexes"][2].update(q="x"), "hexes[2]"),
        (lambda d: d["hexes"].append(dict(d["hexes"][0])), "appears twice"),
        (lambda d: d["harbors"][0].update(side="UP"), "harbors[0].side"),
        (lambda d: d["harbors"][0].update(kind="4:1"), "harbors[0].kind"),
        (lambda d: d.update(robber={"q": 9, "r": 9}), "robber"),
        (
            lambda d: d.update(pieces=[{"kind": "city", "color": "red", "vertex": [0, 0]}]),
            "pieces[0].vertex",
        ),
        (lambda d: d["hexes"][0].update(confidence=1.5), "confidence"),
    ],
)
def test_board_json_validation_names_the_field(mutate, message):
    data = random_board(4, seed=2).to_json()
    mutate(data)
    with pytest.raises(BoardError, match=message.replace("[", r"\[").replace("]", r"\]")):
        Board.from_json(data)


def test_desert_with_a_chip_is_refused():
    data = random_board(4, seed=2).to_json()
    desert = next(h for h in data["hexes"] if h["terrain"] == "desert")
    desert["number"] = 5
    with pytest.raises(BoardError, match="desert hex carries no chip"):
        Board.from_json(data)


def test_load_reports_missing_and_garbage_files(tmp_path):
    with pytest.raises(BoardError, match="no such file"):
        Board.load(tmp_path / "nope.json")
    bad = tmp_path / "bad.json"
    bad.write_bytes(b"\xff\x00garbage")
    with pytest.raises(BoardError, match="not a JSON document"):
        Board.load(bad)
