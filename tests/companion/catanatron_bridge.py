"""A bridge between Catan Companion's engine and the ``catanatron`` package (tests only).

It builds a catanatron game on the same board as ours, maps catanatron's numbered nodes and
node-pair edges to our canonical corners (:class:`~companion.board.Vertex`) and sides
(:class:`~companion.board.Edge`), and turns each action catanatron carried out (with its
outcome: dice, drawn card, stolen card, discarded cards) into the resolved action of our engine.

Coordinates: catanatron's cube coordinate ``(x, y, z)`` is our axial ``(q, r) = (x, z)``; its
tile corners (``NodeRef``) carry the same compass names as ours, so :func:`companion.board.vertex`
canonicalises them, and a side (catanatron's pair of node ids) is the side between its two
corners.

The known places where catanatron 3.2.1 departs from RULES.md are in
docs/catanatron-differences.md; this module only provides the facts the differential test
needs to recognise them (road lengths under catanatron's reading, cards bought this turn).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from catanatron import Color
from catanatron import Game as CatanatronGame
from catanatron.models.enums import DEVELOPMENT_CARDS as CAT_DEV_CARDS
from catanatron.models.enums import RESOURCES as CAT_RESOURCES
from catanatron.models.enums import SETTLEMENT, ActionPrompt, ActionType
from catanatron.models.enums import Action as CatAction
from catanatron.models.map import (
    BASE_MAP_TEMPLATE,
    PORT_DIRECTION_TO_NODEREFS,
    CatanMap,
    LandTile,
    Port,
    initialize_tiles,
)
from catanatron.models.player import RandomPlayer

from companion.actions import (
    DEV_CARDS,
    Action,
    BuildCity,
    BuildRoad,
    BuildSettlement,
    BuyDevelopmentCard,
    Cards,
    DevCard,
    Discard,
    EndTurn,
    MaritimeTrade,
    MoveRobber,
    PlayKnight,
    PlayMonopoly,
    PlayRoadBuilding,
    PlayYearOfPlenty,
    RollDice,
)
from companion.board import (
    RESOURCES,
    Board,
    Edge,
    Hex,
    Resource,
    Terrain,
    Vertex,
    base_frame,
    edge_vertices,
    hex_neighbour,
    vertex,
)
from companion.game import Game, Phase, Rules

#: catanatron's resource names, in the order of our RESOURCES (lumber, brick, wool, grain, ore).
CAT_RESOURCE: dict[Resource, str] = dict(zip(RESOURCES, CAT_RESOURCES, strict=True))
OUR_RESOURCE: dict[str, Resource] = {v: k for k, v in CAT_RESOURCE.items()}
assert [r.value for r in RESOURCES] == ["lumber", "brick", "wool", "grain", "ore"]
assert CAT_RESOURCES == ["WOOD", "BRICK", "SHEEP", "WHEAT", "ORE"]

CAT_DEV_CARD: dict[DevCard, str] = {c: c.value.upper() for c in DEV_CARDS}
OUR_DEV_CARD: dict[str, DevCard] = {v: k for k, v in CAT_DEV_CARD.items()}
assert set(CAT_DEV_CARD.values()) == set(CAT_DEV_CARDS)

TERRAIN_OF_CAT: dict[str | None, Terrain] = {
    "WOOD": Terrain.FOREST,
    "BRICK": Terrain.HILLS,
    "SHEEP": Terrain.PASTURE,
    "WHEAT": Terrain.FIELDS,
    "ORE": Terrain.MOUNTAINS,
    None: Terrain.DESERT,
}
CAT_OF_TERRAIN: dict[Terrain, str | None] = {v: k for k, v in TERRAIN_OF_CAT.items()}

#: catanatron's compass names (NodeRef / EdgeRef / Direction values) -> ours.
COMPASS = {
    "NORTH": "N",
    "NORTHEAST": "NE",
    "EAST": "E",
    "SOUTHEAST": "SE",
    "SOUTH": "S",
    "SOUTHWEST": "SW",
    "WEST": "W",
    "NORTHWEST": "NW",
}

PLAY_TYPES = {
    ActionType.PLAY_KNIGHT_CARD: DevCard.KNIGHT,
    ActionType.PLAY_ROAD_BUILDING: DevCard.ROAD_BUILDING,
    ActionType.PLAY_YEAR_OF_PLENTY: DevCard.YEAR_OF_PLENTY,
    ActionType.PLAY_MONOPOLY: DevCard.MONOPOLY,
}


class BridgeError(ValueError):
    """The board or an action cannot be expressed in catanatron's terms."""


def cube_to_hex(coord: tuple[int, int, int]) -> Hex:
    return (coord[0], coord[2])


def hex_to_cube(h: Hex) -> tuple[int, int, int]:
    return (h[0], -h[0] - h[1], h[1])


def catan_map_of(board: Board) -> CatanMap:
    """catanatron's map of ``board``: same terrain, numbers and harbours.

    Only the base frame with harbours on :data:`companion.layouts.BASE_HARBOR_SITES` exists in
    catanatron; any other board raises :class:`BridgeError`.
    """
    if set(board.tiles) != set(base_frame()):
        raise BridgeError("catanatron only knows the 19-hex base frame")
    harbor_kind = {hex_neighbour((h.q, h.r), h.side): h.kind for h in board.harbors}
    land: list[str | None] = []
    numbers: list[int] = []
    ports: list[str | None] = []
    # initialize_tiles walks the template's topology in order and pops each list from its end.
    for coord, kind in BASE_MAP_TEMPLATE.topology.items():
        h = cube_to_hex(coord)
        if kind is LandTile:
            tile = board.tiles[h]
            if tile.terrain not in CAT_OF_TERRAIN:
                raise BridgeError(f"catanatron has no {tile.terrain.value} terrain")
            land.append(CAT_OF_TERRAIN[tile.terrain])
            if tile.terrain != Terrain.DESERT:
                if tile.number is None:
                    raise BridgeError(f"hex {h} has no number chip")
                numbers.append(tile.number)
        elif isinstance(kind, tuple):
            if h not in harbor_kind:
                raise BridgeError(f"no harbour faces catanatron's port at {h}")
            k = harbor_kind.pop(h)
            ports.append(None if k == "3:1" else CAT_RESOURCE[Resource(k)])
    if harbor_kind:
        raise BridgeError(f"catanatron has no port where our harbour faces {sorted(harbor_kind)}")
    tiles = initialize_tiles(BASE_MAP_TEMPLATE, numbers[::-1], ports[::-1], land[::-1])
    return CatanMap.from_tiles(tiles)


def node_vertices(catan_map: CatanMap) -> dict[int, Vertex]:
    """Our canonical corner of each of catanatron's node ids."""
    out: dict[int, Vertex] = {}
    for coord, tile in catan_map.land_tiles.items():
        q, r = cube_to_hex(coord)
        for ref, node in tile.nodes.items():
            v = vertex(q, r, COMPASS[ref.value])
            if out.setdefault(node, v) != v:
                raise BridgeError(f"node {node} is both {out[node]} and {v}")
    return out


def port_vertices(catan_map: CatanMap) -> dict[str | None, set[Vertex]]:
    """The corners giving access to each kind of port (None: 3:1), by catanatron's map."""
    nodes = node_vertices(catan_map)
    out: dict[str | None, set[Vertex]] = {}
    for port in catan_map.ports_by_id.values():
        assert isinstance(port, Port)
        for ref in PORT_DIRECTION_TO_NODEREFS[port.direction]:
            out.setdefault(port.resource, set()).add(nodes[port.nodes[ref]])
    return out


def color_name(c: Color) -> str:
    return c.value.lower()


def road_length(game: Game, p: int, enter_opponents: bool = True) -> int:
    """Seat ``p``'s longest chain of roads, computed afresh from the pieces on the board.

    With ``enter_opponents`` (RULES.md 1.11.1) a chain may end at an opponent's building but not
    pass through it; without it, a chain may not touch an opponent's building at all (the
    lower bound of catanatron's reading, see docs/catanatron-differences.md).
    """
    t = game.topology
    owner = game.edge_owner
    blocked = [o not in (-1, p) for o in game.vertex_owner]

    def walk(v: int, used: int, length: int) -> int:
        # ``used`` is a bit set of edge indices already in the chain.
        if length and blocked[v]:
            return length
        best = length
        for e in t.vertex_edges[v]:
            if owner[e] == p and not used >> e & 1:
                a, b = t.edge_vertices[e]
                nxt = b if a == v else a
                if enter_opponents or not blocked[nxt]:
                    best = max(best, walk(nxt, used | 1 << e, length + 1))
        return best

    starts = {v for e, o in enumerate(owner) if o == p for v in t.edge_vertices[e]}
    if not enter_opponents:
        starts = {v for v in starts if not blocked[v]}
    return max((walk(v, 0, 0) for v in starts), default=0)


@dataclass
class Bridge:
    """One game played in lockstep: catanatron's and ours on the same board and seats."""

    board: Board
    cat: CatanatronGame
    ours: Game
    colors: tuple[str, ...]
    vertex_of: dict[int, Vertex]
    node_of: dict[Vertex, int]
    edge_of: dict[tuple[int, int], Edge]
    #: cards of each kind bought by the player in the current turn (RULES.md 1.10.2)
    bought: Counter[DevCard] = field(default_factory=Counter)

    @classmethod
    def new(cls, board: Board, seed: int, rules: Rules | None = None, players: int = 4) -> Bridge:
        """A fresh pair of games; ``seed`` seeds catanatron (seating, deck, dice, steals).

        ``players`` (3 or 4) take the first of catanatron's colours; catanatron shuffles the
        seats and ours follow its order. Our engine never draws a random outcome here, since
        every action arrives resolved from catanatron.
        """
        if board.robber is None:
            raise BridgeError("the board has no robber")
        if players not in (3, 4):
            raise BridgeError(f"players: {players}; the base game is for 3 or 4")
        catan_map = catan_map_of(board)
        colors = list(Color)[:players]
        cat = CatanatronGame([RandomPlayer(c) for c in colors], seed=seed, catan_map=catan_map)
        cat.state.board.robber_coordinate = hex_to_cube(board.robber)
        seats = tuple(color_name(c) for c in cat.state.colors)
        ours = Game(board, seats, rules, rng=seed)
        vertex_of = node_vertices(catan_map)
        node_of = {v: n for n, v in vertex_of.items()}
        edge_of: dict[tuple[int, int], Edge] = {}
        for e in ours.topology.edges:
            a, b = (node_of[v] for v in edge_vertices(e))
            edge_of[(a, b)] = edge_of[(b, a)] = e
        return cls(board, cat, ours, seats, vertex_of, node_of, edge_of)

    # -- catanatron's state in our terms -------------------------------------------------

    @property
    def state(self) -> Any:
        return self.cat.state

    def seat(self, c: Color) -> int:
        return self.state.color_to_index[c]

    def hand(self, seat: int) -> list[int]:
        ps = self.state.player_state
        return [ps[f"P{seat}_{r}_IN_HAND"] for r in CAT_RESOURCES]

    def dev_hand(self, seat: int) -> list[int]:
        """Development cards held, in the order of :data:`companion.actions.DEV_CARDS`."""
        ps = self.state.player_state
        return [ps[f"P{seat}_{CAT_DEV_CARD[c]}_IN_HAND"] for c in DEV_CARDS]

    def deck(self) -> list[int]:
        left = Counter(self.state.development_listdeck)
        return [left[CAT_DEV_CARD[c]] for c in DEV_CARDS]

    def bank(self) -> list[int]:
        return list(self.state.resource_freqdeck)

    def victory_points(self, seat: int) -> int:
        return self.state.player_state[f"P{seat}_ACTUAL_VICTORY_POINTS"]

    def knights(self, seat: int) -> int:
        return self.state.player_state[f"P{seat}_PLAYED_KNIGHT"]

    def pieces_left(self, seat: int) -> list[int]:
        ps = self.state.player_state
        return [ps[f"P{seat}_{k}_AVAILABLE"] for k in ("SETTLEMENTS", "CITIES", "ROADS")]

    def road_length(self, seat: int) -> int:
        return self.state.board.road_lengths.get(self.state.colors[seat], 0)

    def holder(self, flag: str) -> int | None:
        """Seat holding Longest Road (``flag="ROAD"``) or Largest Army (``"ARMY"``)."""
        ps = self.state.player_state
        held = [i for i in range(len(self.colors)) if ps[f"P{i}_HAS_{flag}"]]
        assert len(held) <= 1, f"catanatron gives the {flag} card to seats {held}"
        return held[0] if held else None

    def robber(self) -> Hex:
        return cube_to_hex(self.state.board.robber_coordinate)

    def buildings(self) -> dict[Vertex, tuple[str, int]]:
        return {
            self.vertex_of[n]: (color_name(c), 1 if kind == SETTLEMENT else 2)
            for n, (c, kind) in self.state.board.buildings.items()
        }

    def roads(self) -> dict[Edge, str]:
        return {self.edge_of[e]: color_name(c) for e, c in self.state.board.roads.items()}

    def actor(self) -> str:
        """The colour catanatron asks to act now."""
        return color_name(self.state.current_color())

    def settlement_spots(self, seat: int) -> set[Vertex]:
        founding = self.state.is_initial_build_phase
        nodes = self.state.board.buildable_node_ids(self.state.colors[seat], founding)
        return {self.vertex_of[n] for n in nodes}

    def road_spots(self, seat: int) -> set[Edge]:
        color = self.state.colors[seat]
        edges = self.state.board.buildable_edges(color)
        if self.state.current_prompt == ActionPrompt.BUILD_INITIAL_ROAD:
            last = self.state.buildings_by_color[color][SETTLEMENT][-1]
            edges = [e for e in edges if last in e]
        return {self.edge_of[e] for e in edges}

    def city_spots(self, seat: int) -> set[Vertex]:
        nodes = self.state.buildings_by_color[self.state.colors[seat]][SETTLEMENT]
        return {self.vertex_of[n] for n in nodes}

    def phase(self) -> Phase:
        """Our phase that corresponds to catanatron's prompt and flags."""
        s = self.state
        match s.current_prompt:
            case ActionPrompt.BUILD_INITIAL_SETTLEMENT:
                return Phase.FOUNDING_SETTLEMENT
            case ActionPrompt.BUILD_INITIAL_ROAD:
                return Phase.FOUNDING_ROAD
            case ActionPrompt.DISCARD:
                return Phase.DISCARD
            case ActionPrompt.MOVE_ROBBER:
                return Phase.MOVE_ROBBER
        if s.is_road_building:
            return Phase.ROAD_BUILDING
        rolled = s.player_state[f"P{s.current_turn_index}_HAS_ROLLED"]
        return Phase.MAIN if rolled else Phase.ROLL

    def winner(self) -> str | None:
        c = self.cat.winning_color()
        return None if c is None else color_name(c)

    # -- actions -------------------------------------------------------------------------

    def translate(self, a: CatAction) -> Action:
        """Our action for catanatron's action ``a``.

        Given a resolved action (as :meth:`catanatron.Game.execute` returns it), the result
        carries the same outcome; given an unresolved one (from ``playable_actions``), the
        outcome is left for the engine to draw, as our ``legal_actions`` lists it.
        """
        who = color_name(a.color)
        v = a.value
        match a.action_type:
            case ActionType.ROLL:
                return RollDice(who, None if v is None else (v[0], v[1]))
            case ActionType.BUILD_SETTLEMENT:
                return BuildSettlement(who, self.vertex_of[v])
            case ActionType.BUILD_CITY:
                return BuildCity(who, self.vertex_of[v])
            case ActionType.BUILD_ROAD:
                return BuildRoad(who, self.edge_of[v])
            case ActionType.BUY_DEVELOPMENT_CARD:
                return BuyDevelopmentCard(who, None if v is None else OUR_DEV_CARD[v])
            case ActionType.PLAY_KNIGHT_CARD:
                return PlayKnight(who)
            case ActionType.PLAY_ROAD_BUILDING:
                return PlayRoadBuilding(who)
            case ActionType.PLAY_YEAR_OF_PLENTY:
                return PlayYearOfPlenty(who, tuple(OUR_RESOURCE[r] for r in v))
            case ActionType.PLAY_MONOPOLY:
                return PlayMonopoly(who, OUR_RESOURCE[v])
            case ActionType.MARITIME_TRADE:
                give = {r for r in v[:-1] if r is not None}
                if len(give) != 1:
                    raise BridgeError(f"a maritime trade gives one kind of card: {a}")
                return MaritimeTrade(who, OUR_RESOURCE[give.pop()], OUR_RESOURCE[v[-1]])
            case ActionType.DISCARD:
                if v is None:
                    raise BridgeError("catanatron chooses discards only when it carries them out")
                return Discard(who, Cards.from_list(OUR_RESOURCE[r] for r in v))
            case ActionType.MOVE_ROBBER:
                coord, victim, stolen = v
                return MoveRobber(
                    who,
                    cube_to_hex(coord),
                    None if victim is None else color_name(victim),
                    None if stolen is None else OUR_RESOURCE[stolen],
                )
            case ActionType.END_TURN:
                return EndTurn(who)
        raise BridgeError(f"no translation for {a.action_type}")

    def step(self, a: CatAction, offered: bool = True) -> tuple[Action, list[dict[str, Any]]]:
        """Carry out ``a`` in both engines; return our resolved action and our events.

        ``a`` is one of catanatron's offers, or (``offered=False``) an offer with its outcome
        chosen by a test, such as a roll with given dice or a purchase of a given card.
        """
        done = self.cat.execute(a, validate_action=offered)
        ours = self.translate(done)
        events = self.ours.apply(ours)
        match ours:
            case BuyDevelopmentCard(card=DevCard() as card):
                self.bought[card] += 1
            case EndTurn():
                self.bought.clear()
        return ours, events

    def bought_this_turn(self, a: CatAction) -> bool:
        """Whether ``a`` plays a card that only a purchase of this turn makes available."""
        card = PLAY_TYPES.get(a.action_type)
        if card is None:
            return False
        held = self.dev_hand(self.seat(a.color))[DEV_CARDS.index(card)]
        return held - self.bought[card] <= 0

    def deal(self, seat: int, cards: Cards) -> None:
        """Move ``cards`` from the bank to ``seat``'s hand in both engines (tests set up hands
        this way, so bank + hands stays 19 of each resource)."""
        from catanatron.models.actions import generate_playable_actions

        bank = self.state.resource_freqdeck
        for i, n in enumerate(cards.counts):
            if bank[i] < n or self.ours.bank[i] < n:
                raise BridgeError(f"the bank has fewer than {n} {RESOURCES[i].value}")
            bank[i] -= n
            self.state.player_state[f"P{seat}_{CAT_RESOURCES[i]}_IN_HAND"] += n
            self.ours.bank[i] -= n
            self.ours.hands[seat][i] += n
        self.state.playable_actions = generate_playable_actions(self.state)

    def give_shortage(self, seat: int, r: Resource, n: int) -> None:
        """Pay ``n`` cards of ``r`` from catanatron's bank to ``seat``: RULES.md 1.6.5's exception
        for a sole owed player, which catanatron does not make. Its offers are recomputed."""
        from catanatron.models.actions import generate_playable_actions

        i = RESOURCES.index(r)
        if self.state.resource_freqdeck[i] < n:
            raise BridgeError(f"catanatron's bank has fewer than {n} {r.value}")
        self.state.resource_freqdeck[i] -= n
        self.state.player_state[f"P{seat}_{CAT_RESOURCE[r]}_IN_HAND"] += n
        self.state.playable_actions = generate_playable_actions(self.state)
