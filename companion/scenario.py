"""Scenarios as files: a map, its material, its rules and its hooks, for each player count.

A scenario file is JSON (``companion/scenarios/*.json``; copy one to make a home-made scenario
and load it by path). Its shape::

    {
      "format": "catan-companion-scenario/1",
      "id": "new-shores", "title": "Heading for New Shores", "rules_section": "4.1",
      "expansion": "seafarers",
      "board": "seafarers" | "country" | "standard",          # default seafarers (see below)
      "extends": "new-york",                                   # a variant of another file
      "rules": {"ships": 15, "victory_points": 14},          # any companion.game.Rules field
      "hooks": [{"hook": "founding_area", "areas": ["main"], "rule": "4.1.2"}, ...],
      "checks": {"S1-RED-MAIN": {"hexes": "@main"}, "SEA-POOL-HEX": {}, ...},
      "layouts": {
        "4": {
          "rows": [{"r": -3, "q": 0, "hexes": "sea sea ?@main fields:5@small ..."}, ...],
          "material": {"main": {"terrain": {"forest": 4, ...}, "chips": {"2": 1, ...}}, ...},
          "harbors": [{"q": .., "r": .., "side": "E", "kind": "3:1"}, ...],
          "robber": {"q": .., "r": ..} | {"terrain": "desert"} | {"number": 12},
          "pirate": {"q": .., "r": ..} | null,
          "catan_chips": 24,
          "marks": {"strait": [[q, r, "N"], ...], ...}          # named corner sets
        }
      }
    }

``checks`` names the set-up rules of RULES.md §7 that apply (see :mod:`companion.setup_check`),
with their parameters; ``"@AREA"`` stands for the hexes of an area. ``marks`` are the corners a
map marks (the Wonders' strait, say): ``"@MARK"`` in a check's or a hook's parameters stands for
its corners, and a list of such names for all their corners. The variable set-up draws
chips until the chip rules among them hold, and ``catan-companion check-setup --scenario ID``
checks a table's board against the same rules.

A scenario played on the usual board (the Big Box scenarios of RULES.md §5) says
``"board": "standard"`` and has no rows: each layout (one per player count) is then the
variable set-up of the base game (3-4 players) or of the 5-6 extension, checked by their §7
rules plus the file's ``checks``; a layout carries only what differs by player count (its
``hooks`` and ``rules``). A check's parameters may name a hook, ``{"hook": "best_friends"}``,
to be checked against that hook's parameters (the favour supply a table set, say).

A hex token is ``TERRAIN[:NUMBER][@AREA...]``; ``?`` as the terrain or the number draws it at
random from the material of the token's first area (the variable set-up), e.g. ``?:?@main``;
further tags only name areas the hooks use (``?:?@beyond@strip``). Every area's
material must add up exactly, and the whole scenario must fit in the physical pool of the
base game plus Seafarers (RULES.md 3.1.2); :func:`load_scenario` says what is wrong if not.
A ``"country"`` board is the printed map of the Big Box country scenarios (RULES.md 5.3): its
hexes and numbers are printed, so no pool applies; its town and road spaces are parameters of
its ``country`` hook (:mod:`companion.hooks.country`).

>>> s = load_scenario("new-shores", players=4, seed=1)
>>> s.title, s.rules.victory_points, len(s.board.land_hexes())
('Heading for New Shores', 14, 28)
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from companion.actions import DevCard
from companion.board import (
    CHIP_VALUES,
    SCENARIO_BOARD_KINDS,
    Board,
    BoardError,
    Harbor,
    Hex,
    Resource,
    Terrain,
    Tile,
    edge,
    edge_vertices,
    iter_coast_sides,
    vertex,
    vertex_hexes,
)
from companion.game import Rules
from companion.hooks import make_hook
from companion.layouts import random_board
from companion.setup_check import (
    RULES,
    SEA_POOL_CHIPS,
    SEA_POOL_HEXES,
    Layout,
    SetupSpec,
    check_board,
    check_layout,
    spec_for,
)

FORMAT = "catan-companion-scenario/1"
SCENARIO_DIR = Path(__file__).parent / "scenarios"

POOL_SPECIAL_HARBORS = 5
POOL_GENERIC_HARBORS = 5
POOL_CATAN_CHIPS = 57


class ScenarioError(ValueError):
    """A scenario file is malformed or does not fit the material; the message says where."""


@dataclass(frozen=True)
class Scenario:
    id: str
    title: str
    players: int
    board: Board
    rules: Rules
    areas: dict[str, frozenset[Hex]]
    catan_chips: int
    source: Path
    #: the set-up rules (RULES.md §7) the board obeys, for the checker
    setup: SetupSpec
    #: where the layout starts the robber and the pirate, as the file names them (a hex's
    #: coordinates, or a terrain and/or chip value); None for a figure it does not place
    starts: tuple[Mapping[str, Any] | None, Mapping[str, Any] | None] = (None, None)

    def start_hexes(self, board: Board, in_map_hexes: bool) -> tuple[Hex | None, Hex | None]:
        """Where this scenario's robber and pirate start on ``board``, a table's own laying
        of its map (read from a photo, say): the hex the layout names, or the first hex of
        the terrain and chip it names. ``in_map_hexes``: the board is in the map's own hexes,
        so a start given by its coordinates holds (a map read blind is not). None for a
        figure the scenario does not place, or whose start the board does not show.

        >>> scenario = load_scenario("new-shores", 4, seed=3)
        >>> board = scenario.board
        >>> scenario.start_hexes(board, True) == (board.robber, board.pirate)
        True
        """
        starts: list[Hex | None] = []
        for spec, land in zip(self.starts, (True, False), strict=True):
            if spec is None:
                starts.append(None)
            elif "q" in spec:
                h = (spec["q"], spec["r"])
                starts.append(h if in_map_hexes and h in board.tiles else None)
            else:
                found = _matching(spec, board, land)
                # "The first" such hex is the map's, in its own hexes; read blind, only one
                # hex of the kind is the same hex whatever the reader's orientation.
                starts.append(found[0] if found and (in_map_hexes or len(found) == 1) else None)
        return starts[0], starts[1]


def list_scenarios() -> list[str]:
    """The ids of the scenarios shipped in the package."""
    return sorted(p.stem for p in SCENARIO_DIR.glob("*.json"))


def load_scenario(name_or_path: str | Path, players: int, seed: int | None = None) -> Scenario:
    """Load a scenario for ``players`` players; random parts of the map drawn with ``seed``."""
    path = Path(name_or_path)
    if not path.suffix:
        path = SCENARIO_DIR / f"{name_or_path}.json"
        if not path.is_file():
            raise ScenarioError(
                f"no scenario {name_or_path!r} (known: {', '.join(list_scenarios())})"
            )
    data = _read(path)
    try:
        return _build(data, players, seed, path)
    except (ScenarioError, BoardError, KeyError, TypeError, ValueError) as exc:
        raise ScenarioError(f"{path.name}: {exc}") from None


def scenario_map(name: str, players: int) -> Board:
    """The map of scenario ``name`` (an id or a file) for ``players``, as the reader may rely
    on it: its hexes, sea, face-down hexes, terrain counts and number chips (as a multiset)
    are the same for every set-up (which land hex holds which terrain or chip is not, and is
    read from the photo). A scenario whose set-ups lay different sets of chips gets a map
    with no numbers: its chips are then read one by one (as does one whose set-ups leave
    different land hexes without a chip, :meth:`Board.chipless_land`). Its harbours' sides
    and set of kinds (none, on a map without harbours) are the same for every set-up too.

    >>> sorted(scenario_map("four-islands", 4).chip_counts().items())[:3]
    [(2, 1), (3, 2), (4, 3)]

    Raises:
        ValueError: an unknown scenario, or one whose set-up draws its sea (or its fog) or
            places its harbours at random.
    """
    maps = [load_scenario(name, players, seed=seed).board for seed in (0, 1)]
    # Sea and face-down fog, which the photo reader takes from the map.
    given = (Terrain.SEA, Terrain.UNEXPLORED)
    seas = [{h: t.terrain for h, t in m.tiles.items() if t.terrain in given} for m in maps]
    if seas[0] != seas[1]:
        raise ValueError(
            f"scenario {name!r} draws its sea at random: read the photo without --scenario"
        )
    first, second = maps
    if first.chip_counts() != second.chip_counts() or (
        first.chipless_land() != second.chipless_land()
    ):
        first = replace(first, tiles={h: replace(t, number=None) for h, t in first.tiles.items()})
    if _harbour_set(first) != _harbour_set(second):
        raise ValueError(
            f"scenario {name!r} places its harbours at random: read the photo without --scenario"
        )
    return first


def _harbour_set(board: Board) -> tuple[frozenset[tuple[Hex, str]], Counter[str]]:
    """A board's harbour sides and the multiset of their kinds."""
    return frozenset(((h.q, h.r), h.side) for h in board.harbors), Counter(
        h.kind for h in board.harbors
    )


def player_counts(name_or_path: str | Path) -> list[int]:
    """The player counts a scenario file has a layout for.

    >>> player_counts("new-world")
    [3, 4]
    """
    path = Path(name_or_path)
    if not path.suffix:
        path = SCENARIO_DIR / f"{name_or_path}.json"
    return sorted(int(k) for k in _read(path).get("layouts", {}))


def _read(path: Path, depth: int = 0) -> dict[str, Any]:
    """A scenario file's JSON, with what it ``extends`` filled in.

    A variant (the Erie Canal on the New York map) names the file it builds on with
    ``"extends": "new-york"`` (beside it): it has that file's map and rules, its own keys win,
    and its ``hooks`` come after the ones it extends (``rules`` and ``checks`` merge).
    """
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ScenarioError(f"{path}: no such file") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ScenarioError(f"{path}: not a JSON document ({exc})") from None
    if not isinstance(data, dict):
        raise ScenarioError(f"{path}: a scenario file is a JSON object")
    base = data.pop("extends", None)
    if base is None:
        return data
    if depth > 4:
        raise ScenarioError(f"{path.name}: 'extends' goes round in a circle")
    parent = _read(path.parent / f"{base}.json", depth + 1)
    merged = {**parent, **data}
    merged["hooks"] = [*parent.get("hooks", ()), *data.get("hooks", ())]
    for key in ("rules", "checks"):
        merged[key] = {**parent.get(key, {}), **data.get(key, {})}
    return merged


def _layout(data: Mapping[str, Any], players: int) -> Mapping[str, Any]:
    """The scenario file's layout for ``players``, with what it copies (``like``) filled in."""
    layouts = data["layouts"]
    layout = layouts.get(str(players))
    if layout is None:
        raise ScenarioError(
            f"no layout for {players} players (it has: {', '.join(sorted(layouts))})"
        )
    if "like" in layout:  # the same map as another player count, with these keys changed
        like = layouts.get(str(layout["like"]))
        if like is None or "like" in like:
            raise ScenarioError(f"layouts.{players}.like: no layout {layout['like']!r} to copy")
        layout = {**like, **{k: v for k, v in layout.items() if k != "like"}}
    return layout


def _build(data: Mapping[str, Any], players: int, seed: int | None, path: Path) -> Scenario:
    if data.get("format") != FORMAT:
        raise ScenarioError(f"format must be {FORMAT!r}")
    layout = _layout(data, players)
    if data.get("board") == "standard":
        return _build_standard(data, layout, players, seed, path)
    kind = data.get("board", "seafarers")
    if kind not in SCENARIO_BOARD_KINDS:
        raise ScenarioError(f"board: {kind!r} is not one of {', '.join(SCENARIO_BOARD_KINDS)}")
    rng = random.Random(seed)
    tokens, areas, material_area = _parse_rows(layout["rows"])
    material = layout.get("material", {})
    marks = _marks(layout.get("marks", {}), tokens, areas)
    spec = _setup_spec(data, layout, players, tokens, areas, marks)
    tiles = _lay(tokens, material_area, material, spec, players, rng)
    board = Board(kind, tiles, [])
    board.harbors = _harbors(layout, rng, board)
    board.robber = _place(layout.get("robber"), board, "robber", land=True)
    board.pirate = _place(layout.get("pirate"), board, "pirate", land=False)
    catan_chips = int(layout.get("catan_chips", 0))
    hooks = tuple(_with_marks(dict(h), marks) for h in data.get("hooks", ()))
    hooks += tuple(_with_marks(dict(h), marks) for h in layout.get("hooks", ()))
    # The box first (counting the face-down stacks), then the file's own set-up rules. A
    # country map is printed: its landscapes and numbers come from no box (RULES.md 5.3.1).
    if kind == "seafarers":
        _check_pool(board, catan_chips, [h["stack"] for h in hooks if "stack" in h])
    violations = check_board(board, spec, players).violations
    if violations:
        v = violations[0]
        raise ScenarioError(f"the laid-out board breaks {v.rule}: {v.message}")
    rules_data = {**data.get("rules", {}), **layout.get("rules", {})}
    area_json = {name: [list(h) for h in sorted(hexes)] for name, hexes in areas.items()}
    rules = replace(Rules.for_players(players), **_rules_fields(rules_data))
    rules = replace(rules, hooks=hooks, areas=area_json)
    frozen_areas = {k: frozenset(v) for k, v in areas.items()}
    for h in hooks:  # fail now, not in the middle of a game
        make_hook(h, frozen_areas)
    return Scenario(
        id=str(data["id"]),
        title=str(data["title"]),
        players=players,
        board=board,
        rules=rules,
        areas=frozen_areas,
        catan_chips=catan_chips,
        source=path,
        setup=spec,
        starts=(layout.get("robber"), layout.get("pirate")),
    )


def _build_standard(
    data: Mapping[str, Any], layout: Mapping[str, Any], players: int, seed: int | None, path: Path
) -> Scenario:
    """A scenario on the usual board for ``players``: a random legal base or 5-6 board."""
    hooks = tuple(dict(h) for h in (*data.get("hooks", ()), *layout.get("hooks", ())))
    checks = {**data.get("checks", {}), **layout.get("checks", {})}
    unknown = set(checks) - set(RULES)
    if unknown:
        raise ScenarioError(f"checks: unknown rule {sorted(unknown)[0]!r}")
    standard = spec_for(None, players)
    spec = replace(
        standard,
        name=str(data["id"]),
        players=(players,),
        rules=(*standard.rules, *(c for c in checks if c not in standard.rules)),
        params={rid: _hook_params(p, list(hooks)) for rid, p in checks.items()},
    )
    board = random_board(players, seed)
    for h in hooks:  # fail now, not in the middle of a game
        make_hook(h, {})
    violations = check_board(board, spec, players).violations
    if violations:
        v = violations[0]
        raise ScenarioError(f"the set-up breaks {v.rule}: {v.message}")
    rules_data = {**data.get("rules", {}), **layout.get("rules", {})}
    rules = replace(Rules.for_players(players), **_rules_fields(rules_data))
    return Scenario(
        id=str(data["id"]),
        title=str(data["title"]),
        players=players,
        board=board,
        rules=replace(rules, hooks=hooks, areas={}),
        areas={},
        catan_chips=int(layout.get("catan_chips", 0)),
        source=path,
        setup=spec,
        starts=(layout.get("robber"), layout.get("pirate")),
    )


def _rules_fields(data: Mapping[str, Any]) -> dict[str, Any]:
    known = set(Rules.__dataclass_fields__) - {"hooks", "areas"}
    unknown = set(data) - known
    if unknown:
        raise ScenarioError(f"rules: unknown option {sorted(unknown)[0]!r}")
    out = dict(data)
    if "dev_deck" in out:  # {"knight": 14, ...}: a deck without some cards (S7-3P)
        out["dev_deck"] = tuple((DevCard(k), int(n)) for k, n in out["dev_deck"].items())
    return out


def _parse_rows(
    rows: Any,
) -> tuple[dict[Hex, tuple[str, str | None]], dict[str, set[Hex]], dict[Hex, str]]:
    """Tokens by hex, the hexes of every area, and each hex's material area (its first tag)."""
    tokens: dict[Hex, tuple[str, str | None]] = {}
    areas: dict[str, set[Hex]] = {}
    material_area: dict[Hex, str] = {}
    for i, row in enumerate(rows):
        q, r = row["q"], row["r"]
        for j, token in enumerate(row["hexes"].split()):
            where = f"rows[{i}] hex {j + 1} ({token})"
            body, *tags = token.split("@")
            terrain, _, number = body.partition(":")
            if terrain != "?" and terrain not in {t.value for t in Terrain}:
                raise ScenarioError(f"{where}: unknown terrain {terrain!r}")
            h = (q + j, r)
            if h in tokens:
                raise ScenarioError(f"{where}: hex {h} appears twice")
            tokens[h] = (terrain, number or None)
            for tag in tags:
                areas.setdefault(tag, set()).add(h)
            if tags:
                material_area[h] = tags[0]
    return tokens, areas, material_area


def _lay(
    tokens: dict[Hex, tuple[str, str | None]],
    area_of: dict[Hex, str],
    material: Mapping[str, Any],
    spec: SetupSpec,
    players: int,
    rng: random.Random,
) -> dict[Hex, Tile]:
    """Fixed hexes as written; random ones drawn from their material area's table."""
    terrain: dict[Hex, Terrain] = {}
    for area in [None, *sorted(set(area_of.values()))]:
        hexes = sorted(h for h in tokens if area_of.get(h) == area)
        pool = Counter(
            {Terrain(k): v for k, v in material.get(area, {}).get("terrain", {}).items()}
        )
        fixed = Counter(Terrain(tokens[h][0]) for h in hexes if tokens[h][0] != "?")
        drawn = [h for h in hexes if tokens[h][0] == "?"]
        if pool:
            left = pool - fixed
            if fixed - pool or sum(left.values()) != len(drawn):
                raise ScenarioError(
                    f"material of area {area!r}: the table lists {_show(pool)} but the map "
                    f"has {_show(fixed)} fixed and {len(drawn)} random hexes"
                )
            bag = list(left.elements())
            rng.shuffle(bag)
            terrain.update(zip(drawn, bag, strict=True))
        elif drawn:
            raise ScenarioError(f"area {area!r} has random hexes but no terrain material")
        terrain.update((h, Terrain(tokens[h][0])) for h in hexes if tokens[h][0] != "?")
    numbers: dict[Hex, int] = {}
    random_chip: dict[str | None, list[Hex]] = {}
    for h, (_, number) in tokens.items():
        if number == "?":
            # A random hex that turned out desert (or sea) takes no chip (3.1.6).
            if terrain[h].is_land and terrain[h] != Terrain.DESERT:
                random_chip.setdefault(area_of.get(h), []).append(h)
        elif number is not None:
            if not number.isdigit() or int(number) not in CHIP_VALUES:
                raise ScenarioError(f"hex {h}: {number!r} is not a chip value")
            numbers[h] = int(number)
    bags: list[tuple[list[Hex], list[int]]] = []
    for area, hexes in sorted(random_chip.items(), key=lambda kv: str(kv[0])):
        pool = Counter({int(k): v for k, v in material.get(area, {}).get("chips", {}).items()})
        fixed = Counter(numbers[h] for h in numbers if area_of.get(h) == area)
        left = pool - fixed
        if fixed - pool or sum(left.values()) != len(hexes):
            raise ScenarioError(
                f"chips of area {area!r}: the table lists {_show(pool)} but the map has "
                f"{_show(fixed)} fixed and {len(hexes)} random chips"
            )
        bags.append((sorted(hexes), list(left.elements())))
    # Every area's chips at once, drawn again until the scenario's chip rules hold (rejection
    # sampling: each legal placement is equally likely).
    for _ in range(20_000):
        trial = dict(numbers)
        for hexes, bag in bags:
            rng.shuffle(bag)
            trial.update(zip(hexes, bag, strict=True))
        if _chips_ok(trial, terrain, spec, players):
            numbers = trial
            break
    else:
        raise ScenarioError("no chip placement satisfies the scenario's chip rules")
    for h in numbers:
        if not terrain[h].is_land or terrain[h] == Terrain.DESERT:
            raise ScenarioError(f"hex {h}: a {terrain[h].value} hex carries no chip (3.1.6)")
    return {h: Tile(terrain[h], numbers.get(h)) for h in sorted(tokens)}


def _chips_ok(
    numbers: dict[Hex, int], terrain: dict[Hex, Terrain], spec: SetupSpec, players: int
) -> bool:
    """Whether the chip rules among the scenario's checks hold for this placement."""
    chip_rules = [r for r in spec.rules if RULES[r].constraints is not None]
    if not chip_rules:
        return True
    tiles = {h: Tile(t, numbers.get(h)) for h, t in terrain.items()}
    layout = Layout.of(Board("seafarers", tiles), spec, players)
    return not check_layout(layout, chip_rules)


def _setup_spec(
    data: Mapping[str, Any],
    layout: Mapping[str, Any],
    players: int,
    tokens: dict[Hex, tuple[str, str | None]],
    areas: dict[str, set[Hex]],
    marks: Mapping[str, list[list[Any]]],
) -> SetupSpec:
    """The scenario's set-up as the checker sees it: material, harbours and §7 checks."""
    material = layout.get("material", {})
    terrains: Counter[Terrain] = Counter()
    chips: Counter[int] = Counter()
    tabled = set()
    for area, table in material.items():
        terrains.update({Terrain(k): int(v) for k, v in table.get("terrain", {}).items()})
        chips.update({int(k): int(v) for k, v in table.get("chips", {}).items()})
        tabled |= areas.get(area, set())
    for h, (terrain, number) in tokens.items():
        if h not in tabled and terrain not in ("?", Terrain.UNEXPLORED.value):
            terrains[Terrain(terrain)] += 1
            if number and number != "?":
                chips[int(number)] += 1
    kinds = Counter(layout.get("harbor_pool", []) + layout.get("random_harbors", []))
    kinds.update(h["kind"] for h in layout.get("harbors", []) if h["kind"] != "?")
    sites = tuple(((h["q"], h["r"]), h["side"]) for h in layout.get("harbors", []))
    checks = {**data.get("checks", {}), **layout.get("checks", {})}
    unknown = set(checks) - set(RULES)
    if unknown:
        raise ScenarioError(f"checks: unknown rule {sorted(unknown)[0]!r}")
    hooks = [*data.get("hooks", ()), *layout.get("hooks", ())]
    checks = {rid: _hook_params(p, hooks) for rid, p in checks.items()}
    return SetupSpec(
        name=str(data["id"]),
        kind=str(data.get("board", "seafarers")),
        players=(players,),
        frame=tuple(sorted(tokens)),
        terrains=dict(terrains),
        chips=dict(chips),
        harbor_kinds=dict(kinds),
        harbor_sites=sites or None,
        rules=tuple(checks),
        params={rid: _area_params(p, areas, marks) for rid, p in checks.items()},
        # what the file writes down is the diagram (S4-FIXED-3, S6-FIXED-CENTRE, S7-FIXED)
        fixed={
            h: (Terrain(t), int(n) if n and n != "?" else None)
            for h, (t, n) in tokens.items()
            if t != "?"
        },
    )


def _hook_params(params: Mapping[str, Any], hooks: list[Mapping[str, Any]]) -> Mapping[str, Any]:
    """A check's parameters; ``{"hook": NAME}`` brings in that hook's (a map's town spaces are
    written once, for the rules and the checker alike)."""
    name = params.get("hook")
    if name is None:
        return params
    entry = next((h for h in hooks if h.get("hook") == name), None)
    if entry is None:
        raise ScenarioError(f"checks: no hook {name!r} in the file to take parameters from")
    return {**entry, **params}


def _area_params(
    params: Mapping[str, Any], areas: dict[str, set[Hex]], marks: Mapping[str, list[list[Any]]]
) -> dict[str, Any]:
    """Parameters with ``"@AREA"`` replaced by that area's hexes, ``"@MARK"`` by its corners."""
    out: dict[str, Any] = {}
    for k, v in params.items():
        if isinstance(v, str) and v.startswith("@") and v[1:] in areas:
            out[k] = [list(h) for h in sorted(areas[v[1:]])]
        else:
            out[k] = _with_marks(v, marks, "checks")
    return out


def _marks(
    data: Mapping[str, Any], frame: Mapping[Hex, Any], areas: Mapping[str, set[Hex]]
) -> dict[str, list[list[Any]]]:
    """The map's named corner sets, by canonical name; each corner must lie on the map."""
    out: dict[str, list[list[Any]]] = {}
    for name, corners in data.items():
        if name in areas:
            raise ScenarioError(f"marks: {name!r} is also the name of an area")
        canonical = []
        for c in corners:
            v = vertex(*c)
            if not any(h in frame for h in vertex_hexes(v)):
                raise ScenarioError(f"marks.{name}: corner {list(c)} is not on the map")
            canonical.append(list(v))
        out[name] = canonical
    return out


def _with_marks(value: Any, marks: Mapping[str, list[list[Any]]], where: str = "hooks") -> Any:
    """``value`` with every ``"@MARK"`` (alone or in a list of them) replaced by its corners."""
    if isinstance(value, str) and value.startswith("@"):
        if value[1:] not in marks:
            raise ScenarioError(f"{where}: {value!r} names no area or mark of the map")
        return [list(c) for c in marks[value[1:]]]
    if (
        isinstance(value, list)
        and value
        and all(isinstance(x, str) and x.startswith("@") for x in value)
    ):
        return [c for x in value for c in _with_marks(x, marks, where)]
    if isinstance(value, dict):
        return {k: _with_marks(v, marks, where) for k, v in value.items()}
    return value


def setup_spec(name_or_path: str | Path, players: int) -> SetupSpec:
    """The set-up spec of a scenario file for ``players`` (for the checker and the page)."""
    return load_scenario(name_or_path, players, seed=0).setup


def _harbors(layout: Mapping[str, Any], rng: random.Random, board: Board) -> list[Harbor]:
    """Harbours as listed, a kind ``?`` drawn from ``harbor_pool``; or, with
    ``random_harbors`` (a list of kinds), on random coast sides that share no corner."""
    if "random_harbors" in layout:
        kinds = list(layout["random_harbors"])
        sides = list(iter_coast_sides(board))
        rng.shuffle(sides)
        rng.shuffle(kinds)
        out: list[Harbor] = []
        used: set[Any] = set()
        for (q, r), side in sides:
            if len(out) == len(kinds):
                break
            ends = set(edge_vertices(edge(q, r, side)))
            if not ends & used:
                used |= ends
                out.append(Harbor(q, r, side, kinds[len(out)]))
        if len(out) < len(kinds):
            raise ScenarioError(f"room for only {len(out)} of {len(kinds)} random harbours")
        return out
    pool = list(layout.get("harbor_pool", []))
    rng.shuffle(pool)
    out = []
    for i, h in enumerate(layout.get("harbors", [])):
        kind = h["kind"]
        if kind == "?":
            if not pool:
                raise ScenarioError(f"harbors[{i}]: kind '?' but the harbor_pool is used up")
            kind = pool.pop()
        out.append(Harbor(h["q"], h["r"], h["side"], kind))
    if pool:
        raise ScenarioError(f"harbor_pool has {len(pool)} more kinds than '?' harbours")
    return out


def _place(spec: Any, board: Board, what: str, land: bool) -> Hex | None:
    """A start hex: by coordinates, or the first hex matching a terrain and/or chip value."""
    if spec is None:
        return None
    if "q" in spec:
        h = (spec["q"], spec["r"])
        if h not in board.tiles:
            raise ScenarioError(f"{what}: hex {h} is not on the map")
        return h
    found = _matching(spec, board, land)
    if not found:
        raise ScenarioError(f"{what}: no {'land' if land else 'sea'} hex matches {dict(spec)}")
    return found[0]


def _matching(spec: Mapping[str, Any], board: Board, land: bool) -> list[Hex]:
    """The hexes of ``board`` (sorted) of the terrain and chip value ``spec`` names, on land
    or at sea (``land``)."""
    return [
        h
        for h, t in sorted(board.tiles.items())
        if spec.get("terrain", t.terrain.value) == t.terrain.value
        and spec.get("number", t.number) == t.number
        and t.terrain.is_land == land
    ]


def _check_pool(board: Board, catan_chips: int, stacks: list[Mapping[str, Any]]) -> None:
    """The map and its face-down stacks must fit in the box (3.1.2, checks SEA-POOL-*)."""
    terrain = board.terrain_counts()
    del terrain[Terrain.UNEXPLORED]  # fog spaces are empty: the stacks hold their hexes
    chips = board.chip_counts()
    for stack in stacks:
        terrain.update({Terrain(k): int(v) for k, v in stack["terrain"].items()})
        chips.update({int(k): int(v) for k, v in stack.get("chips", {}).items()})
    over = terrain - Counter(SEA_POOL_HEXES)
    if over:
        raise ScenarioError(f"more hexes than the box holds: {_show(over)} too many (3.1.2)")
    extra_chips = chips - Counter(SEA_POOL_CHIPS)
    if extra_chips:
        raise ScenarioError(f"more chips than the box holds: {_show(extra_chips)} too many")
    kinds = Counter(h.kind for h in board.harbors)
    generic = kinds.pop("3:1", 0)
    if generic > POOL_GENERIC_HARBORS or sum(kinds.values()) > POOL_SPECIAL_HARBORS:
        raise ScenarioError("more harbour tokens than the box holds (5 special, 5 generic)")
    if any(n > 1 for k, n in kinds.items() if k in {r.value for r in Resource}):
        raise ScenarioError("Seafarers has one special harbour token per resource")
    if catan_chips > POOL_CATAN_CHIPS:
        raise ScenarioError(f"{catan_chips} Catan chips, but the box holds {POOL_CATAN_CHIPS}")


def _show(counts: Counter[Any]) -> str:
    return ", ".join(f"{getattr(k, 'value', k)} {n}" for k, n in sorted(counts.items(), key=str))
