"""Random legal boards, optionally balanced, reproducible by seed.

A board is built in three steps, each on integer lists (no Board objects until the end):

1. terrain: the spec's hexes shuffled onto the frame (fixed hexes stay);
2. chips: placed by randomized backtracking under the spec's chip rules
   (:func:`companion.setup_check.chip_constraints`: forbidden numbers per hex, pairs that must
   not both be red), so every rule holds by construction and no time is lost rejecting;
3. harbours: the spec's kinds shuffled onto its sites (or onto random coast sides, no two
   sharing a corner, when the spec has no fixed sites), then the robber and pirate.

Balance levels (see docs/setup.md for the score):

* ``none``: the rules only;
* ``fair``: also no two equal numbers side by side and no three hexes of one terrain in a
  connected clump;
* ``tournament``: fair, and the production is evened out: each resource's mean pips per hex
  within :data:`TOURNAMENT_LIMITS` of the others, no 2:1 harbour touching its own resource,
  no corner above 12 pips and no inland corner below 5.

The same spec, seed and balance always give the same board (the only randomness is a
``random.Random(seed)``).

>>> from companion.setup_check import spec_for
>>> g = generate_board(spec_for("base"), seed=7, balance="tournament")
>>> g.board == generate_board(spec_for("base"), seed=7, balance="tournament").board
True
"""

from __future__ import annotations

import functools
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from companion.board import (
    PIPS,
    SIDES,
    Board,
    Harbor,
    Hex,
    Resource,
    Terrain,
    Tile,
    edge_vertices,
    hex_neighbour,
    vertex_hexes,
)
from companion.layouts import RED_NUMBERS
from companion.setup_check import (
    NO_CHIP,
    RULES,
    Geometry,
    Layout,
    SetupSpec,
    SpecError,
    chip_constraints,
)

BALANCES = ("none", "fair", "tournament")

#: Hard limits of the tournament level.
TOURNAMENT_LIMITS: dict[str, float] = {
    "pip_spread": 1.0,  # max - min of the resources' mean pips per hex
    "max_corner": 12,  # pips of the best corner
    "min_inland_corner": 5,  # pips of the worst corner between three producing hexes
}

#: Weights of the balance score (lower is better; see docs/setup.md).
SCORE_WEIGHTS: dict[str, float] = {
    "pip_spread": 2.0,
    "same_number_pairs": 1.0,
    "same_terrain_pairs": 0.5,
    "harbours_on_own_resource": 1.0,
    "corner_excess": 1.0,
    "corner_shortfall": 1.0,
}

#: Chip attempts on one terrain layout before the terrain is shuffled again.
_CHIP_TRIES = 20
#: Backtracking steps allowed per chip attempt (a dead end is abandoned, not explored to death).
_STEP_BUDGET = 2000
#: log2 of the number of precomputed chip-value orders the backtracking draws from.
_ORDER_BITS = 8
#: Total attempts before giving up on a spec that cannot be satisfied.
_MAX_TERRAIN_TRIES = 2000

_PRODUCING = frozenset(
    {Terrain.FOREST, Terrain.PASTURE, Terrain.FIELDS, Terrain.HILLS, Terrain.MOUNTAINS}
)
_CLUMPING = _PRODUCING | {Terrain.GOLD}


class GenerationError(RuntimeError):
    """The spec's rules and balance could not be met (the message says which spec)."""


@dataclass(frozen=True)
class Balance:
    """The balance figures of a board (all counts over the whole board).

    ``pip_spread``: max - min over resources of mean pips per hex of that resource;
    ``same_number_pairs`` / ``same_terrain_pairs``: adjacent hexes with equal chip / equal
    producing terrain; ``largest_clump``: most hexes of one terrain connected;
    ``harbours_on_own_resource``: 2:1 harbours touching a hex of their resource;
    ``max_corner`` / ``min_inland_corner``: pips of the best corner and of the worst corner
    among three producing hexes; ``score``: the weighted sum of docs/setup.md.
    """

    pip_spread: float
    same_number_pairs: int
    same_terrain_pairs: int
    largest_clump: int
    harbours_on_own_resource: int
    max_corner: int
    min_inland_corner: int
    score: float

    def to_json(self) -> dict[str, Any]:
        return {k: round(v, 4) if isinstance(v, float) else v for k, v in self.__dict__.items()}


@dataclass(frozen=True)
class Generated:
    """A generated board, the seed and level it came from, and how many terrain layouts were
    tried; :attr:`balance` is measured on first use (the bench does not pay for it)."""

    board: Board
    seed: int | None
    level: str
    attempts: int

    @functools.cached_property
    def balance(self) -> Balance:
        return measure(self.board)


class _Plan:
    """Everything about a spec that does not change between boards, as integer lists."""

    def __init__(self, spec: SetupSpec):
        self.spec = spec
        geo = Geometry.of(frozenset(spec.frame))
        self.geo = geo
        self.n = len(geo.hexes)
        fixed = {geo.index[h]: tf for h, tf in spec.fixed.items()}
        self.fixed = fixed
        self.variable = [i for i in range(self.n) if i not in fixed]
        pool: dict[Terrain, int] = dict(spec.terrains)
        chips: dict[int, int] = dict(spec.chips)
        for terrain, number in fixed.values():
            pool[terrain] = pool.get(terrain, 0) - 1
            if number is not None:
                chips[number] = chips.get(number, 0) - 1
        bag = [t for t, k in sorted(pool.items()) for _ in range(k)]
        if len(bag) != len(self.variable) or min(pool.values(), default=0) < 0:
            raise SpecError(
                f"spec {spec.name!r}: {len(bag)} hexes of material for "
                f"{len(self.variable)} free places on the frame"
            )
        self.terrain_bag = bag
        self.chip_counts = chips
        self.chip_values = sorted(v for v, k in chips.items() if k > 0)
        # random.sample per backtracking step dominated the run time; drawing one of a fixed
        # table of orders costs one getrandbits call and keeps the seed reproducible.
        table_rng = random.Random(len(self.chip_values))
        self.value_orders = [
            table_rng.sample(self.chip_values, len(self.chip_values))
            for _ in range(1 << _ORDER_BITS)
        ]
        self.neighbours = geo.neighbours
        self.corners = geo.corner_hexes
        self.chip_rules = [r for r in spec.rules if RULES[r].constraints is not None]
        self.robber_rules = [r for r in spec.rules if RULES[r].robber_targets is not None]
        self.harbour_kinds = [k for k, c in sorted(spec.harbor_kinds.items()) for _ in range(c)]
        self.site_hexes: dict[tuple[Hex, str], list[int]] = {}

    def harbour_hexes(self, h: Hex, side: str) -> list[int]:
        """Frame hexes touching either corner of a harbour side (memoised)."""
        key = (h, side)
        hit = self.site_hexes.get(key)
        if hit is None:
            found: set[int] = set()
            for v in edge_vertices(Harbor(h[0], h[1], side, "3:1").edge):
                found.update(self.geo.index[x] for x in vertex_hexes(v) if x in self.geo.index)
            hit = self.site_hexes[key] = sorted(found)
        return hit


_PLANS: dict[int, tuple[SetupSpec, _Plan]] = {}


def _plan(spec: SetupSpec) -> _Plan:
    hit = _PLANS.get(id(spec))
    if hit is None or hit[0] is not spec:
        hit = (spec, _Plan(spec))
        _PLANS[id(spec)] = hit
    return hit[1]


def generate_board(spec: SetupSpec, seed: int | None = None, balance: str = "fair") -> Generated:
    """A random board satisfying every rule of ``spec`` and the ``balance`` level.

    Raises ValueError for an unknown balance level and :class:`GenerationError` if the spec
    cannot be satisfied (after many attempts).
    """
    if balance not in BALANCES:
        raise ValueError(f"--balance {balance!r}: choose one of {', '.join(BALANCES)}")
    plan = _plan(spec)
    rng = random.Random(seed)
    fair = balance != "none"
    strict = balance == "tournament"
    for attempt in range(1, _MAX_TERRAIN_TRIES + 1):
        terrain = _shuffle_terrain(plan, rng)
        if fair and _largest_clump(plan.neighbours, terrain) > 2:
            continue
        lay = Layout(spec, plan.geo, terrain, [NO_CHIP] * plan.n)
        cons = chip_constraints(lay, plan.chip_rules)
        slots, forbidden, red_partners = _slots(plan, terrain, cons)
        for _ in range(_CHIP_TRIES):
            numbers = _place_chips(plan, slots, forbidden, red_partners, fair, rng)
            if numbers is None:
                break  # this terrain leaves no room: shuffle it again
            if strict and not (
                _even_out(plan, terrain, numbers, forbidden, red_partners)
                and _corners_ok(plan, terrain, numbers)
            ):
                continue
            harbors = _place_harbours(plan, terrain, rng, avoid_own=strict)
            if harbors is None:
                break
            board = _board(plan, terrain, numbers, harbors, rng)
            return Generated(board, seed, balance, attempt)
    raise GenerationError(
        f"no board for {spec.name!r} with balance {balance!r} after {_MAX_TERRAIN_TRIES} tries"
    )


def _shuffle_terrain(plan: _Plan, rng: random.Random) -> list[Terrain]:
    terrain: list[Terrain] = [Terrain.SEA] * plan.n
    for i, (t, _) in plan.fixed.items():
        terrain[i] = t
    bag = plan.terrain_bag[:]
    rng.shuffle(bag)
    for i, t in zip(plan.variable, bag, strict=True):
        terrain[i] = t
    return terrain


def _largest_clump(neighbours: Sequence[Sequence[int]], terrain: Sequence[Terrain]) -> int:
    """Most hexes of one producing terrain (or gold) connected side to side."""
    seen = [False] * len(terrain)
    best = 0
    for start, t in enumerate(terrain):
        if seen[start] or t not in _CLUMPING:
            continue
        seen[start] = True
        stack, size = [start], 0
        while stack:
            i = stack.pop()
            size += 1
            for j in neighbours[i]:
                if not seen[j] and terrain[j] == t:
                    seen[j] = True
                    stack.append(j)
        best = max(best, size)
    return best


def _slots(
    plan: _Plan, terrain: Sequence[Terrain], cons: Any
) -> tuple[list[int], list[frozenset[int]], list[list[int]]]:
    """Hexes to receive a chip (most constrained first), forbidden sets, red partners."""
    forbidden = [cons.forbidden.get(i, frozenset()) for i in range(plan.n)]
    red_partners: list[list[int]] = [[] for _ in range(plan.n)]
    for i, j in cons.red_apart:
        red_partners[i].append(j)
        red_partners[j].append(i)
    slots = [
        i
        for i in range(plan.n)
        if terrain[i] in _CLUMPING
        and not (plan.fixed.get(i, (None, None))[1])
        and not all(v in forbidden[i] for v in plan.chip_values)
    ]
    if len(slots) != sum(plan.chip_counts.values()):
        raise GenerationError(
            f"spec {plan.spec.name!r}: {len(slots)} hexes take a chip but there are "
            f"{sum(plan.chip_counts.values())} chips"
        )
    slots.sort(key=lambda i: -(len(forbidden[i]) + len(red_partners[i])))
    return slots, forbidden, red_partners


def _place_chips(
    plan: _Plan,
    slots: list[int],
    forbidden: list[frozenset[int]],
    red_partners: list[list[int]],
    apart: bool,
    rng: random.Random,
) -> list[int] | None:
    """Chips on ``slots`` by randomized backtracking, or None if the step budget runs out.

    ``apart`` also keeps equal numbers off neighbouring hexes (fair balance).
    """
    numbers = [NO_CHIP] * plan.n
    for i, (_, number) in plan.fixed.items():
        if number is not None:
            numbers[i] = number
    counts = dict(plan.chip_counts)
    orders = plan.value_orders
    getrandbits = rng.getrandbits
    neighbours = plan.neighbours
    budget = [_STEP_BUDGET]
    end = len(slots)

    def place(k: int) -> bool:
        if k == end:
            return True
        budget[0] -= 1
        if budget[0] < 0:
            return False
        i = slots[k]
        bad = forbidden[i]
        for v in orders[getrandbits(_ORDER_BITS)]:
            if not counts[v] or v in bad:
                continue
            if v in RED_NUMBERS and any(numbers[j] in RED_NUMBERS for j in red_partners[i]):
                continue
            if apart and any(numbers[j] == v for j in neighbours[i]):
                continue
            numbers[i] = v
            counts[v] -= 1
            if place(k + 1):
                return True
            numbers[i] = NO_CHIP
            counts[v] += 1
        return False

    return numbers if place(0) else None


def _mean_pips(terrain: Sequence[Terrain], numbers: Sequence[int]) -> dict[Terrain, float]:
    total: dict[Terrain, int] = {}
    count: dict[Terrain, int] = {}
    for t, n in zip(terrain, numbers, strict=True):
        if t in _PRODUCING:
            total[t] = total.get(t, 0) + PIPS.get(n, 0)
            count[t] = count.get(t, 0) + 1
    return {t: total[t] / count[t] for t in total}


def _corner_pips(
    plan: _Plan, terrain: Sequence[Terrain], numbers: Sequence[int]
) -> tuple[int, int]:
    """(best corner pips, worst pips among corners between three producing hexes)."""
    best, worst = 0, 99
    for corner in plan.corners:
        pips = 0
        producing = 0
        for i in corner:
            if terrain[i] in _CLUMPING:
                pips += PIPS.get(numbers[i], 0)
                producing += 1
        best = max(best, pips)
        if producing == 3:
            worst = min(worst, pips)
    return best, (worst if worst != 99 else 0)


def _corners_ok(plan: _Plan, terrain: Sequence[Terrain], numbers: Sequence[int]) -> bool:
    best, worst = _corner_pips(plan, terrain, numbers)
    return (
        best <= TOURNAMENT_LIMITS["max_corner"] and worst >= TOURNAMENT_LIMITS["min_inland_corner"]
    )


def _legal_at(
    i: int,
    numbers: Sequence[int],
    forbidden: Sequence[frozenset[int]],
    red_partners: Sequence[Sequence[int]],
    neighbours: Sequence[Sequence[int]],
) -> bool:
    """Whether the chip now on hex ``i`` obeys the chip rules and keeps equal numbers apart."""
    v = numbers[i]
    if v in forbidden[i]:
        return False
    if v in RED_NUMBERS and any(numbers[j] in RED_NUMBERS for j in red_partners[i]):
        return False
    return not any(numbers[j] == v for j in neighbours[i])


def _even_out(
    plan: _Plan,
    terrain: Sequence[Terrain],
    numbers: list[int],
    forbidden: Sequence[frozenset[int]],
    red_partners: Sequence[Sequence[int]],
) -> bool:
    """Swap chips from the richest resource to the poorest until the spread of mean pips per
    hex is within the tournament limit; False if no legal swap gets there.

    Greedy: each step takes the legal swap between a hex of the richest and one of the
    poorest resource that leaves the smallest spread. ``numbers`` is changed in place.
    """
    limit = TOURNAMENT_LIMITS["pip_spread"]
    by_terrain: dict[Terrain, list[int]] = {}
    for i, t in enumerate(terrain):
        if t in _PRODUCING:
            by_terrain.setdefault(t, []).append(i)
    if not by_terrain:
        return True
    totals = {t: sum(PIPS.get(numbers[i], 0) for i in ix) for t, ix in by_terrain.items()}
    for _ in range(8):
        means = {t: totals[t] / len(by_terrain[t]) for t in totals}
        rich = max(means, key=means.__getitem__)
        poor = min(means, key=means.__getitem__)
        spread = means[rich] - means[poor]
        if spread <= limit:
            return True
        best: tuple[float, int, int] | None = None
        for i in by_terrain[rich]:
            for j in by_terrain[poor]:
                moved = PIPS.get(numbers[i], 0) - PIPS.get(numbers[j], 0)
                if moved <= 0:
                    continue
                new_means = dict(means)
                new_means[rich] -= moved / len(by_terrain[rich])
                new_means[poor] += moved / len(by_terrain[poor])
                new_spread = max(new_means.values()) - min(new_means.values())
                if new_spread >= spread or (best is not None and new_spread >= best[0]):
                    continue
                numbers[i], numbers[j] = numbers[j], numbers[i]
                ok = _legal_at(i, numbers, forbidden, red_partners, plan.neighbours) and _legal_at(
                    j, numbers, forbidden, red_partners, plan.neighbours
                )
                numbers[i], numbers[j] = numbers[j], numbers[i]
                if ok:
                    best = (new_spread, i, j)
        if best is None:
            return False
        _, i, j = best
        moved = PIPS.get(numbers[i], 0) - PIPS.get(numbers[j], 0)
        numbers[i], numbers[j] = numbers[j], numbers[i]
        totals[rich] -= moved
        totals[poor] += moved
    return False


def _own_resource(
    plan: _Plan, terrain: Sequence[Terrain], site: tuple[Hex, str], kind: str
) -> bool:
    if kind == "3:1":
        return False
    return any(terrain[i].resource == Resource(kind) for i in plan.harbour_hexes(site[0], site[1]))


def _place_harbours(
    plan: _Plan, terrain: Sequence[Terrain], rng: random.Random, avoid_own: bool
) -> list[Harbor] | None:
    sites = list(plan.spec.harbor_sites) if plan.spec.harbor_sites is not None else None
    if sites is None:
        sites = _random_sites(plan, terrain, rng, len(plan.harbour_kinds))
        if sites is None:
            return None
    kinds = plan.harbour_kinds[:]
    for _ in range(50):
        rng.shuffle(kinds)
        if not avoid_own or not any(
            _own_resource(plan, terrain, s, k) for s, k in zip(sites, kinds, strict=True)
        ):
            return [Harbor(h[0], h[1], side, k) for (h, side), k in zip(sites, kinds, strict=True)]
    return None


def _random_sites(
    plan: _Plan, terrain: Sequence[Terrain], rng: random.Random, count: int
) -> list[tuple[Hex, str]] | None:
    """``count`` coast sides, no two sharing a corner, chosen at random."""
    coast = []
    for i, h in enumerate(plan.geo.hexes):
        if not terrain[i].is_land:
            continue
        for s in SIDES:
            j = plan.geo.index.get(hex_neighbour(h, s))
            if j is None or terrain[j] == Terrain.SEA:
                coast.append((h, s))
    rng.shuffle(coast)
    chosen: list[tuple[Hex, str]] = []
    used: set[Any] = set()
    for h, s in coast:
        corners = set(Harbor(h[0], h[1], s, "3:1").vertices)
        if corners & used:
            continue
        chosen.append((h, s))
        used |= corners
        if len(chosen) == count:
            return chosen
    return None


def _board(
    plan: _Plan,
    terrain: list[Terrain],
    numbers: list[int],
    harbors: list[Harbor],
    rng: random.Random,
) -> Board:
    spec = plan.spec
    hexes = plan.geo.hexes
    tiles = {h: Tile(t, n or None) for h, t, n in zip(hexes, terrain, numbers, strict=True)}
    lay = Layout(spec, plan.geo, terrain, numbers)
    robber = None
    for rid in plan.robber_rules:
        targets = RULES[rid].robber_targets(lay)  # type: ignore[misc]
        if targets:
            robber = targets[0] if len(targets) == 1 else rng.choice(targets)
            break
    pirate_at = spec.params.get("SEA-PIRATE-START", {}).get("hex")
    pirate = None if pirate_at is None else tuple(pirate_at)
    return Board(spec.kind, tiles, harbors, robber=robber, pirate=pirate)  # type: ignore[arg-type]


def measure(board: Board) -> Balance:
    """The balance figures and score of any board (generated or read)."""
    geo = Geometry.of(frozenset(board.tiles))
    terrain = [board.tiles[h].terrain for h in geo.hexes]
    numbers = [board.tiles[h].number or NO_CHIP for h in geo.hexes]
    means = _mean_pips(terrain, numbers).values()
    spread = max(means) - min(means) if means else 0.0
    same_number = sum(1 for i, j in geo.pairs if numbers[i] and numbers[i] == numbers[j])
    same_terrain = sum(
        1 for i, j in geo.pairs if terrain[i] in _CLUMPING and terrain[i] == terrain[j]
    )
    best, worst = 0, 99
    for corner in geo.corner_hexes:
        producing = [i for i in corner if terrain[i] in _CLUMPING]
        pips = sum(PIPS.get(numbers[i], 0) for i in producing)
        best = max(best, pips)
        if len(producing) == 3:
            worst = min(worst, pips)
    worst = worst if worst != 99 else 0
    own = 0
    for hb in board.harbors:
        if hb.kind == "3:1":
            continue
        touching = {x for v in hb.vertices for x in vertex_hexes(v) if x in board.tiles}
        own += any(board.tiles[x].terrain.resource == Resource(hb.kind) for x in touching)
    excess = max(0, best - int(TOURNAMENT_LIMITS["max_corner"]))
    shortfall = max(0, int(TOURNAMENT_LIMITS["min_inland_corner"]) - worst) if worst else 0
    w = SCORE_WEIGHTS
    score = (
        w["pip_spread"] * spread
        + w["same_number_pairs"] * same_number
        + w["same_terrain_pairs"] * same_terrain
        + w["harbours_on_own_resource"] * own
        + w["corner_excess"] * excess
        + w["corner_shortfall"] * shortfall
    )
    clump = _largest_clump(geo.neighbours, terrain)
    return Balance(spread, same_number, same_terrain, clump, own, best, worst, score)
