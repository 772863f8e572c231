"""Board drawing geometry and per-viewer redaction."""

from __future__ import annotations

import math

import pytest

from companion.board import edge_vertices, hex_center, vertex_hexes
from companion.layouts import random_board
from web.views import board_layout, redact, spot_key


def test_layout_matches_the_board_geometry() -> None:
    board = random_board(4, seed=5)
    layout = board_layout(board)
    topo = board.topology
    for h in layout["hexes"]:
        assert (h["x"], h["y"]) == tuple(round(c, 4) for c in hex_center((h["q"], h["r"])))
        # Six corners at distance 1 (the unit is the hex's circumradius).
        for px, py in h["points"]:
            assert math.hypot(px - h["x"], py - h["y"]) == pytest.approx(1.0, abs=1e-3)
    for e in topo.edges:
        a, b = layout["edges"][spot_key(e)]
        assert [layout["vertices"][spot_key(v)] for v in edge_vertices(e)] == [a, b]
        assert math.hypot(a[0] - b[0], a[1] - b[1]) == pytest.approx(1.0, abs=1e-3)
    for v in topo.vertices:
        around = layout["vertex_hexes"][spot_key(v)]
        assert around == [list(h) for h in vertex_hexes(v) if h in topo.hex_index]


def test_harbour_labels_lie_out_at_sea() -> None:
    board = random_board(4, seed=5)
    layout = board_layout(board)
    for hb, drawn in zip(board.harbors, layout["harbors"], strict=True):
        cx, cy = hex_center((hb.q, hb.r))
        # Farther from the hex it serves than that hex's own corners.
        assert math.hypot(drawn["x"] - cx, drawn["y"] - cy) > 1.0
        assert drawn["kind"] == hb.kind


def test_viewbox_holds_everything() -> None:
    layout = board_layout(random_board(6, seed=2))
    x, y, w, h = layout["viewbox"]
    points = [p for hx in layout["hexes"] for p in hx["points"]]
    points += [[hb["x"], hb["y"]] for hb in layout["harbors"]]
    assert all(x < px < x + w and y < py < y + h for px, py in points)


def test_stolen_card_is_known_to_thief_and_victim_only() -> None:
    event = {"type": "robber_moved", "player": "red", "hex": [0, 0], "victim": "blue",
             "stolen": "ore"}  # fmt: skip
    assert redact(event, "red")["stolen"] == "ore"
    assert redact(event, "blue")["stolen"] == "ore"
    for viewer in ("white", None):
        seen = redact(event, viewer)
        assert "stolen" not in seen and seen["victim"] == "blue"
    assert event["stolen"] == "ore"  # the original is not modified


def test_public_events_pass_unchanged() -> None:
    event = {"type": "rolled", "player": "red", "dice": [2, 3], "total": 5}
    assert redact(event, None) is event
    bought = {"type": "bought_card", "player": "red", "card": "knight"}
    assert redact(bought, None) == {"type": "bought_card", "player": "red"}
