"""The longest route of one player: roads, and in Seafarers ships (RULES.md 1.11.1, 3.5.1).

A route is a trail (no side used twice) through the player's pieces. It may end at an
opponent's building but not pass through it, and it passes from a road to a ship (or back) only
at a corner holding the player's own settlement or city.

The search is a depth-first enumeration of trails from every useful start: a corner where the
network does not simply pass through (not exactly two pieces, an opponent's building, or a road
meeting a ship without an own building). A longest trail can always be taken to start at such
a corner, since otherwise it could be extended; a part of the network that is a plain cycle has
none, and starts anywhere on it. The set of used sides is an integer bit mask.

>>> from companion.board import Topology, base_frame, Edge
>>> t = Topology.of(base_frame())
>>> owner = [-1] * len(t.edges)
>>> for e in (Edge(0, 0, "NE"), Edge(0, 0, "E"), Edge(0, 0, "SE")):
...     owner[t.edge_index[e]] = 0
>>> longest_route(t, owner, [1] * len(t.edges), [-1] * len(t.vertices), 0)
3
"""

from __future__ import annotations

from collections.abc import Sequence

from companion.board import Topology

ROAD, SHIP = 1, 2


def longest_route(
    topology: Topology,
    edge_owner: Sequence[int],
    edge_kind: Sequence[int],
    vertex_owner: Sequence[int],
    player: int,
) -> int:
    """Length (in pieces) of ``player``'s longest route.

    ``edge_owner[e]`` is the seat owning side ``e`` (-1 for none), ``edge_kind[e]`` its piece
    (:data:`ROAD` or :data:`SHIP`), ``vertex_owner[v]`` the seat with a building on corner
    ``v`` (-1 for none).
    """
    edge_vertices = topology.edge_vertices
    mine = [e for e, o in enumerate(edge_owner) if o == player]
    if not mine:
        return 0
    # Per corner, the player's pieces there: (side, other corner, kind).
    links: dict[int, list[tuple[int, int, int]]] = {}
    for e in mine:
        a, b = edge_vertices[e]
        k = edge_kind[e]
        links.setdefault(a, []).append((e, b, k))
        links.setdefault(b, []).append((e, a, k))

    def passable(v: int) -> bool:
        return vertex_owner[v] in (-1, player)

    def own_building(v: int) -> bool:
        return vertex_owner[v] == player

    starts = [
        v
        for v, ls in links.items()
        if len(ls) != 2 or not passable(v) or (ls[0][2] != ls[1][2] and not own_building(v))
    ]
    # A part of the network that is one plain cycle has no such corner: any corner will do.
    reached: set[int] = set()
    for v in starts:
        _flood(v, links, reached)
    for v in links:
        if v not in reached:
            starts.append(v)
            _flood(v, links, reached)

    best = 0
    total = len(mine)

    def walk(v: int, used: int, length: int, kind: int) -> None:
        nonlocal best
        if length > best:
            best = length
        if best == total or (length and not passable(v)):
            return
        switch_ok = own_building(v)
        for e, w, k in links[v]:
            if used >> e & 1:
                continue
            if length and k != kind and not switch_ok:
                continue
            walk(w, used | (1 << e), length + 1, k)

    for v in starts:
        walk(v, 0, 0, 0)
        if best == total:
            break
    return best


def _flood(start: int, links: dict[int, list[tuple[int, int, int]]], reached: set[int]) -> None:
    """Add every corner connected to ``start`` through the player's pieces to ``reached``."""
    stack = [start]
    while stack:
        v = stack.pop()
        if v in reached:
            continue
        reached.add(v)
        stack.extend(w for _, w, _ in links[v] if w not in reached)
