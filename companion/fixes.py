"""The fewest swaps that make a board legal: chip swaps first, then hex swaps.

Search
------
The fixer runs an iterative-deepening depth-first search (IDA*) over swaps:

1. **Chip swaps** (terrain stays): a move exchanges the chips (or a chip and "no chip") of two
   hexes. The search tries 1, 2, ... up to ``max_swaps`` swaps and returns the first, hence
   shortest, sequence after which every swap-repairable rule holds.
2. If no arrangement of the chips on this terrain can pass (decided first by an exact
   backtracking test), **hex swaps** are allowed as well (two terrain tiles change places,
   each carrying its chip, as a player lifts them), up to ``max_hex_swaps`` moves of either
   kind. If a chip-only fix exists but is longer than ``max_swaps``, the result says so.

Two things keep it fast without losing the shortest answer:

* Every move touches an *offending* hex: one whose chip breaks a unary rule (it must change in
  any fix) or one of a red pair. Any shortest fix can be reordered to start with such a move
  (the offending hex lies on a cycle of the permutation from the board to the fixed board, and
  swapping it with its successor shortens that cycle), so nothing is lost.
* A lower bound prunes: disjoint violated constraints each need a hex of their own changed and
  a swap changes two hexes, so one swap cures at most two of them, and only two if each hex
  receives a chip that can cure its constraint; so at least (constraints - a maximum
  matching of the pairs one swap could cure together) swaps remain (:func:`_swap_bound`).
  A transposition table skips boards already reached with as much budget.

These two arguments hold for chip swaps, so the chip phase is exact. With hex swaps a rule can
also be cured by moving a neighbour (a desert next to a red number), so the hex phase lets the
neighbours of offending hexes move too, uses the weaker bound "one more swap", and is a best
effort within its (small) limit.

A search that ends without a cut-off has tried every reachable board: then the board is proved
impossible to fix by swaps. A search that visits more than its node budget stops and says so.
Rules no swap can repair (wrong counts, wrong harbours) are reported as such. The lettered
spiral is repaired separately: the board is compared with the spiral from each corner and the
chips are put in place, two- and three-cycles first.

>>> from companion.layouts import random_board
>>> board = random_board(4, seed=5)
>>> suggest_fixes(board).swaps
()
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from companion.board import Board, Hex, Terrain, Tile
from companion.layouts import RED_NUMBERS
from companion.setup_check import (
    NO_CHIP,
    RULES,
    Layout,
    SetupSpec,
    check_board,
    check_layout,
    chip_constraints,
)
from companion.spiral import corner_hexes, spiral_numbers

SPIRAL_RULES = frozenset({"BASE-SPIRAL", "X56-SPIRAL"})
#: Boards the chip search / the hex search may visit before giving up (each visit costs tens
#: of microseconds, so these keep a hopeless search to a few seconds).
CHIP_NODE_BUDGET = 200_000
HEX_NODE_BUDGET = 50_000
_EMPTY: frozenset[int] = frozenset()


@dataclass(frozen=True)
class Swap:
    """Exchange the chips (``what="chips"``) or terrain tiles (``"hexes"``) of hexes ``a`` and
    ``b``, or move the robber from ``a`` to ``b`` (``"robber"``); ``fixes`` lists the rules this
    step cures."""

    what: str
    a: Hex
    b: Hex
    fixes: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"swap": [list(self.a), list(self.b)], "what": self.what, "fixes": list(self.fixes)}

    def describe(self, board: Board) -> str:
        ta, tb = board.tiles.get(self.a), board.tiles.get(self.b)
        if self.what == "robber" or ta is None or tb is None:
            return f"move the robber from {self.a} to {self.b}"
        if self.what == "hexes":
            return (
                f"swap the {ta.terrain.value} at {self.a} with the {tb.terrain.value} at "
                f"{self.b}, chips and all"
            )
        if tb.number is None:
            return f"move chip {ta.number} from {self.a} to {self.b}"
        if ta.number is None:
            return f"move chip {tb.number} from {self.b} to {self.a}"
        return f"swap chip {ta.number} at {self.a} with chip {tb.number} at {self.b}"


@dataclass(frozen=True)
class FixResult:
    """``swaps`` to apply in order; ``fixed`` if they make the board pass every rule.

    ``unfixable`` are rule IDs no swap can repair; ``proved`` is True when the search tried
    every reachable board (so "not fixed" means impossible, not merely "not within the
    limit"); ``reason`` says in one line why the board stays illegal (empty when fixed).
    """

    swaps: tuple[Swap, ...]
    fixed: bool
    unfixable: tuple[str, ...] = ()
    proved: bool = False
    reason: str = ""


# --- chip and hex search ------------------------------------------------------------------

#: Chip constraints as the search reads them: forbidden numbers per hex, red pairs.
_Compiled = tuple[list[frozenset[int]], list[tuple[int, int]]]


class _Search:
    """IDA* over swaps on one layout; ``hexes`` allows terrain swaps as well as chip swaps."""

    def __init__(self, lay: Layout, rules: Sequence[str], hexes: bool, node_budget: int):
        self.lay = lay
        self.node_budget = node_budget
        self.nodes = 0
        self.out_of_budget = False
        self.n = len(lay.geo.hexes)
        self.chip_rules = [r for r in rules if RULES[r].constraints is not None]
        self.other_rules = [r for r in rules if RULES[r].constraints is None]
        self.allow_hexes = hexes
        self.seen: dict[tuple[tuple[Terrain, ...], tuple[int, ...]], int] = {}
        self.cut = False
        self._cons_cache: dict[tuple[Terrain, ...], _Compiled] = {}

    def _constraints(self, terrain: list[Terrain]) -> _Compiled:
        key = tuple(terrain)
        hit = self._cons_cache.get(key)
        if hit is None:
            c = chip_constraints(self.lay.with_cells(terrain, self.lay.numbers), self.chip_rules)
            forbidden = [c.forbidden.get(i, _EMPTY) for i in range(self.n)]
            hit = self._cons_cache[key] = (forbidden, sorted(c.red_apart))
        return hit

    def problems(self, terrain: list[Terrain], numbers: list[int]) -> tuple[list[int], int]:
        """(offending hex indices, lower bound on the swaps still needed)."""
        forbidden, red = self._constraints(terrain)
        offending: list[int] = []
        used: set[int] = set()
        # Disjoint violated constraints as (kind, hexes): each needs one of its hexes changed.
        groups: list[tuple[str, tuple[int, ...]]] = []
        for i in range(self.n):
            if numbers[i] in forbidden[i]:
                offending.append(i)
                used.add(i)
                groups.append(("unary", (i,)))
        for i, j in red:
            if numbers[i] in RED_NUMBERS and numbers[j] in RED_NUMBERS:
                offending.extend((i, j))
                if i not in used and j not in used:
                    used.update((i, j))
                    groups.append(("red", (i, j)))
        if self.other_rules:
            lay = self.lay.with_cells(terrain, numbers)
            for v in check_layout(lay, self.other_rules):
                idx = tuple(lay.geo.index[h] for h in v.hexes if h in lay.geo.index)
                offending.extend(idx)
                if idx and not used.intersection(idx):
                    used.update(idx)
                    groups.append(("other", idx))
        if not self.allow_hexes:
            return sorted(set(offending)), _swap_bound(groups, numbers, forbidden)
        # Moving a neighbour's terrain can cure a hex (a desert next to a red number), so with
        # hex swaps the neighbours may move too, and the bound falls back to "one more".
        near = set(offending)
        for i in offending:
            near.update(self.lay.geo.neighbours[i])
        return sorted(near) if offending else [], min(len(groups), 1)

    def arrangement_exists(self, budget: int = 200_000) -> bool | None:
        """Whether some arrangement of the board's chips on its terrain passes the chip rules
        (exact backtracking; None if undecided within ``budget`` steps or if a rule that is
        not a chip rule takes part, which this test cannot judge)."""
        if self.other_rules:
            return None
        forbidden, red = self._constraints(list(self.lay.terrain))
        partners: list[list[int]] = [[] for _ in range(self.n)]
        for i, j in red:
            partners[i].append(j)
            partners[j].append(i)
        counts: dict[int, int] = {}
        for v in self.lay.numbers:
            counts[v] = counts.get(v, 0) + 1
        values = sorted(counts)
        if not _assignment_exists(forbidden, counts):
            return False  # even ignoring red pairs the chips do not fit the hexes
        order = sorted(range(self.n), key=lambda i: -(len(forbidden[i]) + len(partners[i])))
        placed = [-1] * self.n
        steps = [budget]

        def place(k: int) -> bool | None:
            if k == self.n:
                return True
            steps[0] -= 1
            if steps[0] < 0:
                return None
            i = order[k]
            for v in values:
                if not counts[v] or v in forbidden[i]:
                    continue
                if v in RED_NUMBERS and any(placed[j] in RED_NUMBERS for j in partners[i]):
                    continue
                placed[i] = v
                counts[v] -= 1
                found = place(k + 1)
                placed[i] = -1
                counts[v] += 1
                if found is not False:
                    return found
            return False

        return place(0)

    def run(self, max_depth: int) -> list[tuple[str, int, int]] | None:
        terrain = list(self.lay.terrain)
        numbers = list(self.lay.numbers)
        for depth in range(0, max_depth + 1):
            self.seen.clear()
            self.cut = False
            path: list[tuple[str, int, int]] = []
            if self._dfs(terrain, numbers, depth, path):
                return path
            if self.out_of_budget:
                return None
            if not self.cut:
                return None  # every reachable board was tried: no deeper search can help
        return None

    def _dfs(
        self,
        terrain: list[Terrain],
        numbers: list[int],
        budget: int,
        path: list[tuple[str, int, int]],
    ) -> bool:
        offending, bound = self.problems(terrain, numbers)
        if not offending:
            return True
        self.nodes += 1
        if self.nodes > self.node_budget:
            # Give up rather than keep the table waiting; counts as a cut, so never a proof.
            self.out_of_budget = self.cut = True
            return False
        key = (tuple(terrain), tuple(numbers))
        if self.seen.get(key, -1) >= budget:
            return False  # already searched from here with at least this budget
        if bound > budget:
            self.cut = True
            return False
        self.seen[key] = budget
        for i in offending:
            for j in range(self.n):
                if j == i:
                    continue
                # A pair of offending hexes is visited once, from the smaller index.
                if j < i and j in offending:
                    continue
                if numbers[i] != numbers[j]:
                    numbers[i], numbers[j] = numbers[j], numbers[i]
                    path.append(("chips", i, j))
                    if self._dfs(terrain, numbers, budget - 1, path):
                        return True
                    path.pop()
                    numbers[i], numbers[j] = numbers[j], numbers[i]
                if self.allow_hexes and terrain[i] != terrain[j]:
                    terrain[i], terrain[j] = terrain[j], terrain[i]
                    numbers[i], numbers[j] = numbers[j], numbers[i]
                    path.append(("hexes", i, j))
                    if self._dfs(terrain, numbers, budget - 1, path):
                        return True
                    path.pop()
                    terrain[i], terrain[j] = terrain[j], terrain[i]
                    numbers[i], numbers[j] = numbers[j], numbers[i]
        return False


def _swap_bound(
    groups: list[tuple[str, tuple[int, ...]]],
    numbers: list[int],
    forbidden: list[frozenset[int]],
) -> int:
    """A lower bound on the chip swaps that cure every group of disjoint violations.

    A swap changes two hexes, so it cures at most two groups, and two only if each hex gets a
    chip that can cure its group: a chip not forbidden there (unary rules) and not red (a red
    pair). Linking groups that one swap could cure together, at most a maximum matching of
    them is cured two at a time, so at least ``len(groups) - matching`` swaps remain.
    """

    def cures(kind: str, at: int, chip: int) -> bool:
        if kind == "unary":
            return chip not in forbidden[at]
        if kind == "red":
            return chip not in RED_NUMBERS
        return True  # other rules: no cheap test, so assume the best

    n = len(groups)
    adjacent = [0] * n
    for k, (kind_a, hexes_a) in enumerate(groups):
        for m in range(k + 1, n):
            kind_b, hexes_b = groups[m]
            if any(
                cures(kind_a, a, numbers[b]) and cures(kind_b, b, numbers[a])
                for a in hexes_a
                for b in hexes_b
            ):
                adjacent[k] |= 1 << m
                adjacent[m] |= 1 << k
    if n > _EXACT_MATCHING_LIMIT:
        return n - sum(1 for a in adjacent if a) // 2
    return n - _max_matching((1 << n) - 1, adjacent, {})


#: Up to this many violation groups the pairing bound uses an exact maximum matching.
_EXACT_MATCHING_LIMIT = 14


def _max_matching(mask: int, adjacent: list[int], memo: dict[int, int]) -> int:
    """Size of a maximum matching among the groups in ``mask`` (bit sets of group indices)."""
    if mask == 0:
        return 0
    hit = memo.get(mask)
    if hit is not None:
        return hit
    i = (mask & -mask).bit_length() - 1
    rest = mask & ~(1 << i)
    best = _max_matching(rest, adjacent, memo)
    partners = adjacent[i] & rest
    while partners:
        low = partners & -partners
        best = max(best, 1 + _max_matching(rest & ~low, adjacent, memo))
        partners &= ~low
    memo[mask] = best
    return best


def _assignment_exists(forbidden: list[frozenset[int]], counts: dict[int, int]) -> bool:
    """Whether each hex can get one chip (0 = none) it allows, using each value at most its
    count: a bipartite matching of hexes to value copies (augmenting paths)."""
    copies = [v for v, k in sorted(counts.items()) for _ in range(k)]
    owner: list[int] = [-1] * len(copies)

    def augment(i: int, seen: set[int]) -> bool:
        for c, v in enumerate(copies):
            if c in seen or v in forbidden[i]:
                continue
            seen.add(c)
            if owner[c] < 0 or augment(owner[c], seen):
                owner[c] = i
                return True
        return False

    return all(augment(i, set()) for i in range(len(forbidden)))


def _partial_fix(
    lay: Layout, rules: list[str], violated: set[str], max_swaps: int
) -> list[tuple[str, int, int]] | None:
    """Chip swaps that cure all but one of the violated chip rules, when no arrangement can
    cure them all (typically wrong material: a chip the camera could not read leaves a hex
    without one, and the red pair beside it should still be fixed)."""
    for rule in sorted(violated):
        if RULES[rule].constraints is None:
            continue
        rest = [r for r in rules if r != rule]
        search = _Search(lay, rest, hexes=False, node_budget=CHIP_NODE_BUDGET)
        if search.arrangement_exists() is True:
            path = search.run(max_swaps)
            if path:
                return path
    return None


# --- spiral -------------------------------------------------------------------------------


def _spiral_swaps(lay: Layout) -> list[tuple[str, int, int]] | None:
    """Chip swaps putting the board on the nearest lettered spiral (fewest swaps found)."""
    values = lay.spec.letter_values or ()
    land = [h for h, t in zip(lay.geo.hexes, lay.terrain, strict=True) if t.is_land]
    deserts = [h for h, t in zip(lay.geo.hexes, lay.terrain, strict=True) if t == Terrain.DESERT]
    if len(land) - len(deserts) != len(values):
        return None
    best: list[tuple[str, int, int]] | None = None
    for start in corner_hexes(land):
        laid = spiral_numbers(land, start, deserts, values)
        target = [laid.get(h, NO_CHIP) for h in lay.geo.hexes]
        swaps = _sort_by_swaps(list(lay.numbers), target)
        if swaps is not None and (best is None or len(swaps) < len(best)):
            best = [("chips", i, j) for i, j in swaps]
    return best


def _sort_by_swaps(current: list[int], target: list[int]) -> list[tuple[int, int]] | None:
    """Swaps turning ``current`` into ``target`` (same multiset; None otherwise).

    With repeated values the fewest swaps is n - (most disjoint cycles), which is hard in
    general; closing every 2-cycle (one swap fixes two hexes) and then every 3-cycle (two swaps
    fix three) before following the remaining cycles is optimal for the few misplaced chips a
    table produces.
    """
    if sorted(current) != sorted(target):
        return None
    out: list[tuple[int, int]] = []
    wrong = [i for i in range(len(current)) if current[i] != target[i]]

    def swap(i: int, j: int) -> None:
        current[i], current[j] = current[j], current[i]
        out.append((i, j))

    def misplaced(k: int) -> bool:
        return current[k] != target[k]

    for i in wrong:
        for j in wrong:
            if (
                misplaced(i)
                and misplaced(j)
                and current[i] == target[j]
                and current[j] == target[i]
            ):
                swap(i, j)
    for i in wrong:
        for j in wrong:
            if not (misplaced(i) and misplaced(j) and current[j] == target[i]):
                continue
            k = next(
                (
                    k
                    for k in wrong
                    if k not in (i, j)
                    and misplaced(k)
                    and current[k] == target[j]
                    and current[i] == target[k]
                ),
                None,
            )
            if k is not None:
                swap(i, j)  # target[i] arrives at i; i's chip, wanted at k, waits at j
                swap(j, k)
    for i in wrong:
        while misplaced(i):
            swap(i, next(k for k in wrong if misplaced(k) and current[k] == target[i]))
    return out


# --- entry point --------------------------------------------------------------------------


def describe_swaps(board: Board, swaps: Sequence[Swap]) -> list[str]:
    """One line per step, each worded against the board as it is when that step comes."""
    out = []
    for s in swaps:
        out.append(s.describe(board))
        board = apply_swaps(board, [s])
    return out


def apply_swaps(board: Board, swaps: Sequence[Swap]) -> Board:
    """A copy of ``board`` with the swaps done in order."""
    tiles = dict(board.tiles)
    robber = board.robber
    for s in swaps:
        if s.what == "robber":
            robber = s.b
            continue
        ta, tb = tiles[s.a], tiles[s.b]
        if s.what == "chips":
            tiles[s.a], tiles[s.b] = Tile(ta.terrain, tb.number), Tile(tb.terrain, ta.number)
        else:
            tiles[s.a], tiles[s.b] = Tile(tb.terrain, tb.number), Tile(ta.terrain, ta.number)
    return replace(board, tiles=tiles, robber=robber)


def _describe_steps(
    board: Board, spec: SetupSpec, players: int | None, steps: Sequence[tuple[str, Hex, Hex]]
) -> tuple[Board, list[Swap]]:
    """Apply ``steps`` one by one, naming for each the rules it cures."""
    swaps = []
    before = {v.rule for v in check_board(board, spec, players).violations}
    for what, a, b in steps:
        board = apply_swaps(board, [Swap(what, a, b)])
        after = {v.rule for v in check_board(board, spec, players).violations}
        swaps.append(Swap(what, a, b, tuple(sorted(before - after))))
        before = after
    return board, swaps


def suggest_fixes(
    board: Board,
    spec: SetupSpec | None = None,
    players: int | None = None,
    max_swaps: int = 4,
    max_hex_swaps: int = 2,
) -> FixResult:
    """The fewest swaps making ``board`` pass every rule of ``spec`` (see the module notes)."""
    report = check_board(board, spec, players)
    spec = report.spec
    if report.ok:
        return FixResult((), True)
    violated = {v.rule for v in report.violations}
    unfixable = tuple(sorted(r for r in violated if not RULES[r].repair))
    lay = Layout.of(board, spec, players)
    hexes = lay.geo.hexes
    movable = [r for r in spec.rules if RULES[r].repair & {"chips", "hexes"}]
    search_rules = [r for r in movable if r not in SPIRAL_RULES]
    steps: list[tuple[str, Hex, Hex]] = []
    proved = False
    found = True
    chips_impossible = chip_fix_exists = out_of_budget = False
    if violated & set(movable):
        path: list[tuple[str, int, int]] | None = None
        if violated & SPIRAL_RULES:
            path = _spiral_swaps(lay)
        else:
            search = _Search(lay, search_rules, hexes=False, node_budget=CHIP_NODE_BUDGET)
            # Deciding first whether any chip arrangement can pass saves a fruitless search.
            exists = search.arrangement_exists()
            chips_impossible = exists is False
            if not chips_impossible:
                path = search.run(max_swaps)
                out_of_budget = search.out_of_budget
            # Hex swaps are for boards whose chips cannot be arranged legally on this terrain
            # (or where that is undecided); when a chip-only fix exists, the table is told to
            # allow more chip swaps instead.
            if path is None and exists is not True:
                search = _Search(lay, search_rules, hexes=True, node_budget=HEX_NODE_BUDGET)
                path = search.run(max_hex_swaps)
                proved = path is None and not search.cut
                out_of_budget = out_of_budget or search.out_of_budget
            if path is None and exists is not True:
                path = _partial_fix(lay, search_rules, violated, max_swaps)
            chip_fix_exists = exists is True
        if path is None:
            found = False
        else:
            steps = [(what, hexes[i], hexes[j]) for what, i, j in path]
    fixed_board, swaps = _describe_steps(board, spec, players, steps)
    final = check_board(fixed_board, spec, players)
    for v in final.violations:
        rule = RULES[v.rule]
        if "robber" in rule.repair and rule.robber_targets is not None:
            targets = rule.robber_targets(Layout.of(fixed_board, spec, players))
            # A robber rule only fails for a robber on the board (a missing one is not seen).
            if targets and fixed_board.robber is not None:
                fixed_board, more = _describe_steps(
                    fixed_board, spec, players, [("robber", fixed_board.robber, targets[0])]
                )
                swaps.extend(more)
            break
    final = check_board(fixed_board, spec, players)
    if final.ok:
        return FixResult(tuple(swaps), True)
    if unfixable:
        reason = "no swap can repair " + ", ".join(unfixable) + " (the material itself is wrong)"
        proved = True
    elif not found and proved:
        reason = "no arrangement reachable by swapping chips or hexes passes every rule"
    elif not found and chips_impossible:
        reason = (
            "no arrangement of these chips on this terrain passes every rule, and no fix with "
            f"at most {max_hex_swaps} chip/hex swaps"
        )
    elif not found and chip_fix_exists and not out_of_budget:
        reason = (
            f"the chips can be arranged legally, but it takes more than {max_swaps} chip "
            f"swap{'s' if max_swaps != 1 else ''} (allow more with --max-swaps)"
        )
    elif not found and out_of_budget:
        reason = "the search for a fix was stopped after trying too many boards"
    elif not found:
        reason = f"no fix with at most {max_swaps} chip swaps or {max_hex_swaps} chip/hex swaps"
    else:
        reason = "still failing: " + ", ".join(sorted({v.rule for v in final.violations}))
    return FixResult(tuple(swaps), False, unfixable, proved, reason)
