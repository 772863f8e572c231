"""Generated boards pass every rule, meet their balance level, and are reproducible by seed."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.benches.setup import SEAFARERS_LIKE
from companion.board import PIPS, Board, Terrain, Vertex, hex_neighbours, vertex_hexes
from companion.generate import (
    BALANCES,
    TOURNAMENT_LIMITS,
    GenerationError,
    generate_board,
    measure,
)
from companion.layouts import random_board
from companion.setup_check import BASE_SPEC, EXTENSION_SPEC, check_board

SPECS = {"base": BASE_SPEC, "5-6": EXTENSION_SPEC, "seafarers-like": SEAFARERS_LIKE}
seeds = st.integers(0, 2**32 - 1)


def adjacent_pairs(board: Board):
    for h in board.tiles:
        for n in hex_neighbours(h):
            if n in board.tiles and n > h:
                yield board.tiles[h], board.tiles[n]


def mean_pips_spread(board: Board) -> float:
    by: dict[Terrain, list[int]] = {}
    for t in board.tiles.values():
        if t.terrain.resource is not None:
            by.setdefault(t.terrain, []).append(PIPS[t.number])
    means = [sum(v) / len(v) for v in by.values()]
    return max(means) - min(means)


def clump_sizes(board: Board) -> list[int]:
    sizes, seen = [], set()
    for h, t in board.tiles.items():
        if h in seen or (t.terrain.resource is None and t.terrain != Terrain.GOLD):
            continue
        stack, size = [h], 0
        seen.add(h)
        while stack:
            x = stack.pop()
            size += 1
            for n in hex_neighbours(x):
                if n in board.tiles and n not in seen and board.tiles[n].terrain == t.terrain:
                    seen.add(n)
                    stack.append(n)
        sizes.append(size)
    return sizes


@settings(max_examples=60, deadline=None)
@given(seeds, st.sampled_from(sorted(SPECS)), st.sampled_from(BALANCES))
def test_every_generated_board_passes_every_rule(seed, name, balance):
    spec = SPECS[name]
    board = generate_board(spec, seed, balance).board
    report = check_board(board, spec)
    assert report.ok, report.violations
    # and survives its JSON form
    assert check_board(Board.from_json(board.to_json()), spec).ok


@settings(max_examples=40, deadline=None)
@given(seeds, st.sampled_from(sorted(SPECS)))
def test_fair_boards_keep_equal_numbers_and_terrains_apart(seed, name):
    board = generate_board(SPECS[name], seed, "fair").board
    assert not any(a.number and a.number == b.number for a, b in adjacent_pairs(board))
    assert max(clump_sizes(board)) <= 2


@settings(max_examples=40, deadline=None)
@given(seeds, st.sampled_from(sorted(SPECS)))
def test_tournament_boards_even_out_production(seed, name):
    board = generate_board(SPECS[name], seed, "tournament").board
    assert mean_pips_spread(board) <= TOURNAMENT_LIMITS["pip_spread"] + 1e-9
    assert not any(a.number and a.number == b.number for a, b in adjacent_pairs(board))
    for hb in board.harbors:
        if hb.kind != "3:1":
            near = {x for v in hb.vertices for x in vertex_hexes(v) if x in board.tiles}
            assert all(board.tiles[x].terrain.resource != hb.kind for x in near)
    corner_pips = []
    for h in board.tiles:
        for corner in ("N", "S"):
            hexes = [x for x in vertex_hexes(Vertex(h[0], h[1], corner)) if x in board.tiles]
            producing = [board.tiles[x] for x in hexes if board.tiles[x].number]
            pips = sum(PIPS[t.number] for t in producing)
            corner_pips.append(pips)
            if len(producing) == 3:
                assert pips >= TOURNAMENT_LIMITS["min_inland_corner"]
    assert max(corner_pips) <= TOURNAMENT_LIMITS["max_corner"]


@settings(max_examples=30, deadline=None)
@given(seeds, st.sampled_from(sorted(SPECS)), st.sampled_from(BALANCES))
def test_the_same_seed_gives_the_same_board(seed, name, balance):
    a = generate_board(SPECS[name], seed, balance).board
    b = generate_board(SPECS[name], seed, balance).board
    assert a.to_json() == b.to_json()


def test_different_seeds_give_different_boards():
    boards = {str(generate_board(BASE_SPEC, s, "tournament").board.to_json()) for s in range(30)}
    assert len(boards) == 30


def test_robber_starts_on_a_desert_and_both_5_6_deserts_are_used():
    robbers = set()
    for s in range(40):
        board = generate_board(EXTENSION_SPEC, s, "none").board
        assert board.tiles[board.robber].terrain == Terrain.DESERT
        deserts = sorted(h for h, t in board.tiles.items() if t.terrain == Terrain.DESERT)
        robbers.add(deserts.index(board.robber))
    assert robbers == {0, 1}


def test_balance_levels_order_the_mean_score():
    def mean(level: str) -> float:
        return sum(generate_board(BASE_SPEC, s, level).balance.score for s in range(60)) / 60

    assert mean("none") > mean("fair") > mean("tournament")


def test_measure_counts_what_it_says_on_a_plain_random_board():
    board = random_board(4, seed=21)
    b = measure(board)
    pairs = list(adjacent_pairs(board))
    assert b.same_number_pairs == sum(1 for a, c in pairs if a.number and a.number == c.number)
    assert b.same_terrain_pairs == sum(
        1 for a, c in pairs if a.terrain == c.terrain and a.terrain != Terrain.DESERT
    )
    assert b.largest_clump == max(clump_sizes(board))
    assert b.pip_spread == pytest.approx(mean_pips_spread(board))
    assert b.score >= 2.0 * b.pip_spread + b.same_number_pairs


def test_unknown_balance_and_impossible_specs_are_refused():
    with pytest.raises(ValueError, match="--balance"):
        generate_board(BASE_SPEC, 1, "perfect")
    everywhere = replace(
        BASE_SPEC,
        name="t-nowhere",
        rules=BASE_SPEC.rules + ("S5-NO-CHIP-SMALL",),
        params={"S5-NO-CHIP-SMALL": {"hexes": list(BASE_SPEC.frame)}},
    )
    with pytest.raises(GenerationError, match="take a chip"):
        generate_board(everywhere, 1, "none")
    short = replace(BASE_SPEC, name="t-short", terrains={Terrain.FOREST: 3})
    with pytest.raises(ValueError, match="free places"):
        generate_board(short, 1, "none")
