"""The fixer finds the fewest swaps: compared with an exhaustive breadth-first search on a
small board, and shown to report boards that no swap can fix."""

from __future__ import annotations

import random
from collections import deque
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.board import Board, Terrain, Tile, hex_neighbours
from companion.fixes import apply_swaps, describe_swaps, suggest_fixes
from companion.generate import generate_board
from companion.layouts import random_board
from companion.setup_check import (
    BASE_SPEC,
    EXTENSION_SPEC,
    NO_CHIP,
    Layout,
    SetupSpec,
    check_board,
    check_layout,
)
from companion.spiral import BASE_LETTER_VALUES, corner_hexes, spiral_numbers

FLOWER = ((0, 0), (1, -1), (1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1))


def flower_spec(chips: dict[int, int]) -> SetupSpec:
    """Seven hexes (a centre and its ring), 3 fields, 3 forests, 1 desert, no harbours."""
    return replace(
        BASE_SPEC,
        name="flower",
        frame=FLOWER,
        terrains={Terrain.FIELDS: 3, Terrain.FOREST: 3, Terrain.DESERT: 1},
        chips=chips,
        harbor_kinds={},
        harbor_sites=(),
        rules=("BASE-CHIP-PLACEMENT", "BASE-RED-ADJ", "S2-FOREST-PASTURE-NUMBERS"),
    )


def flower_board(terrain: list[Terrain], numbers: list[int]) -> Board:
    tiles = {h: Tile(t, n or None) for h, t, n in zip(FLOWER, terrain, numbers, strict=True)}
    return Board("base", tiles)


def bfs_distances(spec: SetupSpec, terrain: list[Terrain], numbers: list[int]) -> dict:
    """Fewest swaps from every arrangement of ``numbers`` to a legal one (all swaps tried)."""
    template = Layout.of(flower_board(terrain, numbers), spec)
    order = template.geo.hexes
    by_hex = dict(zip(FLOWER, numbers, strict=True))

    def legal(state: tuple[int, ...]) -> bool:
        return not check_layout(template.with_cells(template.terrain, list(state)))

    # Every arrangement of the multiset, found by swaps from the start.
    start = tuple(by_hex[h] for h in order)
    states = {start}
    queue = deque([start])
    while queue:
        s = queue.popleft()
        for i in range(len(s)):
            for j in range(i + 1, len(s)):
                if s[i] != s[j]:
                    t = list(s)
                    t[i], t[j] = t[j], t[i]
                    if (tt := tuple(t)) not in states:
                        states.add(tt)
                        queue.append(tt)
    dist = {s: 0 for s in states if legal(s)}
    queue = deque(dist)
    while queue:
        s = queue.popleft()
        for i in range(len(s)):
            for j in range(i + 1, len(s)):
                if s[i] != s[j]:
                    t = list(s)
                    t[i], t[j] = t[j], t[i]
                    if (tt := tuple(t)) not in dist:
                        dist[tt] = dist[s] + 1
                        queue.append(tt)
    return {"order": order, "dist": dist}


@pytest.mark.parametrize("desert_at", [0, 3])
def test_fewest_chip_swaps_equals_exhaustive_search(desert_at):
    chips = {6: 1, 8: 2, 2: 1, 3: 1, 5: 1}
    spec = flower_spec(chips)
    terrain = [Terrain.FIELDS, Terrain.FOREST] * 3
    terrain.insert(desert_at, Terrain.DESERT)
    numbers = [6, 8, 8, 2, 3, 5]
    numbers.insert(desert_at, NO_CHIP)
    table = bfs_distances(spec, terrain, numbers)
    rng = random.Random(desert_at)
    states = sorted(table["dist"])
    assert max(table["dist"].values()) >= 3  # the sample includes deep cases
    for state in rng.sample(states, 150):
        by_hex = dict(zip(table["order"], state, strict=True))
        board = flower_board(terrain, [by_hex[h] for h in FLOWER])
        fix = suggest_fixes(board, spec, max_swaps=6)
        assert fix.fixed
        assert len(fix.swaps) == table["dist"][state], state
        assert all(s.what == "chips" for s in fix.swaps)
        assert check_board(apply_swaps(board, fix.swaps), spec).ok


def test_too_many_reds_for_the_board_is_reported_as_impossible():
    spec = flower_spec({6: 2, 8: 2, 5: 1, 4: 1})
    terrain = [Terrain.DESERT] + [Terrain.FIELDS, Terrain.FOREST] * 3
    board = flower_board(terrain, [NO_CHIP, 6, 8, 6, 8, 5, 4])
    fix = suggest_fixes(board, spec)
    assert not fix.fixed
    assert "no arrangement of these chips on this terrain" in fix.reason


def test_exhausted_search_proves_impossibility():
    spec = replace(
        flower_spec({6: 1, 8: 1}),
        frame=((0, 0), (1, 0)),
        terrains={Terrain.FIELDS: 2},
    )
    board = Board("base", {(0, 0): Tile(Terrain.FIELDS, 6), (1, 0): Tile(Terrain.FIELDS, 8)})
    fix = suggest_fixes(board, spec)
    assert not fix.fixed and fix.proved
    assert "no arrangement reachable" in fix.reason


def test_hex_swaps_are_used_only_when_chip_swaps_cannot_fix():
    # With the desert in the middle every other hex borders it, so the 6 fits nowhere
    # (S8-DESERT-NEIGHBOURS) until the desert itself moves out to the ring.
    spec = replace(
        flower_spec({6: 1, 2: 1, 3: 1, 4: 1, 5: 1, 9: 1}),
        rules=("BASE-CHIP-PLACEMENT", "BASE-RED-ADJ", "S8-DESERT-NEIGHBOURS"),
    )
    terrain = [Terrain.DESERT] + [Terrain.FIELDS, Terrain.FOREST] * 3
    board = flower_board(terrain, [NO_CHIP, 6, 2, 3, 4, 5, 9])
    assert not check_board(board, spec).ok
    fix = suggest_fixes(board, spec)
    assert fix.fixed
    assert [s.what for s in fix.swaps] == ["hexes"]
    fixed = apply_swaps(board, fix.swaps)
    assert check_board(fixed, spec).ok
    # A hex swap carries the chips along: the same tiles, in other places.
    assert sorted(map(repr, fixed.tiles.values())) == sorted(map(repr, board.tiles.values()))
    assert fixed.tiles[(0, 0)].terrain != Terrain.DESERT


def test_a_fix_longer_than_the_limit_is_reported_as_such():
    board = random_board(4, seed=11)
    reds = [h for h, t in board.tiles.items() if t.number in (6, 8)]
    # Pack all four reds around one hex: several swaps are needed.
    centre = (0, 0) if board.tiles[(0, 0)].terrain != Terrain.DESERT else (1, 0)
    ring = [(centre[0] + dq, centre[1] + dr) for dq, dr in ((1, -1), (1, 0), (0, 1), (-1, 1))]
    ring = [h for h in ring if board.tiles[h].terrain != Terrain.DESERT][:3] + [centre]
    for target, red in zip(ring, reds, strict=False):
        a, b = board.tiles[target], board.tiles[red]
        board.tiles[target], board.tiles[red] = Tile(a.terrain, b.number), Tile(b.terrain, a.number)
    assert not check_board(board).ok
    fix = suggest_fixes(board, max_swaps=1, max_hex_swaps=1)
    assert not fix.fixed and not fix.proved
    assert "more than 1 chip swap (allow more with --max-swaps)" in fix.reason
    assert suggest_fixes(board, max_swaps=4).fixed


def test_a_search_over_its_node_budget_stops_and_says_so(monkeypatch):
    import companion.fixes as fixes

    board = random_board(4, seed=11)
    t = board.tiles
    six = next(h for h in t if t[h].number == 6)
    beside = next(n for n in hex_neighbours(six) if n in t and t[n].number not in (None, 6, 8))
    other_red = next(h for h in t if t[h].number in (6, 8) and h != six)
    red, plain = t[other_red], t[beside]
    t[beside], t[other_red] = Tile(plain.terrain, red.number), Tile(red.terrain, plain.number)
    assert not check_board(board).ok
    monkeypatch.setattr(fixes, "CHIP_NODE_BUDGET", 0)
    fix = suggest_fixes(board)
    assert not fix.fixed and not fix.proved
    assert "stopped" in fix.reason
    monkeypatch.undo()
    assert suggest_fixes(board).fixed


def test_each_swap_names_the_rules_it_cures():
    board = random_board(4, seed=12)
    desert = next(h for h, t in board.tiles.items() if t.terrain == Terrain.DESERT)
    board.robber = next(h for h in board.tiles if h != desert)
    five = next(h for h, t in board.tiles.items() if t.number == 5)
    board.tiles[desert] = Tile(Terrain.DESERT, 5)
    board.tiles[five] = Tile(board.tiles[five].terrain, None)
    fix = suggest_fixes(board)
    assert fix.fixed
    assert [(s.what, s.fixes) for s in fix.swaps] == [
        ("chips", ("BASE-CHIP-PLACEMENT",)),
        ("robber", ("BASE-ROBBER-START",)),
    ]
    assert fix.swaps[0].describe(board) in (
        f"move chip 5 from {desert} to {five}",
        f"move chip 5 from {five} to {desert}".replace(f"from {five}", f"from {desert}"),
    )
    assert fix.swaps[1].to_json() == {
        "swap": [list(board.robber), list(desert)],
        "what": "robber",
        "fixes": ["BASE-ROBBER-START"],
    }


@settings(max_examples=60, deadline=None)
@given(
    st.integers(0, 10**6),
    st.sampled_from(["base", "5-6"]),
    st.lists(st.tuples(st.integers(0, 29), st.integers(0, 29)), min_size=1, max_size=3),
)
def test_damage_by_k_chip_swaps_is_undone_in_at_most_k(seed, kind, damage):
    spec = BASE_SPEC if kind == "base" else EXTENSION_SPEC
    board = generate_board(spec, seed, "none").board
    hexes = sorted(board.tiles)
    for a, b in damage:
        ha, hb = hexes[a % len(hexes)], hexes[b % len(hexes)]
        ta, tb = board.tiles[ha], board.tiles[hb]
        board.tiles[ha], board.tiles[hb] = Tile(ta.terrain, tb.number), Tile(tb.terrain, ta.number)
    fix = suggest_fixes(board, spec, max_swaps=3)
    assert fix.fixed
    assert len(fix.swaps) <= len(damage)  # undoing the damage is a fix, so none is longer
    assert all(s.what == "chips" for s in fix.swaps)
    assert check_board(apply_swaps(board, fix.swaps), spec).ok


@settings(max_examples=40, deadline=None)
@given(
    st.integers(0, 10**6),
    st.sampled_from(["base", "5-6"]),
    st.lists(st.tuples(st.integers(0, 29), st.integers(0, 29)), min_size=1, max_size=4),
)
def test_chips_moved_off_the_lettered_spiral_are_put_back_in_as_many_swaps(seed, kind, damage):
    spec = BASE_SPEC if kind == "base" else EXTENSION_SPEC
    board = generate_board(spec, seed, "none").board
    land = list(board.tiles)
    deserts = [h for h, t in board.tiles.items() if t.terrain == Terrain.DESERT]
    start = corner_hexes(land)[seed % 6]
    laid = spiral_numbers(land, start, deserts, spec.letter_values or ())
    for h in land:
        board.tiles[h] = Tile(board.tiles[h].terrain, laid.get(h))
    spiral_spec = spec.with_rules(spec.optional)
    assert check_board(board, spiral_spec).ok
    chip_hexes = sorted(h for h in land if h not in deserts)
    for a, b in damage:
        ha, hb = chip_hexes[a % len(chip_hexes)], chip_hexes[b % len(chip_hexes)]
        ta, tb = board.tiles[ha], board.tiles[hb]
        board.tiles[ha], board.tiles[hb] = Tile(ta.terrain, tb.number), Tile(tb.terrain, ta.number)
    fix = suggest_fixes(board, spiral_spec)
    assert fix.fixed
    assert len(fix.swaps) <= len(damage)
    assert check_board(apply_swaps(board, fix.swaps), spiral_spec).ok


def test_each_step_is_worded_against_the_board_of_its_moment():
    spec = BASE_SPEC.with_rules(BASE_SPEC.optional)
    board = generate_board(BASE_SPEC, 4, "none").board
    land = list(board.tiles)
    deserts = [h for h, t in board.tiles.items() if t.terrain == Terrain.DESERT]
    laid = spiral_numbers(land, corner_hexes(land)[0], deserts, BASE_LETTER_VALUES)
    for h in land:
        board.tiles[h] = Tile(board.tiles[h].terrain, laid.get(h))
    # A three-cycle of chips 2 -> 12 -> 10: two swaps, the second on already moved chips.
    a = next(h for h in land if laid.get(h) == 2)
    b = next(h for h in land if laid.get(h) == 12)
    c = next(h for h in land if laid.get(h) == 10)
    for h, n in ((a, 10), (b, 2), (c, 12)):
        board.tiles[h] = Tile(board.tiles[h].terrain, n)
    fix = suggest_fixes(board, spec)
    assert fix.fixed and len(fix.swaps) == 2
    texts = describe_swaps(board, fix.swaps)
    now = board
    for s, text in zip(fix.swaps, texts, strict=True):
        assert text == (
            f"swap chip {now.tiles[s.a].number} at {s.a} with chip {now.tiles[s.b].number} at {s.b}"
        )
        now = apply_swaps(now, [s])
    assert check_board(now, spec).ok


def test_poor_chips_on_forest_and_pasture_need_one_swap_each():
    # Two hexes both holding a poor chip cannot cure each other by a swap, so k such hexes
    # need k swaps; the bound sees that and the search goes straight to the answer.
    spec = replace(BASE_SPEC, name="t-s2", rules=(*BASE_SPEC.rules, "S2-FOREST-PASTURE-NUMBERS"))
    board = generate_board(spec, 1, "none").board
    fp = [h for h, t in board.tiles.items() if t.terrain in (Terrain.FOREST, Terrain.PASTURE)]
    poor = [h for h, t in board.tiles.items() if t.number in (2, 3, 11, 12) and h not in fp]
    good_fp = [h for h in fp if board.tiles[h].number not in (6, 8)]
    for src, dst in zip(poor, good_fp, strict=False):
        a, b = board.tiles[dst], board.tiles[src]
        board.tiles[dst], board.tiles[src] = Tile(a.terrain, b.number), Tile(b.terrain, a.number)
    violations = check_board(board, spec).violations
    assert {v.rule for v in violations} == {"S2-FOREST-PASTURE-NUMBERS"}
    assert len(violations) >= 5
    fix = suggest_fixes(board, spec, max_swaps=8)
    assert fix.fixed and len(fix.swaps) == len(violations)
    assert check_board(apply_swaps(board, fix.swaps), spec).ok


def test_with_a_chip_missing_the_red_pair_and_the_robber_are_still_fixed():
    # What a camera may report: one chip unread, a red pair, the robber off the desert.
    board = random_board(4, seed=3)
    t = board.tiles
    five = next(h for h in t if t[h].number == 5)
    t[five] = Tile(t[five].terrain, None)
    six = next(h for h in t if t[h].number == 6)
    beside = next(n for n in hex_neighbours(six) if n in t and t[n].number not in (None, 6, 8))
    eight = next(h for h in t if t[h].number == 8)
    red, plain = t[eight], t[beside]
    t[beside], t[eight] = Tile(plain.terrain, red.number), Tile(red.terrain, plain.number)
    desert = next(h for h in t if t[h].terrain == Terrain.DESERT)
    board.robber = five
    before = {v.rule for v in check_board(board).violations}
    assert {"BASE-CHIP-COUNT", "BASE-RED-ADJ", "BASE-ROBBER-START"} <= before
    fix = suggest_fixes(board)
    assert not fix.fixed and fix.unfixable == ("BASE-CHIP-COUNT",)
    after = {v.rule for v in check_board(apply_swaps(board, fix.swaps)).violations}
    assert "BASE-RED-ADJ" not in after and "BASE-ROBBER-START" not in after
    assert (fix.swaps[-1].what, fix.swaps[-1].a, fix.swaps[-1].b) == ("robber", five, desert)
