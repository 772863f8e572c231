"""The Big Box country maps, Corsica and New York, and the Erie Canal (RULES.md 5.3).

The printed map is a hex board whose town spaces are some of its corners and whose road spaces
are some of its sides (the seeds show the real map only in pictures: RULES.md 5.3.9 GAP; the
maps in ``companion/scenarios/corsica.json`` and ``new-york.json`` are ours). A scenario file
lists them as the parameters of the ``country`` hook::

    {"hook": "country",
     "towns": [[q, r, "N"], ...],            # round town spaces (5.3.3)
     "roads": [[q, r, "E"], ...],            # rectangular road spaces (5.3.4)
     "vp_spaces": [[q, r, "S"], ...],        # intersections with a VP symbol (5.3.7)
     "certificates": [{"road": [q, r, "E"], "kind": "3:1" | "ore" | ...}, ...],  # 5.3.5
     "vp_chip_players": [3, 4],              # who plays with Catan chips on the VP spaces
     "distance": "corners" | "towns",        # 5.3.9 GAP, see below
     "founding_chips": true}                 # 5.3.7 GAP: a founding road takes a chip too

Corners and sides are named as in :mod:`companion.board` (any of a corner's or side's names).
With the players of ``vp_chip_players`` a VP space carries a Catan chip: no town can go there,
roads pass it freely, and the first road to reach it takes the chip (1 VP). With more players
it is an ordinary town space (5.3.7).

GAP choices (docs/rules-choices.md): the distance rule is the base game's, between corners
(``"corners"``); on our maps town spaces are never neighbouring corners (a VP space settled in
a 5-6 player game excepted), so it bites only there. ``"towns"`` reads it more strictly: no
settlement on a town space one stretch of road (no town space between) from a built one.

The ``erie_canal`` hook (5.3.10) adds the canal tiles: its ``canal`` lists the town spaces on
the canal; a player whose own roads link two of them without passing another town space takes
a tile from the supply (``tiles``, 12 merchant favours), after founding only. A tile played
makes 2 cards of one resource worth 1 of any from the bank until the end of the turn; tiles
are traded to other players for resources. GAP: each pair of canal towns pays each player
once (``once_per``: ``"player"``), or only the first player to link it (``"game"``); one road
may link several pairs and earns a tile for each.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from companion.actions import Action, Cards, register_action
from companion.board import (
    HARBOR_KINDS,
    RESOURCES,
    Edge,
    Resource,
    Vertex,
    edge,
    edge_vertices,
    vertex,
)
from companion.hooks.base import Hook

if TYPE_CHECKING:
    from companion.game import Event, Game, IllegalAction

# The engine's road kind and founding-road phase (companion.game.ROAD, Phase.FOUNDING_ROAD),
# written out: the engine imports the hooks, so they cannot import it at load time.
_ROAD = 1
_FOUNDING_ROAD = "founding_road"


def _corners(items: Any, where: str) -> list[Vertex]:
    try:
        return [vertex(int(q), int(r), str(c)) for q, r, c in items]
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{where}: each corner is [q, r, corner] ({exc})") from None


def _sides(items: Any, where: str) -> list[Edge]:
    try:
        return [edge(int(q), int(r), str(s)) for q, r, s in items]
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{where}: each side is [q, r, side] ({exc})") from None


def _key(v: Vertex) -> str:
    """A corner as a JSON object key, e.g. ``"0,-1,S"``."""
    return f"{v.q},{v.r},{v.corner}"


class _Map:
    """The country map's spaces as the engine's corner and side indices on one board."""

    def __init__(self, game: Game, hook: Country):
        t = game.topology

        def corner(v: Vertex) -> int:
            if v not in t.vertex_index:
                raise ValueError(f"hook country: corner {tuple(v)} is not on the board")
            return t.vertex_index[v]

        def side(e: Edge) -> int:
            if e not in t.edge_index:
                raise ValueError(f"hook country: side {tuple(e)} is not on the board")
            return t.edge_index[e]

        self.vp = {corner(v) for v in hook.vp_spaces}
        self.chips = len(game.players) in hook.vp_chip_players
        self.towns = {corner(v) for v in hook.towns} | (set() if self.chips else self.vp)
        self.roads = {side(e) for e in hook.roads}
        self.certificates = {side(e): kind for e, kind in hook.certificates}
        self._neighbours: dict[int, set[int]] | None = None
        self.topology = t

    def town_neighbours(self, v: int) -> set[int]:
        """The town spaces one stretch of road spaces from town ``v`` (no town between)."""
        if self._neighbours is None:
            self._neighbours = {town: self.reach(town, lambda e: True) for town in self.towns}
        return self._neighbours[v]

    def reach(self, start: int, usable: Callable[[int], bool]) -> set[int]:
        """Town spaces reached from corner ``start`` over road spaces ``usable(e)`` accepts,
        passing no town space on the way."""
        t = self.topology
        found: set[int] = set()
        seen = {start}
        stack = [start]
        while stack:
            v = stack.pop()
            for e in t.vertex_edges[v]:
                if e not in self.roads or not usable(e):
                    continue
                a, b = t.edge_vertices[e]
                w = b if a == v else a
                if w in seen:
                    continue
                seen.add(w)
                if w in self.towns:
                    found.add(w)
                else:
                    stack.append(w)
        return found


class Country(Hook):
    """Town spaces, road spaces, VP spaces and trade certificates of a country map (5.3)."""

    name = "country"

    def __init__(self, area_map: Mapping[str, frozenset[tuple[int, int]]], **params: Any):
        super().__init__(area_map, **params)
        self.towns = _corners(params["towns"], "towns")
        self.roads = _sides(params["roads"], "roads")
        self.vp_spaces = _corners(params.get("vp_spaces", ()), "vp_spaces")
        self.vp_chip_players = frozenset(int(n) for n in params.get("vp_chip_players", (3, 4)))
        self.founding_chips = bool(params.get("founding_chips", True))
        self.distance = params.get("distance", "corners")
        if self.distance not in ("corners", "towns"):
            raise ValueError("hook country: distance is 'corners' or 'towns'")
        self.certificates: list[tuple[Edge, str]] = []
        for i, cert in enumerate(params.get("certificates", ())):
            (side,) = _sides([cert["road"]], f"certificates[{i}].road")
            if cert["kind"] not in HARBOR_KINDS:
                raise ValueError(f"certificates[{i}].kind: one of {', '.join(HARBOR_KINDS)}")
            if side not in self.roads:
                raise ValueError(f"certificates[{i}]: side {tuple(side)} is no road space")
            self.certificates.append((side, str(cert["kind"])))
        if set(self.vp_spaces) & set(self.towns):
            raise ValueError("hook country: a VP space is listed as a town space too")
        ends = {v for e in self.roads for v in edge_vertices(e)}
        lonely = [tuple(v) for v in (*self.towns, *self.vp_spaces) if v not in ends]
        if lonely:
            raise ValueError(f"hook country: no road space reaches corner {lonely[0]}")
        self._map: _Map | None = None

    def spaces(self, game: Game) -> _Map:
        """This map on the game's board (made once per game: a hook serves one game)."""
        if self._map is None:
            self._map = _Map(game, self)
        return self._map

    def _state(self, game: Game) -> dict[str, Any]:
        return game.hook_state.setdefault(self.name, {"chips": {}, "certificates": {}})

    # -- where pieces may go ---------------------------------------------------------------

    def settlement_error(self, game: Game, p: int, v: int, founding: bool) -> IllegalAction | None:
        from companion.game import IllegalAction

        spaces = self.spaces(game)
        if v not in spaces.towns:
            corner = game.topology.vertices[v]
            if v in spaces.vp:
                return IllegalAction("5.3.7", "corner {} holds a VP chip, not a town", corner)
            return IllegalAction("5.3.3", "settlements go on town spaces only; {} is none", corner)
        if self.distance == "towns":
            owner = game.vertex_owner
            if any(owner[w] != -1 for w in spaces.town_neighbours(v)):
                corner = game.topology.vertices[v]
                return IllegalAction(
                    "5.3.9", "town space {} is one stretch of road from a building", corner
                )
        return None

    def route_error(self, game: Game, p: int, e: int, kind: int) -> IllegalAction | None:
        from companion.game import IllegalAction

        spaces = self.spaces(game)
        t = game.topology
        if e not in spaces.roads:
            return IllegalAction(
                "5.3.4", "roads go on road spaces only; side {} is none", t.edges[e]
            )
        if game.phase == _FOUNDING_ROAD:
            return None
        owner, edge_owner = game.vertex_owner, game.edge_owner
        joined = False  # whether the base rules would join the side to p's network
        for v in t.edge_vertices[e]:
            if owner[v] == p:
                return None
            if owner[v] == -1 and any(edge_owner[x] == p for x in t.vertex_edges[v] if x != e):
                if v not in spaces.towns:
                    return None
                joined = True
        if joined:
            return IllegalAction(
                "5.3.4", "a road goes on beyond a town space only from your own settlement there"
            )
        return None  # not joined at all: the engine's own refusal says so

    # -- what a road earns -----------------------------------------------------------------

    def after_route(self, game: Game, p: int, e: int, kind: int, founding: bool) -> list[Event]:
        spaces = self.spaces(game)
        events: list[Event] = []
        color = game.players[p]
        if spaces.chips and (self.founding_chips or not founding):
            taken = self._state(game)["chips"]
            for v in game.topology.edge_vertices[e]:
                key = _key(game.topology.vertices[v])
                if v in spaces.vp and key not in taken:
                    taken[key] = color  # 5.3.7: the first road to reach it
                    game.special_vp[p] += 1
                    events.append(
                        {"type": "special_vp", "player": color, "vp": 1, "why": "VP intersection"}
                    )
        kind_name = spaces.certificates.get(e)
        if kind_name is not None:
            self._state(game)["certificates"].setdefault(color, []).append(kind_name)
            improve_ratios(game.trade_ratios[p], kind_name)
            events.append(
                {
                    "type": "certificate",
                    "player": color,
                    "trade": kind_name,
                    "text": f"builds on a red road space: trades {_trade_name(kind_name)}",
                }
            )
        return events

    def trade_ratio(self, game: Game, p: int, r: int) -> int:
        """What seat ``p`` gives for 1 card when trading ``r`` with the bank, by the
        certificates they hold and harbours at their buildings (none on our maps)."""
        ratios = [4] * len(RESOURCES)
        for kind in self._state(game)["certificates"].get(game.players[p], ()):
            improve_ratios(ratios, kind)
        for v in game.buildings_of[p]:
            harbor = game.vertex_harbor.get(v)
            if harbor is not None:
                improve_ratios(ratios, HARBOR_KINDS[harbor])
        return ratios[r]

    # -- the page --------------------------------------------------------------------------

    def public_view(self, game: Game) -> dict[str, Any] | None:
        spaces = self.spaces(game)
        t = game.topology
        state = self._state(game)
        items: list[dict[str, Any]] = []
        if spaces.chips:
            left = len(spaces.vp) - len(state["chips"])
            items.append({"label": "VP chips on the map", "value": left})
        for color, kinds in sorted(state["certificates"].items()):
            items.append({"label": "Certificates", "text": ", ".join(kinds), "color": color})
        return {
            "title": "Country map",
            "text": "Towns on the round spaces, roads on the road spaces; red road spaces "
            "give a trade certificate.",
            "sections": [{"title": "Map", "kind": "list", "items": items}] if items else [],
            "map": {
                "towns": [list(t.vertices[v]) for v in sorted(spaces.towns)],
                "roads": [list(t.edges[e]) for e in sorted(spaces.roads)],
                "vp_spaces": [
                    [*t.vertices[v], state["chips"].get(_key(t.vertices[v]))]
                    for v in sorted(spaces.vp)
                ]
                if spaces.chips
                else [],
                "certificates": [
                    [*t.edges[e], kind] for e, kind in sorted(spaces.certificates.items())
                ],
            },
        }


def _trade_name(kind: str) -> str:
    return "3:1" if kind == "3:1" else f"2 {kind} for 1"


def improve_ratios(ratios: list[int], kind: str) -> None:
    """Apply a 3:1 or 2:1 trade (a harbour or a certificate) to a player's ratios."""
    if kind == "3:1":
        for i, n in enumerate(ratios):
            ratios[i] = min(n, 3)
    else:
        i = RESOURCES.index(Resource(kind))
        ratios[i] = min(ratios[i], 2)


# -- the Erie Canal ---------------------------------------------------------------------------


@register_action
@dataclass(frozen=True)
class PlayCanalTile(Action):
    """Play a canal tile on ``resource``: 2 of it buy 1 of any from the bank this turn."""

    type: ClassVar[str] = "play_canal_tile"
    label: ClassVar[str] = "Play a canal tile"
    resource: Resource


@register_action
@dataclass(frozen=True)
class SellCanalTile(Action):
    """The player to move hands ``partner`` one canal tile for the cards ``get``."""

    type: ClassVar[str] = "sell_canal_tile"
    label: ClassVar[str] = "Sell a canal tile"
    partner: str
    get: Cards


@register_action
@dataclass(frozen=True)
class BuyCanalTile(Action):
    """The player to move takes one canal tile from ``partner`` for the cards ``give``."""

    type: ClassVar[str] = "buy_canal_tile"
    label: ClassVar[str] = "Buy a canal tile"
    partner: str
    give: Cards


class ErieCanal(Hook):
    """Canal tiles earned by linking canal towns, played for 2:1 trades (5.3.10)."""

    name = "erie_canal"
    actions = (PlayCanalTile, SellCanalTile, BuyCanalTile)

    def __init__(self, area_map: Mapping[str, frozenset[tuple[int, int]]], **params: Any):
        super().__init__(area_map, **params)
        self.canal = _corners(params["canal"], "canal")
        self.tiles = int(params.get("tiles", 12))
        self.once_per = params.get("once_per", "player")
        if self.once_per not in ("player", "game"):
            raise ValueError("hook erie_canal: once_per is 'player' or 'game'")
        if not 0 < self.tiles <= 12:
            raise ValueError("hook erie_canal: tiles are the 12 merchant favours (1 to 12)")

    def _country(self, game: Game) -> Country:
        for hook in game.hooks:
            if isinstance(hook, Country):
                return hook
        raise ValueError("hook erie_canal: the map's town spaces come from the country hook")

    def _state(self, game: Game) -> dict[str, Any]:
        """Tiles in the supply and held, linked pairs, and the resources played this turn."""
        return game.hook_state.setdefault(
            self.name, {"supply": self.tiles, "held": {}, "linked": [], "active": []}
        )

    def _view(self, game: Game) -> dict[str, Any]:
        """The state for reading only (checks must not create it)."""
        return game.hook_state.get(self.name) or {
            "supply": self.tiles,
            "held": {},
            "linked": [],
            "active": [],
        }

    def held(self, game: Game, p: int) -> int:
        return int(self._view(game)["held"].get(game.players[p], 0))

    # -- earning tiles ---------------------------------------------------------------------

    def after_route(self, game: Game, p: int, e: int, kind: int, founding: bool) -> list[Event]:
        if founding or kind != _ROAD:
            return []  # 5.3.10: canal tiles are earned after founding only
        spaces = self._country(game).spaces(game)
        t = game.topology
        canal = {t.vertex_index[v] for v in self.canal if v in t.vertex_index}

        def own_but_e(x: int) -> bool:
            return x != e and game.edge_owner[x] == p and game.edge_kind[x] == _ROAD

        def beside(v: int) -> set[int]:
            """The canal towns p's roads reach from end ``v`` of the new road, past no town."""
            return {v} & canal if v in spaces.towns else spaces.reach(v, own_but_e) & canal

        # A pair the new road links has a town on each side of it and was not linked before.
        x, y = t.edge_vertices[e]
        new = {
            (min(a, b), max(a, b))
            for a in beside(x)
            for b in beside(y)
            if a != b and b not in spaces.reach(a, own_but_e)
        }
        if not new:
            return []
        state = self._state(game)
        color = game.players[p]
        events: list[Event] = []
        for a, b in sorted(new):
            mark = [_key(t.vertices[a]), _key(t.vertices[b])]
            if self.once_per == "game" and any(m[1:] == mark for m in state["linked"]):
                continue
            state["linked"].append([color, *mark])
            if state["supply"] == 0:
                continue  # GAP: an empty supply pays nothing
            state["supply"] -= 1
            state["held"][color] = state["held"].get(color, 0) + 1
            events.append(
                {
                    "type": "canal_tile",
                    "player": color,
                    "towns": [list(t.vertices[a]), list(t.vertices[b])],
                    "text": "links two Erie Canal towns and takes a canal tile",
                }
            )
        return events

    # -- playing and trading tiles ---------------------------------------------------------

    def generate(self, game: Game, out: list[Action]) -> None:
        """Tiles to play; and trades of one tile for 1 or 2 cards of one resource (any other
        price is as legal, like a domestic trade, but not listed: there is no end to them)."""
        p = game.current
        held = self._view(game)["held"]
        if not any(held.values()) or not self._may_trade(game, p):
            return
        me = game.players[p]
        if self.held(game, p):
            active = set(self._view(game)["active"])
            for i, r in enumerate(RESOURCES):
                if r.value not in active and game.trade_ratios[p][i] > 2:
                    out.append(PlayCanalTile(me, r))
        for o, partner in enumerate(game.players):
            if o == p:
                continue
            for i in range(len(RESOURCES)):
                for n in (1, 2):
                    cards = Cards.of(**{RESOURCES[i].value: n})
                    if self.held(game, p) and game.hands[o][i] >= n:
                        out.append(SellCanalTile(me, partner, cards))
                    if self.held(game, o) and game.hands[p][i] >= n:
                        out.append(BuyCanalTile(me, partner, cards))

    def _may_trade(self, game: Game, p: int) -> bool:
        from companion.game import Phase

        return (
            game.phase == Phase.MAIN
            and p == game.current
            and not (game.turn.built and not game.rules.trade_after_build)
        )

    def check(self, game: Game, p: int, action: Action) -> None:
        from companion.game import IllegalAction

        if not self._may_trade(game, p):
            raise IllegalAction(
                "5.3.10",
                "canal tiles are played and traded by the player to move, "
                "in the trade phase of their turn",
            )
        match action:
            case PlayCanalTile(resource=r):
                if not self.held(game, p):
                    raise IllegalAction("5.3.10", "{} holds no canal tile", game.players[p])
                if r.value in self._view(game)["active"]:
                    raise IllegalAction("5.3.10", "a canal tile is already in play on {}", r.value)
                if game.trade_ratios[p][RESOURCES.index(r)] <= 2:
                    raise IllegalAction(
                        "5.3.10", "{} trades 2 {} for 1 already", game.players[p], r.value
                    )
            case SellCanalTile(partner=partner, get=get):
                o = self._partner(game, p, partner)
                if not self.held(game, p):
                    raise IllegalAction("5.3.10", "{} holds no canal tile", game.players[p])
                _require_hand(game, o, get)
            case BuyCanalTile(partner=partner, give=give):
                o = self._partner(game, p, partner)
                if not self.held(game, o):
                    raise IllegalAction("5.3.10", "{} holds no canal tile", partner)
                _require_hand(game, p, give)

    def _partner(self, game: Game, p: int, partner: str) -> int:
        from companion.game import IllegalAction

        o = game.seat(partner)
        if o == p:
            raise IllegalAction("1.8.2", "a player cannot trade with themselves")
        return o

    def execute(self, game: Game, p: int, action: Action) -> list[Event]:
        state = self._state(game)
        held = state["held"]
        me = game.players[p]
        match action:
            case PlayCanalTile(resource=r):
                held[me] -= 1
                state["active"].append(r.value)
                game.trade_ratios[p][RESOURCES.index(r)] = 2
                return [
                    {
                        "type": "canal_tile_played",
                        "player": me,
                        "resource": r.value,
                        "text": f"plays a canal tile: 2 {r.value} for 1 card this turn",
                    }
                ]
            case SellCanalTile(partner=partner, get=get):
                _move_cards(game, game.seat(partner), p, get)
                held[me] -= 1
                held[partner] = held.get(partner, 0) + 1
                return [_trade_event(me, partner, "sells", get)]
            case BuyCanalTile(partner=partner, give=give):
                _move_cards(game, p, game.seat(partner), give)
                held[partner] -= 1
                held[me] = held.get(me, 0) + 1
                return [_trade_event(me, partner, "buys", give)]
        raise AssertionError(f"not a canal action: {action!r}")

    def turn_ended(self, game: Game, p: int) -> list[Event]:
        state = game.hook_state.get(self.name)
        if not state or not state["active"]:
            return []
        country = self._country(game)
        for name in state["active"]:  # the tiles go back to the supply (5.3.10)
            r = RESOURCES.index(Resource(name))
            game.trade_ratios[p][r] = country.trade_ratio(game, p, r)
        state["supply"] += len(state["active"])
        state["active"] = []
        return []

    def public_view(self, game: Game) -> dict[str, Any] | None:
        state = self._view(game)
        items: list[dict[str, Any]] = [
            {"label": "Canal tiles in the supply", "value": state["supply"]}
        ]
        items += [
            {"label": "Canal tiles", "value": n, "color": color}
            for color, n in sorted(state["held"].items())
            if n
        ]
        if state["active"]:
            items.append(
                {
                    "label": "In play this turn",
                    "text": ", ".join(f"2 {r} : 1" for r in state["active"]),
                }
            )
        t = game.topology
        return {
            "title": "Erie Canal",
            "text": "Link two canal towns with your roads (no town between) for a canal tile; "
            "play it for 2:1 trades of one resource this turn.",
            "sections": [{"title": "Canal tiles", "kind": "counters", "items": items}],
            "map": {"canal": [list(v) for v in self.canal if v in t.vertex_index]},
        }


def _require_hand(game: Game, p: int, cards: Cards) -> None:
    from companion.game import IllegalAction

    if cards.total == 0:
        raise IllegalAction("5.3.10", "a canal tile is traded for resources, not for nothing")
    if any(c > h for c, h in zip(cards.counts, game.hands[p], strict=True)):
        raise IllegalAction("1.8.2", "{} does not hold those cards", game.players[p])


def _move_cards(game: Game, src: int, dst: int, cards: Cards) -> None:
    for i, n in enumerate(cards.counts):
        game.hands[src][i] -= n
        game.hands[dst][i] += n


def _trade_event(me: str, partner: str, verb: str, cards: Cards) -> Event:
    what = ", ".join(f"{n} {r}" for r, n in cards.to_json().items())
    return {
        "type": "canal_tile_trade",
        "player": me,
        "partner": partner,
        "cards": cards.to_json(),
        "text": f"{verb} a canal tile {'to' if verb == 'sells' else 'from'} {partner} for {what}",
    }
