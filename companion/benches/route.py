"""``catan-companion bench route``: the longest route on the worst network we can build.

Six players on a large sea map; each owns 15 roads laid on every side of three hexes that
meet at a corner, and up to 15 ships the same way on three neighbouring sea hexes, joined by
the player's own settlements where roads meet ships. Every corner of such a patch has degree
2 or 3, the network is full of cycles and branches: the search for the longest trail has the
most choices there is (RULES.md 1.11.1 and 3.5.1). Goal (issue 3): under 1 ms median.
"""

from __future__ import annotations

import argparse
import statistics
import time

from companion.benches import print_report
from companion.board import Topology, hex_distance, hex_edges
from companion.longest_route import ROAD, SHIP, longest_route

#: A corner of each player's road patch; the ship patch lies beside it.
ORIGINS = ((-6, 0), (-2, -4), (3, -5), (4, 0), (0, 4), (-5, 5))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--repeat", type=int, default=200, help="recomputes per player")
    parser.add_argument("--json", action="store_true", help="one JSON document on stdout")


def worst_case() -> tuple[Topology, list[int], list[int], list[int]]:
    """The topology and the owner/kind/building arrays of the network described above."""
    frame = [
        (q, r) for q in range(-7, 8) for r in range(-7, 8) if hex_distance((q, r), (0, 0)) <= 7
    ]
    t = Topology.of(frame)
    owner = [-1] * len(t.edges)
    kind = [0] * len(t.edges)
    buildings = [-1] * len(t.vertices)
    for p, (q, r) in enumerate(ORIGINS):
        roads = [(q, r), (q + 1, r), (q, r + 1)]
        ships = (
            [(q + 1, r - 2), (q + 2, r - 2), (q + 1, r - 1)]
            if p % 2
            else [(q - 1, r + 2), (q, r + 2), (q - 1, r + 3)]
        )
        for hexes, k in ((roads, ROAD), (ships, SHIP)):
            for h in hexes:
                for e in hex_edges(h):
                    i = t.edge_index[e]
                    if owner[i] == -1:
                        owner[i], kind[i] = p, k
        for v in range(len(t.vertices)):
            kinds = {kind[e] for e in t.vertex_edges[v] if owner[e] == p}
            if kinds == {ROAD, SHIP}:
                buildings[v] = p
    return t, owner, kind, buildings


def run(args: argparse.Namespace) -> int:
    if args.repeat < 1:
        raise ValueError("--repeat must be at least 1")
    t, owner, kind, buildings = worst_case()
    pieces = [sum(1 for o in owner if o == p) for p in range(len(ORIGINS))]
    times: list[float] = []
    lengths = []
    for _ in range(args.repeat):
        for p in range(len(ORIGINS)):
            t0 = time.perf_counter()
            lengths.append(longest_route(t, owner, kind, buildings, p))
            times.append(time.perf_counter() - t0)
    times.sort()
    result = {
        "command": f"catan-companion bench route --repeat {args.repeat}"
        + (" --json" if args.json else ""),
        "players": len(ORIGINS),
        "pieces_per_player": pieces,
        "route_lengths": sorted(set(lengths)),
        "recomputes": len(times),
        "median_ms": round(statistics.median(times) * 1000, 3),
        "p99_ms": round(times[int(0.99 * (len(times) - 1))] * 1000, 3),
        "max_ms": round(times[-1] * 1000, 3),
    }
    print_report(result, args.json)
    return 0
