"""Setup checks (RULES.md §7): each rule broken alone, reported under its ID, and cured by the
suggested swaps."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.benches.setup import SEAFARERS_LIKE
from companion.board import (
    CHIP_VALUES,
    HARBOR_KINDS,
    SIDES,
    Board,
    Harbor,
    Piece,
    Terrain,
    Tile,
    Vertex,
    hex_neighbour,
    hex_neighbours,
)
from companion.fixes import apply_swaps, suggest_fixes
from companion.generate import generate_board
from companion.layouts import random_board
from companion.setup_check import (
    BASE_SPEC,
    EXTENSION_SPEC,
    RULES,
    SPECS,
    Layout,
    SetupSpec,
    SpecError,
    check_board,
    check_layout,
    draw_board,
    register_chip_rule,
    register_spec,
    spec_for,
)
from companion.setup_check import ChipConstraints as Cons


def legal(players: int = 4, seed: int = 1) -> Board:
    board = random_board(players, seed=seed)
    assert check_board(board).ok
    return board


def set_number(board: Board, h: tuple[int, int], n: int | None) -> None:
    board.tiles[h] = Tile(board.tiles[h].terrain, n)


def set_terrain(board: Board, h: tuple[int, int], t: Terrain) -> None:
    board.tiles[h] = Tile(t, board.tiles[h].number)


def rules_of(board: Board, spec: SetupSpec | None = None, **kw: object) -> set[str]:
    return {v.rule for v in check_board(board, spec, **kw).violations}  # type: ignore[arg-type]


def assert_fixed_by_suggestion(board: Board, spec: SetupSpec | None = None, **kw: object) -> None:
    fix = suggest_fixes(board, spec, **kw)  # type: ignore[arg-type]
    assert fix.fixed, fix.reason
    assert fix.swaps
    assert check_board(apply_swaps(board, fix.swaps), spec, **kw).ok  # type: ignore[arg-type]


def make_red_pair(board: Board) -> tuple[tuple[int, int], tuple[int, int]]:
    """Move an 8 next to exactly one 6 (by a swap, so the chip counts stay right)."""
    t = board.tiles

    def red(h: tuple[int, int]) -> bool:
        return h in t and t[h].number in (6, 8)

    for six in (h for h in t if t[h].number == 6):
        for nb in hex_neighbours(six):
            if nb not in t or t[nb].number in (None, 6, 8):
                continue
            if [n for n in hex_neighbours(nb) if red(n)] != [six]:
                continue
            eight = next(h for h in t if t[h].number == 8 and h not in hex_neighbours(nb))
            n = t[nb].number
            set_number(board, nb, 8)
            set_number(board, eight, n)
            return six, nb
    raise AssertionError("no place for a red pair")


# --- base game ----------------------------------------------------------------------------


def test_a_random_legal_board_passes_every_base_rule():
    report = check_board(legal())
    assert report.ok and report.violations == []


def test_hex_count_wrong_terrain_is_reported_and_not_fixable_by_swaps():
    board = legal()
    forest = next(h for h, t in board.tiles.items() if t.terrain == Terrain.FOREST)
    set_terrain(board, forest, Terrain.HILLS)
    report = check_board(board)
    assert {v.rule for v in report.violations} == {"BASE-HEX-COUNT"}
    assert "3 forest (want 4)" in report.violations[0].message
    fix = suggest_fixes(board)
    assert not fix.fixed and fix.unfixable == ("BASE-HEX-COUNT",) and fix.proved
    assert "BASE-HEX-COUNT" in fix.reason


def test_chip_count_wrong_value_is_reported():
    board = legal()
    five = next(h for h, t in board.tiles.items() if t.number == 5)
    set_number(board, five, 4)
    assert rules_of(board) == {"BASE-CHIP-COUNT"}
    assert suggest_fixes(board).unfixable == ("BASE-CHIP-COUNT",)


def test_chip_on_the_desert_is_moved_to_the_bare_hex():
    board = legal()
    desert = next(h for h, t in board.tiles.items() if t.terrain == Terrain.DESERT)
    donor = next(h for h, t in board.tiles.items() if t.number == 5)
    set_number(board, desert, 5)
    set_number(board, donor, None)
    report = check_board(board)
    assert {v.rule for v in report.violations} == {"BASE-CHIP-PLACEMENT"}
    assert {h for v in report.violations for h in v.hexes} == {desert, donor}
    fix = suggest_fixes(board)
    assert len(fix.swaps) == 1 and fix.swaps[0].what == "chips"
    assert {fix.swaps[0].a, fix.swaps[0].b} == {desert, donor}
    assert check_board(apply_swaps(board, fix.swaps)).ok


def test_adjacent_red_numbers_are_reported_with_both_hexes_and_fixed_in_one_swap():
    board = legal()
    a, b = make_red_pair(board)
    report = check_board(board)
    assert [v.rule for v in report.violations] == ["BASE-RED-ADJ"]
    assert set(report.violations[0].hexes) == {a, b}
    fix = suggest_fixes(board)
    assert len(fix.swaps) == 1 and fix.swaps[0].fixes == ("BASE-RED-ADJ",)
    assert check_board(apply_swaps(board, fix.swaps)).ok


def test_wrong_harbour_kinds_are_reported():
    board = legal()
    hb = next(h for h in board.harbors if h.kind == "ore")
    board.harbors[board.harbors.index(hb)] = replace(hb, kind="3:1")
    report = check_board(board)
    assert rules_of(board) == {"BASE-HARBOURS"}
    assert "5 3:1 (want 4)" in report.violations[0].message


def test_robber_off_the_desert_is_moved_back():
    board = legal()
    desert = board.robber
    board.robber = next(h for h, t in board.tiles.items() if t.terrain == Terrain.FOREST)
    assert rules_of(board) == {"BASE-ROBBER-START"}
    fix = suggest_fixes(board)
    assert [(s.what, s.b) for s in fix.swaps] == [("robber", desert)]
    assert check_board(apply_swaps(board, fix.swaps)).ok


def test_too_many_pieces_of_one_colour():
    board = legal()
    corners = [Vertex(q, r, "N") for q, r in list(board.tiles)[:6]]
    board.pieces = [Piece("settlement", "blue", vertex=v) for v in corners]
    assert rules_of(board) == {"BASE-PIECES"}
    board.pieces = board.pieces[:5]
    assert rules_of(board) == set()


def test_red_is_unused_with_three_players_in_the_beginner_set_up_only():
    board = legal()
    board.pieces = [Piece("settlement", "red", vertex=Vertex(0, 0, "N"))]
    assert rules_of(board, players=3, beginner=True) == {"BASE-3P-COLOURS"}
    assert rules_of(board, players=4, beginner=True) == set()
    assert rules_of(board, players=3) == set()  # variable set-up: any three colours


def test_spiral_is_checked_only_on_request_and_a_swap_off_it_is_undone():
    from companion.spiral import BASE_LETTER_VALUES, corner_hexes, spiral_numbers

    board = legal()
    land = list(board.tiles)
    desert = [h for h, t in board.tiles.items() if t.terrain == Terrain.DESERT]
    laid = spiral_numbers(land, corner_hexes(land)[2], desert, BASE_LETTER_VALUES)
    for h in land:
        set_number(board, h, laid.get(h))
    assert check_board(board, spiral=True).ok
    a, b = (h for h in land if board.tiles[h].number in (2, 12))
    na, nb = board.tiles[a].number, board.tiles[b].number
    set_number(board, a, nb)
    set_number(board, b, na)
    assert check_board(board).ok  # tables that do not lay by letter are not bothered
    report = check_board(board, spiral=True)
    assert [v.rule for v in report.violations] == ["BASE-SPIRAL"]
    assert set(report.violations[0].hexes) == {a, b}
    fix = suggest_fixes(board, report.spec)
    assert [{s.a, s.b} for s in fix.swaps] == [{a, b}]


# --- 5-6 extension ------------------------------------------------------------------------


def test_a_random_5_6_board_passes_and_a_red_pair_is_fixed():
    board = legal(6, seed=2)
    assert check_board(board).spec is EXTENSION_SPEC
    make_red_pair(board)
    assert rules_of(board) == {"X56-RED-ADJ"}
    assert_fixed_by_suggestion(board)


def test_5_6_counts_rows_chips_and_harbours():
    board = legal(5, seed=3)
    forest = next(h for h, t in board.tiles.items() if t.terrain == Terrain.FOREST)
    set_terrain(board, forest, Terrain.PASTURE)
    assert rules_of(board) == {"X56-HEX-COUNT"}

    board = legal(5, seed=3)
    top = min(board.tiles, key=lambda h: (h[1], h[0]))
    tile = board.tiles.pop(top)
    board.tiles[(top[0] + 3, top[1] + 1)] = tile  # a row of 3 becomes 2, the next 5
    assert "X56-ROWS" in rules_of(board)

    board = legal(5, seed=3)
    two = next(h for h, t in board.tiles.items() if t.number == 2)
    set_number(board, two, 3)
    assert rules_of(board) == {"X56-CHIPS"}

    board = legal(5, seed=3)
    board.harbors.pop()
    assert rules_of(board) == {"X56-HARBOURS"}


def test_5_6_robber_may_start_on_either_desert_but_not_elsewhere():
    board = legal(6, seed=4)
    deserts = [h for h, t in board.tiles.items() if t.terrain == Terrain.DESERT]
    for d in deserts:
        board.robber = d
        assert check_board(board).ok
    board.robber = next(h for h, t in board.tiles.items() if t.terrain == Terrain.HILLS)
    assert rules_of(board) == {"X56-ROBBER-START"}
    assert_fixed_by_suggestion(board)


# --- scenario rules on custom specs -------------------------------------------------------


def base_plus(name: str, *rules: str, **params: dict) -> SetupSpec:
    return replace(BASE_SPEC, name=name, rules=BASE_SPEC.rules + rules, params=params)


def board_for(spec: SetupSpec, seed: int = 0) -> Board:
    board = generate_board(spec, seed, "none").board
    assert check_board(board, spec).ok
    return board


def move_chip_to(board: Board, h: tuple[int, int], n: int) -> None:
    """Put chip ``n`` on ``h`` by swapping with a hex that has it (counts stay right)."""
    src = next(x for x, t in board.tiles.items() if t.number == n and x != h)
    old = board.tiles[h].number
    set_number(board, src, old)
    set_number(board, h, n)


def test_desert_neighbours_carry_no_red_s8():
    spec = base_plus("t-s8", "S8-DESERT-NEIGHBOURS")
    board = board_for(spec)
    desert = next(h for h, t in board.tiles.items() if t.terrain == Terrain.DESERT)
    nb = next(n for n in hex_neighbours(desert) if n in board.tiles)
    move_chip_to(board, nb, 6)
    got = rules_of(board, spec)
    assert "S8-DESERT-NEIGHBOURS" in got
    assert_fixed_by_suggestion(board, spec)


def test_forest_and_pasture_get_no_poor_numbers_s2_with_configurable_threshold():
    spec = base_plus("t-s2", "S2-FOREST-PASTURE-NUMBERS")
    board = board_for(spec, 1)
    forest = next(h for h, t in board.tiles.items() if t.terrain == Terrain.FOREST)
    move_chip_to(board, forest, 12)
    assert "S2-FOREST-PASTURE-NUMBERS" in rules_of(board, spec)
    assert_fixed_by_suggestion(board, spec)
    lenient = base_plus(
        "t-s2b", "S2-FOREST-PASTURE-NUMBERS", **{"S2-FOREST-PASTURE-NUMBERS": {"numbers": [2]}}
    )
    assert "S2-FOREST-PASTURE-NUMBERS" not in rules_of(board, lenient)


def test_listed_hexes_avoid_listed_numbers_s5():
    right3 = [(2, -2), (2, -1), (2, 0)]
    spec = base_plus("t-s5", "S5-RIGHT3-NUMBERS", **{"S5-RIGHT3-NUMBERS": {"hexes": right3}})
    board = board_for(spec, 2)
    assert all(board.tiles[h].number not in (5, 6, 8, 9) for h in right3)
    target = next(h for h in right3 if board.tiles[h].terrain != Terrain.DESERT)
    move_chip_to(board, target, 9)
    assert "S5-RIGHT3-NUMBERS" in rules_of(board, spec)
    assert_fixed_by_suggestion(board, spec)


def test_red_rule_limited_to_a_region_s1():
    main = [h for h in BASE_SPEC.frame if h[1] <= 0]
    spec = replace(
        BASE_SPEC,
        name="t-s1",
        rules=tuple(r for r in BASE_SPEC.rules if r != "BASE-RED-ADJ") + ("S1-RED-MAIN",),
        params={"S1-RED-MAIN": {"hexes": main}},
    )
    board = legal(seed=5)
    a, b = make_red_pair(board)
    inside = a in main and b in main
    assert ("S1-RED-MAIN" in rules_of(board, spec)) == inside


def test_no_red_on_gold_and_seafarers_material():
    board = generate_board(SEAFARERS_LIKE, 3, "none").board
    assert check_board(board, SEAFARERS_LIKE).ok
    gold = next(h for h, t in board.tiles.items() if t.terrain == Terrain.GOLD)
    move_chip_to(board, gold, 8)
    got = rules_of(board, SEAFARERS_LIKE)
    assert "S9-RANDOM" in got
    assert any("on the gold" in v.message for v in check_board(board, SEAFARERS_LIKE).violations)
    assert_fixed_by_suggestion(board, SEAFARERS_LIKE)


def test_seafarers_pool_material_and_chip_on_sea():
    board = generate_board(SEAFARERS_LIKE, 4, "none").board
    sea = [h for h, t in board.tiles.items() if t.terrain == Terrain.SEA]
    set_terrain(board, sea[0], Terrain.GOLD)  # a third gold field: over the pool and the table
    got = rules_of(board, SEAFARERS_LIKE)
    assert {"SEA-POOL-HEX", "SEA-SCENARIO-MATERIAL"} <= got

    board = generate_board(SEAFARERS_LIKE, 4, "none").board
    set_number(board, sea[0], 6)  # a fourth 6: over the pool and the table, and on the sea
    got = rules_of(board, SEAFARERS_LIKE)
    assert {"SEA-CHIP-ON-LAND", "SEA-SCENARIO-MATERIAL", "SEA-POOL-CHIP"} <= got


def test_seafarers_harbours_on_the_coast_apart_and_from_the_pool():
    board = generate_board(SEAFARERS_LIKE, 5, "none").board
    first = board.harbors[0]
    inland = next(
        (h, side)
        for h, t in board.tiles.items()
        for side in ("NE", "E", "SE", "SW", "W", "NW")
        if t.terrain.is_land
        and (n := hex_neighbour(h, side)) in board.tiles
        and board.tiles[n].terrain.is_land
    )
    board.harbors[0] = Harbor(inland[0][0], inland[0][1], inland[1], first.kind)
    assert "S9-HARBOUR-PLACE" in rules_of(board, SEAFARERS_LIKE)

    board = generate_board(SEAFARERS_LIKE, 5, "none").board
    extra = [Harbor(h.q, h.r, h.side, "ore") for h in board.harbors[:1]]
    board.harbors.extend(Harbor(e.q, e.r, s, "ore") for e in extra for s in ("NE", "E", "SE"))
    got = rules_of(board, SEAFARERS_LIKE)
    assert {"SEA-SCENARIO-HARBOURS", "SEA-POOL-OTHER"} <= got


def test_robber_rules_by_chip_and_by_player_count():
    spec = replace(
        BASE_SPEC,
        name="t-robber",
        rules=tuple(r for r in BASE_SPEC.rules if r != "BASE-ROBBER-START") + ("S2-ROBBER",),
    )
    board = legal(seed=6)
    twelve = next(h for h, t in board.tiles.items() if t.number == 12)
    assert rules_of(board, spec) == {"S2-ROBBER"}
    board.robber = twelve
    assert rules_of(board, spec) == set()

    s1 = replace(spec, name="t-s1r", rules=spec.rules[:-1] + ("S1-ROBBER",))
    board = legal(seed=6)
    assert rules_of(board, s1, players=4) == set()  # on the desert
    # 3 players: the hills hex with chip 12, which this board may not have.
    hills12 = [h for h, t in board.tiles.items() if t.terrain == Terrain.HILLS and t.number == 12]
    assert ("S1-ROBBER" in rules_of(board, s1, players=3)) == (board.robber not in hills12)


def test_pirate_start():
    spec = replace(
        SEAFARERS_LIKE,
        name="t-pirate",
        rules=SEAFARERS_LIKE.rules + ("SEA-PIRATE-START",),
        params={"SEA-PIRATE-START": {"hex": [0, 0]}},
    )
    board = generate_board(spec, 1, "none").board
    assert board.pirate == (0, 0) and check_board(board, spec).ok
    board.pirate = (1, 0)
    assert rules_of(board, spec) == {"SEA-PIRATE-START"}
    board.pirate = None  # not seen: not judged, but said
    report = check_board(board, spec)
    assert report.ok and report.notes == ["no pirate given: its start not checked"]


def test_what_the_board_does_not_show_is_noted_not_judged():
    board = legal()
    board.harbors = []
    board.robber = None
    report = check_board(board)
    assert report.ok
    assert report.notes == [
        "no harbours given: harbours not checked",
        "no robber given: its start not checked",
    ]
    assert check_board(legal()).notes == []


def test_fixed_hexes_are_kept_by_the_generator_and_checked():
    spec = replace(
        base_plus("t-fixed", "S4-FIXED-3"),
        fixed={(0, -2): (Terrain.HILLS, 10), (1, -2): (Terrain.MOUNTAINS, None)},
    )
    for seed in range(5):
        board = generate_board(spec, seed, "fair").board
        assert board.tiles[(0, -2)] == Tile(Terrain.HILLS, 10)
        assert board.tiles[(1, -2)].terrain == Terrain.MOUNTAINS
        assert check_board(board, spec).ok
    set_number(board, (0, -2), None)
    move_chip_to(board, (0, -2), 11)
    assert "S4-FIXED-3" in rules_of(board, spec)


# --- registry -----------------------------------------------------------------------------


def test_every_spec_rule_is_registered_and_documented():
    for spec in SPECS.values():
        for rid in (*spec.rules, *spec.optional, *spec.beginner):
            assert rid in RULES and RULES[rid].doc


def test_a_new_chip_rule_plugs_into_check_fix_and_generate():
    rid = "TEST-NO-5-IN-THE-MIDDLE"

    def constraints(lay: Layout) -> Cons:
        return Cons({lay.geo.index[(0, 0)]: frozenset({5})})

    register_chip_rule(rid, constraints, lambda t, n, h: f"{n} in the middle", "test rule")
    try:
        spec = register_spec(base_plus("t-plugin", rid))
        for seed in range(20):
            board = generate_board(spec, seed, "none").board
            assert board.tiles[(0, 0)].number != 5
        if board.tiles[(0, 0)].terrain == Terrain.DESERT:
            board = next(
                b
                for s in range(20, 60)
                if (b := generate_board(spec, s, "none").board).tiles[(0, 0)].number
            )
        move_chip_to(board, (0, 0), 5)
        assert rid in rules_of(board, spec)
        assert_fixed_by_suggestion(board, spec)
    finally:
        del RULES[rid]
        SPECS.pop("t-plugin", None)


def test_registering_twice_or_with_unknown_rules_is_refused():
    with pytest.raises(SpecError):
        register_chip_rule("BASE-RED-ADJ", lambda lay: Cons({}), lambda t, n, h: "", "dup")
    with pytest.raises(SpecError, match="NOPE"):
        register_spec(base_plus("t-bad", "NOPE"))
    assert "t-bad" not in SPECS


def test_spec_for_names_what_to_fix():
    assert spec_for(None, 5) is EXTENSION_SPEC and spec_for(None, None) is BASE_SPEC
    with pytest.raises(SpecError, match="--players 7"):
        spec_for(None, 7)
    with pytest.raises(SpecError, match="known scenarios"):
        spec_for("atlantis", 4)
    with pytest.raises(SpecError, match="3/4 players"):
        spec_for("base", 5)
    seafarers = replace(legal(), kind="seafarers")
    with pytest.raises(SpecError, match="--scenario"):
        check_board(seafarers)


def test_check_layout_leaves_the_board_untouched():
    board = legal()
    make_red_pair(board)
    before = board.to_json()
    lay = Layout.of(board, BASE_SPEC)
    check_layout(lay)
    suggest_fixes(board)
    assert board.to_json() == before


def test_drawing_offsets_rows_and_marks_offending_hexes():
    board = legal()
    a, b = make_red_pair(board)
    text = draw_board(board, check_board(board).hexes())
    lines = text.splitlines()
    assert len(lines) == 5
    # Rows of 3, 4, 5, 4, 3 cells; the short rows start half a cell to the right.
    indent = [len(line) - len(line.lstrip()) for line in lines]
    assert indent[0] > indent[1] > indent[2] and indent[2] < indent[3] < indent[4]
    assert text.count("*") == 4  # two hexes, each between two stars
    assert f"{board.tiles[a].number:>2}*" in text


def test_gifted_harbours_must_not_touch_s5():
    spec = replace(
        SEAFARERS_LIKE, name="t-s5h", rules=(*SEAFARERS_LIKE.rules, "S5-HARBOUR-GIFT-PLACE")
    )
    board = generate_board(spec, 7, "none").board
    assert check_board(board, spec).ok
    first = board.harbors[0]
    # A second harbour on the next side of the same hex shares a corner with the first.
    sides = ("NE", "E", "SE", "SW", "W", "NW")
    nxt = sides[(sides.index(first.side) + 1) % 6]
    board.harbors[1] = Harbor(first.q, first.r, nxt, board.harbors[1].kind)
    violations = [
        v for v in check_board(board, spec).violations if v.rule == "S5-HARBOUR-GIFT-PLACE"
    ]
    assert any("share a corner" in v.message for v in violations)


@st.composite
def odd_boards(draw: st.DrawFn) -> Board:
    """Any board the JSON format allows: odd shapes, counts, chips and harbours."""
    cells = draw(
        st.dictionaries(
            st.tuples(st.integers(-3, 3), st.integers(-3, 3)),
            st.tuples(st.sampled_from(list(Terrain)), st.sampled_from([None, *CHIP_VALUES])),
            min_size=1,
            max_size=24,
        )
    )
    tiles = {
        h: Tile(t, None if t in (Terrain.SEA, Terrain.DESERT) else n) for h, (t, n) in cells.items()
    }
    hexes = sorted(tiles)
    harbors = [
        Harbor(h[0], h[1], side, kind)
        for h, side, kind in draw(
            st.lists(
                st.tuples(
                    st.sampled_from(hexes), st.sampled_from(SIDES), st.sampled_from(HARBOR_KINDS)
                ),
                max_size=3,
                unique_by=lambda x: (x[0], x[1]),
            )
        )
    ]
    robber = draw(st.one_of(st.none(), st.sampled_from(hexes)))
    return Board(draw(st.sampled_from(["base", "5-6"])), tiles, harbors, robber=robber)


@settings(max_examples=60, deadline=None)
@given(odd_boards(), st.booleans())
def test_any_board_is_checked_fixed_or_explained_without_crashing(board, spiral):
    report = check_board(board, spiral=spiral)
    assert report.ok == (not report.violations)
    assert all(v.rule in report.spec.rules for v in report.violations)
    fix = suggest_fixes(board, report.spec, max_swaps=2)
    if fix.fixed:
        assert check_board(apply_swaps(board, fix.swaps), report.spec).ok
    else:
        assert fix.reason
    assert len(draw_board(board, report.hexes()).splitlines()) == len({r for _, r in board.tiles})


def without(spec: SetupSpec, *rules: str) -> tuple[str, ...]:
    return tuple(r for r in spec.rules if r not in rules)


@pytest.mark.parametrize(
    ("rule", "good"),
    [
        ("S3-ROBBER", lambda b: next(h for h, t in b.tiles.items() if t.number == 12)),
        ("S4-ROBBER", lambda b: next(h for h, t in b.tiles.items() if t.terrain == Terrain.DESERT)),
        ("S5-ROBBER", lambda b: next(h for h, t in b.tiles.items() if t.terrain == Terrain.DESERT)),
        ("S8-ROBBER", lambda b: next(h for h, t in b.tiles.items() if t.terrain == Terrain.DESERT)),
    ],
)
def test_scenario_robber_starts(rule, good):
    spec = replace(
        BASE_SPEC, name=f"t-{rule}", rules=(*without(BASE_SPEC, "BASE-ROBBER-START"), rule)
    )
    board = legal(seed=13)
    board.robber = good(board)
    assert check_board(board, spec).ok
    board.robber = next(h for h in board.tiles if h != good(board))
    assert rules_of(board, spec) == {rule}
    assert_fixed_by_suggestion(board, spec)


def test_s6_robber_needs_fields_with_12():
    spec = replace(
        BASE_SPEC, name="t-s6r", rules=(*without(BASE_SPEC, "BASE-ROBBER-START"), "S6-ROBBER")
    )
    board = legal(seed=14)
    twelve = next(h for h, t in board.tiles.items() if t.number == 12)
    board.tiles[twelve] = Tile(Terrain.FIELDS, 12)  # may upset the counts; only S6 is asked
    board.robber = twelve
    assert "S6-ROBBER" not in rules_of(board, spec)
    board.robber = next(h for h in board.tiles if h != twelve)
    assert "S6-ROBBER" in rules_of(board, spec)


def test_red_rule_with_gold_s4():
    spec = replace(
        SEAFARERS_LIKE,
        name="t-s4",
        rules=(*without(SEAFARERS_LIKE, "S9-RANDOM"), "S4-RED-ADJ-GOLD"),
    )
    board = generate_board(spec, 9, "fair").board
    assert check_board(board, spec).ok
    gold = next(h for h, t in board.tiles.items() if t.terrain == Terrain.GOLD)
    move_chip_to(board, gold, 6)
    assert "S4-RED-ADJ-GOLD" in rules_of(board, spec)
    assert_fixed_by_suggestion(board, spec)


def test_small_island_rules_s1_and_s5():
    small = [(-2, 2), (-1, 2), (0, 2)]
    spec = replace(
        BASE_SPEC,
        name="t-small",
        rules=(*without(BASE_SPEC, "BASE-RED-ADJ", "BASE-CHIP-PLACEMENT"), "S1-RED-SMALL-4P"),
        params={"S1-RED-SMALL-4P": {"hexes": small}},
    )
    board = legal(seed=15)
    for h in small:
        board.tiles[h] = Tile(Terrain.FIELDS, board.tiles[h].number)
    board.tiles[small[0]] = Tile(Terrain.FIELDS, 6)
    board.tiles[small[1]] = Tile(Terrain.FIELDS, 8)
    assert "S1-RED-SMALL-4P" in rules_of(board, spec)

    chipless = replace(
        BASE_SPEC,
        name="t-s5small",
        rules=(*BASE_SPEC.rules, "S5-NO-CHIP-SMALL"),
        params={"S5-NO-CHIP-SMALL": {"hexes": small}},
    )
    board = legal(seed=15)
    got = [v for v in check_board(board, chipless).violations if v.rule == "S5-NO-CHIP-SMALL"]
    assert {v.hexes[0] for v in got} == {h for h in small if board.tiles[h].number}


@pytest.mark.parametrize("rule", ["S6-FIXED-CENTRE", "S7-FIXED"])
def test_diagram_hexes_must_stay(rule):
    spec = replace(base_plus(f"t-{rule}", rule), fixed={(0, 0): (Terrain.MOUNTAINS, 10)})
    board = generate_board(spec, 3, "none").board
    assert board.tiles[(0, 0)] == Tile(Terrain.MOUNTAINS, 10) and check_board(board, spec).ok
    hills = next(h for h, t in board.tiles.items() if t.terrain == Terrain.HILLS)
    board.tiles[(0, 0)], board.tiles[hills] = board.tiles[hills], board.tiles[(0, 0)]
    assert rule in rules_of(board, spec)
    assert_fixed_by_suggestion(board, spec)
