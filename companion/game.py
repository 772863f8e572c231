"""The rules engine: one game object, legal actions you can list, actions applied or refused.

Like python-chess: a :class:`Game` holds the whole state; :meth:`Game.legal_actions` lists what
may be done now; :meth:`Game.apply` carries an action out and returns what happened, or raises
:class:`IllegalAction` with the reason and the number of the rule in RULES.md, leaving the state
exactly as it was.

>>> from companion.layouts import random_board
>>> game = Game(random_board(4, seed=1), ["red", "blue", "white", "orange"], rng=7)
>>> game.phase, game.current_player
(<Phase.FOUNDING_SETTLEMENT: 'founding_settlement'>, 'red')
>>> len(game.legal_actions())  # every corner of the island is free
54
>>> game.apply(BuildSettlement("red", Vertex(0, 0, "N")))
[{'type': 'built', 'player': 'red', 'piece': 'settlement', 'vertex': [0, 0, 'N']}]
>>> game.apply(EndTurn("red"))
Traceback (most recent call last):
...
companion.game.IllegalAction: red must place a road next to the settlement just built (rule 1.4.1)

Randomness (dice, bought cards, stolen cards) comes from an injectable :class:`Randomness`; an
action may also carry its outcome (a physical roll), and :meth:`Game.resolve` fills in the
outcome without changing the state, so the journal can record it before the state changes.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any, Protocol

from companion.actions import (
    DEV_CARDS,
    Action,
    BuildCity,
    BuildRoad,
    BuildSettlement,
    BuildShip,
    BuyDevelopmentCard,
    Cards,
    ChooseGold,
    DevCard,
    Discard,
    DomesticTrade,
    EndTurn,
    MaritimeTrade,
    MovePirate,
    MoveRobber,
    MoveShip,
    PlayKnight,
    PlayMonopoly,
    PlayRoadBuilding,
    PlayYearOfPlenty,
    Reveal,
    RollDice,
)
from companion.board import (
    HARBOR_KINDS,
    RESOURCES,
    Board,
    Edge,
    Harbor,
    Hex,
    Resource,
    Terrain,
    Tile,
    Vertex,
)
from companion.hooks import Hook, make_hook
from companion.longest_route import ROAD, SHIP, longest_route, longest_route_from

Event = dict[str, Any]

N_RES = len(RESOURCES)
#: the resources' names as in the JSON forms, by index (an enum's ``.value`` is slow to read)
RESOURCE_NAMES: tuple[str, ...] = tuple(r.value for r in RESOURCES)
DEV_CARD_NAMES: tuple[str, ...] = tuple(c.value for c in DEV_CARDS)
LUMBER, BRICK, WOOL, GRAIN, ORE = range(N_RES)

#: Building costs (RULES.md 1.9.1), counts in RESOURCES order.
COST_ROAD = (1, 1, 0, 0, 0)
COST_SETTLEMENT = (1, 1, 1, 1, 0)
COST_CITY = (0, 0, 0, 2, 3)
COST_DEV_CARD = (0, 0, 1, 1, 1)
COST_SHIP = (1, 0, 1, 0, 0)

#: networks of up to this many pieces have few enough trails from a loose end to walk them all
_WALK_ALL_TRAILS_UP_TO = 15

KNIGHT, VICTORY_POINT, ROAD_BUILDING, YEAR_OF_PLENTY, MONOPOLY = range(len(DEV_CARDS))
PLAY_ACTION_CARD = {
    PlayKnight: KNIGHT,
    PlayRoadBuilding: ROAD_BUILDING,
    PlayYearOfPlenty: YEAR_OF_PLENTY,
    PlayMonopoly: MONOPOLY,
}


class Phase(StrEnum):
    FOUNDING_SETTLEMENT = "founding_settlement"
    FOUNDING_ROAD = "founding_road"
    ROLL = "roll"
    DISCARD = "discard"
    MOVE_ROBBER = "move_robber"
    MAIN = "main"
    ROAD_BUILDING = "road_building"
    CHOOSE_GOLD = "choose_gold"
    SPECIAL_BUILD = "special_build"
    GAME_OVER = "game_over"


# The phases under short module names: reading a member through the enum class goes through
# its metaclass (several times slower than a global), and the engine compares phases at every
# step of every action.
(
    _FOUNDING_SETTLEMENT,
    _FOUNDING_ROAD,
    _ROLL,
    _DISCARD,
    _MOVE_ROBBER,
    _MAIN,
    _ROAD_BUILDING,
    _CHOOSE_GOLD,
    _SPECIAL_BUILD,
    _GAME_OVER,
) = Phase


class IllegalAction(ValueError):
    """An action the rules refuse; ``rule`` is its number in RULES.md.

    ``reason`` may be a template with ``{}`` fields filled from ``args`` only when the message
    is read: legal-action generation judges many spots and reads few refusals.
    """

    def __init__(self, rule: str, reason: str, *args: object):
        super().__init__(rule, reason, *args)
        self.rule = rule
        self._reason = reason
        self._args = args

    @property
    def reason(self) -> str:
        if not self._args:
            return self._reason
        # Corners and sides read as plain (q, r, name) tuples.
        return self._reason.format(*(tuple(a) if isinstance(a, tuple) else a for a in self._args))

    def __str__(self) -> str:
        return f"{self.reason} (rule {self.rule})"


@dataclass(frozen=True)
class Rules:
    """The rule options of a game (the defaults are the base game for 3-4 players)."""

    victory_points: int = 10
    #: RULES.md 1.5 GAP: False keeps the strict order (no trade after the first build or buy).
    trade_after_build: bool = False
    settlements: int = 5
    cities: int = 4
    roads: int = 15
    cards_per_resource: int = 19
    discard_limit: int = 7
    longest_road_min: int = 5
    largest_army_min: int = 3
    dev_deck: tuple[tuple[DevCard, int], ...] = (
        (DevCard.KNIGHT, 14),
        (DevCard.VICTORY_POINT, 5),
        (DevCard.ROAD_BUILDING, 2),
        (DevCard.YEAR_OF_PLENTY, 2),
        (DevCard.MONOPOLY, 2),
    )
    #: RULES.md 2.3.2: after every turn the others may build (5-6 player extension).
    special_building_phase: bool = False
    #: Ships per player: 0 without Seafarers, 15 with it (RULES.md 3.2.7).
    ships: int = 0
    #: Scenario rule hooks (see companion.hooks), e.g. ({"hook": "island_bonus", "vp": 2},).
    hooks: tuple[dict[str, Any], ...] = ()
    #: Named sets of hexes the hooks refer to: area name -> [[q, r], ...].
    areas: dict[str, list[list[int]]] = field(default_factory=dict)

    @classmethod
    def for_players(cls, n: int, **options: Any) -> Rules:
        """The material for ``n`` players: the base game, or with 5-6 its extension (2.1.5).

        >>> six = Rules.for_players(6)
        >>> six.cards_per_resource, sum(n for _, n in six.dev_deck), six.special_building_phase
        (24, 34, True)
        """
        if n <= 4:
            return cls(**options)
        extension: dict[str, Any] = {
            "cards_per_resource": 24,
            # 2.1.5 GAP (standard): the 9 extra cards are 6 knights and one of each progress card.
            "dev_deck": (
                (DevCard.KNIGHT, 20),
                (DevCard.VICTORY_POINT, 5),
                (DevCard.ROAD_BUILDING, 3),
                (DevCard.YEAR_OF_PLENTY, 3),
                (DevCard.MONOPOLY, 3),
            ),
            "special_building_phase": True,
        }
        return cls(**{**extension, **options})

    def to_json(self) -> dict[str, Any]:
        return {
            "victory_points": self.victory_points,
            "trade_after_build": self.trade_after_build,
            "settlements": self.settlements,
            "cities": self.cities,
            "roads": self.roads,
            "cards_per_resource": self.cards_per_resource,
            "discard_limit": self.discard_limit,
            "longest_road_min": self.longest_road_min,
            "largest_army_min": self.largest_army_min,
            "dev_deck": {card.value: n for card, n in self.dev_deck},
            "special_building_phase": self.special_building_phase,
            "ships": self.ships,
            "hooks": [dict(h) for h in self.hooks],
            "areas": {k: [list(h) for h in v] for k, v in self.areas.items()},
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Rules:
        known = {k: v for k, v in data.items() if k not in ("dev_deck", "hooks")}
        deck = tuple((DevCard(k), int(v)) for k, v in data.get("dev_deck", {}).items())
        hooks = tuple(dict(h) for h in data.get("hooks", ()))
        return cls(**known, hooks=hooks, **({"dev_deck": deck} if deck else {}))


class Randomness(Protocol):
    """Where chance comes from: a seeded generator, a recording, or the table itself."""

    def roll(self) -> tuple[int, int]:
        """Two dice."""
        ...

    def pick(self, weights: Sequence[int]) -> int:
        """An index drawn with probability proportional to ``weights`` (not all zero)."""
        ...


_DIE = (1, 2, 3, 4, 5, 6)


class RandomSource:
    """Randomness from Python's Mersenne Twister, reproducible by seed."""

    def __init__(self, seed: int | None = None):
        self._random = random.Random(seed)

    def roll(self) -> tuple[int, int]:
        # choice() draws the same numbers as randint(1, 6) (one uniform index below 6 per
        # die), with less argument checking on the way.
        choice = self._random.choice
        return (choice(_DIE), choice(_DIE))

    def pick(self, weights: Sequence[int]) -> int:
        x = self._random.randrange(sum(weights))
        for i, w in enumerate(weights):
            if x < w:
                return i
            x -= w
        raise AssertionError("weights changed during pick")


@dataclass(slots=True)
class _Turn:
    """What happened so far in the current turn (reset at every turn)."""

    rolled: bool = False
    built: bool = False
    played_card: bool = False
    moved_ship: bool = False
    ships_built: set[int] = field(default_factory=set)
    bought: list[int] = field(default_factory=lambda: [0] * len(DEV_CARDS))


class Game:
    """A game of Catan on ``board`` between ``players`` (colours in seat order, clockwise).

    The first player in ``players`` starts (RULES.md 1.4.5: who that is, the table decides).
    """

    def __init__(
        self,
        board: Board,
        players: Sequence[str],
        rules: Rules | None = None,
        rng: Randomness | int | None = None,
    ):
        if not 2 <= len(players) <= 6 or len(set(players)) != len(players):
            raise ValueError("players: give 2 to 6 different colours")
        if board.robber is None:
            raise ValueError("board: the robber's start hex is missing (RULES.md 1.3.6)")
        # A copy of the tiles: exploration (Fog Islands) turns hexes face up during play.
        self.board = replace(board, tiles=dict(board.tiles))
        self.players: tuple[str, ...] = tuple(players)
        self.rules = rules or Rules.for_players(len(players))
        areas = {
            name: frozenset((q, r) for q, r in hexes) for name, hexes in self.rules.areas.items()
        }
        self.hooks: tuple[Hook, ...] = tuple(make_hook(h, areas) for h in self.rules.hooks)
        #: the hook that handles each action class a scenario adds
        self._hook_actions: dict[type, Hook] = {}
        for hook in self.hooks:
            for cls in hook.actions:
                if cls in self._hook_actions or cls in _CHECKS:
                    raise ValueError(f"hooks: two rules claim the action {cls.type!r}")
                self._hook_actions[cls] = hook
        #: what the hooks remember (JSON-safe; part of the snapshot)
        self.hook_state: dict[str, Any] = {}
        self.rng: Randomness = rng if hasattr(rng, "roll") else RandomSource(rng)  # type: ignore
        self._seat = {c: i for i, c in enumerate(self.players)}
        t = self.topology = board.topology
        n = len(self.players)

        # Static board facts, by index.
        self.hex_resource = [-1] * len(t.hexes)
        self.hex_land = [False] * len(t.hexes)
        self.hex_sea = [False] * len(t.hexes)
        self.hex_gold = [False] * len(t.hexes)
        self.hexes_by_number: dict[int, list[int]] = {}
        self.vertex_land = [False] * len(t.vertices)
        self.edge_land = [False] * len(t.edges)
        self.edge_sea = [False] * len(t.edges)
        for i in range(len(t.hexes)):
            self._learn_hex(i)
        self._learn_corners_and_sides(range(len(t.vertices)), range(len(t.edges)))
        #: harbour kind index (into HARBOR_KINDS) by corner index
        self.vertex_harbor: dict[int, int] = self._harbor_corners()

        # Dynamic state.
        self.robber = t.hex_index[board.robber]
        self.pirate: int | None = None if board.pirate is None else t.hex_index.get(board.pirate)
        self.vertex_owner = [-1] * len(t.vertices)
        self.vertex_level = [0] * len(t.vertices)  # 1 settlement, 2 city
        #: victory points of each seat's settlements and cities (kept, not recounted)
        self.building_points = [0] * n
        #: special victory points (Catan chips) given by scenario hooks (RULES.md 3.8.1)
        self.special_vp = [0] * n
        self.edge_owner = [-1] * len(t.edges)
        self.edge_kind = [0] * len(t.edges)  # ROAD or SHIP
        #: each seat's roads and ships, and its buildings (kept, so no scan of the board)
        self.pieces_of: list[set[int]] = [set() for _ in range(n)]
        self.buildings_of: list[set[int]] = [set() for _ in range(n)]
        self.hands = [[0] * N_RES for _ in range(n)]
        self.bank = [self.rules.cards_per_resource] * N_RES
        self.deck = [dict(self.rules.dev_deck).get(c, 0) for c in DEV_CARDS]
        self.dev_hands = [[0] * len(DEV_CARDS) for _ in range(n)]
        self.knights = [0] * n
        self.settlements_left = [self.rules.settlements] * n
        self.cities_left = [self.rules.cities] * n
        self.roads_left = [self.rules.roads] * n
        self.ships_left = [self.rules.ships] * n
        #: gold-field production waiting for the owners' choices: seat -> cards to choose
        self.gold_due: dict[int, int] = {}
        self._owed: list[list[int]] = []
        self.after_gold = _MAIN
        self.road_lengths = [0] * n
        self.trade_ratios = [[4] * N_RES for _ in range(n)]
        self.longest_road: int | None = None
        self.largest_army: int | None = None
        self.phase = _FOUNDING_SETTLEMENT
        self.current = 0
        self.founding_order = list(range(n)) + list(reversed(range(n)))
        self.founding_step = 0
        #: founding steps from this one on pay starting resources: the second round (1.4.3);
        #: a scenario's setup may move it along with ``founding_order`` (Cloth for Catan)
        self.paying_step = n
        self.last_settlement = -1
        self.to_discard: dict[int, int] = {}
        self.after_robber = _MAIN
        self.free_roads = 0
        self.after_road_building = _MAIN
        #: seats still to build in the special building phase, the one building now first
        self.builders: list[int] = []
        self.turn = _Turn()
        self.turn_number = 0
        self.last_roll: tuple[int, int] | None = None
        self.winner: int | None = None
        self.actions_applied = 0
        #: counts the changes of state: what legal_actions listed holds only at its version
        self._version = 0
        #: the version legal_actions last listed at, and (a private copy of) the list
        self._listed: tuple[int, tuple[Action, ...]] = (-1, ())
        # The actions legal generation hands out, each made once (they are immutable values).
        self._made: dict[tuple[Any, ...], Action] = {}
        #: actions kept in lists by index rather than keyed one by one (see _generate_robber)
        self._made_lists: dict[tuple[Any, ...], list[Any]] = {}
        #: (kind of piece, seat) -> the build actions of every spot open to it, kept until a
        #: piece is placed or moved, the pirate moves or a hex changes (in games without
        #: hooks: hooks may change the board in their own ways)
        self._spots: dict[tuple[int, int], list[Action]] = {}
        self._end_turns = [EndTurn(c) for c in self.players]
        self._rolls = [RollDice(c) for c in self.players]
        self._knights = [PlayKnight(c) for c in self.players]
        self._road_buildings = [PlayRoadBuilding(c) for c in self.players]
        self._purchases = [BuyDevelopmentCard(c) for c in self.players]
        for hook in self.hooks:
            hook.setup(self)

    def _learn_hex(self, i: int) -> None:
        """Derive the static facts of hex ``i`` from its tile (see _learn_corners_and_sides)."""
        t = self.topology
        tile = self.board.tiles[t.hexes[i]]
        self.hex_land[i] = tile.terrain.is_land
        self.hex_sea[i] = tile.terrain == Terrain.SEA
        self.hex_gold[i] = tile.terrain == Terrain.GOLD
        res = tile.terrain.resource
        self.hex_resource[i] = -1 if res is None else RESOURCES.index(res)
        for hexes in self.hexes_by_number.values():
            if i in hexes:
                hexes.remove(i)
        if tile.number is not None and (res is not None or self.hex_gold[i]):
            self.hexes_by_number.setdefault(tile.number, []).append(i)

    def _learn_corners_and_sides(self, vertices: Iterable[int], edges: Iterable[int]) -> None:
        """Derive the static facts of these corners and sides from their hexes' facts."""
        t = self.topology
        land = {h for h, is_land in enumerate(self.hex_land) if is_land}
        sea = {h for h, is_sea in enumerate(self.hex_sea) if is_sea}
        vertex_hexes, edge_hexes = t.vertex_hexes, t.edge_hexes
        for v in vertices:
            self.vertex_land[v] = not land.isdisjoint(vertex_hexes[v])
        for e in edges:
            hs = edge_hexes[e]
            self.edge_land[e] = not land.isdisjoint(hs)
            # Navigable if sea (a sea hex, or the frame off the board) lies on one side
            # (RULES.md 3.2.2: sea and coast sides).
            self.edge_sea[e] = len(hs) < 2 or not sea.isdisjoint(hs)

    def set_tile(self, h: Hex, tile: Tile) -> None:
        """Change a hex during play (a fog hex turned face up, RULES.md 4.3.5)."""
        self._version += 1
        self._spots.clear()
        self.board.tiles[h] = tile
        i = self.topology.hex_index[h]
        self._learn_hex(i)
        self._learn_corners_and_sides(self.topology.hex_vertices[i], self.topology.hex_edges[i])

    def _harbor_corners(self) -> dict[int, int]:
        """The kind (index into HARBOR_KINDS) of the harbour at each corner that has one."""
        index = self.topology.vertex_index
        return {
            index[v]: HARBOR_KINDS.index(hb.kind)
            for hb in self.board.harbors
            for v in hb.vertices
            if v in index
        }

    def set_harbors(self, harbors: Sequence[Harbor]) -> None:
        """Change the harbours during play (a harbour token taken or placed, RULES.md
        4.5.11); every player's trade ratios follow at once."""
        self.board.harbors = list(harbors)  # a new list: the caller's board keeps its own
        self.vertex_harbor = self._harbor_corners()
        for p, ratios in enumerate(self.trade_ratios):
            ratios[:] = [4] * N_RES
            for v in self.buildings_of[p]:
                kind = self.vertex_harbor.get(v)
                if kind == 0:
                    ratios[:] = [min(x, 3) for x in ratios]
                elif kind is not None:
                    ratios[kind - 1] = 2

    # -- identities --------------------------------------------------------------------------

    @property
    def current_player(self) -> str:
        """The player whose turn it is."""
        return self.players[self.current]

    @property
    def actor(self) -> int:
        """The seat expected to act: the current player, or the builder of the special
        building phase (discards on a 7 are asked of several players: see ``to_discard``)."""
        return self.builders[0] if self.phase == _SPECIAL_BUILD else self.current

    def seat(self, color: str) -> int:
        try:
            return self._seat[color]
        except KeyError:
            raise IllegalAction(
                "1.1.6", f"{color!r} is not playing (players: {', '.join(self.players)})"
            ) from None

    @property
    def winner_color(self) -> str | None:
        return None if self.winner is None else self.players[self.winner]

    # -- victory points ----------------------------------------------------------------------

    def public_victory_points(self, p: int) -> int:
        """Victory points everyone can see (RULES.md 1.13.1, without hidden VP cards)."""
        return self.victory_points(p) - self.dev_hands[p][VICTORY_POINT]

    def victory_points(self, p: int) -> int:
        """All victory points of seat ``p``, hidden VP cards included."""
        vp = self.building_points[p] + self.special_vp[p] + self.dev_hands[p][VICTORY_POINT]
        if self.longest_road == p:
            vp += 2
        if self.largest_army == p:
            vp += 2
        return vp

    # -- the public API ----------------------------------------------------------------------

    def legal_actions(self) -> list[Action]:
        """Every action that :meth:`apply` would accept now.

        Domestic trades are the one exception: their number is unbounded, so they are not
        listed; :meth:`apply` validates them (RULES.md 1.8.2).
        """
        out: list[Action] = []
        if self.hooks:
            if self.phase != _GAME_OVER and self._pending() is None:
                self._generate(out)
            for hook in self.hooks:
                hook.generate(self, out)
        else:
            self._generate(out)
            # What the base engine lists is trusted when applied (see resolve); what a
            # scenario's hooks list or forbid is always judged in full.
            self._listed = (self._version, tuple(out))
        return out

    def is_legal(self, action: Action) -> bool:
        try:
            self._check(action)
        except IllegalAction:
            return False
        return True

    def resolve(self, action: Action) -> Action:
        """Check ``action`` and fill in its random outcome, without changing the state.

        Raises :class:`IllegalAction` if the rules refuse it.

        In a game without scenario hooks, an action that is the very object
        :meth:`legal_actions` listed in this same state (nothing applied since) was proved
        legal by generation and is not judged again; any other action, equal or not, is
        checked in full. Generation and the checks are held
        to the same answers by the property tests.
        """
        version, listed = self._listed
        if version != self._version or not _holds(listed, action):
            self._check(action)
        cls = type(action)
        if cls is RollDice:  # most actions are rolls: the quick way
            if action.dice is None:
                # A roll is a value like any other action: each (player, dice, source) is
                # made once per game.
                key = (RollDice, action.player, tuple(self.rng.roll()), action.source)
                rolled = self._made.get(key)
                if rolled is None:
                    rolled = self._made[key] = RollDice(action.player, key[2], action.source)
                return rolled
            return action
        if cls in _WITHOUT_OUTCOME:
            return action
        hook = self._hook_actions.get(cls)
        if hook is not None:
            return hook.resolve(self, action)
        match action:
            case BuyDevelopmentCard(card=None):
                # Made directly: dataclasses.replace costs several times more.
                return BuyDevelopmentCard(action.player, DEV_CARDS[self.rng.pick(self.deck)])
            case BuildRoad(revealed=None) | BuildShip(revealed=None) if self.hooks:
                e = self.topology.edge_index[action.edge]
                p = self._seat[action.player]
                drawn = tuple(r for hook in self.hooks for r in hook.draw_reveals(self, p, e))
                return replace(action, revealed=drawn) if drawn else action
            case (
                MoveRobber(victim=str() as victim, stolen=None)
                | MovePirate(victim=str() as victim, stolen=None)
            ):
                stolen = RESOURCES[self.rng.pick(self.hands[self._seat[victim]])]
                return type(action)(action.player, action.hex, victim, stolen)
        return action

    def apply(self, action: Action, journal: Callable[[Action], None] | None = None) -> list[Event]:
        """Carry out ``action`` and return the events it caused.

        The action is checked and its outcome resolved first; ``journal`` (if given) receives
        the resolved action before any state changes, so a crash cannot lose an accepted action.
        Raises :class:`IllegalAction` (state untouched) if the rules refuse it.
        """
        resolved = self.resolve(action)
        if journal is not None:
            journal(resolved)
        self._version += 1
        p = self._seat[resolved.player]
        cls = type(resolved)
        execute = _EXECUTE.get(cls)
        if execute is None:
            events = self._hook_actions[cls].execute(self, p, resolved)
        else:
            events = execute(self, p, resolved)
        # An action that gives no points cannot win (unless a scenario's hooks give points
        # or a say of their own); the others are checked after every move on one's own turn.
        if (
            (self.hooks or cls not in _GIVES_NO_POINTS)
            and self.phase != _GAME_OVER
            and p == self.current
        ):
            self.check_victory(p, events)
        self.actions_applied += 1
        return events

    # -- checks ------------------------------------------------------------------------------

    def _check(self, a: Action) -> None:
        if self.phase == _GAME_OVER:
            raise IllegalAction("1.13.2", f"the game is over: {self.winner_color} won")
        p = self.seat(a.player)
        checker = _CHECKS.get(type(a))
        if checker is None:
            hook = self._hook_actions.get(type(a))
            if hook is None:
                raise IllegalAction("1.5.1", f"{type(a).__name__} is not an action of this game")
            hook.check(self, p, a)
            return
        if self.hooks:
            pending = self._pending()
            if pending is not None:
                raise pending
        checker(self, p, a)

    def _pending(self) -> IllegalAction | None:
        """The first decision a hook waits for (see :meth:`companion.hooks.base.Hook.pending`)."""
        for hook in self.hooks:
            pending = hook.pending(self)
            if pending is not None:
                return pending
        return None

    def _require_turn(self, p: int, *phases: Phase) -> None:
        phase = self.phase
        if p != (self.builders[0] if phase == _SPECIAL_BUILD else self.current):
            actor = self.players[self.actor]
            raise IllegalAction("1.5.3", f"it is {actor}'s turn, not {self.players[p]}'s")
        if phase not in phases:
            raise IllegalAction(*self._phase_hint())

    def _phase_hint(self) -> tuple[str, str]:
        """The rule and the reason why only certain actions are allowed in this phase."""
        who = self.current_player
        match self.phase:
            case Phase.FOUNDING_SETTLEMENT:
                return "1.4.1", f"{who} must place a founding settlement"
            case Phase.FOUNDING_ROAD:
                return "1.4.1", f"{who} must place a road next to the settlement just built"
            case Phase.ROLL:
                return "1.5.1", f"{who} must roll the dice (or play a development card) first"
            case Phase.DISCARD:
                waiting = ", ".join(self.players[p] for p in sorted(self.to_discard))
                return "1.7.2", f"waiting for discards from {waiting}"
            case Phase.MOVE_ROBBER:
                return "1.7.3", f"{who} must move the robber"
            case Phase.ROAD_BUILDING:
                return "1.10.4", f"{who} must place the free roads of Road Building"
            case Phase.CHOOSE_GOLD:
                waiting = ", ".join(self.players[p] for p in sorted(self.gold_due))
                return "3.7.2", f"waiting for gold choices from {waiting}"
            case Phase.SPECIAL_BUILD:
                builder = self.players[self.actor]
                return "2.3.5", f"{builder} may only build or buy in the special building phase"
            case _:
                return "1.5.1", f"not allowed now ({self.phase.value})"

    def _vertex(self, v: Vertex) -> int:
        i = self.topology.vertex_index.get(v)
        if i is None:
            raise IllegalAction("0.3", f"corner {tuple(v)} is not on this board")
        return i

    def _edge(self, e: Edge) -> int:
        i = self.topology.edge_index.get(e)
        if i is None:
            raise IllegalAction("0.3", f"side {tuple(e)} is not on this board")
        return i

    def _require_cards(self, p: int, cost: Sequence[int], what: str) -> None:
        if not _affords(self.hands[p], cost):
            need = Cards(tuple(cost)).to_json()  # type: ignore[arg-type]
            raise IllegalAction("1.9.1", f"{self.players[p]} cannot pay for {what} (needs {need})")

    def _settlement_spot_error(self, p: int, v: int, founding: bool) -> IllegalAction | None:
        t = self.topology
        corner = t.vertices[v]
        if self.vertex_owner[v] != -1:
            return IllegalAction("1.9.5", "corner {} is already built on", corner)
        if not self.vertex_land[v]:
            return IllegalAction("0.3", "corner {} touches no land", corner)
        if any(self.vertex_owner[n] != -1 for n in t.vertex_neighbours[v]):
            return IllegalAction("1.9.5", "corner {} is next to a building (distance rule)", corner)
        if not founding and not any(self.edge_owner[e] == p for e in t.vertex_edges[v]):
            return IllegalAction(
                "1.9.4", "corner {} is not at the end of one of your roads or ships", corner
            )
        for hook in self.hooks:
            err = hook.settlement_error(self, p, v, founding)
            if err is not None:
                return err
        return None

    def _route_spot_error(self, p: int, e: int, kind: int) -> IllegalAction | None:
        """Why seat ``p`` may not put a road or ship (``kind``) on side ``e`` now, or None."""
        t = self.topology
        side = t.edges[e]
        name = "road" if kind == ROAD else "ship"
        if self.edge_owner[e] != -1:
            rule = "1.9.3" if kind == ROAD else "3.2.4"
            return IllegalAction(rule, "side {} already holds a piece", side)
        if kind == ROAD and not self.edge_land[e]:
            return IllegalAction("1.9.3", "side {} touches no land", side)
        if kind == SHIP:
            if not self.rules.ships:
                return IllegalAction("3.2.1", "ships are played only with Seafarers")
            if not self.edge_sea[e]:
                return IllegalAction("3.2.2", "a ship needs a sea or coast side, not {}", side)
            if self.pirate is not None and e in t.hex_edges[self.pirate]:
                return IllegalAction("3.6.4", "no ship may be placed next to the pirate")
        for hook in self.hooks:
            err = hook.route_error(self, p, e, kind)
            if err is not None:
                return err
        if self.phase == _FOUNDING_ROAD:
            if self.last_settlement not in t.edge_vertices[e]:
                return IllegalAction(
                    "1.4.1", "the founding {} must touch the settlement just placed", name
                )
            return None
        for v in t.edge_vertices[e]:
            owner = self.vertex_owner[v]
            if owner == p:
                return None
            if owner == -1 and any(
                self.edge_owner[x] == p and self.edge_kind[x] == kind
                for x in t.vertex_edges[v]
                if x != e
            ):
                return None
        rule = "1.9.3" if kind == ROAD else "3.2.3"
        return IllegalAction(
            rule,
            "side {} does not connect to your {} or building (an opponent's building blocks "
            "the way; roads and ships join only at your own buildings)",
            side,
            name,
        )

    def _check_settlement(self, p: int, a: BuildSettlement) -> None:
        founding = self.phase == _FOUNDING_SETTLEMENT
        self._require_turn(p, _FOUNDING_SETTLEMENT, _MAIN, _SPECIAL_BUILD)
        v = self._vertex(a.vertex)
        if self.settlements_left[p] == 0:
            raise IllegalAction("1.9.2", f"{a.player} has no settlement left in the supply")
        err = self._settlement_spot_error(p, v, founding)
        if err:
            raise err
        if not founding:
            self._require_cards(p, COST_SETTLEMENT, "a settlement")

    def _check_road(self, p: int, a: BuildRoad) -> None:
        self._check_route_piece(p, a.edge, ROAD, a.revealed)

    def _check_ship(self, p: int, a: BuildShip) -> None:
        self._check_route_piece(p, a.edge, SHIP, a.revealed)

    def _check_route_piece(
        self, p: int, edge: Edge, kind: int, revealed: tuple[Reveal, ...] | None = None
    ) -> None:
        self._require_turn(p, _FOUNDING_ROAD, _MAIN, _ROAD_BUILDING, _SPECIAL_BUILD)
        e = self._edge(edge)
        left = self.roads_left if kind == ROAD else self.ships_left
        name = "road" if kind == ROAD else "ship"
        if left[p] == 0 and (kind == ROAD or self.rules.ships):
            raise IllegalAction("1.9.2", f"{self.players[p]} has no {name} left in the supply")
        err = self._route_spot_error(p, e, kind)
        if err:
            raise err
        if self.phase in (_MAIN, _SPECIAL_BUILD):
            cost = COST_ROAD if kind == ROAD else COST_SHIP
            self._require_cards(p, cost, f"a {name}")
        if revealed:
            errors = [hook.reveal_error(self, p, e, revealed) for hook in self.hooks]
            error = next((x for x in errors if x is not None), None)
            if error is not None or not self.hooks:
                raise error or IllegalAction("4.3.5", "there is nothing to explore in this game")

    def _movable_ship_error(self, p: int, e: int) -> IllegalAction | None:
        """Why the ship on side ``e`` may not be moved (RULES.md 3.4.2-3.4.7), or None."""
        t = self.topology
        if self.edge_owner[e] != p or self.edge_kind[e] != SHIP:
            return IllegalAction("3.4.2", f"{self.players[p]} has no ship on {tuple(t.edges[e])}")
        if e in self.turn.ships_built:
            return IllegalAction("3.4.5", "a ship built this turn cannot be moved")
        if self.pirate is not None and e in t.hex_edges[self.pirate]:
            return IllegalAction("3.6.4", "a ship next to the pirate cannot be moved")
        if self.hooks:
            for hook in self.hooks:
                err = hook.ship_move_error(self, p, e)
                if err is not None:
                    return err
        for v in t.edge_vertices[e]:
            if self.vertex_owner[v] != p and not any(
                self.edge_owner[x] == p and self.edge_kind[x] == SHIP
                for x in t.vertex_edges[v]
                if x != e
            ):
                return None  # an open end
        return IllegalAction(
            "3.4.2", "only the ship at the open end of a route can be moved (closed or inner)"
        )

    def _check_move_ship(self, p: int, a: MoveShip) -> None:
        self._require_turn(p, _MAIN)
        if not self.turn.rolled:
            raise IllegalAction("3.4.7", "ships are moved after the roll")
        if self.turn.moved_ship:
            raise IllegalAction("3.4.5", "only one ship may be moved per turn")
        e, to = self._edge(a.edge), self._edge(a.to)
        err = self._movable_ship_error(p, e)
        if err:
            raise err
        if to == e:
            raise IllegalAction("3.4.2", "the ship must move to another side")
        # The new place is judged as if the ship had already left (RULES.md 3.4.7 GAP).
        with self._lifted(p, e):
            err = self._route_spot_error(p, to, SHIP)
        if err:
            raise err

    def _cards_aside(self) -> int:
        """Development cards of ``deck`` that lie elsewhere, face down, so not for sale (the
        Forgotten Tribe's gifts, drawn from ``deck`` when found: every card is as likely)."""
        return sum(hook.cards_aside(self) for hook in self.hooks) if self.hooks else 0

    def _check_city(self, p: int, a: BuildCity) -> None:
        self._require_turn(p, _MAIN, _SPECIAL_BUILD)
        v = self._vertex(a.vertex)
        if self.vertex_owner[v] != p or self.vertex_level[v] != 1:
            raise IllegalAction("1.9.6", "a city must replace one of your own settlements")
        if self.cities_left[p] == 0:
            raise IllegalAction("1.9.2", f"{a.player} has no city left in the supply")
        self._require_cards(p, COST_CITY, "a city")

    def _check_buy(self, p: int, a: BuyDevelopmentCard) -> None:
        self._require_turn(p, _MAIN, _SPECIAL_BUILD)
        if sum(self.deck) <= self._cards_aside():
            raise IllegalAction("1.10.6", "the development deck is empty")
        if a.card is not None and self.deck[DEV_CARDS.index(a.card)] == 0:
            raise IllegalAction("1.1.5", f"no {a.card.value} card is left in the deck")
        self._require_cards(p, COST_DEV_CARD, "a development card")

    def _check_play(self, p: int, a: Action) -> None:
        self._require_turn(p, _ROLL, _MAIN)
        card = PLAY_ACTION_CARD[type(a)]
        name = DEV_CARDS[card].value
        if self.turn.played_card:
            raise IllegalAction("1.10.2", "only one development card may be played per turn")
        held = self.dev_hands[p][card]
        if held == 0:
            raise IllegalAction("1.10.1", f"{a.player} holds no {name} card")
        if held - self.turn.bought[card] <= 0:
            raise IllegalAction("1.10.2", f"a {name} card bought this turn cannot be played yet")
        match a:
            case PlayRoadBuilding():
                if not self._can_place_free_route_piece(p):
                    raise IllegalAction("1.10.4", "there is no place for a free road or ship")
            case PlayYearOfPlenty(resources=res):
                self._check_year_of_plenty(res)

    def _check_year_of_plenty(self, res: tuple[Resource, ...]) -> None:
        want = [0] * N_RES
        for r in res:
            want[RESOURCES.index(r)] += 1
        bank_total = sum(self.bank)
        if len(res) != min(2, bank_total) or len(res) == 0:
            raise IllegalAction("1.10.4", "Year of Plenty takes exactly 2 cards from the bank")
        if any(w > b for w, b in zip(want, self.bank, strict=True)):
            raise IllegalAction("1.10.4", "the bank does not have those cards")

    def _check_roll(self, p: int, a: RollDice) -> None:
        self._require_turn(p, _ROLL)

    def _check_discard(self, p: int, a: Discard) -> None:
        if self.phase != _DISCARD or p not in self.to_discard:
            raise IllegalAction("1.7.2", f"{a.player} has nothing to discard now")
        need = self.to_discard[p]
        if a.cards.total != need:
            raise IllegalAction("1.7.2", f"{a.player} must discard exactly {need} cards")
        if any(c > h for c, h in zip(a.cards.counts, self.hands[p], strict=True)):
            raise IllegalAction("1.7.2", f"{a.player} does not hold those cards")

    def _robber_victims(self, p: int, h: int) -> list[int]:
        t = self.topology
        owners = {self.vertex_owner[v] for v in t.hex_vertices[h]}
        return sorted(o for o in owners if o not in (-1, p) and sum(self.hands[o]) > 0)

    def _robber_target_error(self, p: int, h: int) -> IllegalAction | None:
        """Why the robber may not go to land hex ``h`` (RULES.md 1.7.3 and scenarios)."""
        if h == self.robber:
            return IllegalAction("1.7.3", "the robber must move to a different hex")
        for hook in self.hooks:
            err = hook.robber_error(self, p, h)
            if err is not None:
                return err
        return None

    def _check_robber(self, p: int, a: MoveRobber) -> None:
        self._require_turn(p, _MOVE_ROBBER)
        h = self.topology.hex_index.get(a.hex)
        if h is None or not self.hex_land[h]:
            raise IllegalAction("1.7.3", f"the robber must go to a land hex; {a.hex} is not one")
        err = self._robber_target_error(p, h)
        if err is not None:
            raise err
        victims = self._robber_victims(p, h)
        if a.victim is None:
            if victims and not (self.hooks and self._may_spare(p, h)):
                names = ", ".join(self.players[v] for v in victims)
                raise IllegalAction("1.7.4", f"choose whom to rob: {names}")
            if a.stolen is not None:
                raise IllegalAction("1.7.4", "nothing can be stolen without a victim")
            return
        v = self.seat(a.victim)
        if v not in victims:
            raise IllegalAction(
                "1.7.4", f"{a.victim} has no building with cards next to {a.hex} to rob"
            )
        if a.stolen is not None and self.hands[v][RESOURCES.index(a.stolen)] == 0:
            raise IllegalAction("1.7.4", f"{a.victim} holds no {a.stolen.value}")

    def _may_spare(self, p: int, h: int) -> bool:
        """Whether a hook lets seat ``p`` rob nobody on hex ``h`` (see Hook.may_spare)."""
        return any(hook.may_spare(self, p, h) for hook in self.hooks)

    def _pirate_victims(self, p: int, h: int) -> list[int]:
        t = self.topology
        owners = {self.edge_owner[e] for e in t.hex_edges[h] if self.edge_kind[e] == SHIP}
        return sorted(o for o in owners if o not in (-1, p) and sum(self.hands[o]) > 0)

    def _check_pirate(self, p: int, a: MovePirate) -> None:
        self._require_turn(p, _MOVE_ROBBER)
        if self.pirate is None:
            raise IllegalAction("3.6.1", "there is no pirate in this game")
        h = self.topology.hex_index.get(a.hex)
        if h is None or not self.hex_sea[h]:
            raise IllegalAction("3.6.2", f"the pirate must go to a sea hex; {a.hex} is not one")
        if h == self.pirate:
            raise IllegalAction("3.6.2", "the pirate must move to a different hex")
        err = self._pirate_target_error(p, h)
        if err is not None:
            raise err
        if a.victim is None:
            if a.stolen is not None:
                raise IllegalAction("3.6.3", "nothing can be stolen without a victim")
            return  # 3.6.3: stealing is optional
        v = self.seat(a.victim)
        if v not in self._pirate_victims(p, h):
            raise IllegalAction("3.6.3", f"{a.victim} has no ship with cards next to {a.hex}")
        if a.stolen is not None and self.hands[v][RESOURCES.index(a.stolen)] == 0:
            raise IllegalAction("3.6.3", f"{a.victim} holds no {a.stolen.value}")

    def _pirate_target_error(self, p: int, h: int) -> IllegalAction | None:
        """Why a scenario keeps seat ``p``'s pirate off sea hex ``h`` (RULES.md 4.6.12)."""
        for hook in self.hooks:
            err = hook.pirate_error(self, p, h)
            if err is not None:
                return err
        return None

    def _check_gold(self, p: int, a: ChooseGold) -> None:
        if self.phase != _CHOOSE_GOLD or p not in self.gold_due:
            raise IllegalAction("3.7.2", f"{a.player} has no gold to choose now")
        if a.cards.total != self.gold_due[p]:
            raise IllegalAction("3.7.2", f"{a.player} chooses exactly {self.gold_due[p]} cards")

    def _check_trade_phase(self, p: int, rule: str) -> None:
        if self.phase == _SPECIAL_BUILD:
            raise IllegalAction("2.3.5", "no trading in the special building phase")
        if p != self.current:
            raise IllegalAction(rule, f"only the active player ({self.current_player}) may trade")
        self._require_turn(p, _MAIN)
        if self.turn.built and not self.rules.trade_after_build:
            raise IllegalAction("1.5.1", "trading comes before building: this turn has built")

    def _check_maritime(self, p: int, a: MaritimeTrade) -> None:
        self._check_trade_phase(p, "1.8.3")
        give, get = RESOURCES.index(a.give), RESOURCES.index(a.get)
        if give == get:
            raise IllegalAction("1.8.3", "a maritime trade exchanges different resources")
        ratio = self.trade_ratios[p][give]
        if self.hands[p][give] < ratio:
            raise IllegalAction("1.8.3", f"{a.player} needs {ratio} {a.give.value} for this trade")
        if self.bank[get] == 0:
            raise IllegalAction("1.6.5", f"the bank has no {a.get.value} left")

    def _check_domestic(self, p: int, a: DomesticTrade) -> None:
        self._check_trade_phase(p, "1.8.2")
        o = self.seat(a.partner)
        if o == p:
            raise IllegalAction("1.8.2", "a player cannot trade with themselves")
        if a.give.total == 0 or a.get.total == 0:
            raise IllegalAction("1.8.2", "cards may not be given away for nothing")
        if any(g and r for g, r in zip(a.give.counts, a.get.counts, strict=True)):
            raise IllegalAction("1.8.2", "identical resources may not be swapped")
        if any(g > h for g, h in zip(a.give.counts, self.hands[p], strict=True)):
            raise IllegalAction("1.8.2", f"{a.player} does not hold the cards offered")
        if any(g > h for g, h in zip(a.get.counts, self.hands[o], strict=True)):
            raise IllegalAction("1.8.2", f"{a.partner} does not hold the cards asked for")

    def _check_end(self, p: int, a: EndTurn) -> None:
        self._require_turn(p, _MAIN, _SPECIAL_BUILD)

    # -- legal spots -------------------------------------------------------------------------
    #
    # Generation asks "may this go here?" of many spots and reads no reasons, so it uses the
    # yes/no predicates below; the checks of an applied action use the *_error methods, which
    # explain a refusal. The property tests hold the two to the same answers.

    def _route_spot_ok(self, p: int, e: int, kind: int) -> bool:
        """Whether seat ``p`` may put a road or ship (``kind``) on free side ``e`` now
        (:meth:`_route_spot_error` finds no reason against it; supply and cost aside)."""
        t = self.topology
        if kind == ROAD:
            if not self.edge_land[e]:
                return False
        elif not (self.rules.ships and self.edge_sea[e]) or (
            self.pirate is not None and e in t.hex_edges[self.pirate]
        ):
            return False
        if self.hooks and any(h.route_error(self, p, e, kind) for h in self.hooks):
            return False
        if self.phase == _FOUNDING_ROAD:
            return self.last_settlement in t.edge_vertices[e]
        vertex_owner, edge_owner, edge_kind = self.vertex_owner, self.edge_owner, self.edge_kind
        for v in t.edge_vertices[e]:
            owner = vertex_owner[v]
            if owner == p:
                return True
            if owner == -1:
                for x in t.vertex_edges[v]:
                    if x != e and edge_owner[x] == p and edge_kind[x] == kind:
                        return True
        return False

    def _road_edges(self, p: int, kind: int = ROAD) -> list[int]:
        """Sides where seat ``p`` may build a road (or ship) now, supply and cost aside."""
        t = self.topology
        if kind == SHIP and not self.rules.ships:
            return []
        if self.phase == _FOUNDING_ROAD:
            candidates: Sequence[int] = t.vertex_edges[self.last_settlement]
        else:
            vertex_edges = t.vertex_edges
            candidates = [e for v in self._network_vertices(p, kind) for e in vertex_edges[v]]
        edge_owner = self.edge_owner
        seen: set[int] = set()
        out = []
        for e in candidates:
            if e not in seen and edge_owner[e] == -1:
                seen.add(e)
                if self._route_spot_ok(p, e, kind):
                    out.append(e)
        return out

    def _network_vertices(self, p: int, kind: int | None = None) -> list[int]:
        """Corners from which seat ``p`` can extend with a piece of ``kind`` (any if None):
        own buildings, and ends of own pieces of that kind that no opponent's building
        blocks (RULES.md 1.9.3, 3.2.3)."""
        edge_vertices = self.topology.edge_vertices
        edge_kind, vertex_owner = self.edge_kind, self.vertex_owner
        seen: set[int] = set()
        out = []
        for e in sorted(self.pieces_of[p]):  # board order: legal actions list predictably
            if kind is not None and edge_kind[e] != kind:
                continue
            for v in edge_vertices[e]:
                if v not in seen:
                    owner = vertex_owner[v]
                    if owner == -1 or owner == p:
                        seen.add(v)
                        out.append(v)
        for v in sorted(self.buildings_of[p]):
            if v not in seen:
                seen.add(v)
                out.append(v)
        return out

    def _can_place_free_route_piece(self, p: int) -> bool:
        # Sides are numbered from 0: ask whether there is one, not whether one is truthy.
        return (self.roads_left[p] > 0 and bool(self._route_actions(p, ROAD))) or (
            self.ships_left[p] > 0 and bool(self._route_actions(p, SHIP))
        )

    def _settlement_spot_ok(self, p: int, v: int, founding: bool) -> bool:
        """Whether :meth:`_settlement_spot_error` finds no reason against corner ``v``."""
        vertex_owner = self.vertex_owner
        if vertex_owner[v] != -1 or not self.vertex_land[v]:
            return False
        t = self.topology
        for n in t.vertex_neighbours[v]:
            if vertex_owner[n] != -1:
                return False
        if not founding:
            edge_owner = self.edge_owner
            for e in t.vertex_edges[v]:
                if edge_owner[e] == p:
                    break
            else:
                return False
        if not self.hooks:  # the usual case: no generator for an empty loop
            return True
        return all(hook.settlement_error(self, p, v, founding) is None for hook in self.hooks)

    def _settlement_corners(self, p: int) -> list[int]:
        """Corners where seat ``p`` could build a settlement now (cost aside)."""
        founding = self.phase == _FOUNDING_SETTLEMENT
        candidates = range(len(self.vertex_owner)) if founding else self._network_vertices(p)
        ok = self._settlement_spot_ok
        return [v for v in candidates if ok(p, v, founding)]

    def settlement_spots(self, color: str) -> list[Vertex]:
        """Corners where ``color`` could build a settlement now (cost aside)."""
        vertices = self.topology.vertices
        return [vertices[v] for v in self._settlement_corners(self.seat(color))]

    def road_spots(self, color: str) -> list[Edge]:
        """Sides where ``color`` could build a road now (cost aside)."""
        t = self.topology
        return [t.edges[e] for e in self._road_edges(self.seat(color))]

    def ship_spots(self, color: str) -> list[Edge]:
        """Sides where ``color`` could build a ship now (cost aside)."""
        t = self.topology
        return [t.edges[e] for e in self._road_edges(self.seat(color), SHIP)]

    def city_spots(self, color: str) -> list[Vertex]:
        p = self.seat(color)
        t = self.topology
        return [t.vertices[v] for v in sorted(self.buildings_of[p]) if self.vertex_level[v] == 1]

    # -- generation of legal actions ---------------------------------------------------------
    #
    # Actions are immutable values, so each one is made once per game and handed out again:
    # most turns offer the same few actions as the turn before. ``_made`` holds them by
    # (class, seat, index of the corner, side or hex, ...).

    def _generate(self, out: list[Action]) -> None:
        """Append every legal action of the moment to ``out``, in the listing order."""
        phase = self.phase
        p = self.current
        if phase == _MAIN:
            out.append(self._end_turns[p])
            self._generate_main(p, out)
        elif phase == _ROLL:
            out.append(self._rolls[p])
            self._generate_plays(p, out)
        elif phase == _MOVE_ROBBER:
            self._generate_robber(p, out)
        elif phase == _DISCARD:
            made = self._made
            for q, n in sorted(self.to_discard.items()):
                color = self.players[q]
                for counts in _sub_multisets(self.hands[q], n):
                    key = (Discard, q, counts)
                    action = made.get(key)
                    if action is None:
                        action = made[key] = Discard(color, Cards(counts))
                    out.append(action)
        elif phase == _FOUNDING_SETTLEMENT:
            out.extend(self._settlement_actions(p))
        elif phase in (_FOUNDING_ROAD, _ROAD_BUILDING):
            if self.roads_left[p]:
                out.extend(self._route_actions(p, ROAD))
            if self.ships_left[p]:
                out.extend(self._route_actions(p, SHIP))
        elif phase == _CHOOSE_GOLD:
            for q, n in sorted(self.gold_due.items()):
                for counts in _sub_multisets([n] * N_RES, n):
                    out.append(ChooseGold(self.players[q], Cards(counts)))
        elif phase == _SPECIAL_BUILD:
            builder = self.actor
            out.append(self._end_turns[builder])
            self._generate_builds(builder, out)

    def _route_actions(self, p: int, kind: int) -> list[Action]:
        """A road (or ship) action of seat ``p`` for every side open to it now, supply and
        cost aside (the caller must not change the list: it may be kept in ``_spots``)."""
        key = (kind, p)
        actions = self._spots.get(key)
        if actions is not None:
            return actions
        cls = BuildRoad if kind == ROAD else BuildShip
        made, me, edges = self._made, self.players[p], self.topology.edges
        actions = []
        for e in self._road_edges(p, kind):
            made_key = (cls, p, e)
            action = made.get(made_key)
            if action is None:
                action = made[made_key] = cls(me, edges[e])
            actions.append(action)
        # The founding road's sides depend on the settlement just placed, not on the board.
        if not self.hooks and self.phase != _FOUNDING_ROAD:
            self._spots[key] = actions
        return actions

    def _settlement_actions(self, p: int) -> list[Action]:
        """A settlement action of seat ``p`` for every corner open to it now, cost aside (the
        caller must not change the list: it may be kept in ``_spots``)."""
        key = (0, p)
        actions = self._spots.get(key)
        if actions is not None:
            return actions
        made, me, vertices = self._made, self.players[p], self.topology.vertices
        actions = []
        for v in self._settlement_corners(p):
            made_key = (BuildSettlement, p, v)
            action = made.get(made_key)
            if action is None:
                action = made[made_key] = BuildSettlement(me, vertices[v])
            actions.append(action)
        # Founding settlements are judged by other rules (no road needed).
        if not self.hooks and self.phase != _FOUNDING_SETTLEMENT:
            self._spots[key] = actions
        return actions

    def _generate_robber(self, p: int, out: list[Action]) -> None:
        t = self.topology
        made, players, hexes, vertex_hexes = self._made, self.players, t.hexes, t.vertex_hexes
        me = players[p]
        # Whom the robber could rob on each hex, found from the few buildings rather than
        # from every corner of every hex; seats in order, so each list comes out sorted.
        victims_at: dict[int, list[int]] = {}
        for o, hand in enumerate(self.hands):
            if o == p or not any(hand):
                continue
            for v in self.buildings_of[o]:
                for h in vertex_hexes[v]:
                    victims = victims_at.setdefault(h, [])
                    if not victims or victims[-1] != o:
                        victims.append(o)
        hex_land = self.hex_land
        # The moves that rob nobody, by hex: a list is quicker to read than keyed _made.
        plain = self._made_lists.get((MoveRobber, p))
        if plain is None:
            plain = self._made_lists[(MoveRobber, p)] = [None] * len(hexes)
        for h in range(len(hexes)):
            if not hex_land[h] or h == self.robber:
                continue
            if self.hooks and self._robber_target_error(p, h) is not None:
                continue
            victims = victims_at.get(h)
            if not victims:
                action = plain[h]
                if action is None:
                    action = plain[h] = MoveRobber(me, hexes[h])
                out.append(action)
                continue
            if self.hooks and self._may_spare(p, h):
                out.append(MoveRobber(me, hexes[h]))
            for o in victims:
                key = (MoveRobber, p, h, o)
                action = made.get(key)
                if action is None:
                    action = made[key] = MoveRobber(me, hexes[h], players[o])
                out.append(action)
        if self.pirate is not None:
            for h in range(len(hexes)):
                if h != self.pirate and self.hex_sea[h]:
                    if self.hooks and self._pirate_target_error(p, h) is not None:
                        continue
                    out.append(MovePirate(me, hexes[h]))
                    for v in self._pirate_victims(p, h):
                        out.append(MovePirate(me, hexes[h], players[v]))

    def _generate_plays(self, p: int, out: list[Action]) -> None:
        turn = self.turn
        if turn.played_card:
            return
        held, bought = self.dev_hands[p], turn.bought
        if held[KNIGHT] > bought[KNIGHT]:
            out.append(self._knights[p])
        if held[ROAD_BUILDING] > bought[ROAD_BUILDING] and self._can_place_free_route_piece(p):
            out.append(self._road_buildings[p])
        if held[MONOPOLY] > bought[MONOPOLY]:
            made = self._made
            for r in RESOURCES:
                key = (PlayMonopoly, p, r)
                action = made.get(key)
                if action is None:
                    action = made[key] = PlayMonopoly(self.players[p], r)
                out.append(action)
        if held[YEAR_OF_PLENTY] > bought[YEAR_OF_PLENTY]:
            me = self.players[p]
            for combo in _year_of_plenty_choices(self.bank):
                out.append(PlayYearOfPlenty(me, combo))

    def _generate_main(self, p: int, out: list[Action]) -> None:
        self._generate_builds(p, out)
        self._generate_plays(p, out)
        self._generate_ship_moves(p, out)
        if self.turn.built and not self.rules.trade_after_build:
            return
        hand, ratios, bank, made = self.hands[p], self.trade_ratios[p], self.bank, self._made
        for give in range(N_RES):
            if hand[give] >= ratios[give]:
                for get in range(N_RES):
                    if get != give and bank[get] > 0:
                        key = (MaritimeTrade, p, give, get)
                        action = made.get(key)
                        if action is None:
                            action = made[key] = MaritimeTrade(
                                self.players[p], RESOURCES[give], RESOURCES[get]
                            )
                        out.append(action)

    def _generate_builds(self, p: int, out: list[Action]) -> None:
        lumber, brick, wool, grain, ore = self.hands[p]
        if self.roads_left[p] and lumber and brick:
            out.extend(self._route_actions(p, ROAD))
        if self.ships_left[p] and lumber and wool:
            out.extend(self._route_actions(p, SHIP))
        if self.settlements_left[p] and lumber and brick and wool and grain:
            out.extend(self._settlement_actions(p))
        if self.cities_left[p] and grain >= 2 and ore >= 3:
            made, me, vertices, level = (
                self._made,
                self.players[p],
                self.topology.vertices,
                self.vertex_level,
            )
            for v in sorted(self.buildings_of[p]):
                if level[v] == 1:
                    key = (BuildCity, p, v)
                    action = made.get(key)
                    if action is None:
                        action = made[key] = BuildCity(me, vertices[v])
                    out.append(action)
        if (
            wool
            and grain
            and ore
            and (sum(self.deck) > self._cards_aside() if self.hooks else any(self.deck))
        ):
            out.append(self._purchases[p])

    @contextmanager
    def _lifted(self, p: int, e: int) -> Iterator[None]:
        """Seat ``p``'s piece on side ``e`` taken off the board for a moment (to judge where
        a moved ship may go); put back however the block is left."""
        kept, self._spots = self._spots, {}  # spots judged meanwhile are the lifted board's
        self.edge_owner[e] = -1
        self.pieces_of[p].discard(e)
        try:
            yield
        finally:
            self.edge_owner[e] = p
            self.pieces_of[p].add(e)
            self._spots = kept

    @contextmanager
    def imagined_ship_move(self, a: MoveShip) -> Iterator[None]:
        """The board as if ``a`` (a legal ship move) were done, for the block's duration only:
        for a player weighing where a ship should go. Only the pieces move (no events, no
        turn state); everything is put back however the block is left.
        """
        p = self.seat(a.player)
        e, to = self._edge(a.edge), self._edge(a.to)
        with self._lifted(p, e):
            kind = self.edge_kind[to]
            self.edge_owner[to], self.edge_kind[to] = p, SHIP
            self.pieces_of[p].add(to)
            try:
                yield
            finally:
                self.edge_owner[to], self.edge_kind[to] = -1, kind
                self.pieces_of[p].discard(to)

    def _generate_ship_moves(self, p: int, out: list[Action]) -> None:
        if not self.rules.ships or self.turn.moved_ship or not self.turn.rolled:
            return
        t = self.topology
        me = self.players[p]
        for e in sorted(self.pieces_of[p]):
            if self._movable_ship_error(p, e) is not None:
                continue
            with self._lifted(p, e):
                targets = [x for x in self._road_edges(p, SHIP) if x != e]
            for x in targets:
                out.append(MoveShip(me, t.edges[e], t.edges[x]))

    # -- execution (no checks: everything was checked in resolve; see apply) ----------------

    def _pay(self, p: int, cost: Sequence[int]) -> None:
        hand = self.hands[p]
        for i, c in enumerate(cost):
            hand[i] -= c
            self.bank[i] += c

    def _do_settlement(self, p: int, a: BuildSettlement) -> list[Event]:
        v = self.topology.vertex_index[a.vertex]
        events: list[Event] = [
            {"type": "built", "player": a.player, "piece": "settlement", "vertex": list(a.vertex)}
        ]
        if self.phase in (_MAIN, _SPECIAL_BUILD):
            self._pay(p, COST_SETTLEMENT)
            self.turn.built = True
        self._spots.clear()
        self.vertex_owner[v] = p
        self.vertex_level[v] = 1
        self.buildings_of[p].add(v)
        self.building_points[p] += 1
        for hook in self.hooks:
            events.extend(hook.after_settlement(self, p, v, self.phase == _FOUNDING_SETTLEMENT))
        self.settlements_left[p] -= 1
        kind = self.vertex_harbor.get(v)
        if kind is not None:
            ratios = self.trade_ratios[p]
            if kind == 0:
                for i in range(N_RES):
                    ratios[i] = min(ratios[i], 3)
            else:
                ratios[kind - 1] = 2
        if self.phase == _FOUNDING_SETTLEMENT:
            self.last_settlement = v
            self.phase = _FOUNDING_ROAD
            if self.founding_step >= self.paying_step:  # the second settlement (1.4.3)
                gained = [0] * N_RES
                gold = 0
                for h in self.topology.vertex_hexes[v]:
                    r = self.hex_resource[h]
                    if r >= 0 and self.bank[r] > 0:
                        gained[r] += 1
                        self.bank[r] -= 1
                        self.hands[p][r] += 1
                    gold += self.hex_gold[h]
                events.append(
                    {"type": "starting_resources", "player": a.player, "cards": _cards(gained)}
                )
                if gold:  # 3.7.3 (standard): a resource of choice per gold field
                    self.start_gold_choice({p: gold})
        else:
            # A new settlement may cut opponents' roads (RULES.md 1.11.1).
            holder = self.longest_road
            held = -1 if holder is None else self.road_lengths[holder]
            for o in {self.edge_owner[e] for e in self.topology.vertex_edges[v]} - {-1, p}:
                self.road_lengths[o] = self.longest_route_length(o)
            cut = holder is not None and self.road_lengths[holder] < held
            events.extend(self._update_longest_road(holder_cut=cut))
        return events

    def _do_road(self, p: int, a: BuildRoad) -> list[Event]:
        return self._place_route_piece(p, a.edge, ROAD, a.revealed)

    def _do_ship(self, p: int, a: BuildShip) -> list[Event]:
        return self._place_route_piece(p, a.edge, SHIP, a.revealed)

    def _place_route_piece(
        self, p: int, edge: Edge, kind: int, revealed: tuple[Reveal, ...] | None = None
    ) -> list[Event]:
        e = self.topology.edge_index[edge]
        piece = "road" if kind == ROAD else "ship"
        events: list[Event] = [
            {"type": "built", "player": self.players[p], "piece": piece, "edge": list(edge)}
        ]
        if self.phase in (_MAIN, _SPECIAL_BUILD):
            self._pay(p, COST_ROAD if kind == ROAD else COST_SHIP)
            self.turn.built = True
        self._spots.clear()
        self.edge_owner[e] = p
        self.edge_kind[e] = kind
        self.pieces_of[p].add(e)
        if kind == ROAD:
            self.roads_left[p] -= 1
        else:
            self.ships_left[p] -= 1
            if p == self.current:
                self.turn.ships_built.add(e)
        self.road_lengths[p] = self._longest_road_with(p, e)
        events.extend(self._update_longest_road())
        if self.hooks:
            founding = self.phase == _FOUNDING_ROAD
            for hook in self.hooks:
                events.extend(hook.after_route(self, p, e, kind, founding))
        if self.phase == _FOUNDING_ROAD:
            self._advance_founding()
        elif self.phase == _ROAD_BUILDING:
            self.free_roads -= 1
            if self.free_roads == 0 or not self._can_place_free_route_piece(p):
                self.free_roads = 0
                self.phase = self.after_road_building
        if revealed:
            # Turned face up after the move is complete, so that a gold field's choice
            # (4.3.7) returns to whatever comes next.
            for hook in self.hooks:
                events.extend(hook.reveal(self, p, revealed))
        return events

    def _do_move_ship(self, p: int, a: MoveShip) -> list[Event]:
        t = self.topology
        e, to = t.edge_index[a.edge], t.edge_index[a.to]
        self._spots.clear()
        self.edge_owner[e], self.edge_kind[e] = -1, 0
        self.edge_owner[to], self.edge_kind[to] = p, SHIP
        self.pieces_of[p].discard(e)
        self.pieces_of[p].add(to)
        self.turn.moved_ship = True
        self.road_lengths[p] = self.longest_route_length(p)
        events: list[Event] = [
            {"type": "moved_ship", "player": a.player, "from": list(a.edge), "to": list(a.to)}
        ]
        events.extend(self._update_longest_road())
        if self.hooks:
            for hook in self.hooks:
                events.extend(hook.after_ship_moved(self, p, to))
        return events

    def _advance_founding(self) -> None:
        self.founding_step += 1
        if self.founding_step < len(self.founding_order):
            self.current = self.founding_order[self.founding_step]
            self.phase = _FOUNDING_SETTLEMENT
        else:
            self.current = 0
            self.turn_number = 1
            self.turn = _Turn()
            self.phase = _ROLL

    def _do_city(self, p: int, a: BuildCity) -> list[Event]:
        v = self.topology.vertex_index[a.vertex]
        self._pay(p, COST_CITY)
        self.turn.built = True
        self.vertex_level[v] = 2
        self.building_points[p] += 1
        self.cities_left[p] -= 1
        self.settlements_left[p] += 1
        return [{"type": "built", "player": a.player, "piece": "city", "vertex": list(a.vertex)}]

    def _do_buy(self, p: int, a: BuyDevelopmentCard) -> list[Event]:
        assert a.card is not None
        card = DEV_CARDS.index(a.card)
        self._pay(p, COST_DEV_CARD)
        self.turn.built = True
        self.deck[card] -= 1
        self.dev_hands[p][card] += 1
        self.turn.bought[card] += 1
        return [{"type": "bought_card", "player": a.player, "card": DEV_CARD_NAMES[card]}]

    def _start_play(self, p: int, card: int) -> None:
        self.dev_hands[p][card] -= 1
        self.turn.played_card = True

    def _do_knight(self, p: int, a: PlayKnight) -> list[Event]:
        self._start_play(p, KNIGHT)
        self.knights[p] += 1
        events: list[Event] = [{"type": "played_card", "player": a.player, "card": "knight"}]
        holder = self.largest_army
        held = -1 if holder is None else self.knights[holder]
        if (
            holder != p
            and self.knights[p] >= self.rules.largest_army_min
            and self.knights[p] > held
        ):
            self.largest_army = p
            events.append({"type": "largest_army", "player": a.player, "knights": self.knights[p]})
        self.after_robber = self.phase
        self.phase = _MOVE_ROBBER
        return events

    def _do_road_building(self, p: int, a: PlayRoadBuilding) -> list[Event]:
        self._start_play(p, ROAD_BUILDING)
        self.after_road_building = self.phase
        self.free_roads = min(2, self.roads_left[p] + self.ships_left[p])
        self.phase = _ROAD_BUILDING
        return [{"type": "played_card", "player": a.player, "card": "road_building"}]

    def _do_year_of_plenty(self, p: int, a: PlayYearOfPlenty) -> list[Event]:
        self._start_play(p, YEAR_OF_PLENTY)
        for r in a.resources:
            i = RESOURCES.index(r)
            self.bank[i] -= 1
            self.hands[p][i] += 1
        return [
            {
                "type": "played_card",
                "player": a.player,
                "card": "year_of_plenty",
                "cards": Cards.from_list(a.resources).to_json(),
            }
        ]

    def _do_monopoly(self, p: int, a: PlayMonopoly) -> list[Event]:
        self._start_play(p, MONOPOLY)
        r = RESOURCES.index(a.resource)
        taken: dict[str, int] = {}
        for o in range(len(self.players)):
            if o != p and self.hands[o][r]:
                taken[self.players[o]] = self.hands[o][r]
                self.hands[p][r] += self.hands[o][r]
                self.hands[o][r] = 0
        return [
            {
                "type": "played_card",
                "player": a.player,
                "card": "monopoly",
                "resource": a.resource.value,
                "taken": taken,
            }
        ]

    def _do_roll(self, p: int, a: RollDice) -> list[Event]:
        assert a.dice is not None
        self.turn.rolled = True
        self.last_roll = a.dice
        total = a.dice[0] + a.dice[1]
        event: Event = {"type": "rolled", "player": a.player, "dice": list(a.dice), "total": total}
        if a.source is not None:
            event["source"] = a.source
        events = [event]
        for hook in self.hooks:
            events.extend(hook.on_roll(self, p, a.dice))
        if total != 7:
            self.phase = _MAIN
            event.update(self._produce(total))
            return events
        limit = self.rules.discard_limit
        self.to_discard = {
            q: sum(hand) // 2
            for q, hand in enumerate(self.hands)
            if sum(hand) > limit and not (self.hooks and self._keeps_hand(q))
        }
        event["must_discard"] = {self.players[q]: n for q, n in self.to_discard.items()}
        self.after_robber = _MAIN
        self.phase = _DISCARD if self.to_discard else _MOVE_ROBBER
        return events

    def _keeps_hand(self, q: int) -> bool:
        """Whether a hook spares seat ``q`` the discard on this 7 (see Hook.keeps_hand)."""
        return any(hook.keeps_hand(self, q) for hook in self.hooks)

    def _produce(self, total: int) -> dict[str, Any]:
        """Hand out production for ``total`` (RULES.md 1.6), with the shortage rule 1.6.5.

        Gold fields (3.7) make their owners choose first: the payout then waits in the
        CHOOSE_GOLD phase until every choice is in.
        """
        t = self.topology
        hexes, hex_vertices, hex_resource = t.hexes, t.hex_vertices, self.hex_resource
        vertex_owner, vertex_level, robber = self.vertex_owner, self.vertex_level, self.robber
        # Only the seats and resources that produce: a roll pays one or two hexes' corners.
        owed: dict[int, list[int]] = {}
        claims: dict[int, int] = {}
        gold: dict[int, int] = {}
        producing, blocked = [], []
        for h in self.hexes_by_number.get(total, ()):
            if h == robber:
                blocked.append(list(hexes[h]))
                continue
            producing.append(list(hexes[h]))
            r = hex_resource[h]
            for v in hex_vertices[h]:
                owner = vertex_owner[v]
                if owner < 0:
                    continue
                level = vertex_level[v]
                if r < 0:
                    gold[owner] = gold.get(owner, 0) + level
                    continue
                row = owed.get(owner)
                if row is None:
                    row = owed[owner] = [0] * N_RES
                row[r] += level
                claims[r] = claims.get(r, 0) + level
        out: dict[str, Any] = {"producing": producing, "blocked": blocked}
        if gold:
            self.start_gold_choice(dict(sorted(gold.items())))
            for q, row in owed.items():
                self._owed[q] = row
            out["gold_due"] = {self.players[q]: n for q, n in self.gold_due.items()}
            return out
        out.update(self._pay_out(owed, claims))
        return out

    def _pay_out(self, owed: dict[int, list[int]], claims: dict[int, int]) -> dict[str, Any]:
        """Pay production under the shortage rule (1.6.5): ``owed`` maps seats to the cards
        they are owed (counts per resource), ``claims`` each owed resource to its total."""
        bank, hands, players = self.bank, self.hands, self.players
        short = []
        for r in sorted(claims):
            if claims[r] <= bank[r]:
                continue
            short.append(RESOURCE_NAMES[r])
            owed_rows = [o for o in owed.values() if o[r]]
            if len(owed_rows) == 1:
                owed_rows[0][r] = bank[r]
            else:
                for o in owed_rows:
                    o[r] = 0
        gains = {}
        for q in sorted(owed):
            o = owed[q]
            hand = hands[q]
            cards = {}
            for r in range(N_RES):
                n = o[r]
                if n:
                    hand[r] += n
                    bank[r] -= n
                    cards[RESOURCE_NAMES[r]] = n
            if cards:
                gains[players[q]] = cards
        return {"gains": gains, "shortage": short}

    def start_gold_choice(self, due: dict[int, int]) -> None:
        """Ask seats for resources of their choice (gold, RULES.md 3.7), then go on."""
        self._owed = [[0] * N_RES for _ in self.players]
        self.gold_due = dict(due)
        self.after_gold = self.phase
        self.phase = _CHOOSE_GOLD

    def _do_gold(self, p: int, a: ChooseGold) -> list[Event]:
        for r, n in enumerate(a.cards.counts):
            self._owed[p][r] += n
        del self.gold_due[p]
        events: list[Event] = [
            {"type": "chose_gold", "player": a.player, "cards": a.cards.to_json()}
        ]
        if not self.gold_due:
            owed = {q: o for q, o in enumerate(self._owed) if any(o)}
            claims = {r: sum(o[r] for o in owed.values()) for r in range(N_RES)}
            events.append({"type": "produced", **self._pay_out(owed, claims)})
            self._owed = []
            self.phase = self.after_gold
        return events

    def _do_discard(self, p: int, a: Discard) -> list[Event]:
        for i, c in enumerate(a.cards.counts):
            self.hands[p][i] -= c
            self.bank[i] += c
        del self.to_discard[p]
        if not self.to_discard:
            self.phase = _MOVE_ROBBER
        return [{"type": "discarded", "player": a.player, "cards": a.cards.to_json()}]

    def _do_pirate(self, p: int, a: MovePirate) -> list[Event]:
        self._spots.clear()
        self.pirate = self.topology.hex_index[a.hex]
        event: Event = {"type": "pirate_moved", "player": a.player, "hex": list(a.hex)}
        self._steal(p, a.victim, a.stolen, event)
        self.phase = self.after_robber
        return [event]

    def _steal(self, p: int, victim: str | None, stolen: Resource | None, event: Event) -> None:
        if victim is None:
            return
        assert stolen is not None
        v, r = self._seat[victim], RESOURCES.index(stolen)
        self.hands[v][r] -= 1
        self.hands[p][r] += 1
        event["victim"] = victim
        event["stolen"] = RESOURCE_NAMES[r]  # private to the two players: see the views

    def _do_robber(self, p: int, a: MoveRobber) -> list[Event]:
        self.robber = self.topology.hex_index[a.hex]
        event: Event = {"type": "robber_moved", "player": a.player, "hex": list(a.hex)}
        self._steal(p, a.victim, a.stolen, event)
        self.phase = self.after_robber
        if not self.hooks:
            return [event]
        victim = None if a.victim is None else self._seat[a.victim]
        return [
            event,
            *(e for hook in self.hooks for e in hook.after_robber(self, p, self.robber, victim)),
        ]

    def _do_maritime(self, p: int, a: MaritimeTrade) -> list[Event]:
        give, get = RESOURCES.index(a.give), RESOURCES.index(a.get)
        ratio = self.trade_ratios[p][give]
        self.hands[p][give] -= ratio
        self.bank[give] += ratio
        self.hands[p][get] += 1
        self.bank[get] -= 1
        return [
            {
                "type": "maritime_trade",
                "player": a.player,
                "give": {RESOURCE_NAMES[give]: ratio},
                "get": {RESOURCE_NAMES[get]: 1},
            }
        ]

    def _do_domestic(self, p: int, a: DomesticTrade) -> list[Event]:
        o = self._seat[a.partner]
        for i in range(N_RES):
            g, r = a.give.counts[i], a.get.counts[i]
            self.hands[p][i] += r - g
            self.hands[o][i] += g - r
        return [
            {
                "type": "domestic_trade",
                "player": a.player,
                "partner": a.partner,
                "give": a.give.to_json(),
                "get": a.get.to_json(),
            }
        ]

    def _do_end(self, p: int, a: EndTurn) -> list[Event]:
        return self.end_turn(p)

    def end_turn(self, p: int) -> list[Event]:
        """End seat ``p``'s turn as :class:`EndTurn` does, for a hook's action that ends it.

        The caller has already judged the action; nothing is checked here.
        """
        if self.hooks and self.phase == _MAIN:
            ended = [event for hook in self.hooks for event in hook.turn_ended(self, p)]
            return ended + self._pass_turn()
        return self._pass_turn()

    def _pass_turn(self) -> list[Event]:
        n = len(self.players)
        if self.phase == _MAIN and self.rules.special_building_phase:
            # 2.3.3: the others build in turn, starting left of the active player.
            self.builders = [(self.current + k) % n for k in range(1, n)]
            self.phase = _SPECIAL_BUILD
            return [{"type": "special_build", "player": self.players[self.builders[0]]}]
        if self.phase == _SPECIAL_BUILD:
            self.builders.pop(0)
            if self.builders:
                return [{"type": "special_build", "player": self.players[self.builders[0]]}]
        self.current = (self.current + 1) % n
        self.turn = _Turn()
        self.turn_number += 1
        self.phase = _ROLL
        events: list[Event] = [
            {"type": "turn", "player": self.current_player, "turn": self.turn_number}
        ]
        # RULES.md 1.13.3: points gained outside one's turn win at the start of it.
        self.check_victory(self.current, events)
        return events

    # -- longest road and victory ------------------------------------------------------------

    def longest_route_length(self, p: int) -> int:
        """Length of seat ``p``'s longest route of roads and ships (RULES.md 1.11.1, 3.5.1)."""
        return longest_route(
            self.topology, self.edge_owner, self.edge_kind, self.vertex_owner, p, self.pieces_of[p]
        )

    def _longest_road_with(self, p: int, e: int) -> int:
        """Seat ``p``'s longest route after its new piece on side ``e``.

        Most new pieces extend a route at a loose end: then only the routes from that end can
        be new (see :func:`companion.longest_route.longest_route`), and on a network no larger
        than the base game's 15 roads they are quickest walked one by one. Hooks may set
        pieces and lengths of their own, so with hooks the whole network is searched again.
        """
        if not self.hooks:
            t, edge_owner = self.topology, self.edge_owner
            for v in t.edge_vertices[e]:
                for x in t.vertex_edges[v]:
                    if x != e and edge_owner[x] == p:
                        break
                else:
                    known, pieces = self.road_lengths[p], self.pieces_of[p]
                    kind, owner = self.edge_kind, self.vertex_owner
                    if len(pieces) <= _WALK_ALL_TRAILS_UP_TO:
                        return max(known, longest_route_from(t, edge_owner, kind, owner, p, v))
                    return longest_route(t, edge_owner, kind, owner, p, pieces, v, known)
        return self.longest_route_length(p)

    def _update_longest_road(self, holder_cut: bool = False) -> list[Event]:
        """Give the Longest Road card to whom RULES.md 1.11.2-1.11.5 say.

        ``holder_cut``: the holder's chain was just broken by an opponent's settlement.
        """
        lengths = self.road_lengths
        top = max(lengths)
        holder = self.longest_road
        if top < self.rules.longest_road_min:
            new = None
        else:
            leaders = [q for q, n in enumerate(lengths) if n == top]
            # 1.11.5: a tie with the holder keeps the card, but a holder cut down into a tie
            # with two or more others is one of "several players" tying: the card is set aside.
            if holder in leaders and not (holder_cut and len(leaders) > 2):
                new = holder
            elif len(leaders) == 1:
                new = leaders[0]
            else:
                new = None  # the holder was cut and several tie: the card is set aside
        if new == holder:
            return []
        self.longest_road = new
        return [
            {
                "type": "longest_road",
                "player": None if new is None else self.players[new],
                "length": top,
            }
        ]

    def check_victory(self, p: int, events: list[Event]) -> None:
        """Append the ``game_over`` event to ``events`` if seat ``p`` has just won.

        Hooks call it after giving points outside the engine's own actions.
        """
        if self.phase in (_FOUNDING_SETTLEMENT, _FOUNDING_ROAD):
            return
        vp = self.victory_points(p)
        won = vp >= self.rules.victory_points
        if self.hooks:
            won = (won and all(h.may_win(self, p) for h in self.hooks)) or any(
                h.goal_reached(self, p) for h in self.hooks
            )
            if not won:  # a scenario's end may crown someone else (the most points)
                ended = next((w for h in self.hooks if (w := h.game_end(self)) is not None), None)
                if ended is not None:
                    p, vp, won = ended, self.victory_points(ended), True
        if won:
            self.winner = p
            self.phase = _GAME_OVER
            events.append({"type": "won", "player": self.players[p], "victory_points": vp})

    # -- views -------------------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        """The whole state as a JSON-safe dict (hidden information included)."""
        t = self.topology
        return {
            "players": list(self.players),
            "phase": self.phase.value,
            "current": self.current_player,
            "turn": self.turn_number,
            "robber": list(t.hexes[self.robber]),
            "buildings": [
                [
                    list(t.vertices[v]),
                    self.players[o],
                    "city" if self.vertex_level[v] == 2 else "settlement",
                ]
                for v, o in enumerate(self.vertex_owner)
                if o >= 0
            ],
            "roads": [
                [list(t.edges[e]), self.players[o], "road" if self.edge_kind[e] == ROAD else "ship"]
                for e, o in enumerate(self.edge_owner)
                if o >= 0
            ],
            "pirate": None if self.pirate is None else list(t.hexes[self.pirate]),
            "gold_due": {self.players[q]: n for q, n in sorted(self.gold_due.items())},
            "owed": [list(o) for o in self._owed],
            "after_gold": self.after_gold.value,
            "hands": {c: list(h) for c, h in zip(self.players, self.hands, strict=True)},
            "dev_hands": {c: list(h) for c, h in zip(self.players, self.dev_hands, strict=True)},
            "knights": list(self.knights),
            "bank": list(self.bank),
            "deck": list(self.deck),
            "pieces_left": {
                c: [
                    self.settlements_left[i],
                    self.cities_left[i],
                    self.roads_left[i],
                    self.ships_left[i],
                ]
                for i, c in enumerate(self.players)
            },
            "road_lengths": list(self.road_lengths),
            "longest_road": None if self.longest_road is None else self.players[self.longest_road],
            "largest_army": None if self.largest_army is None else self.players[self.largest_army],
            "to_discard": {self.players[q]: n for q, n in sorted(self.to_discard.items())},
            "free_roads": self.free_roads,
            "builders": [self.players[b] for b in self.builders],
            "founding_step": self.founding_step,
            "last_settlement": self.last_settlement,
            "after_robber": self.after_robber.value,
            "after_road_building": self.after_road_building.value,
            "turn_state": [
                self.turn.rolled,
                self.turn.built,
                self.turn.played_card,
                list(self.turn.bought),
                self.turn.moved_ship,
                sorted(self.turn.ships_built),
            ],
            "last_roll": None if self.last_roll is None else list(self.last_roll),
            "winner": self.winner_color,
            "victory_points": [self.victory_points(q) for q in range(len(self.players))],
            "special_vp": list(self.special_vp),
            "tiles": [
                [q, r, tile.terrain.value, tile.number]
                for (q, r), tile in sorted(self.board.tiles.items())
            ],
            "hook_state": json.loads(json.dumps(self.hook_state)),
        }

    def public_view(self) -> dict[str, Any]:
        """What everyone at the table may know: card counts, not which cards."""
        t = self.topology
        players = []
        for i, c in enumerate(self.players):
            players.append(
                {
                    "color": c,
                    "resource_count": sum(self.hands[i]),
                    "development_count": sum(self.dev_hands[i]),
                    "knights_played": self.knights[i],
                    "road_length": self.road_lengths[i],
                    "longest_road": self.longest_road == i,
                    "largest_army": self.largest_army == i,
                    "victory_points": self.public_victory_points(i),
                    "special_victory_points": self.special_vp[i],
                    "pieces_left": {
                        "settlements": self.settlements_left[i],
                        "cities": self.cities_left[i],
                        "roads": self.roads_left[i],
                        "ships": self.ships_left[i],
                    },
                    "to_discard": self.to_discard.get(i, 0),
                }
            )
        return {
            "phase": self.phase.value,
            "current": self.current_player,
            "actor": self.players[self.actor],
            "turn": self.turn_number,
            "last_roll": None if self.last_roll is None else list(self.last_roll),
            "robber": list(t.hexes[self.robber]),
            "bank": _cards(self.bank),
            "deck_size": sum(self.deck) - self._cards_aside(),
            "players": players,
            "buildings": [
                {
                    "vertex": list(t.vertices[v]),
                    "color": self.players[o],
                    "kind": "city" if self.vertex_level[v] == 2 else "settlement",
                }
                for v, o in enumerate(self.vertex_owner)
                if o >= 0
            ],
            "roads": [
                {"edge": list(t.edges[e]), "color": self.players[o]}
                for e, o in enumerate(self.edge_owner)
                if o >= 0 and self.edge_kind[e] == ROAD
            ],
            "ships": [
                {"edge": list(t.edges[e]), "color": self.players[o]}
                for e, o in enumerate(self.edge_owner)
                if o >= 0 and self.edge_kind[e] == SHIP
            ],
            "pirate": None if self.pirate is None else list(t.hexes[self.pirate]),
            "gold_due": {self.players[q]: n for q, n in sorted(self.gold_due.items())},
            "winner": self.winner_color,
            **({"scenario": self._scenario_view()} if self.hooks else {}),
        }

    def private_view(self, color: str) -> dict[str, Any]:
        """The public view plus what ``color`` alone may know: their cards and true VP."""
        p = self.seat(color)
        view = self.public_view()
        bought = self.turn.bought if p == self.current else [0] * len(DEV_CARDS)
        view["you"] = {
            "color": color,
            "resources": _cards(self.hands[p]),
            "development_cards": {
                DEV_CARDS[i].value: n for i, n in enumerate(self.dev_hands[p]) if n
            },
            "bought_this_turn": {DEV_CARDS[i].value: n for i, n in enumerate(bought) if n},
            "victory_points": self.victory_points(p),
            "trade_ratios": {RESOURCES[i].value: r for i, r in enumerate(self.trade_ratios[p])},
        }
        if self.hooks:
            view["you"]["scenario"] = self._scenario_view(p)
        return view

    def _scenario_view(self, p: int | None = None) -> dict[str, Any]:
        """The hooks' panels for the page: public ones (and the labels of the hooks' actions),
        or those only seat ``p`` may see (see :meth:`companion.hooks.base.Hook.public_view`)."""
        panels = []
        for hook in self.hooks:
            panel = hook.public_view(self) if p is None else hook.private_view(self, p)
            if panel is not None:
                panels.append({"hook": hook.name, **panel})
        if p is not None:
            return {"panels": panels}
        labels = {t: label for hook in self.hooks for t, label in hook.action_labels().items()}
        return {"panels": panels, "actions": labels}


def _holds(items: tuple[Action, ...], action: Action) -> bool:
    """Whether ``action`` itself (not merely an equal action) is one of ``items``."""
    for x in items:  # noqa: SIM110 (any() over a generator costs several times more)
        if x is action:
            return True
    return False


def _affords(hand: Sequence[int], cost: Sequence[int]) -> bool:
    return all(h >= c for h, c in zip(hand, cost, strict=True))


def _cards(counts: Sequence[int]) -> dict[str, int]:
    return {RESOURCE_NAMES[i]: n for i, n in enumerate(counts) if n}


def _sub_multisets(hand: Sequence[int], n: int) -> list[tuple[int, int, int, int, int]]:
    """Every way to choose ``n`` cards from ``hand`` (counts per resource), in lexicographic
    order of the counts."""
    h0, h1, h2, h3, h4 = hand
    out: list[tuple[int, int, int, int, int]] = []
    if n > h0 + h1 + h2 + h3 + h4:
        return out
    # Each count ranges between what the later resources cannot cover and what is left.
    rest1, rest2, rest3 = h1 + h2 + h3 + h4, h2 + h3 + h4, h3 + h4
    for a in range(max(0, n - rest1), min(h0, n) + 1):
        left1 = n - a
        for b in range(max(0, left1 - rest2), min(h1, left1) + 1):
            left2 = left1 - b
            for c in range(max(0, left2 - rest3), min(h2, left2) + 1):
                left3 = left2 - c
                for d in range(max(0, left3 - h4), min(h3, left3) + 1):
                    out.append((a, b, c, d, left3 - d))
    return out


def _year_of_plenty_choices(bank: Sequence[int]) -> Iterator[tuple[Resource, ...]]:
    total = sum(bank)
    if total == 0:
        return
    if total == 1:
        yield (RESOURCES[next(i for i, b in enumerate(bank) if b)],)
        return
    for i in range(N_RES):
        for j in range(i, N_RES):
            if (i == j and bank[i] >= 2) or (i != j and bank[i] and bank[j]):
                yield (RESOURCES[i], RESOURCES[j])


#: actions with nothing random to fill in (resolve returns them as they are)
_WITHOUT_OUTCOME = frozenset(
    {
        BuildSettlement,
        MoveShip,
        ChooseGold,
        BuildCity,
        PlayKnight,
        PlayRoadBuilding,
        PlayYearOfPlenty,
        PlayMonopoly,
        Discard,
        MaritimeTrade,
        DomesticTrade,
        EndTurn,
    }
)

#: actions after which the acting player cannot have more victory points than before (in a
#: game without hooks): the victory check after them is skipped. The end of a turn checks
#: the next player itself (RULES.md 1.13.3).
_GIVES_NO_POINTS = frozenset(
    {
        RollDice,
        ChooseGold,
        PlayRoadBuilding,
        PlayYearOfPlenty,
        PlayMonopoly,
        Discard,
        MoveRobber,
        MovePirate,
        MaritimeTrade,
        DomesticTrade,
        EndTurn,
    }
)

_CHECKS: dict[type, Callable[[Game, int, Any], None]] = {
    BuildSettlement: Game._check_settlement,
    BuildRoad: Game._check_road,
    BuildShip: Game._check_ship,
    MoveShip: Game._check_move_ship,
    MovePirate: Game._check_pirate,
    ChooseGold: Game._check_gold,
    BuildCity: Game._check_city,
    BuyDevelopmentCard: Game._check_buy,
    PlayKnight: Game._check_play,
    PlayRoadBuilding: Game._check_play,
    PlayYearOfPlenty: Game._check_play,
    PlayMonopoly: Game._check_play,
    RollDice: Game._check_roll,
    Discard: Game._check_discard,
    MoveRobber: Game._check_robber,
    MaritimeTrade: Game._check_maritime,
    DomesticTrade: Game._check_domestic,
    EndTurn: Game._check_end,
}

_EXECUTE: dict[type, Callable[[Game, int, Any], list[Event]]] = {
    BuildSettlement: Game._do_settlement,
    BuildRoad: Game._do_road,
    BuildShip: Game._do_ship,
    MoveShip: Game._do_move_ship,
    MovePirate: Game._do_pirate,
    ChooseGold: Game._do_gold,
    BuildCity: Game._do_city,
    BuyDevelopmentCard: Game._do_buy,
    PlayKnight: Game._do_knight,
    PlayRoadBuilding: Game._do_road_building,
    PlayYearOfPlenty: Game._do_year_of_plenty,
    PlayMonopoly: Game._do_monopoly,
    RollDice: Game._do_roll,
    Discard: Game._do_discard,
    MoveRobber: Game._do_robber,
    MaritimeTrade: Game._do_maritime,
    DomesticTrade: Game._do_domestic,
    EndTurn: Game._do_end,
}

__all__ = [
    "Event",
    "Game",
    "IllegalAction",
    "Phase",
    "RandomSource",
    "Randomness",
    "Rules",
]
