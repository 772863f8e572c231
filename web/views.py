"""What the page is sent: the board's drawing geometry and events redacted for one viewer.

Geometry is computed here from :mod:`companion.board`'s helpers so the page's JavaScript never
re-implements the coordinate scheme: it only draws the points it is given.
"""

from __future__ import annotations

from typing import Any

from companion.board import (
    Board,
    edge_hexes,
    edge_midpoint,
    edge_vertices,
    hex_center,
    hex_corner_points,
    vertex_hexes,
    vertex_position,
)
from companion.game import Event

#: How far (in hex radii) a harbour's label sits out to sea from the side it serves.
HARBOR_OFFSET = 0.55
#: Margin (in hex radii) around the drawn board.
MARGIN = 0.9


def _pt(p: tuple[float, float]) -> list[float]:
    return [round(p[0], 4), round(p[1], 4)]


def spot_key(parts: list[Any] | tuple[Any, ...]) -> str:
    """The key of a corner or side in the layout maps: ``"q,r,NAME"``.

    >>> spot_key([0, -1, "N"])
    '0,-1,N'
    """
    return ",".join(str(p) for p in parts)


def board_layout(board: Board) -> dict[str, Any]:
    """Drawing geometry of ``board`` in hex radii (x east, y south, the SVG convention).

    Returns ``{"hexes": [{q, r, x, y, points}], "vertices": {key: [x, y]},
    "edges": {key: [[x1, y1], [x2, y2]]}, "harbors": [{kind, x, y, a, b}],
    "vertex_hexes": {key: [[q, r], ...]}, "edge_hexes": {key: [[q, r], ...]},
    "viewbox": [x, y, width, height]}`` where keys are :func:`spot_key` of canonical names and
    the ``*_hexes`` maps list the board's hexes around each corner and side (for naming a spot
    by its neighbours, e.g. "by forest 6 and hills 8").
    """
    topo = board.topology
    hexes = []
    for h in topo.hexes:
        cx, cy = hex_center(h)
        hexes.append(
            {"q": h[0], "r": h[1], "x": round(cx, 4), "y": round(cy, 4),
             "points": [_pt(p) for p in hex_corner_points(h)]}
        )  # fmt: skip
    vertices = {spot_key(v): _pt(vertex_position(v)) for v in topo.vertices}
    edges = {spot_key(e): [_pt(vertex_position(v)) for v in edge_vertices(e)] for e in topo.edges}
    on_board = set(topo.hexes)
    around_vertex = {
        spot_key(v): [list(h) for h in vertex_hexes(v) if h in on_board] for v in topo.vertices
    }
    around_edge = {
        spot_key(e): [list(h) for h in edge_hexes(e) if h in on_board] for e in topo.edges
    }
    harbors = []
    for hb in board.harbors:
        cx, cy = hex_center((hb.q, hb.r))
        mx, my = edge_midpoint(hb.edge)
        dx, dy = mx - cx, my - cy
        norm = (dx * dx + dy * dy) ** 0.5 or 1.0
        a, b = (vertex_position(v) for v in hb.vertices)
        harbors.append(
            {
                "kind": hb.kind,
                "x": round(mx + dx / norm * HARBOR_OFFSET, 4),
                "y": round(my + dy / norm * HARBOR_OFFSET, 4),
                "a": _pt(a),
                "b": _pt(b),
            }
        )
    xs = [p[0] for hx in hexes for p in hx["points"]] + [h["x"] for h in harbors]
    ys = [p[1] for hx in hexes for p in hx["points"]] + [h["y"] for h in harbors]
    x0, y0 = min(xs) - MARGIN, min(ys) - MARGIN
    viewbox = [round(x0, 4), round(y0, 4), round(max(xs) + MARGIN - x0, 4),
               round(max(ys) + MARGIN - y0, 4)]  # fmt: skip
    return {
        "hexes": hexes,
        "vertices": vertices,
        "edges": edges,
        "harbors": harbors,
        "vertex_hexes": around_vertex,
        "edge_hexes": around_edge,
        "viewbox": viewbox,
    }


def redact(event: Event, viewer: str | None) -> Event:
    """``event`` as ``viewer`` (a colour, or None for a spectator) may see it.

    A bought development card is known to its buyer only; a stolen card to the thief and the
    victim only (RULES.md 1.10.1 and 1.7.4: hidden information stays hidden); the keys a
    scenario's event lists under ``secret`` to its player only.

    >>> e = {"type": "bought_card", "player": "red", "card": "knight"}
    >>> redact(e, "blue")
    {'type': 'bought_card', 'player': 'red'}
    >>> redact(e, "red")["card"]
    'knight'
    """
    if "secret" in event and viewer != event.get("player"):
        # A scenario's event names the keys only its player may see (a card drawn).
        hidden = set(event["secret"]) | {"secret"}
        return {k: v for k, v in event.items() if k not in hidden}
    match event.get("type"):
        case "bought_card" if viewer != event.get("player"):
            return {k: v for k, v in event.items() if k != "card"}
        case "robber_moved" if viewer not in (event.get("player"), event.get("victim")):
            return {k: v for k, v in event.items() if k != "stolen"}
    return event
