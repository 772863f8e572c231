"""Shared fixtures and scripted-game helpers for the rules-engine and journal tests.

Positions are built through the public API wherever it can be done: a :class:`Script` feeds
chosen dice and choices to the engine, :func:`found` places the founding pieces, :func:`build`
pays for and places pieces in a normal turn. The one exception is :func:`set_hand`, the only
place a test touches a hand directly: it moves cards between the bank and the hand, so the 19
cards of each resource are always all accounted for.

The fixed board (:func:`fixed_board`) is the base frame with a hand-laid layout, so a test can
name the hexes whose numbers and resources it relies on::

    r=-2            (0,-2) ore 10   (1,-2) wool 2    (2,-2) lumber 9
    r=-1      (-1,-1) grain 12 (0,-1) brick 6  (1,-1) wool 4   (2,-1) brick 10
    r= 0  (-2,0) grain 9 (-1,0) lumber 11 (0,0) desert (1,0) lumber 3 (2,0) ore 8
    r= 1      (-2,1) lumber 8  (-1,1) ore 3    (0,1) grain 4   (1,1) wool 5
    r= 2            (-2,2) brick 5  (-1,2) wool 6    (0,2) grain 11
"""

from __future__ import annotations

import json
import random
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import pytest

from companion.actions import (
    DEV_CARDS,
    Action,
    BuildCity,
    BuildRoad,
    BuildSettlement,
    BuildShip,
    BuyDevelopmentCard,
    Cards,
    DevCard,
    EndTurn,
    RollDice,
)
from companion.board import (
    RESOURCES,
    Board,
    Edge,
    Harbor,
    Hex,
    Terrain,
    Tile,
    Vertex,
    edge,
    vertex,
    vertex_edges,
)
from companion.game import Game, IllegalAction, Phase, Rules
from companion.journal import JournaledGame
from companion.layouts import BASE_HARBOR_SITES
from companion.longest_route import SHIP
from companion.scenario import SCENARIO_DIR

F, P, G, H, M, D = (
    Terrain.FOREST,
    Terrain.PASTURE,
    Terrain.FIELDS,
    Terrain.HILLS,
    Terrain.MOUNTAINS,
    Terrain.DESERT,
)

#: The fixed layout: hex -> (terrain, number). Counts match RULES.md 1.1.1 and 1.1.3.
LAYOUT: dict[Hex, tuple[Terrain, int | None]] = {
    (0, -2): (M, 10),
    (1, -2): (P, 2),
    (2, -2): (F, 9),
    (-1, -1): (G, 12),
    (0, -1): (H, 6),
    (1, -1): (P, 4),
    (2, -1): (H, 10),
    (-2, 0): (G, 9),
    (-1, 0): (F, 11),
    (0, 0): (D, None),
    (1, 0): (F, 3),
    (2, 0): (M, 8),
    (-2, 1): (F, 8),
    (-1, 1): (M, 3),
    (0, 1): (G, 4),
    (1, 1): (P, 5),
    (-2, 2): (H, 5),
    (-1, 2): (P, 6),
    (0, 2): (G, 11),
}

#: Seconds a test waits for another thread's work (an update, a thread's end). A sanity bound,
#: not a benchmark: generous, because CI machines run loaded; a passing wait returns at once.
WAIT_S = 60.0

#: Harbour kinds on BASE_HARBOR_SITES, in the same (clockwise from the east) order.
HARBOR_KINDS = ("3:1", "wool", "3:1", "3:1", "brick", "lumber", "3:1", "grain", "ore")

PLAYERS = ("red", "blue", "white")


def fixed_board() -> Board:
    """The base board of the module docstring; the robber on the desert (0, 0)."""
    tiles = {h: Tile(t, n) for h, (t, n) in LAYOUT.items()}
    harbors = [
        Harbor(h[0], h[1], s, k) for (h, s), k in zip(BASE_HARBOR_SITES, HARBOR_KINDS, strict=True)
    ]
    return Board("base", tiles, harbors, robber=(0, 0))


def V(q: int, r: int, corner: str) -> Vertex:
    """Corner ``corner`` of hex (q, r), under any of its six names."""
    return vertex(q, r, corner)


def E(q: int, r: int, side: str) -> Edge:
    """Side ``side`` of hex (q, r), under any of its six names."""
    return edge(q, r, side)


class ScriptExhausted(AssertionError):
    """A test asked the engine for more randomness than its script provides."""


class Script:
    """Randomness from a script: the dice to roll, and the indices that ``pick`` returns.

    A test that rolls must queue its dice; an unqueued roll is a mistake in the test and fails
    loudly. An unqueued pick takes the first index with a non-zero weight, so a steal takes the
    victim's first resource (in RESOURCES order) and a bought card is the first card left in
    DEV_CARDS order, unless the test says otherwise.
    """

    def __init__(self, dice: Iterable[tuple[int, int]] = (), picks: Iterable[int] = ()):
        self.dice: deque[tuple[int, int]] = deque(dice)
        self.picks: deque[int] = deque(picks)

    def roll(self) -> tuple[int, int]:
        if not self.dice:
            raise ScriptExhausted("the test did not script this roll")
        return self.dice.popleft()

    def pick(self, weights: Sequence[int]) -> int:
        if self.picks:
            i = self.picks.popleft()
            assert weights[i] > 0, f"scripted pick {i} has weight 0 in {list(weights)}"
            return i
        return next(i for i, w in enumerate(weights) if w > 0)


def dice_for(total: int) -> tuple[int, int]:
    """Two dice showing ``total`` (2-12)."""
    assert 2 <= total <= 12
    return (min(6, total - 1), total - min(6, total - 1))


def new_game(
    players: Sequence[str] = PLAYERS, rules: Rules | None = None, board: Board | None = None
) -> Game:
    """A game on the fixed board, driven by an empty :class:`Script` (``game.rng``)."""
    return Game(board or fixed_board(), players, rules, Script())


#: Founding spots for three players on the fixed board, in snake order (red, blue, white, white,
#: blue, red): (settlement, road). They are far apart, so each player's network can grow.
FOUNDING_3: tuple[tuple[Vertex, Edge], ...] = (
    (V(0, -1, "N"), E(0, -1, "NE")),  # red: ore 10, brick 6, wool 2
    (V(1, 0, "S"), E(1, 0, "SE")),  # blue: lumber 3, grain 4, wool 5
    (V(-2, 1, "N"), E(-2, 1, "NW")),  # white: grain 9, lumber 8, lumber 11
    (V(2, -1, "S"), E(2, -1, "SE")),  # white: brick 10, ore 8, lumber 3
    (V(-1, 2, "N"), E(-1, 2, "NE")),  # blue: wool 6, ore 3, grain 4
    (V(-1, 0, "N"), E(-1, 0, "NW")),  # red: lumber 11, grain 12, brick 6
)


def found(game: Game, spots: Sequence[tuple[Vertex, Edge]] = FOUNDING_3) -> None:
    """Play the whole founding phase with ``spots`` in snake order."""
    for v, e in spots:
        who = game.current_player
        game.apply(BuildSettlement(who, v))
        game.apply(BuildRoad(who, e))
    assert game.phase == Phase.ROLL


def hand(game: Game, color: str) -> dict[str, int]:
    """``color``'s resource cards as {resource: count}, zero counts left out."""
    return Cards(tuple(game.hands[game.seat(color)])).to_json()  # type: ignore[arg-type]


def set_hand(game: Game, color: str, **counts: int) -> None:
    """Make ``color``'s hand exactly ``counts`` (e.g. ``ore=3``), through the bank.

    The one test-only way to set up cards: the old hand goes back to the bank, the new one comes
    out of it, so bank + hands stays 19 of each resource. Fails if the bank cannot pay.
    """
    p = game.seat(color)
    want = Cards.of(**counts).counts
    for i in range(len(RESOURCES)):
        game.bank[i] += game.hands[p][i]
        game.hands[p][i] = 0
        assert game.bank[i] >= want[i], f"the bank has only {game.bank[i]} {RESOURCES[i]}"
        game.bank[i] -= want[i]
        game.hands[p][i] = want[i]


def give(game: Game, color: str, **counts: int) -> None:
    """Add ``counts`` to ``color``'s hand from the bank (see :func:`set_hand`)."""
    current = Cards(tuple(game.hands[game.seat(color)])).counts  # type: ignore[arg-type]
    extra = Cards.of(**counts).counts
    set_hand(
        game, color, **{r.value: a + b for r, a, b in zip(RESOURCES, current, extra, strict=True)}
    )


def roll(game: Game, total: int) -> list[dict]:
    """The current player rolls ``total``."""
    game.rng.dice.append(dice_for(total))  # type: ignore[attr-defined]
    return game.apply(RollDice(game.current_player))


def pass_turns_until(game: Game, color: str, total: int = 2) -> None:
    """Roll ``total`` and end turns until it is ``color``'s turn, before their roll.

    ``total`` defaults to 2, which only the wool hex (1, -2) produces.
    """
    for _ in range(len(game.players) + 1):
        if game.current_player == color and game.phase == Phase.ROLL:
            return
        if game.phase == Phase.ROLL:
            roll(game, total)
        game.apply(EndTurn(game.current_player))
    raise AssertionError(f"never reached {color}'s turn")


def build_roads(game: Game, color: str, edges: Iterable[Edge]) -> None:
    """``color`` (the current player, after the roll) pays for and builds each road in turn."""
    for e in edges:
        give(game, color, lumber=1, brick=1)
        game.apply(BuildRoad(color, e))


def build_settlement(game: Game, color: str, v: Vertex) -> list[dict]:
    give(game, color, lumber=1, brick=1, wool=1, grain=1)
    return game.apply(BuildSettlement(color, v))


def build_city(game: Game, color: str, v: Vertex) -> list[dict]:
    give(game, color, grain=2, ore=3)
    return game.apply(BuildCity(color, v))


def buy_card(game: Game, color: str, card: DevCard) -> list[dict]:
    """``color`` pays for and buys ``card`` (named, as when the table reports the draw)."""
    give(game, color, wool=1, grain=1, ore=1)
    return game.apply(BuyDevelopmentCard(color, card))


def refusal(game: Game, action: object) -> IllegalAction:
    """Apply ``action``, expect a refusal, check the state is untouched, return the refusal."""
    before = game.snapshot()
    with pytest.raises(IllegalAction) as info:
        game.apply(action)  # type: ignore[arg-type]
    assert game.snapshot() == before
    return info.value


def scenario_copy(tmp_path: Path, name: str, mutate: Callable[[dict[str, Any]], object]) -> Path:
    """The packaged scenario file ``name`` as a home-made one: its JSON after ``mutate(data)``,
    written as ``tmp_path/<name>.json`` for a test of what the loader or the checker says."""
    data = json.loads((SCENARIO_DIR / f"{name}.json").read_text())
    mutate(data)
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(data))
    return path


def hook_entry(holder: dict[str, Any], hook: str) -> dict[str, Any]:
    """The entry of ``hook`` in the ``hooks`` list of a scenario file's JSON (or a layout's)."""
    return next(h for h in holder["hooks"] if h["hook"] == hook)


def dev_count(game: Game, color: str, card: DevCard) -> int:
    return game.dev_hands[game.seat(color)][DEV_CARDS.index(card)]


@pytest.fixture
def game() -> Game:
    """Three players (red, blue, white) on the fixed board, before the founding phase."""
    return new_game()


@pytest.fixture
def started() -> Game:
    """Three players after the founding phase of FOUNDING_3, red to roll, all hands empty."""
    g = new_game()
    found(g)
    for c in g.players:
        set_hand(g, c)
    return g


def corner_path(*corners: Vertex) -> list[Edge]:
    """The sides joining consecutive corners of a walk (each pair must be neighbours)."""
    out = []
    for a, b in zip(corners, corners[1:], strict=False):
        shared = set(vertex_edges(a)) & set(vertex_edges(b))
        assert len(shared) == 1, f"{a} and {b} are not neighbours"
        out.append(shared.pop())
    return out


#: The island's coast: ``COAST[i]`` is the i-th corner walking the coast of the base island
#: from its west corner through the south, east and north (30 corners).
COAST: tuple[Vertex, ...] = (
    V(-3, 1, "N"),
    V(-2, 0, "S"),
    V(-3, 2, "N"),
    V(-2, 1, "S"),
    V(-3, 3, "N"),
    V(-2, 2, "S"),
    V(-2, 3, "N"),
    V(-1, 2, "S"),
    V(-1, 3, "N"),
    V(0, 2, "S"),
    V(0, 3, "N"),
    V(1, 1, "S"),
    V(1, 2, "N"),
    V(2, 0, "S"),
    V(2, 1, "N"),
    V(3, -1, "S"),
    V(2, 0, "N"),
    V(3, -2, "S"),
    V(2, -1, "N"),
    V(3, -3, "S"),
    V(2, -2, "N"),
    V(2, -3, "S"),
    V(1, -2, "N"),
    V(1, -3, "S"),
    V(0, -2, "N"),
    V(0, -3, "S"),
    V(-1, -1, "N"),
    V(-1, -2, "S"),
    V(-2, 0, "N"),
    V(-2, -1, "S"),
)

#: Blue's way in to COAST[18] from its founding road.
BLUE_INLAND = V(2, -2, "S")


def coast(*indices: int) -> list[Edge]:
    """The coast sides walked through the given COAST indices, e.g. ``coast(19, 18, 17)``."""
    return corner_path(*(COAST[i % len(COAST)] for i in indices))


def walk(start: int, stop: int) -> list[Edge]:
    """The coast sides from COAST[start] to COAST[stop], one step at a time, in build order."""
    step = 1 if stop > start else -1
    return coast(*range(start, stop + step, step))


#: Founding for the Longest Road tests, with room for long coast roads:
#:
#:   red    COAST[20] (2,-2,N), road to COAST[19]; (0,0,N), road to (0,-1,S)
#:   blue   (1,-1,N), road to (2,-2,S) -- one step from COAST[18], where blue can cut red's
#:          coast road; COAST[11] (1,1,S), road to COAST[10]
#:   white  COAST[0] (-3,1,N), road to COAST[1]; COAST[26] (-1,-1,N), road to COAST[27]
#:
#: So red grows a road down the east coast from COAST[20] to COAST[13] (7 roads), blue one along
#: the south coast from COAST[11] towards COAST[5], white one from COAST[0] towards COAST[5] and
#: back round the north-west through COAST[29].
LR_FOUNDING = (
    (COAST[20], coast(20, 19)[0]),
    (V(1, -1, "N"), corner_path(V(1, -1, "N"), BLUE_INLAND)[0]),
    (COAST[0], coast(0, 1)[0]),
    (COAST[26], coast(26, 27)[0]),
    (COAST[11], coast(11, 10)[0]),
    (V(0, 0, "N"), corner_path(V(0, 0, "N"), V(0, -1, "S"))[0]),
)


def play_random(target: Game | JournaledGame, steps: int, seed: int) -> list[Action]:
    """Apply up to ``steps`` actions, each drawn uniformly from the legal ones; return them.

    Stops early when the game is over. ``target``'s own randomness decides dice and draws.
    """
    chooser = random.Random(seed)
    done: list[Action] = []
    for _ in range(steps):
        game = target.game if isinstance(target, JournaledGame) else target
        legal = game.legal_actions()
        if not legal:
            break
        action = chooser.choice(legal)
        target.apply(action)
        done.append(action)
    return done


def sea_path(game: Game, color: str, start: Iterable[int], goal: Edge) -> list[Edge]:
    """The fewest new ships for ``color``, in build order, from the corners ``start`` (indices)
    to a ship on side ``goal``: over sea and coast sides and ``color``'s own ships, around the
    pirate's sides, through no corner an opponent has built on. Fails if there is no way."""
    t = game.topology
    me = game.seat(color)
    blocked = set() if game.pirate is None else set(t.hex_edges[game.pirate])

    def mine(e: int) -> bool:
        return game.edge_owner[e] == me and game.edge_kind[e] == SHIP

    g = t.edge_index[goal]
    prev: dict[int, tuple[int, int] | None] = {v: None for v in start}
    queue = deque(prev)
    while queue:
        v = queue.popleft()
        if v in t.edge_vertices[g]:
            path = [g]
            while (step := prev[v]) is not None:
                v, e = step
                path.append(e)
            return [t.edges[e] for e in reversed(path) if not mine(e)]
        for e in t.vertex_edges[v]:
            if not game.edge_sea[e] or e in blocked or not (game.edge_owner[e] == -1 or mine(e)):
                continue
            w = next(x for x in t.edge_vertices[e] if x != v)
            if w not in prev and game.vertex_owner[w] in (-1, me):
                prev[w] = (v, e)
                queue.append(w)
    raise AssertionError(f"no way by sea to {tuple(goal)}")


def road_chain(game: Game, color: str, n: int) -> list[Edge]:
    """``n`` free land sides that extend one of ``color``'s roads in a chain from its free
    end, through corners no piece touches yet (so the chain meets nobody, not even itself)."""
    t = game.topology
    p = game.seat(color)

    def untouched(w: int) -> bool:
        return game.vertex_owner[w] < 0 and all(game.edge_owner[x] < 0 for x in t.vertex_edges[w])

    def grow(v: int, path: list[Edge], used: set[int]) -> list[Edge] | None:
        if len(path) == n:
            return path
        for e in t.vertex_edges[v]:
            w = next(x for x in t.edge_vertices[e] if x != v)
            if game.edge_owner[e] < 0 and game.edge_land[e] and w not in used and untouched(w):
                found_path = grow(w, [*path, t.edges[e]], used | {w})
                if found_path:
                    return found_path
        return None

    for e in sorted(game.pieces_of[p]):
        for end in t.edge_vertices[e]:
            if game.vertex_owner[end] < 0:
                result = grow(end, [], set(t.edge_vertices[e]))
                if result:
                    return result
    raise AssertionError(f"no room for a chain of {n} roads for {color}")


def network(game: Game, color: str) -> list[int]:
    """The corners ``color``'s ships may grow from: buildings and the ends of pieces."""
    p = game.seat(color)
    t = game.topology
    return sorted(game.buildings_of[p]) + [v for e in game.pieces_of[p] for v in t.edge_vertices[e]]


def sail(game: Game, color: str, goal: Edge, settle: bool = True) -> list[dict]:
    """``color`` (on turn, after the roll) pays for and builds the ships up to side ``goal``;
    with ``settle``, a scenario's decisions on the way (a gift found) are made at once with
    the first legal action."""
    events: list[dict] = []
    for side in sea_path(game, color, network(game, color), goal):
        set_hand(game, color, lumber=1, wool=1)
        events += game.apply(BuildShip(color, side))
        while settle and game.phase != Phase.GAME_OVER and game._pending() is not None:
            events += game.apply(game.legal_actions()[0])
    return events
