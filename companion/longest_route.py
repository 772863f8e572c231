"""The longest route of one player: roads, and in Seafarers ships (RULES.md 1.11.1, 3.5.1).

A route is a trail (no side used twice) through the player's pieces. It may end at an
opponent's building but not pass through it, and it passes from a road to a ship (or back) only
at a corner holding the player's own settlement or city.

How: the network is first folded into *chains*. A corner a trail can only go straight through
(two pieces, no opponent's building, no forbidden road/ship switch) joins its two pieces into
one chain; chains meet at *junctions* (every other corner). The longest trail is then found by
a depth-first search over chains with branch and bound: a trail standing at a junction can add
at most the chains reachable from it, less one chain for every two junctions of odd degree it
cannot pass (a trail passes every corner inside it an even number of times). A network that is
one plain cycle has no junction and is all one route.

>>> from companion.board import Topology, base_frame, Edge
>>> t = Topology.of(base_frame())
>>> owner = [-1] * len(t.edges)
>>> for e in (Edge(0, 0, "NE"), Edge(0, 0, "E"), Edge(0, 0, "SE")):
...     owner[t.edge_index[e]] = 0
>>> longest_route(t, owner, [1] * len(t.edges), [-1] * len(t.vertices), 0)
3
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import NamedTuple

from companion.board import Topology

ROAD, SHIP = 1, 2


class Chain(NamedTuple):
    """Pieces in a row between two junctions ``a`` and ``b`` (``a == b`` for a loop).

    A named tuple rather than a dataclass: a search folds a few of them, many times a game.
    """

    a: int
    b: int
    length: int
    kind_at_a: int
    kind_at_b: int


def longest_route(
    topology: Topology,
    edge_owner: Sequence[int],
    edge_kind: Sequence[int],
    vertex_owner: Sequence[int],
    player: int,
    pieces: Iterable[int] | None = None,
    start: int | None = None,
    known: int = 0,
) -> int:
    """Length (in pieces) of ``player``'s longest route.

    ``edge_owner[e]`` is the seat owning side ``e`` (-1 for none), ``edge_kind[e]`` its piece
    (:data:`ROAD` or :data:`SHIP`), ``vertex_owner[v]`` the seat with a building on corner
    ``v`` (-1 for none). ``pieces``, if given, are the sides ``player`` owns (saves a scan of
    the board; they must agree with ``edge_owner``).

    ``start`` and ``known`` update the length after one new piece: when ``start`` is a corner
    of the new piece with no other piece of ``player``, every route that uses the new piece
    ends there and every other route was there before, so only the routes from ``start`` are
    searched and ``known`` (the length before the new piece) counts as found.
    """
    edge_vertices = topology.edge_vertices
    if pieces is None:
        mine = [e for e, o in enumerate(edge_owner) if o == player]
    else:
        mine = sorted(pieces)
    if not mine:
        return 0
    # Per corner, the player's pieces there: (side, other corner).
    at: dict[int, list[tuple[int, int]]] = {}
    for e in mine:
        a, b = edge_vertices[e]
        at.setdefault(a, []).append((e, b))
        at.setdefault(b, []).append((e, a))

    def passable(v: int) -> bool:
        return vertex_owner[v] in (-1, player)

    def own(v: int) -> bool:
        return vertex_owner[v] == player

    def straight(v: int) -> bool:
        """A corner a trail can only go straight through."""
        pieces = at[v]
        return (
            len(pieces) == 2
            and passable(v)
            and (own(v) or edge_kind[pieces[0][0]] == edge_kind[pieces[1][0]])
        )

    # Judged once per corner: the fold asks about each corner from both sides.
    straight_corners = {v for v in at if straight(v)}
    chains, covered = _fold(at, edge_kind, straight_corners.__contains__)
    best = max(known, max((c.length for c in chains), default=0))
    if start is None and len(covered) < len(mine):
        # Parts of the network with no junction are plain cycles: all one route.
        best = max(best, _plain_cycles(at, covered, edge_vertices))
    if not chains:
        return best

    # junction -> (chain index, other end, kind leaving here, kind arriving there, length)
    ends: dict[int, list[tuple[int, int, int, int, int]]] = {}
    for i, c in enumerate(chains):
        ends.setdefault(c.a, []).append((i, c.b, c.kind_at_a, c.kind_at_b, c.length))
        if c.b != c.a:
            ends.setdefault(c.b, []).append((i, c.a, c.kind_at_b, c.kind_at_a, c.length))
        else:  # a loop meets its junction twice
            ends[c.a].append((i, c.a, c.kind_at_a, c.kind_at_b, c.length))

    total = len(covered)  # every piece a chain covers, once
    # The bound pays for itself only where there are many ways round: on the few chains of
    # an ordinary game the plain search is faster.
    prune = len(chains) > 8

    def bound(v: int, used: int) -> int:
        """Most pieces a trail standing at junction ``v`` can still add."""
        seen, count = used, 0
        degree: dict[int, int] = {}
        stack, visited = [v], {v}
        while stack:
            x = stack.pop()
            if x != v and not passable(x):
                continue
            for i, w, _, _, length in ends[x]:
                if not seen >> i & 1:
                    seen |= 1 << i
                    count += length
                    degree[x] = degree.get(x, 0) + 1
                    degree[w] = degree.get(w, 0) + 1
                    if w not in visited:
                        visited.add(w)
                        stack.append(w)
        odd = sum(1 for x, d in degree.items() if d % 2 and x != v and passable(x))
        return count - odd // 2

    def walk(v: int, used: int, length: int, kind: int) -> None:
        nonlocal best
        if length > best:  # noqa: PLR1730 (max() is a call: too dear in the innermost step)
            best = length
        owner = vertex_owner[v]
        if best >= total or (length and owner != -1 and owner != player):
            return
        if prune and length + bound(v, used) <= best:
            return
        # Leaving by a piece of another kind than the one arrived by needs an own building.
        switch = not length or owner == player
        for i, w, leaving, arriving, chain_length in ends[v]:
            if used >> i & 1 or (leaving != kind and not switch):
                continue
            walk(w, used | (1 << i), length + chain_length, arriving)

    for v in [start] if start is not None else sorted(ends, key=lambda x: -len(ends[x])):
        walk(v, 0, 0, 0)
        if best >= total:
            break
    return best


def _fold(
    at: dict[int, list[tuple[int, int]]],
    edge_kind: Sequence[int],
    is_straight: Callable[[int], bool],
) -> tuple[list[Chain], set[int]]:
    """Fold the pieces between junctions into chains; return them and the sides they cover."""
    chains: list[Chain] = []
    covered: set[int] = set()
    for start, pieces in at.items():
        if is_straight(start):
            continue
        for e, nxt in pieces:
            if e in covered:
                continue
            length, first_kind, last_kind = 1, edge_kind[e], edge_kind[e]
            covered.add(e)
            v = nxt
            while is_straight(v):
                # A straight corner holds two pieces: go on by the other one.
                (x, y), (x2, y2) = at[v]
                e2, w = (x2, y2) if x == e else (x, y)
                if e2 in covered:  # came round to a piece already taken: stop
                    break
                covered.add(e2)
                length += 1
                last_kind = edge_kind[e2]
                e, v = e2, w
            chains.append(Chain(start, v, length, first_kind, last_kind))
    return chains, covered


def _plain_cycles(
    at: dict[int, list[tuple[int, int]]],
    covered: set[int],
    edge_vertices: Sequence[tuple[int, int]],
) -> int:
    """The longest part of the network with no junction (a plain cycle: all one route)."""
    best = 0
    seen = set(covered)
    for pieces in at.values():
        for first, _ in pieces:
            if first in seen:
                continue
            size, stack = 0, [first]
            seen.add(first)
            while stack:
                e = stack.pop()
                size += 1
                for v in edge_vertices[e]:
                    for x, _ in at[v]:
                        if x not in seen:
                            seen.add(x)
                            stack.append(x)
            best = max(best, size)
    return best


def longest_route_from(
    topology: Topology,
    edge_owner: Sequence[int],
    edge_kind: Sequence[int],
    vertex_owner: Sequence[int],
    player: int,
    start: int,
) -> int:
    """Length of ``player``'s longest route that starts at corner ``start``.

    Every trail from ``start`` is walked, side by side, with no folding and no bound: quick
    from the loose end of a small network (a new piece there can only be part of routes that
    start there), but the number of trails grows fast with the cycles of a large network;
    :func:`longest_route` is the search for those.

    >>> from companion.board import Topology, base_frame, Edge
    >>> t = Topology.of(base_frame())
    >>> owner = [-1] * len(t.edges)
    >>> for e in (Edge(0, 0, "NE"), Edge(0, 0, "E"), Edge(0, 0, "SE")):
    ...     owner[t.edge_index[e]] = 0
    >>> a, b = t.edge_vertices[t.edge_index[Edge(0, 0, "NE")]]
    >>> sorted(longest_route_from(t, owner, [1] * len(t.edges), [-1] * len(t.vertices), 0, v)
    ...        for v in (a, b))
    [2, 3]
    """
    vertex_edges, edge_vertices = topology.vertex_edges, topology.edge_vertices
    used: set[int] = set()

    def walk(v: int, kind: int) -> int:
        """The longest way on from ``v``, arrived at by a piece of ``kind`` (0: the start)."""
        owner = vertex_owner[v]
        if kind and owner != -1 and owner != player:
            return 0  # a route may end at an opponent's building, not pass it
        switch = not kind or owner == player  # roads and ships join at own buildings only
        best = 0
        for e in vertex_edges[v]:
            if edge_owner[e] != player or e in used:
                continue
            k = edge_kind[e]
            if k != kind and not switch:
                continue
            used.add(e)
            a, b = edge_vertices[e]
            length = 1 + walk(b if a == v else a, k)
            used.discard(e)
            if length > best:  # noqa: PLR1730 (max() is a call: too dear in the innermost step)
                best = length
        return best

    return walk(start, 0)
