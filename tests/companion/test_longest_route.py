"""longest_route against a brute-force search over every trail from every corner."""

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from companion.board import Topology, base_frame
from companion.longest_route import ROAD, SHIP, longest_route, longest_route_from

TOPO = Topology.of(base_frame())


def brute_force(edge_owner, edge_kind, vertex_owner, player, starts=None) -> int:
    """Every trail from every corner (or from ``starts``), no shortcut: the reference."""
    t = TOPO
    best = 0

    def walk(v, used, length, kind):
        nonlocal best
        best = max(best, length)
        if length and vertex_owner[v] not in (-1, player):
            return
        for e in t.vertex_edges[v]:
            if edge_owner[e] != player or e in used:
                continue
            if length and edge_kind[e] != kind and vertex_owner[v] != player:
                continue
            a, b = t.edge_vertices[e]
            walk(b if a == v else a, used | {e}, length + 1, edge_kind[e])

    for v in range(len(t.vertices)) if starts is None else starts:
        walk(v, frozenset(), 0, 0)
    return best


networks = st.fixed_dictionaries(
    {
        "pieces": st.dictionaries(
            st.integers(0, len(TOPO.edges) - 1),
            st.tuples(st.integers(0, 2), st.sampled_from([ROAD, SHIP])),
            max_size=20,
        ),
        "buildings": st.dictionaries(
            st.integers(0, len(TOPO.vertices) - 1), st.integers(0, 2), max_size=8
        ),
    }
)


def board_arrays(net: dict) -> tuple[list[int], list[int], list[int]]:
    """A drawn network as the engine's arrays: side owners, side kinds, corner owners."""
    owner = [-1] * len(TOPO.edges)
    kind = [0] * len(TOPO.edges)
    for e, (p, k) in net["pieces"].items():
        owner[e], kind[e] = p, k
    vowner = [-1] * len(TOPO.vertices)
    for v, p in net["buildings"].items():
        vowner[v] = p
    return owner, kind, vowner


@settings(max_examples=300, deadline=None)
@given(networks)
def test_longest_route_equals_the_brute_force_search(net):
    owner, kind, vowner = board_arrays(net)
    for player in range(3):
        assert longest_route(TOPO, owner, kind, vowner, player) == brute_force(
            owner, kind, vowner, player
        )


def test_a_plain_cycle_beside_a_line_is_not_missed():
    # The six sides of hex (0, 0) form a cycle; a two-road line lies elsewhere.
    owner = [-1] * len(TOPO.edges)
    kind = [ROAD] * len(TOPO.edges)
    for e in TOPO.hex_edges[TOPO.hex_index[(0, 0)]]:
        owner[e] = 0
    far = TOPO.hex_edges[TOPO.hex_index[(-2, 2)]]
    owner[far[3]] = owner[far[4]] = 0
    assert longest_route(TOPO, owner, kind, [-1] * len(TOPO.vertices), 0) == 6


@settings(max_examples=300, deadline=None)
@given(networks, st.integers(0, len(TOPO.edges) - 1), st.sampled_from([ROAD, SHIP]))
def test_the_update_after_a_new_piece_at_a_loose_end_equals_a_full_search(net, new, new_kind):
    owner, kind, vowner = board_arrays(net)
    assume(owner[new] != 0)  # a new piece of player 0
    before = brute_force(owner, kind, vowner, 0)
    owner[new], kind[new] = 0, new_kind
    loose = [
        v
        for v in TOPO.edge_vertices[new]
        if all(owner[x] != 0 for x in TOPO.vertex_edges[v] if x != new)
    ]
    assume(loose)
    assert longest_route(TOPO, owner, kind, vowner, 0, start=loose[0], known=before) == brute_force(
        owner, kind, vowner, 0
    )


def test_the_update_keeps_a_longer_route_elsewhere():
    # Five sides of hex (0, 0) with a spur in the middle: the 5-piece route passes a
    # junction, so no single chain is as long. A new piece far away adds nothing to it.
    owner = [-1] * len(TOPO.edges)
    kind = [ROAD] * len(TOPO.edges)
    ring = TOPO.hex_edges[TOPO.hex_index[(0, 0)]]
    path = [ring[0]]
    while len(path) < 5:  # walk the ring side by side
        path.append(
            next(
                e
                for e in ring
                if e not in path and set(TOPO.edge_vertices[e]) & set(TOPO.edge_vertices[path[-1]])
            )
        )
    for e in path:
        owner[e] = 0
    middle = (set(TOPO.edge_vertices[path[2]]) & set(TOPO.edge_vertices[path[3]])).pop()
    spur = next(e for e in TOPO.vertex_edges[middle] if owner[e] == -1)
    owner[spur] = 0
    vowner = [-1] * len(TOPO.vertices)
    assert longest_route(TOPO, owner, kind, vowner, 0) == 5
    far = TOPO.hex_edges[TOPO.hex_index[(-2, 2)]][3]
    owner[far] = 0
    a, _ = TOPO.edge_vertices[far]
    assert longest_route(TOPO, owner, kind, vowner, 0, start=a, known=5) == 5


@settings(max_examples=200, deadline=None)
@given(networks)
def test_the_routes_from_each_corner_equal_the_brute_force_search(net):
    owner, kind, vowner = board_arrays(net)
    for e, (player, _) in net["pieces"].items():
        for start in TOPO.edge_vertices[e]:
            assert longest_route_from(TOPO, owner, kind, vowner, player, start) == brute_force(
                owner, kind, vowner, player, [start]
            )
