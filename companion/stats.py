"""Board statistics for the table: production per resource and per corner, best openings,
and the cards each player can expect once settlements stand.

Everything is returned as plain JSON-safe dicts (str keys, int/float/str/list values) so the
web page can show it as it is. Units: *pips* are the number of dice combinations (out of 36)
that roll a chip's value (2 and 12: 1, 6 and 8: 5); an expected number of cards is per roll or
per round, where one round is one roll per player.

>>> from companion.layouts import random_board
>>> s = board_stats(random_board(4, seed=2))
>>> sum(s["pips_per_resource"].values())
58
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from companion.board import PIPS, RESOURCES, Board, Terrain, Topology, Vertex

#: What a gold field pays out: one resource of the player's choice.
ANY = "any"


def _resource_key(terrain: Terrain) -> str | None:
    if terrain == Terrain.GOLD:
        return ANY
    res = terrain.resource
    return None if res is None else res.value


def _harbour_at(board: Board) -> dict[Vertex, str]:
    out: dict[Vertex, str] = {}
    for hb in board.harbors:
        for v in hb.vertices:
            out[v] = hb.kind
    return out


def corner_production(board: Board, v: Vertex, robber_blocks: bool = True) -> dict[str, int]:
    """Pips per resource (and ``"any"`` for gold) of the hexes around corner ``v``."""
    out: dict[str, int] = {}
    topo = board.topology
    for hi in topo.vertex_hexes[topo.vertex_index[v]]:
        h = topo.hexes[hi]
        tile = board.tiles[h]
        key = _resource_key(tile.terrain)
        if key is None or tile.number is None or (robber_blocks and board.robber == h):
            continue
        out[key] = out.get(key, 0) + PIPS[tile.number]
    return out


def _blocked(topo: Topology, occupied: Iterable[Vertex]) -> set[int]:
    """Corners where the distance rule forbids a new settlement."""
    out: set[int] = set()
    for v in occupied:
        i = topo.vertex_index.get(v)
        if i is not None:
            out.add(i)
            out.update(topo.vertex_neighbours[i])
    return out


def board_stats(board: Board, players: int | None = None, top: int = 10) -> dict[str, Any]:
    """Statistics of a board, for the web page.

    Keys: ``pips_per_resource`` and ``hexes_per_resource`` (resource -> int, gold under
    ``"any"``); ``corners`` (every corner touching a producing hex: ``vertex`` [q, r, "N"|"S"],
    ``pips``, ``resources`` resource -> pips, ``harbor`` kind or None), ordered best first;
    ``best_openings``: the ``top`` best corners still free under the distance rule;
    ``players``: per colour with buildings, ``settlements``, ``cities``, ``cards_per_roll`` and
    ``cards_per_round`` (resource -> expected cards) and ``total_per_round``, where a round is
    ``players`` rolls (default: the number of colours on the board). The robber's hex produces
    nothing for the corners and players, but still counts in ``pips_per_resource``.
    """
    pips: dict[str, int] = {r.value: 0 for r in RESOURCES}
    count: dict[str, int] = {r.value: 0 for r in RESOURCES}
    for tile in board.tiles.values():
        key = _resource_key(tile.terrain)
        if key is None:
            continue
        count[key] = count.get(key, 0) + 1
        pips[key] = pips.get(key, 0) + (PIPS[tile.number] if tile.number else 0)

    topo = board.topology
    harbours = _harbour_at(board)
    corners: list[dict[str, Any]] = []
    for v in topo.vertices:
        prod = corner_production(board, v)
        if not prod:
            continue
        corners.append(
            {
                "vertex": [v.q, v.r, v.corner],
                "pips": sum(prod.values()),
                "resources": dict(sorted(prod.items())),
                "harbor": harbours.get(v),
            }
        )
    # Best first; among equal pips, more different resources is the better opening.
    corners.sort(key=lambda c: (-c["pips"], -len(c["resources"]), c["vertex"]))

    buildings = [
        (p.color, p.kind, p.vertex)
        for p in board.pieces
        if p.kind in ("settlement", "city") and p.vertex is not None
    ]
    blocked = _blocked(topo, (v for _, _, v in buildings))
    openings = [
        c
        for c in corners
        if topo.vertex_index[Vertex(c["vertex"][0], c["vertex"][1], c["vertex"][2])] not in blocked
    ][:top]

    colours = sorted({p.color for p in board.pieces})
    rolls_per_round = players if players is not None else len(colours)
    per_player: dict[str, Any] = {}
    for colour in sorted({c for c, _, _ in buildings}):
        per_roll: dict[str, float] = {}
        mine = [(kind, v) for c, kind, v in buildings if c == colour]
        for kind, v in mine:
            factor = 2 if kind == "city" else 1
            for key, n in corner_production(board, v).items():
                per_roll[key] = per_roll.get(key, 0.0) + factor * n / 36.0
        per_round = {k: round(x * rolls_per_round, 4) for k, x in sorted(per_roll.items())}
        per_player[colour] = {
            "settlements": sum(1 for kind, _ in mine if kind == "settlement"),
            "cities": sum(1 for kind, _ in mine if kind == "city"),
            "cards_per_roll": {k: round(x, 4) for k, x in sorted(per_roll.items())},
            "cards_per_round": per_round,
            "total_per_round": round(sum(per_roll.values()) * rolls_per_round, 4),
        }
    return {
        "pips_per_resource": pips,
        "hexes_per_resource": count,
        "corners": corners,
        "best_openings": openings,
        "rolls_per_round": rolls_per_round,
        "players": per_player,
    }
