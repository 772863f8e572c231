"""Static set-up checks of RULES.md §7: one function per rule ID, registered in one table.

How the pieces fit
------------------
* A :class:`SetupSpec` says what a table plays: its frame, material tables, harbours, and the
  list of rule IDs that apply (with per-rule parameters). :func:`spec_for` returns the spec of
  the base game or the 5-6 extension; scenario modules add theirs with :func:`register_spec`.
* :data:`RULES` maps every rule ID to a :class:`Rule`. A rule is registered once, with
  :func:`register`, and is used by every spec that lists its ID. Rules are written against a
  :class:`Layout` (the board as integer-indexed lists) so the fixer and the generator can run
  them on thousands of candidate boards.
* Rules about which chip may lie where (red numbers apart, nothing red on gold, no chip on the
  desert, forbidden numbers on some hexes...) are *chip rules*: they are declared as
  :class:`ChipConstraints` (numbers forbidden per hex, pairs of hexes that must not both be
  red) and their check is derived from that declaration. The generator places chips directly
  under these constraints, and the fixer's search evaluates them in a few microseconds; so a
  scenario rule of this kind (S4-RED-ADJ-GOLD, S8-DESERT-NEIGHBOURS...) plugs into checking,
  fixing and generating by one :func:`register_chip_rule` call, without any ``if`` elsewhere.
* Each rule says what can repair it (:attr:`Rule.repair`): swapping chips, swapping hexes,
  moving the robber, or nothing (a wrong count cannot be fixed by moving things around).

A scenario plugs in like this (the IDs and parameters come from the scenario file)::

    register_spec(SetupSpec(name="s8", ..., rules=("SEA-POOL-HEX", ..., "S8-DESERT-NEIGHBOURS"),
                            params={"S8-ROBBER": {...}}))

and a new kind of rule with ``@register("S2-OUTLINES")`` on a function of a :class:`Layout`
returning a list of :class:`Violation`.

>>> from companion.layouts import random_board
>>> report = check_board(random_board(4, seed=3))
>>> report.ok, report.violations
(True, [])
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from companion.board import (
    CHIP_VALUES,
    SCENARIO_BOARD_KINDS,
    Board,
    Edge,
    Harbor,
    Hex,
    Piece,
    Terrain,
    Vertex,
    base_frame,
    edge,
    edge_hexes,
    edge_vertices,
    extension_frame,
    hex_neighbour,
    hex_neighbours,
    hex_vertices,
    rows_of,
    vertex,
    vertex_hexes,
)
from companion.layouts import (
    BASE_CHIPS,
    BASE_HARBOR_KINDS,
    BASE_HARBOR_SITES,
    BASE_TERRAINS,
    EXTENSION_CHIPS,
    EXTENSION_HARBOR_KINDS,
    EXTENSION_HARBOR_SITES,
    EXTENSION_TERRAINS,
    RED_NUMBERS,
)
from companion.spiral import (
    BASE_LETTER_VALUES,
    EXTENSION_LETTER_VALUES,
    corner_hexes,
    spiral_numbers,
)

#: Every chip value plus 0, which stands for "no chip" in a :class:`Layout`.
ALL_CHIPS: frozenset[int] = frozenset(CHIP_VALUES)
NO_CHIP = 0


class SpecError(ValueError):
    """A scenario or player count that no spec covers; the message says what exists."""


# --- what a table plays -------------------------------------------------------------------


@dataclass(frozen=True)
class SetupSpec:
    """Everything the checker, fixer and generator need to know about one game set-up.

    ``terrains`` and ``chips`` are the exact material of the set-up (the generator uses all of
    it). ``harbor_sites`` lists the fixed harbour sides, or is None when harbours go on any
    coast side (Seafarers scenario 9). ``rules`` are the rule IDs always checked; ``optional``
    those checked only for tables that lay the chips by letter (the spiral), ``beginner``
    those of the beginner set-up (RULES 1.3.1-1.3.3).
    ``fixed`` hexes keep their terrain (and chip, if given) in the generator.
    """

    name: str
    kind: str
    players: tuple[int, ...]
    frame: tuple[Hex, ...]
    terrains: Mapping[Terrain, int]
    chips: Mapping[int, int]
    harbor_kinds: Mapping[str, int]
    harbor_sites: tuple[tuple[Hex, str], ...] | None
    rules: tuple[str, ...]
    optional: tuple[str, ...] = ()
    beginner: tuple[str, ...] = ()
    params: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    letter_values: tuple[int, ...] | None = None
    fixed: Mapping[Hex, tuple[Terrain, int | None]] = field(default_factory=dict)

    def with_rules(self, extra: Iterable[str]) -> SetupSpec:
        """This spec with more rule IDs checked (e.g. the optional spiral)."""
        rules = list(self.rules)
        rules.extend(r for r in extra if r not in rules)
        return replace(self, rules=tuple(rules))


BASE_SPEC = SetupSpec(
    name="base",
    kind="base",
    players=(3, 4),
    frame=tuple(base_frame()),
    terrains=dict(BASE_TERRAINS),
    chips=dict(BASE_CHIPS),
    harbor_kinds=dict(Counter(BASE_HARBOR_KINDS)),
    harbor_sites=BASE_HARBOR_SITES,
    rules=(
        "BASE-HEX-COUNT",
        "BASE-CHIP-COUNT",
        "BASE-CHIP-PLACEMENT",
        "BASE-RED-ADJ",
        "BASE-HARBOURS",
        "BASE-ROBBER-START",
        "BASE-PIECES",
    ),
    optional=("BASE-SPIRAL",),
    beginner=("BASE-3P-COLOURS",),
    letter_values=BASE_LETTER_VALUES,
)

EXTENSION_SPEC = SetupSpec(
    name="5-6",
    kind="5-6",
    players=(5, 6),
    frame=tuple(extension_frame()),
    terrains=dict(EXTENSION_TERRAINS),
    chips=dict(EXTENSION_CHIPS),
    harbor_kinds=dict(Counter(EXTENSION_HARBOR_KINDS)),
    harbor_sites=EXTENSION_HARBOR_SITES,
    rules=(
        "X56-HEX-COUNT",
        "X56-ROWS",
        "X56-CHIPS",
        "BASE-CHIP-PLACEMENT",
        "X56-RED-ADJ",
        "X56-HARBOURS",
        "X56-ROBBER-START",
        "BASE-PIECES",
    ),
    optional=("X56-SPIRAL",),
    letter_values=EXTENSION_LETTER_VALUES,
)

#: name -> spec. Scenario modules add theirs with :func:`register_spec`.
SPECS: dict[str, SetupSpec] = {}


def register_spec(spec: SetupSpec) -> SetupSpec:
    """Make a spec available by name (``--scenario NAME``); its rule IDs must be registered."""
    unknown = [r for r in (*spec.rules, *spec.optional, *spec.beginner) if r not in RULES]
    if unknown:
        raise SpecError(f"spec {spec.name!r} uses unregistered rules: {', '.join(unknown)}")
    SPECS[spec.name] = spec
    return spec


def spec_for(scenario: str | None = None, players: int | None = None) -> SetupSpec:
    """The spec for a scenario name (default: base or 5-6 by player count) and player count."""
    if players is not None and not 2 <= players <= 6:
        raise SpecError(f"--players {players}: Catan is played by 3 to 6 players")
    if scenario is None:
        scenario = "5-6" if players is not None and players >= 5 else "base"
    spec = SPECS.get(scenario)
    if spec is None:
        spec = _scenario_file_spec(scenario, players)
    if spec is None:
        from companion.scenario import list_scenarios

        known = ", ".join(sorted(SPECS) + list_scenarios())
        raise SpecError(f"--scenario {scenario!r}: known scenarios are {known}")
    if players is not None and players not in spec.players:
        allowed = "/".join(str(p) for p in spec.players)
        raise SpecError(f"--players {players}: scenario {spec.name!r} is for {allowed} players")
    return spec


def _scenario_file_spec(scenario: str, players: int | None) -> SetupSpec | None:
    """The spec of a scenario file (companion/scenarios), or None if there is no such file."""
    from companion.scenario import ScenarioError, list_scenarios, setup_spec

    if scenario not in list_scenarios() and not scenario.endswith(".json"):
        return None
    try:
        return setup_spec(scenario, players or 4)
    except ScenarioError as exc:
        raise SpecError(str(exc)) from None


# --- the board as integer-indexed lists ---------------------------------------------------


class Geometry:
    """Hex indices and neighbour lists of a frame (cached per set of hexes).

    ``hexes`` are sorted row by row (r, then q) so that drawings and messages read like the
    board; ``neighbours[i]`` are the indices of hex ``i``'s neighbours on the frame,
    ``pairs`` every adjacent pair ``(i, j)`` with ``i < j``.
    """

    def __init__(self, hexes: Iterable[Hex]):
        self.hexes: tuple[Hex, ...] = tuple(sorted(set(hexes), key=lambda h: (h[1], h[0])))
        self.index: dict[Hex, int] = {h: i for i, h in enumerate(self.hexes)}
        ix = self.index
        self.neighbours: tuple[tuple[int, ...], ...] = tuple(
            tuple(ix[n] for n in hex_neighbours(h) if n in ix) for h in self.hexes
        )
        self.pairs: tuple[tuple[int, int], ...] = tuple(
            (i, j) for i, ns in enumerate(self.neighbours) for j in ns if i < j
        )
        # Each corner of the frame as the indices of the 1 to 3 frame hexes meeting there.
        corners: dict[Vertex, tuple[int, ...]] = {}
        for h in self.hexes:
            for v in hex_vertices(h):
                if v not in corners:
                    corners[v] = tuple(sorted(ix[x] for x in vertex_hexes(v) if x in ix))
        self.corner_hexes: tuple[tuple[int, ...], ...] = tuple(corners[v] for v in sorted(corners))

    @staticmethod
    @functools.lru_cache(maxsize=64)
    def of(hexes: frozenset[Hex]) -> Geometry:
        return Geometry(hexes)


@dataclass
class Layout:
    """A board as lists indexed like :attr:`Geometry.hexes`; what every rule reads.

    ``numbers[i]`` is the chip on hex ``i`` or 0 (:data:`NO_CHIP`). ``players`` is the
    number of players at the table (None if unknown).
    """

    spec: SetupSpec
    geo: Geometry
    terrain: list[Terrain]
    numbers: list[int]
    harbors: tuple[Harbor, ...] = ()
    robber: Hex | None = None
    pirate: Hex | None = None
    pieces: tuple[Piece, ...] = ()
    players: int | None = None

    @classmethod
    def of(cls, board: Board, spec: SetupSpec, players: int | None = None) -> Layout:
        geo = Geometry.of(frozenset(board.tiles))
        return cls(
            spec,
            geo,
            [board.tiles[h].terrain for h in geo.hexes],
            [board.tiles[h].number or NO_CHIP for h in geo.hexes],
            tuple(board.harbors),
            board.robber,
            board.pirate,
            tuple(board.pieces),
            players,
        )

    def with_cells(self, terrain: list[Terrain], numbers: list[int]) -> Layout:
        return replace(self, terrain=terrain, numbers=numbers)

    def params(self, rule: str) -> Mapping[str, Any]:
        return self.spec.params.get(rule, {})


@dataclass(frozen=True)
class Violation:
    rule: str
    hexes: tuple[Hex, ...]
    message: str

    def to_json(self) -> dict[str, Any]:
        return {"rule": self.rule, "hexes": [list(h) for h in self.hexes], "message": self.message}


# --- the registry -------------------------------------------------------------------------

CheckFn = Callable[[Layout], list[Violation]]


@dataclass(frozen=True)
class ChipConstraints:
    """Where chips may lie: ``forbidden[i]`` numbers (0 = no chip) not allowed on hex ``i``;
    ``red_apart`` pairs of hex indices that must not both carry a red number."""

    forbidden: dict[int, frozenset[int]]
    red_apart: frozenset[tuple[int, int]] = frozenset()


ConstraintFn = Callable[[Layout], ChipConstraints]


@dataclass(frozen=True)
class Rule:
    """A registered check.

    ``repair`` is what can make a failing board pass: a subset of ``{"chips", "hexes",
    "robber"}``; empty for rules no rearrangement can satisfy (wrong counts). ``constraints``
    is set for chip rules (see :func:`register_chip_rule`). ``robber_targets`` (for robber
    rules) gives the hexes where the robber may start.
    """

    id: str
    check: CheckFn
    repair: frozenset[str]
    doc: str
    constraints: ConstraintFn | None = None
    robber_targets: Callable[[Layout], list[Hex]] | None = None


RULES: dict[str, Rule] = {}


def register(
    rule_id: str,
    repair: Iterable[str] = (),
    robber_targets: Callable[[Layout], list[Hex]] | None = None,
) -> Callable[[CheckFn], CheckFn]:
    """Decorator: register ``fn(layout) -> violations`` as the check of ``rule_id``."""

    def deco(fn: CheckFn) -> CheckFn:
        if rule_id in RULES:
            raise SpecError(f"rule {rule_id} is registered twice")
        RULES[rule_id] = Rule(
            rule_id, fn, frozenset(repair), (fn.__doc__ or "").strip(), None, robber_targets
        )
        return fn

    return deco


UnaryMessage = Callable[[Terrain, int, Hex], str]


def register_chip_rule(
    rule_id: str, constraints: ConstraintFn, unary: UnaryMessage, doc: str
) -> None:
    """Register a chip rule: its check reports every hex holding a forbidden number (worded
    by ``unary(terrain, number, hex)``) and every ``red_apart`` pair that is red on both."""

    def check(lay: Layout) -> list[Violation]:
        c = constraints(lay)
        out = []
        for i, bad in sorted(c.forbidden.items()):
            if lay.numbers[i] in bad:
                h = lay.geo.hexes[i]
                out.append(Violation(rule_id, (h,), unary(lay.terrain[i], lay.numbers[i], h)))
        for i, j in sorted(c.red_apart):
            a, b = lay.numbers[i], lay.numbers[j]
            if a in RED_NUMBERS and b in RED_NUMBERS:
                hi, hj = lay.geo.hexes[i], lay.geo.hexes[j]
                out.append(
                    Violation(
                        rule_id,
                        (hi, hj),
                        f"red numbers side by side: {a} on {_name(lay, i)} and {b} on "
                        f"{_name(lay, j)}",
                    )
                )
        return out

    if rule_id in RULES:
        raise SpecError(f"rule {rule_id} is registered twice")
    RULES[rule_id] = Rule(rule_id, check, frozenset({"chips", "hexes"}), doc, constraints)


def _name(lay: Layout, i: int) -> str:
    return f"the {lay.terrain[i].value} at {lay.geo.hexes[i]}"


def _hexes_param(lay: Layout, rule: str, key: str = "hexes") -> list[int]:
    """Indices of the hexes listed under ``params[rule][key]`` (those on the board)."""
    return [
        lay.geo.index[tuple(h)] for h in lay.params(rule).get(key, ()) if tuple(h) in lay.geo.index
    ]


# --- report -------------------------------------------------------------------------------


@dataclass
class Report:
    """Violations of a board, and ``notes`` on what could not be checked because the board
    does not show it (no harbours, no robber or pirate given: the camera does not read them
    yet, and a hand-typed board may leave them out)."""

    spec: SetupSpec
    violations: list[Violation]
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.violations

    def hexes(self) -> set[Hex]:
        return {h for v in self.violations for h in v.hexes}


def check_layout(lay: Layout, rules: Sequence[str] | None = None) -> list[Violation]:
    """Every violation of the spec's rules (or of ``rules``) on a layout."""
    out: list[Violation] = []
    for rid in lay.spec.rules if rules is None else rules:
        out.extend(RULES[rid].check(lay))
    return out


def check_board(
    board: Board,
    spec: SetupSpec | None = None,
    players: int | None = None,
    spiral: bool = False,
    beginner: bool = False,
) -> Report:
    """Check a board against its spec (default: by the board's kind and ``players``).

    ``spiral`` also checks the lettered spiral (for tables that lay chips by letter),
    ``beginner`` the rules of the beginner set-up (with 3 players, no red pieces).
    """
    if spec is None:
        if board.kind in SCENARIO_BOARD_KINDS:
            raise SpecError(f"a {board.kind} board needs --scenario (which scenario is it?)")
        spec = spec_for("5-6" if board.kind == "5-6" else "base", players)
    if spiral:
        spec = spec.with_rules(spec.optional)
    if beginner:
        spec = spec.with_rules(spec.beginner)
    return Report(spec, check_layout(Layout.of(board, spec, players)), _unobserved(board, spec))


def _unobserved(board: Board, spec: SetupSpec) -> list[str]:
    notes = []
    if not board.harbors and spec.harbor_kinds:
        notes.append("no harbours given: harbours not checked")
    if board.robber is None and any(RULES[r].robber_targets for r in spec.rules):
        notes.append("no robber given: its start not checked")
    if board.pirate is None and "SEA-PIRATE-START" in spec.rules:
        notes.append("no pirate given: its start not checked")
    return notes


# --- material -----------------------------------------------------------------------------


def _count_diff(
    rule: str, what: str, have: Counter[Any], want: Mapping[Any, int], exact: bool = True
) -> list[Violation]:
    wrong = []
    for key in sorted(set(have) | set(want), key=str):
        h, w = have.get(key, 0), want.get(key, 0)
        if (exact and h != w) or (not exact and h > w):
            wrong.append(f"{h} {key}" + (f" (want {w})" if exact else f" (at most {w})"))
    if not wrong:
        return []
    return [Violation(rule, (), f"{what}: " + ", ".join(wrong))]


def _land_counts(lay: Layout) -> Counter[Terrain]:
    return Counter(t for t in lay.terrain if t.is_land)


@register("BASE-HEX-COUNT")
def _base_hex_count(lay: Layout) -> list[Violation]:
    """Exactly the land hexes of the spec's table (19: forest, pasture, fields 4 each...)."""
    return _count_diff("BASE-HEX-COUNT", "land hexes", _land_counts(lay), lay.spec.terrains)


@register("X56-HEX-COUNT")
def _x56_hex_count(lay: Layout) -> list[Violation]:
    """30 land hexes: forest, pasture, fields 6 each, hills, mountains 5 each, desert 2."""
    return _count_diff("X56-HEX-COUNT", "land hexes", _land_counts(lay), lay.spec.terrains)


def _chip_counter(lay: Layout) -> Counter[int]:
    return Counter(n for n in lay.numbers if n != NO_CHIP)


@register("BASE-CHIP-COUNT")
def _base_chip_count(lay: Layout) -> list[Violation]:
    """The 18 chips of the base game."""
    return _count_diff("BASE-CHIP-COUNT", "chips", _chip_counter(lay), lay.spec.chips)


@register("X56-CHIPS")
def _x56_chips(lay: Layout) -> list[Violation]:
    """Only the 28 extension chips."""
    return _count_diff("X56-CHIPS", "chips", _chip_counter(lay), lay.spec.chips)


@register("SEA-SCENARIO-MATERIAL")
def _sea_material(lay: Layout) -> list[Violation]:
    """Hex and chip counts equal the scenario's table for the player count."""
    have = Counter(t for t in lay.terrain if t != Terrain.UNEXPLORED)
    return _count_diff("SEA-SCENARIO-MATERIAL", "hexes", have, lay.spec.terrains) + _count_diff(
        "SEA-SCENARIO-MATERIAL", "chips", _chip_counter(lay), lay.spec.chips
    )


#: RULES.md 3.1.2: the combined base + Seafarers pool.
SEA_POOL_HEXES: dict[Terrain, int] = {
    Terrain.SEA: 19,
    Terrain.DESERT: 3,
    Terrain.GOLD: 2,
    Terrain.FIELDS: 5,
    Terrain.HILLS: 5,
    Terrain.MOUNTAINS: 5,
    Terrain.PASTURE: 5,
    Terrain.FOREST: 5,
}
SEA_POOL_CHIPS: dict[int, int] = {n: 2 if n in (2, 12) else 3 for n in CHIP_VALUES}


@register("SEA-POOL-HEX")
def _sea_pool_hex(lay: Layout) -> list[Violation]:
    """No more hexes of a type than the combined pool holds."""
    have = Counter(t for t in lay.terrain if t != Terrain.UNEXPLORED)
    return _count_diff("SEA-POOL-HEX", "more hexes than the pool", have, SEA_POOL_HEXES, False)


@register("SEA-POOL-CHIP")
def _sea_pool_chip(lay: Layout) -> list[Violation]:
    """No more chips of a value than the combined pool holds."""
    return _count_diff(
        "SEA-POOL-CHIP", "more chips than the pool", _chip_counter(lay), SEA_POOL_CHIPS, False
    )


@register("X56-ROWS")
def _x56_rows(lay: Layout) -> list[Violation]:
    """Row lengths 3, 4, 5, 6, 5, 4, 3."""
    land = (h for h, t in zip(lay.geo.hexes, lay.terrain, strict=True) if t.is_land)
    rows = [len(r) for r in rows_of(land)]
    if rows == [3, 4, 5, 6, 5, 4, 3]:
        return []
    got = ", ".join(map(str, rows))
    return [Violation("X56-ROWS", (), f"rows of {got} hexes (want 3, 4, 5, 6, 5, 4, 3)")]


# --- harbours -----------------------------------------------------------------------------


def _harbour_kinds(rule: str, lay: Layout, exact: bool = True) -> list[Violation]:
    if not lay.harbors:
        return []  # none given: not observed (see Report.notes), so nothing to judge
    have = Counter(h.kind for h in lay.harbors)
    return _count_diff(rule, "harbours", have, lay.spec.harbor_kinds, exact)


@register("BASE-HARBOURS")
def _base_harbours(lay: Layout) -> list[Violation]:
    """9 harbours: 4 generic 3:1 and one 2:1 per resource."""
    return _harbour_kinds("BASE-HARBOURS", lay)


@register("X56-HARBOURS")
def _x56_harbours(lay: Layout) -> list[Violation]:
    """11 harbours: 5 generic 3:1 and six 2:1 (wool twice)."""
    return _harbour_kinds("X56-HARBOURS", lay)


@register("SEA-SCENARIO-HARBOURS")
def _sea_harbours(lay: Layout) -> list[Violation]:
    """Harbour count and kinds match the scenario."""
    return _harbour_kinds("SEA-SCENARIO-HARBOURS", lay)


@register("SEA-POOL-OTHER")
def _sea_pool_other(lay: Layout) -> list[Violation]:
    """At most 10 harbour tokens: 5 special and 5 generic."""
    generic = sum(1 for h in lay.harbors if h.kind == "3:1")
    special = len(lay.harbors) - generic
    if generic <= 5 and special <= 5:
        return []
    msg = f"{generic} generic and {special} special harbours (the pool has 5 of each)"
    return [Violation("SEA-POOL-OTHER", (), msg)]


def _is_sea(lay: Layout, h: Hex) -> bool:
    i = lay.geo.index.get(h)
    return i is None or lay.terrain[i] == Terrain.SEA


def harbours_touch(a: Harbor, b: Harbor) -> bool:
    """True if two harbours share a corner (a settlement there would reach both)."""
    return bool(set(a.vertices) & set(b.vertices))


def _register_harbour_place(rule_id: str, doc: str) -> None:
    def check(lay: Layout) -> list[Violation]:
        out = []
        for hb in lay.harbors:
            i = lay.geo.index.get((hb.q, hb.r))
            other = hex_neighbour((hb.q, hb.r), hb.side)
            if i is None or not lay.terrain[i].is_land or not _is_sea(lay, other):
                where = f"side {hb.side} of {(hb.q, hb.r)}"
                msg = f"the {hb.kind} harbour on {where} is not between land and sea"
                out.append(Violation(rule_id, ((hb.q, hb.r),), msg))
        if lay.params(rule_id).get("apart", True):
            for k, a in enumerate(lay.harbors):
                for b in lay.harbors[k + 1 :]:
                    if harbours_touch(a, b):
                        msg = (
                            f"harbours at {(a.q, a.r)} {a.side} and {(b.q, b.r)} {b.side} "
                            "share a corner"
                        )
                        out.append(Violation(rule_id, ((a.q, a.r), (b.q, b.r)), msg))
        return out

    check.__doc__ = doc
    register(rule_id)(check)


_register_harbour_place(
    "S9-HARBOUR-PLACE",
    "Each harbour lies on a side between a land hex and the sea (or frame); with parameter "
    "``apart`` (default true, our choice) no two harbours share a corner.",
)
_register_harbour_place(
    "S5-HARBOUR-GIFT-PLACE",
    "The static part of the gift rule: harbours on the coast, not adjacent to each other "
    "([IS]; parameter ``apart``). Who may place them is the engine's business.",
)


# --- marks of a scenario: gifts, villages --------------------------------------------------


def _coast_of(lay: Layout, hexes: set[Hex], side: Edge) -> Hex | None:
    """The hex of ``hexes`` on whose coast ``side`` lies (land there, sea or frame across)."""
    a, b = edge_hexes(side)
    for h, other in ((a, b), (b, a)):
        i = lay.geo.index.get(h)
        if h in hexes and i is not None and lay.terrain[i].is_land and _is_sea(lay, other):
            return h
    return None


@register("S2-OUTLINES")
def _s2_outlines(lay: Layout) -> list[Violation]:
    """The islands' outlines are the scenario's map (RULES.md 4.2.5): parameter ``land``, the
    hexes that are land on the map (in the file, ``"@AREA"`` of its islands); every other
    hex of the frame is sea. Only what lies within the outlines may be rearranged."""
    land = {tuple(h) for h in lay.params("S2-OUTLINES").get("land", ())}
    wrong = [
        h
        for h, t in zip(lay.geo.hexes, lay.terrain, strict=True)
        if t != Terrain.UNEXPLORED and t.is_land != (h in land)
    ]
    missing = sorted(h for h in land if h not in lay.geo.index)
    if not wrong and not missing:
        return []
    parts = [f"{h} should be {'land' if h in land else 'sea'}" for h in wrong]
    parts += [f"{h} (land on the map) is missing" for h in missing]
    return [
        Violation(
            "S2-OUTLINES",
            tuple(wrong + missing),
            "the island outlines differ from the scenario's map: " + ", ".join(parts),
        )
    ]


@register("S3-GREY-EMPTY")
def _s3_grey_empty(lay: Layout) -> list[Violation]:
    """The grey (fog) spaces are empty at the start and the face-down stacks hold what will
    fill them (RULES.md 4.3.1, 4.3.2): parameters ``fog`` (the grey hexes) and ``stack`` (the
    exploration hook's hexes and chips; in the file ``"hook": "exploration"``). As many
    stacked hexes as grey spaces, and a chip for each stacked hex that produces."""
    rule = "S3-GREY-EMPTY"
    params = lay.params(rule)
    fog = [tuple(h) for h in params.get("fog", ())]
    out: list[Violation] = []
    for h in fog:
        i = lay.geo.index.get(h)
        if i is None:
            continue  # a fog space the board does not show is not observed
        if lay.terrain[i] != Terrain.UNEXPLORED or lay.numbers[i] != NO_CHIP:
            what = lay.terrain[i].value + (f" {lay.numbers[i]}" if lay.numbers[i] else "")
            out.append(Violation(rule, (h,), f"the grey space {h} holds a {what}: it starts empty"))
    stack = params.get("stack", {})
    hexes = Counter({Terrain(k): int(n) for k, n in stack.get("terrain", {}).items()})
    chips = sum(int(n) for n in stack.get("chips", {}).values())
    producing = sum(n for t, n in hexes.items() if t.is_land and t != Terrain.DESERT)
    if sum(hexes.values()) != len(fog):
        msg = f"the stack holds {sum(hexes.values())} hexes for {len(fog)} grey spaces"
        out.append(Violation(rule, tuple(fog), msg))
    if chips != producing:
        msg = f"the chip stack holds {chips} chips for {producing} producing hexes"
        out.append(Violation(rule, (), msg))
    return out


@register("S5-GIFTS")
def _s5_gifts(lay: Layout) -> list[Violation]:
    """The gifts of the Forgotten Tribe lie on the small islands' coasts (RULES.md 4.5.2-4.5.4):
    parameters ``catan_chips`` (8 sides) and ``cards`` (4 sides) as ``[q, r, side]``,
    ``small`` (the small islands' hexes), ``harbours`` (6 tokens: 5 special, 1 generic, on
    the small islands' coasts). Each side holds one gift."""
    rule = "S5-GIFTS"
    params = lay.params(rule)
    small = {tuple(h) for h in params.get("small", ())}
    out: list[Violation] = []
    seen: dict[Edge, str] = {hb.edge: f"the {hb.kind} harbour" for hb in lay.harbors}
    for key, what, want in (("catan_chips", "Catan chip", 8), ("cards", "card", 4)):
        spots = [edge(*s) for s in params.get(key, ())]
        if len(spots) != want:
            out.append(Violation(rule, (), f"{len(spots)} {what} spots marked (want {want})"))
        for side in spots:
            h = _coast_of(lay, small, side)
            if h is None:
                msg = f"the {what} spot {tuple(side)} is not on a small island's coast"
                out.append(Violation(rule, edge_hexes(side), msg))
            elif side in seen:
                msg = f"the {what} spot {tuple(side)} also holds {seen[side]}"
                out.append(Violation(rule, (h,), msg))
            seen[side] = f"a {what}"
    if lay.harbors:  # not observed otherwise (see Report.notes)
        want = int(params.get("harbours", 6))
        kinds = Counter(hb.kind for hb in lay.harbors)
        if len(lay.harbors) != want or kinds["3:1"] != want - 5 or len(kinds) != 6:
            msg = f"harbour tokens {dict(sorted(kinds.items()))} (want 5 special, {want - 5} 3:1)"
            out.append(Violation(rule, (), msg))
        for hb in lay.harbors:
            if _coast_of(lay, small, hb.edge) is None:
                msg = f"the {hb.kind} harbour token at {(hb.q, hb.r)} {hb.side} is not on a small "
                msg += "island's coast: the tribe's tokens lie there until a ship finds them"
                out.append(Violation(rule, ((hb.q, hb.r),), msg))
    return out


@register("S6-VILLAGES")
def _s6_villages(lay: Layout) -> list[Violation]:
    """The tribe's villages of Cloth for Catan (RULES.md 4.6.1, 4.6.2): parameters
    ``villages`` (``[q, r, corner, number]`` each), ``tribe`` (the tribe islands' hexes),
    ``cloth_per_village`` and ``supply``. Two villages on marked corners of each of the 4
    tribe islands (8 in all), the villages' chips and the hexes' together the 28 chips of the
    box, 5 cloth by each village and 10 in the general supply."""
    rule = "S6-VILLAGES"
    params = lay.params(rule)
    tribe = {tuple(h) for h in params.get("tribe", ())}
    villages = [(vertex(q, r, c), int(n)) for q, r, c, n in params.get("villages", ())]
    out: list[Violation] = []
    islands: dict[Hex, list[Vertex]] = {}
    for v, n in villages:
        around = [h for h in vertex_hexes(v) if h in lay.geo.index]
        land = [h for h in around if lay.terrain[lay.geo.index[h]].is_land]
        if not land or not set(land) <= tribe:
            out.append(
                Violation(
                    rule, tuple(around), f"village {n} at {tuple(v)} is not on a tribe island alone"
                )
            )
            continue
        islands.setdefault(_island_of(lay, land[0], tribe), []).append(v)
    counts = sorted(len(vs) for vs in islands.values())
    if len(villages) != 8 or counts != [2, 2, 2, 2]:
        msg = f"{len(villages)} villages, {counts} per tribe island (want 2 on each of 4)"
        out.append(Violation(rule, tuple(sorted(tribe)), msg))
    chips = _chip_counter(lay) + Counter(n for _, n in villages)
    if chips != Counter(SEA_POOL_CHIPS):
        out.extend(_count_diff(rule, "chips on hexes and villages", chips, SEA_POOL_CHIPS))
    cloth, supply = int(params.get("cloth_per_village", 5)), int(params.get("supply", 10))
    if (cloth, supply) != (5, 10):
        msg = f"{cloth} cloth by each village and {supply} in the supply (want 5 and 10)"
        out.append(Violation(rule, (), msg))
    return out


def _island_of(lay: Layout, start: Hex, region: set[Hex]) -> Hex:
    """The least hex of the connected land of ``region`` holding ``start`` (its name)."""
    seen, stack = {start}, [start]
    while stack:
        for n in hex_neighbours(stack.pop()):
            i = lay.geo.index.get(n)
            if n in region and n not in seen and i is not None and lay.terrain[i].is_land:
                seen.add(n)
                stack.append(n)
    return min(seen)


# --- robber and pirate --------------------------------------------------------------------


def _deserts(lay: Layout) -> list[Hex]:
    return [h for h, t in zip(lay.geo.hexes, lay.terrain, strict=True) if t == Terrain.DESERT]


def _robber_rule(rule_id: str, targets: Callable[[Layout], list[Hex]], where: str) -> None:
    def check(lay: Layout) -> list[Violation]:
        if lay.robber is None:
            return []  # not observed (see Report.notes)
        allowed = targets(lay)
        if lay.robber in allowed:
            return []
        at = f"on {lay.robber}"
        to = " or ".join(str(h) for h in allowed) or "nowhere (no such hex)"
        hexes = tuple(h for h in (lay.robber, *allowed) if h is not None)
        return [Violation(rule_id, hexes, f"the robber is {at}; it starts on {where}: {to}")]

    check.__doc__ = f"The robber starts on {where}."
    register(rule_id, repair=("robber",), robber_targets=targets)(check)


def _hexes_with(lay: Layout, terrain: Terrain | None, number: int | None) -> list[Hex]:
    return [
        h
        for h, t, n in zip(lay.geo.hexes, lay.terrain, lay.numbers, strict=True)
        if (terrain is None or t == terrain) and (number is None or n == number)
    ]


_robber_rule("BASE-ROBBER-START", _deserts, "the desert")
_robber_rule("X56-ROBBER-START", _deserts, "one of the deserts")
_robber_rule("S4-ROBBER", _deserts, "one of the deserts")
_robber_rule("S5-ROBBER", _deserts, "a desert")
_robber_rule("S8-ROBBER", _deserts, "one of the deserts")
_robber_rule("S2-ROBBER", lambda lay: _hexes_with(lay, None, 12), "the hex with chip 12")
_robber_rule("S3-ROBBER", lambda lay: _hexes_with(lay, None, 12), "the hex with chip 12")
_robber_rule(
    "S6-ROBBER", lambda lay: _hexes_with(lay, Terrain.FIELDS, 12), "the fields hex with chip 12"
)
_robber_rule(
    "S1-ROBBER",
    lambda lay: _hexes_with(lay, Terrain.HILLS, 12) if lay.players == 3 else _deserts(lay),
    "the desert (4 players) or the hills hex with chip 12 (3 players)",
)


@register("SEA-PIRATE-START")
def _sea_pirate(lay: Layout) -> list[Violation]:
    """The pirate starts on the scenario's "x" sea hex (parameter ``hex``)."""
    want = lay.params("SEA-PIRATE-START").get("hex")
    if want is None or lay.pirate is None or lay.pirate == tuple(want):
        return []  # a missing pirate is not observed (see Report.notes)
    at = f"on {lay.pirate}"
    return [
        Violation("SEA-PIRATE-START", (tuple(want),), f"the pirate is {at}; it starts on {want}")
    ]


# --- chip rules ---------------------------------------------------------------------------


def _adjacent_red_pairs(lay: Layout, region: Sequence[int] | None = None) -> frozenset:
    if region is None:
        return frozenset(lay.geo.pairs)
    inside = set(region)
    return frozenset((i, j) for i, j in lay.geo.pairs if i in inside and j in inside)


def _red_message(t: Terrain, n: int, h: Hex) -> str:
    return f"red number {n} on the {t.value} at {h}"


def _register_red_rule(
    rule_id: str,
    doc: str,
    region: Callable[[Layout], Sequence[int] | None] = lambda lay: None,
    no_red_on_gold: bool = False,
) -> None:
    def constraints(lay: Layout) -> ChipConstraints:
        forbidden = {}
        if no_red_on_gold:
            forbidden = {
                i: frozenset(RED_NUMBERS) for i, t in enumerate(lay.terrain) if t == Terrain.GOLD
            }
        return ChipConstraints(forbidden, _adjacent_red_pairs(lay, region(lay)))

    register_chip_rule(rule_id, constraints, _red_message, doc)


_register_red_rule("BASE-RED-ADJ", "No two adjacent hexes both carry 6 or 8.")
_register_red_rule("X56-RED-ADJ", "No two adjacent hexes both carry 6 or 8.")
_register_red_rule(
    "S1-RED-MAIN",
    "No adjacent red numbers on the main island (parameter ``hexes``).",
    lambda lay: _hexes_param(lay, "S1-RED-MAIN"),
)
_register_red_rule(
    "S1-RED-SMALL-4P",
    "No adjacent red numbers on the small islands (parameter ``hexes``).",
    lambda lay: _hexes_param(lay, "S1-RED-SMALL-4P"),
)
_register_red_rule(
    "S4-RED-ADJ-GOLD", "No adjacent red numbers; no 6 or 8 on gold.", no_red_on_gold=True
)
_register_red_rule(
    "S9-RANDOM",
    "Random hexes and chips: no adjacent red numbers, no red on gold.",
    no_red_on_gold=True,
)


def _placement_constraints(lay: Layout) -> ChipConstraints:
    forbidden = {}
    for i, t in enumerate(lay.terrain):
        if t == Terrain.DESERT or not t.is_land:
            forbidden[i] = ALL_CHIPS
        else:
            forbidden[i] = frozenset({NO_CHIP})
    return ChipConstraints(forbidden)


def _placement_message(t: Terrain, n: int, h: Hex) -> str:
    if n == NO_CHIP:
        return f"the {t.value} at {h} has no chip"
    return f"the {t.value} at {h} carries chip {n} but takes none"


register_chip_rule(
    "BASE-CHIP-PLACEMENT",
    _placement_constraints,
    _placement_message,
    "Every non-desert land hex has exactly one chip; the desert has none.",
)


def _sea_chip_constraints(lay: Layout) -> ChipConstraints:
    chipless = set(_hexes_param(lay, "SEA-CHIP-ON-LAND", "chipless"))
    every_land = lay.params("SEA-CHIP-ON-LAND").get("every_land", True)
    forbidden = {}
    for i, t in enumerate(lay.terrain):
        if t in (Terrain.SEA, Terrain.DESERT, Terrain.UNEXPLORED) or i in chipless:
            forbidden[i] = ALL_CHIPS
        elif every_land:
            forbidden[i] = frozenset({NO_CHIP})
    return ChipConstraints(forbidden)


register_chip_rule(
    "SEA-CHIP-ON-LAND",
    _sea_chip_constraints,
    _placement_message,
    "Chips only on producing land (parameters ``chipless`` hexes, ``every_land``: each "
    "producing land hex has one).",
)


def _hexes_forbid(rule: str, default: Sequence[int]) -> ConstraintFn:
    def constraints(lay: Layout) -> ChipConstraints:
        numbers = frozenset(lay.params(rule).get("numbers", default))
        return ChipConstraints({i: numbers for i in _hexes_param(lay, rule)})

    return constraints


register_chip_rule(
    "S5-RIGHT3-NUMBERS",
    _hexes_forbid("S5-RIGHT3-NUMBERS", (5, 6, 8, 9)),
    lambda t, n, h: f"the {t.value} at {h} is one of the 3 rightmost hexes and carries {n}",
    "The 3 rightmost main-island hexes (parameter ``hexes``) carry none of 5, 6, 8, 9.",
)
register_chip_rule(
    "S5-NO-CHIP-SMALL",
    _hexes_forbid("S5-NO-CHIP-SMALL", tuple(CHIP_VALUES)),
    lambda t, n, h: f"the {t.value} at {h} is on a small island and carries chip {n}",
    "The small islands (parameter ``hexes``) have no chips.",
)


def _forest_pasture_constraints(lay: Layout) -> ChipConstraints:
    bad = frozenset(lay.params("S2-FOREST-PASTURE-NUMBERS").get("numbers", (2, 3, 11, 12)))
    return ChipConstraints(
        {i: bad for i, t in enumerate(lay.terrain) if t in (Terrain.FOREST, Terrain.PASTURE)}
    )


register_chip_rule(
    "S2-FOREST-PASTURE-NUMBERS",
    _forest_pasture_constraints,
    lambda t, n, h: f"the {t.value} at {h} carries a poor number ({n})",
    "Forest and pasture carry no poor number (parameter ``numbers``, default 2, 3, 11, 12).",
)


def _desert_neighbour_constraints(lay: Layout) -> ChipConstraints:
    reds = frozenset(RED_NUMBERS)
    out: dict[int, frozenset[int]] = {}
    for i, t in enumerate(lay.terrain):
        if t == Terrain.DESERT:
            for j in lay.geo.neighbours[i]:
                out[j] = reds
    return ChipConstraints(out)


register_chip_rule(
    "S8-DESERT-NEIGHBOURS",
    _desert_neighbour_constraints,
    lambda t, n, h: f"the {t.value} at {h} borders a desert and carries red {n}",
    "Hexes next to a desert carry neither 6 nor 8.",
)


def chip_constraints(lay: Layout, rules: Iterable[str] | None = None) -> ChipConstraints:
    """All chip rules of the spec (or of ``rules``) merged into one declaration."""
    forbidden: dict[int, frozenset[int]] = {}
    red: set[tuple[int, int]] = set()
    for rid in lay.spec.rules if rules is None else rules:
        fn = RULES[rid].constraints
        if fn is None:
            continue
        c = fn(lay)
        for i, bad in c.forbidden.items():
            forbidden[i] = forbidden.get(i, frozenset()) | bad
        red.update(c.red_apart)
    return ChipConstraints(forbidden, frozenset(red))


# --- fixed hexes --------------------------------------------------------------------------


def _register_fixed(rule_id: str, doc: str) -> None:
    def check(lay: Layout) -> list[Violation]:
        out = []
        for h, (terrain, number) in lay.spec.fixed.items():
            i = lay.geo.index.get(h)
            if i is None:
                continue
            if lay.terrain[i] != terrain or (number is not None and lay.numbers[i] != number):
                want = terrain.value + ("" if number is None else f" {number}")
                out.append(Violation(rule_id, (h,), f"{h} must stay {want} as in the diagram"))
        return out

    check.__doc__ = doc
    register(rule_id, repair=("chips", "hexes"))(check)


_register_fixed("S4-FIXED-3", "The 3 hexes left of the desert belt are unchanged (spec.fixed).")
_register_fixed("S6-FIXED-CENTRE", "Central islands and their chips unchanged (spec.fixed).")
_register_fixed("S7-FIXED", "The layout equals the diagram (spec.fixed).")


# --- spiral -------------------------------------------------------------------------------


def spiral_mismatch(lay: Layout) -> tuple[Hex | None, list[int]]:
    """The outer corner whose lettered spiral is nearest to the chips on the board, and the
    indices of the hexes whose chip differs from it (empty when the board follows it)."""
    values = lay.spec.letter_values or ()
    land = [h for h, t in zip(lay.geo.hexes, lay.terrain, strict=True) if t.is_land]
    deserts = [h for h, t in zip(lay.geo.hexes, lay.terrain, strict=True) if t == Terrain.DESERT]
    if len(land) - len(deserts) != len(values):
        return None, [i for i, t in enumerate(lay.terrain) if t.is_land]
    best: tuple[Hex | None, list[int]] | None = None
    for start in corner_hexes(land):
        laid = spiral_numbers(land, start, deserts, values)
        diff = [i for i, h in enumerate(lay.geo.hexes) if lay.numbers[i] != laid.get(h, NO_CHIP)]
        if best is None or len(diff) < len(best[1]):
            best = (start, diff)
    return best if best is not None else (None, [])


def _register_spiral(rule_id: str) -> None:
    def check(lay: Layout) -> list[Violation]:
        start, diff = spiral_mismatch(lay)
        if not diff:
            return []
        hexes = tuple(lay.geo.hexes[i] for i in diff)
        if start is None:
            msg = "the chips cannot follow the lettered spiral: wrong number of chip hexes"
        else:
            msg = (
                f"the chips do not follow the lettered spiral; nearest is the one from corner "
                f"{start}, which differs on {len(diff)} hexes"
            )
        return [Violation(rule_id, hexes, msg)]

    check.__doc__ = "Chips read A, B, C... along a counter-clockwise inward spiral from a corner."
    register(rule_id, repair=("chips",))(check)


_register_spiral("BASE-SPIRAL")
_register_spiral("X56-SPIRAL")


# --- pieces -------------------------------------------------------------------------------

PIECE_LIMITS = {"settlement": 5, "city": 4, "road": 15, "ship": 15}


@register("BASE-PIECES")
def _base_pieces(lay: Layout) -> list[Violation]:
    """Per colour at most 5 settlements, 4 cities, 15 roads (and 15 ships) on the board."""
    counts = Counter((p.color, p.kind) for p in lay.pieces)
    out = []
    for (color, kind), n in sorted(counts.items()):
        if n > PIECE_LIMITS[kind]:
            out.append(
                Violation(
                    "BASE-PIECES", (), f"{color} has {n} {kind}s (at most {PIECE_LIMITS[kind]})"
                )
            )
    return out


@register("S8-FOUND-FORBIDDEN")
def _wonders_founding(lay: Layout) -> list[Violation]:
    """No founding settlement on the small islands (parameter ``hexes``) or on a marked corner
    (``corners``); the settlements of a board being set up are its founding settlements."""
    params = lay.params("S8-FOUND-FORBIDDEN")
    small = {tuple(h) for h in params.get("hexes", ())}
    marked = {vertex(*c) for c in params.get("corners", ())}
    out = []
    for piece in lay.pieces:
        if piece.kind not in ("settlement", "city") or piece.vertex is None:
            continue
        v = piece.vertex
        land = tuple(
            h
            for h in vertex_hexes(v)
            if h in lay.geo.index and lay.terrain[lay.geo.index[h]].is_land
        )
        if v in marked:
            why = "a marked corner"
        elif land and set(land) <= small:
            why = "a small island"
        else:
            continue
        out.append(
            Violation(
                "S8-FOUND-FORBIDDEN",
                land,
                f"{piece.color}'s {piece.kind} at {tuple(v)} is on {why}: no founding there",
            )
        )
    return out


@register("BASE-3P-COLOURS")
def _three_player_colours(lay: Layout) -> list[Violation]:
    """Beginner set-up with 3 players: red is unused (RULES 1.3.3)."""
    if lay.players == 3 and any(p.color == "red" for p in lay.pieces):
        return [Violation("BASE-3P-COLOURS", (), "3 players: red pieces go back in the box")]
    return []


# --- Big Box country maps (RULES.md 5.3) ----------------------------------------------------
#
# The parameters are the country hook's (a scenario file's check says {"hook": "country"}):
# ``towns``, ``roads``, ``vp_spaces``, ``vp_chip_players`` (see companion.hooks.country).


def _corner_set(params: Mapping[str, Any], key: str) -> set[Vertex]:
    return {vertex(int(q), int(r), str(c)) for q, r, c in params.get(key, ())}


def _chips_in_play(lay: Layout, params: Mapping[str, Any]) -> bool:
    """Whether the VP spaces carry Catan chips (3-4 players; an unknown count is read so)."""
    return lay.players is None or lay.players in set(params.get("vp_chip_players", (3, 4)))


def _town_spaces(lay: Layout, params: Mapping[str, Any]) -> set[Vertex]:
    towns = _corner_set(params, "towns")
    return towns if _chips_in_play(lay, params) else towns | _corner_set(params, "vp_spaces")


def _on_frame(lay: Layout, v: Vertex) -> tuple[Hex, ...]:
    return tuple(h for h in vertex_hexes(v) if h in lay.geo.index)


@register("BB-KNY-TOWNS")
def _country_towns(lay: Layout) -> list[Violation]:
    """Settlements and cities only on the map's town spaces (RULES.md 5.3.3)."""
    params = lay.params("BB-KNY-TOWNS")
    towns = _town_spaces(lay, params)
    out = [
        Violation("BB-KNY-TOWNS", (), f"town space {tuple(v)} is off the board")
        for v in sorted(towns)
        if not _on_frame(lay, v)
    ]
    for piece in lay.pieces:
        if piece.vertex is not None and piece.vertex not in towns:
            out.append(
                Violation(
                    "BB-KNY-TOWNS",
                    _on_frame(lay, piece.vertex),
                    f"{piece.color}'s {piece.kind} at {tuple(piece.vertex)} is not on a town space",
                )
            )
    return out


@register("BB-KNY-ROADS")
def _country_roads(lay: Layout) -> list[Violation]:
    """Roads only on road spaces, and none beyond a town space without its owner's
    settlement there: each colour's roads reach one of its buildings (RULES.md 5.3.4)."""
    params = lay.params("BB-KNY-ROADS")
    spaces = {edge(int(q), int(r), str(s)) for q, r, s in params.get("roads", ())}
    towns = _town_spaces(lay, params)
    out: list[Violation] = []
    roads: dict[str, list[Edge]] = {}
    buildings: dict[Vertex, str] = {p.vertex: p.color for p in lay.pieces if p.vertex}
    for piece in lay.pieces:
        if piece.edge is None:
            continue
        if piece.edge not in spaces:
            out.append(
                Violation(
                    "BB-KNY-ROADS",
                    tuple(h for h in edge_hexes(piece.edge) if h in lay.geo.index),
                    f"{piece.color}'s {piece.kind} at {tuple(piece.edge)} is not on a road space",
                )
            )
        roads.setdefault(piece.color, []).append(piece.edge)
    for color, own in sorted(roads.items()):
        # Flood from the colour's buildings along its roads; a town space passes the flood
        # on only where the colour has built.
        reached: set[Edge] = set()
        frontier = [v for v, c in buildings.items() if c == color]
        seen = set(frontier)
        while frontier:
            v = frontier.pop()
            for e in own:
                if v in edge_vertices(e) and e not in reached:
                    reached.add(e)
                    for w in edge_vertices(e):
                        passable = buildings.get(w) == color or (
                            w not in towns and w not in buildings
                        )
                        if w not in seen and passable:
                            seen.add(w)
                            frontier.append(w)
        for e in sorted(set(own) - reached):
            out.append(
                Violation(
                    "BB-KNY-ROADS",
                    tuple(h for h in edge_hexes(e) if h in lay.geo.index),
                    f"{color}'s road at {tuple(e)} goes beyond a town space without {color}'s "
                    "settlement there (or reaches no building)",
                )
            )
    return out


@register("BB-KNY-VP-CHIPS")
def _country_vp_chips(lay: Layout) -> list[Violation]:
    """The map has its VP spaces (Corsica 11, New York 9: ``chips``); with 3-4 players each
    holds a Catan chip, so no building stands there (RULES.md 5.3.2, 5.3.7)."""
    params = lay.params("BB-KNY-VP-CHIPS")
    vp = _corner_set(params, "vp_spaces")
    want = params.get("chips")
    out = []
    if want is not None and len(vp) != int(want):
        out.append(Violation("BB-KNY-VP-CHIPS", (), f"the map has {len(vp)} VP spaces, not {want}"))
    if _chips_in_play(lay, params):
        for piece in lay.pieces:
            if piece.vertex in vp:
                out.append(
                    Violation(
                        "BB-KNY-VP-CHIPS",
                        _on_frame(lay, piece.vertex),
                        f"{piece.color}'s {piece.kind} stands on the VP space "
                        f"{tuple(piece.vertex)}, which holds a Catan chip with 3-4 players",
                    )
                )
    return out


_robber_rule(
    "BB-KNY-ROBBER",
    lambda lay: [tuple(lay.params("BB-KNY-ROBBER")["hex"])],  # type: ignore[misc]
    "the printed robber picture",
)


@register("BB-ERIE")
def _erie_canal(lay: Layout) -> list[Violation]:
    """Canal tiles are the 12 merchant favours of Beste Freunde; the canal's towns are town
    corners of the map (RULES.md 5.3.10). That they are earned only after founding is the
    engine's rule (companion.hooks.country.ErieCanal)."""
    params = lay.params("BB-ERIE")
    out = []
    tiles = int(params.get("tiles", 12))
    if not 0 < tiles <= 12:
        out.append(Violation("BB-ERIE", (), f"{tiles} canal tiles: there are 12 merchant favours"))
    canal = _corner_set(params, "canal")
    off = sorted(v for v in canal if not _on_frame(lay, v))
    if len(canal) < 2 or off:
        where = f" ({tuple(off[0])} is off the board)" if off else ""
        out.append(Violation("BB-ERIE", (), f"the canal needs 2 or more towns on the map{where}"))
    return out


# --- Big Box scenarios (RULES.md §7.5): the material their hooks set out ----------------


@register("BB-BF-FAVOURS")
def _favour_supply(lay: Layout) -> list[Violation]:
    """Best Friends: the favour supply fits the box by guild (12/12/12/24/24 of 84, RULES.md
    5.1.1); how many per player count is a GAP (the scenario file's choice)."""
    from companion.hooks.best_friends import BOX, guild_words

    favours = lay.params("BB-BF-FAVOURS").get("favours", BOX)
    out = []
    for guild, n in sorted(favours.items()):
        if guild not in BOX:
            out.append(Violation("BB-BF-FAVOURS", (), f"{guild!r} is not a guild"))
        elif not isinstance(n, int) or isinstance(n, bool) or not 0 <= n <= BOX[guild]:
            out.append(
                Violation(
                    "BB-BF-FAVOURS",
                    (),
                    f"{n!r} {guild_words(guild)} favours: the box holds 0 to {BOX[guild]}",
                )
            )
    return out


@register("BB-HELPER-STACK")
def _helper_stack(lay: Layout) -> list[Violation]:
    """The Helpers: 10 cards, A1 to A6 on top in order, then the 4 unnumbered ones (RULES.md
    5.2.1-5.2.2). That each player takes the top card right after their second founding
    settlement is the engine's rule (companion.hooks.helpers.Helpers)."""
    from companion.hooks.helpers import DEFAULT_STACK, stack_problems

    stack = lay.params("BB-HELPER-STACK").get("stack", DEFAULT_STACK)
    return [Violation("BB-HELPER-STACK", (), problem) for problem in stack_problems(stack)]


for _spec in (BASE_SPEC, EXTENSION_SPEC):
    register_spec(_spec)


# --- The Pirate Islands (S7) ---------------------------------------------------------------


def _pieces_at(lay: Layout) -> tuple[dict[Vertex, Piece], dict[Edge, Piece]]:
    corners = {p.vertex: p for p in lay.pieces if p.vertex is not None}
    sides = {p.edge: p for p in lay.pieces if p.edge is not None}
    return corners, sides


@register("S7-PREPLACED")
def _pirate_preplaced(lay: Layout) -> list[Violation]:
    """Each position in play (parameter ``positions``, one per player in seat order) has its
    settlement at ``home`` with a ship of the same colour on ``ship``, and that colour's
    settlement on its ``fortress`` (on 3 Catan chips, which a camera cannot count); no two
    positions share a colour. Not observed when the board shows no pieces (RULES 4.7.2-4.7.3)."""
    if not lay.pieces:
        return []
    corners, sides = _pieces_at(lay)
    positions = lay.params("S7-PREPLACED").get("positions", ())[: lay.players or None]
    out, colours = [], []
    for pos in positions:
        home, ship = vertex(*pos["home"]), edge(*pos["ship"])
        fortress = vertex(*pos["fortress"])
        settlement = corners.get(home)
        if settlement is None or settlement.kind != "settlement":
            out.append(Violation("S7-PREPLACED", (), f"no settlement at {tuple(home)}"))
            continue
        color = settlement.color
        colours.append(color)
        boat = sides.get(ship)
        if boat is None or boat.kind != "ship" or boat.color != color:
            out.append(Violation("S7-PREPLACED", (), f"{color}'s ship belongs on {tuple(ship)}"))
        fort = corners.get(fortress)
        if fort is None or fort.kind != "settlement" or fort.color != color:
            out.append(
                Violation(
                    "S7-PREPLACED",
                    (),
                    f"{color}'s fortress settlement belongs on {tuple(fortress)}",
                )
            )
    repeated = sorted(c for c, n in Counter(colours).items() if n > 1)
    if repeated:
        out.append(Violation("S7-PREPLACED", (), f"{repeated[0]} stands on two positions"))
    return out


@register("S7-3P")
def _pirate_three(lay: Layout) -> list[Violation]:
    """With 3 players the unused position (parameter ``unused``: its ``home``, ``ship``,
    ``mark`` and ``fortress``) stays empty (RULES 4.7.4; the victory point cards leave the
    deck by the scenario's rules, which no board shows)."""
    unused = lay.params("S7-3P").get("unused")
    if lay.players != 3 or unused is None:
        return []
    corners, sides = _pieces_at(lay)
    taken = [
        vertex(*unused[k]) for k in ("home", "mark", "fortress") if vertex(*unused[k]) in corners
    ]
    taken += [edge(*unused["ship"])] if edge(*unused["ship"]) in sides else []
    return [
        Violation("S7-3P", (), f"3 players: the unused position's {tuple(x)} stays empty")
        for x in taken
    ]


@register("S7-NO-SPECIAL-CARDS")
def _pirate_no_robber(lay: Layout) -> list[Violation]:
    """No robber in play: the board shows none, or only where the companion parks it
    (parameter ``parked``); Longest Road and Largest Army are off by the scenario's rules
    (RULES 4.7.5, 4.7.7)."""
    parked = lay.params("S7-NO-SPECIAL-CARDS").get("parked")
    if lay.robber is None or (parked is not None and lay.robber == tuple(parked)):
        return []
    return [
        Violation(
            "S7-NO-SPECIAL-CARDS", (lay.robber,), "there is no robber in this scenario: remove it"
        )
    ]


@register("S7-FOUND-EAST")
def _pirate_founding(lay: Layout) -> list[Violation]:
    """Every settlement or city stands on the eastern island (parameter ``hexes``), except on
    the positions' marks and fortresses (``positions``) (RULES 4.7.6, 4.7.16)."""
    params = lay.params("S7-FOUND-EAST")
    east = {tuple(h) for h in params.get("hexes", ())}
    allowed = {vertex(*pos[k]) for pos in params.get("positions", ()) for k in ("mark", "fortress")}
    out = []
    for piece in lay.pieces:
        v = piece.vertex
        if piece.kind not in ("settlement", "city") or v is None or v in allowed:
            continue
        if not set(vertex_hexes(v)) & east:
            out.append(
                Violation(
                    "S7-FOUND-EAST",
                    (),
                    f"{piece.color}'s {piece.kind} at {tuple(v)} is off the eastern island",
                )
            )
    return out


# --- terminal drawing ---------------------------------------------------------------------

TERRAIN_ABBR = {
    Terrain.FOREST: "fo",
    Terrain.PASTURE: "pa",
    Terrain.FIELDS: "fi",
    Terrain.HILLS: "hi",
    Terrain.MOUNTAINS: "mo",
    Terrain.DESERT: "de",
    Terrain.GOLD: "go",
    Terrain.SEA: "~~",
    Terrain.UNEXPLORED: "??",
}


def draw_board(board: Board, marked: Iterable[Hex] = ()) -> str:
    """The board as text, rows offset like the real board; marked hexes in ``*...*``.

    Each hex is a 6-character cell: terrain abbreviation and chip, e.g. `` fo 6 ``; the robber
    is shown as ``R`` after the chip.
    """
    marks = set(marked)
    rows = rows_of(board.tiles)
    # Column of a hex centre in half-cells: 2q + r, shifted so the leftmost is 0.
    left = min(2 * q + r for q, r in board.tiles)
    lines = []
    for row in rows:
        line = ""
        for q, r in row:
            t = board.tiles[(q, r)]
            col = (2 * q + r - left) * 3
            line = line.ljust(col)
            num = "" if t.number is None else str(t.number)
            rob = "R" if board.robber == (q, r) else " "
            body = f"{TERRAIN_ABBR[t.terrain]}{num:>2}"
            cell = f"*{body}*" if (q, r) in marks else f" {body}{rob}"
            line += cell
        lines.append(line.rstrip())
    return "\n".join(lines)
