"""Random legal boards, optionally balanced, reproducible by seed.

A board is built in three steps, each on integer lists (no Board objects until the end):

1. terrain: the spec's hexes shuffled onto the frame (``none``) or laid hex by hex by
   randomized backtracking that never connects three hexes of one terrain (``fair`` and
   ``tournament``); fixed hexes stay;
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
    TERRAIN_RESOURCE,
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

#: Pips by chip value (index 0 = no chip), and whether a value is red, as lists for speed.
_PIP: list[int] = [PIPS.get(n, 0) for n in range(13)]
_IS_RED: list[bool] = [n in RED_NUMBERS for n in range(13)]
#: The terrain that a 2:1 harbour's resource comes from.
_KIND_TERRAIN: dict[str, Terrain] = {r.value: t for t, r in TERRAIN_RESOURCE.items()}

_PRODUCING = frozenset(
    {Terrain.FOREST, Terrain.PASTURE, Terrain.FIELDS, Terrain.HILLS, Terrain.MOUNTAINS}
)
_CLUMPING = _PRODUCING | {Terrain.GOLD}


class GenerationError(ValueError):
    """The spec's rules and balance could not be met; the message names the spec and level,
    so the user can choose a lower balance (the CLI reports it in one line, exit code 2)."""


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
        self.terrain_counts = {t: k for t, k in pool.items() if k > 0}
        kinds = sorted(self.terrain_counts)
        order_rng = random.Random(len(kinds))
        self.terrain_orders = [order_rng.sample(kinds, len(kinds)) for _ in range(1 << _ORDER_BITS)]
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
        self.corner_triples = [c for c in geo.corner_hexes if len(c) == 3]
        self.corner_pairs = [c for c in geo.corner_hexes if len(c) == 2]
        self.sites = None if spec.harbor_sites is None else list(spec.harbor_sites)
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


#: Plans by spec identity (specs hold dicts, so they cannot be hashed); the spec is kept with
#: its plan so that its id cannot be reused while the entry exists.
_PLANS: dict[int, tuple[SetupSpec, _Plan]] = {}
_MAX_PLANS = 64


def _plan(spec: SetupSpec) -> _Plan:
    hit = _PLANS.get(id(spec))
    if hit is None or hit[0] is not spec:
        if len(_PLANS) >= _MAX_PLANS:
            _PLANS.clear()
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
        terrain = _spread_terrain(plan, rng) if fair else _shuffle_terrain(plan, rng)
        if terrain is None:
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


def _spread_terrain(plan: _Plan, rng: random.Random) -> list[Terrain] | None:
    """Terrain laid hex by hex (randomized backtracking) so that no three hexes of one
    producing terrain or gold connect; None if the step budget runs out."""
    terrain: list[Terrain | None] = [None] * plan.n
    for i, (t, _) in plan.fixed.items():
        terrain[i] = t
    counts = dict(plan.terrain_counts)
    orders = plan.terrain_orders
    getrandbits = rng.getrandbits
    neighbours = plan.neighbours
    free = plan.variable
    end = len(free)
    budget = [_STEP_BUDGET]

    def fits(i: int, t: Terrain) -> bool:
        if t not in _CLUMPING:
            return True
        same = [j for j in neighbours[i] if terrain[j] is t]
        if len(same) >= 2:
            return False
        # One neighbour of the same terrain: it must not already have another.
        return not same or not any(k != i and terrain[k] is t for k in neighbours[same[0]])

    def place(k: int) -> bool:
        if k == end:
            return True
        budget[0] -= 1
        if budget[0] < 0:
            return False
        i = free[k]
        for t in orders[getrandbits(_ORDER_BITS)]:
            if not counts[t] or not fits(i, t):
                continue
            terrain[i] = t
            counts[t] -= 1
            if place(k + 1):
                return True
            terrain[i] = None
            counts[t] += 1
        return False

    if not place(0):
        return None
    return [t for t in terrain if t is not None]  # complete: place() laid every free hex


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
        partners = red_partners[i]
        around = neighbours[i]
        for v in orders[getrandbits(_ORDER_BITS)]:
            if not counts[v] or v in bad:
                continue
            # Plain loops: generator expressions cost more than the tests they run here.
            if _IS_RED[v]:
                clash = False
                for j in partners:
                    if _IS_RED[numbers[j]]:
                        clash = True
                        break
                if clash:
                    continue
            if apart:
                clash = False
                for j in around:
                    if numbers[j] == v:
                        clash = True
                        break
                if clash:
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


def _corners_ok(plan: _Plan, terrain: Sequence[Terrain], numbers: Sequence[int]) -> bool:
    """No corner above the tournament maximum, no inland corner below its minimum."""
    p = [_PIP[n] for n in numbers]
    top = TOURNAMENT_LIMITS["max_corner"]
    low = TOURNAMENT_LIMITS["min_inland_corner"]
    for a, b, c in plan.corner_triples:
        pips = p[a] + p[b] + p[c]
        if pips > top:
            return False
        inland = terrain[a] in _CLUMPING and terrain[b] in _CLUMPING and terrain[c] in _CLUMPING
        if pips < low and inland:
            return False
    return all(p[a] + p[b] <= top for a, b in plan.corner_pairs)


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
    if _IS_RED[v] and any(_IS_RED[numbers[j]] for j in red_partners[i]):
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
    groups: dict[Terrain, list[int]] = {}
    for i, t in enumerate(terrain):
        if t in _PRODUCING:
            groups.setdefault(t, []).append(i)
    members = list(groups.values())
    if not members:
        return True
    sizes = [len(m) for m in members]
    totals = [sum(_PIP[numbers[i]] for i in m) for m in members]
    kinds = range(len(members))
    for _ in range(8):
        means = [totals[k] / sizes[k] for k in kinds]
        rich = max(kinds, key=means.__getitem__)
        poor = min(kinds, key=means.__getitem__)
        spread = means[rich] - means[poor]
        if spread <= limit:
            return True
        others = [means[k] for k in kinds if k != rich and k != poor]
        hi = max(others, default=-1.0e9)
        lo = min(others, default=1.0e9)
        best = spread
        pick: tuple[int, int] | None = None
        for i in members[rich]:
            pi = _PIP[numbers[i]]
            for j in members[poor]:
                moved = pi - _PIP[numbers[j]]
                if moved <= 0:
                    continue
                new_rich = means[rich] - moved / sizes[rich]
                new_poor = means[poor] + moved / sizes[poor]
                new_spread = max(hi, new_rich, new_poor) - min(lo, new_rich, new_poor)
                if new_spread >= best:
                    continue
                numbers[i], numbers[j] = numbers[j], numbers[i]
                ok = _legal_at(i, numbers, forbidden, red_partners, plan.neighbours) and _legal_at(
                    j, numbers, forbidden, red_partners, plan.neighbours
                )
                numbers[i], numbers[j] = numbers[j], numbers[i]
                if ok:
                    best, pick = new_spread, (i, j)
        if pick is None:
            return False
        i, j = pick
        moved = _PIP[numbers[i]] - _PIP[numbers[j]]
        numbers[i], numbers[j] = numbers[j], numbers[i]
        totals[rich] -= moved
        totals[poor] += moved
    return False


def _place_harbours(
    plan: _Plan, terrain: Sequence[Terrain], rng: random.Random, avoid_own: bool
) -> list[Harbor] | None:
    """The spec's harbour kinds on its sites (or on random coast sides), shuffled; with
    ``avoid_own`` no 2:1 harbour touches a hex of its own resource (None if impossible)."""
    sites = plan.sites
    if sites is None:
        sites = _random_sites(plan, terrain, rng, len(plan.harbour_kinds))
        if sites is None:
            return None
    kinds = plan.harbour_kinds[:]
    rng.shuffle(kinds)
    if avoid_own:
        touching = [{terrain[i] for i in plan.harbour_hexes(h, side)} for h, side in sites]
        if not _repair_kinds(kinds, touching, rng):
            return None
    return [Harbor(h[0], h[1], side, k) for (h, side), k in zip(sites, kinds, strict=True)]


def _repair_kinds(kinds: list[str], touching: list[set[Terrain]], rng: random.Random) -> bool:
    """Swap kinds between sites until no 2:1 harbour touches its own resource's terrain.

    Each offending site trades with the first site (from a random one on) where both kinds
    fit; a site already passed keeps a fitting kind, so one pass is enough.
    """
    n = len(kinds)

    def fits(kind: str, site: int) -> bool:
        return _KIND_TERRAIN.get(kind) not in touching[site]

    for a in range(n):
        if fits(kinds[a], a):
            continue
        start = rng.randrange(n)
        for off in range(n):
            b = (start + off) % n
            if b != a and fits(kinds[b], a) and fits(kinds[a], b):
                kinds[a], kinds[b] = kinds[b], kinds[a]
                break
        else:
            return False
    return True


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
        find = RULES[rid].robber_targets
        targets = find(lay) if find is not None else []
        if targets:
            robber = targets[0] if len(targets) == 1 else rng.choice(targets)
            break
    pirate_at = spec.params.get("SEA-PIRATE-START", {}).get("hex")
    pirate: Hex | None = None if pirate_at is None else (int(pirate_at[0]), int(pirate_at[1]))
    return Board(spec.kind, tiles, harbors, robber=robber, pirate=pirate)


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
