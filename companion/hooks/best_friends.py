"""Best Friends (Beste Freunde, RULES.md 5.1): guild favours earned by kindness, redeemed for
advantages.

Favours are face-down tiles of five guilds. A player earns them by a harmless robber move
(5.1.3a), by a gift an opponent accepts (5.1.3b) and by connecting their roads to an opponent's
structure for the first time (5.1.4: the opponent takes 1, the builder 3). Each favour is one
:class:`DrawFavour`, a decision the game waits for; its tile is drawn at random (or entered as
drawn at the table). In their own turn a player may make one redemption (:class:`RedeemFavour`)
or one swap (:class:`SwapFavour`, then :class:`ReturnFavour`), 5.1.6-5.1.8.

Everything the seeds leave open is a parameter of the hook (docs/rules-choices.md, BF-*):
``favours`` (the supply by guild, BF-FAVOUR-COUNT), ``catan_chips`` (the master builders'
chips), ``trader_swaps``, ``before_roll`` (whether favours and gifts may be used before the
roll, BF-WHEN) and ``reshuffle`` (whether redeemed tiles go back into an empty supply,
BF-EMPTY-SUPPLY).

>>> from companion.layouts import random_board
>>> from companion.game import Game, Rules
>>> rules = Rules.from_json({**Rules.for_players(3).to_json(),
...                          "hooks": [{"hook": "best_friends"}]})
>>> game = Game(random_board(3, seed=1), ["red", "blue", "white"], rules, rng=1)
>>> game.public_view()["scenario"]["panels"][0]["title"]
'Guild favours'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from companion.actions import DEV_CARDS, Action, DevCard, register_action
from companion.board import RESOURCES, Resource, Terrain
from companion.hooks.base import Hook, refusal

if TYPE_CHECKING:
    from companion.game import Event, Game, IllegalAction

#: The guilds in the order of RULES.md 5.1.1: (name, tiles in the box, tiles per redemption,
#: what a redemption gives).
GUILDS: tuple[tuple[str, int, int, str], ...] = (
    ("traders", 12, 1, "swap a card with the bank, up to 2 times this turn"),
    ("merchants", 12, 1, "take any 1 resource card"),
    ("road_builders", 12, 1, "build 1 road for free"),
    ("scholars", 24, 2, "draw 1 development card for free"),
    ("master_builders", 24, 2, "take 1 Catan chip (1 victory point)"),
)
GUILD_NAMES: tuple[str, ...] = tuple(g[0] for g in GUILDS)
BOX: dict[str, int] = {g[0]: g[1] for g in GUILDS}
NEEDED: dict[str, int] = {g[0]: g[2] for g in GUILDS}
EFFECT: dict[str, str] = {g[0]: g[3] for g in GUILDS}


def guild_words(guild: str) -> str:
    """A guild's name in words.

    >>> guild_words("road_builders")
    'road builders'
    """
    return guild.replace("_", " ")


@register_action
@dataclass(frozen=True)
class DrawFavour(Action):
    """Take the favour one is owed: a tile from the face-down supply (5.1.5). ``guild`` is the
    tile drawn at the table, if known; left out, the companion draws it."""

    type: ClassVar[str] = "draw_favour"
    label: ClassVar[str] = "Draw a favour tile"
    guild: str | None = None


@register_action
@dataclass(frozen=True)
class RedeemFavour(Action):
    """Redeem a guild's favour (5.1.6-5.1.7). ``resource`` is what a merchants' favour takes;
    ``card`` the development card a scholars' favour draws (filled in when drawn)."""

    type: ClassVar[str] = "redeem_favour"
    label: ClassVar[str] = "Redeem a favour"
    guild: str
    resource: Resource | None = None
    card: DevCard | None = None


@register_action
@dataclass(frozen=True)
class TraderSwap(Action):
    """A traders' favour at work: one card to the bank for another (5.1.7)."""

    type: ClassVar[str] = "trader_swap"
    label: ClassVar[str] = "Traders: swap with the bank"
    give: Resource
    get: Resource


@register_action
@dataclass(frozen=True)
class SwapFavour(Action):
    """Instead of a redemption: draw a tile, then return one (5.1.8). ``guild`` as in
    :class:`DrawFavour`."""

    type: ClassVar[str] = "swap_favour"
    label: ClassVar[str] = "Swap a favour tile"
    guild: str | None = None


@register_action
@dataclass(frozen=True)
class ReturnFavour(Action):
    """The second half of a swap: one own tile back into the supply, face down (5.1.8)."""

    type: ClassVar[str] = "return_favour"
    label: ClassVar[str] = "Return a favour tile"
    guild: str


@register_action
@dataclass(frozen=True)
class OfferGift(Action):
    """Offer one ``resource`` card to ``partner``, whose visible VP are at most one's own
    (5.1.3b); the partner accepts or refuses."""

    type: ClassVar[str] = "offer_gift"
    label: ClassVar[str] = "Offer a gift"
    partner: str
    resource: Resource


@register_action
@dataclass(frozen=True)
class AcceptGift(Action):
    type: ClassVar[str] = "accept_gift"
    label: ClassVar[str] = "Accept the gift"


@register_action
@dataclass(frozen=True)
class RefuseGift(Action):
    type: ClassVar[str] = "refuse_gift"
    label: ClassVar[str] = "Refuse the gift"


class BestFriends(Hook):
    """The guild favours of Best Friends (RULES.md 5.1). See the module's docstring."""

    name = "best_friends"
    actions = (
        DrawFavour,
        RedeemFavour,
        TraderSwap,
        SwapFavour,
        ReturnFavour,
        OfferGift,
        AcceptGift,
        RefuseGift,
    )

    def __init__(self, area_map: Mapping[str, frozenset[tuple[int, int]]], **params: Any):
        super().__init__(area_map, **params)
        favours = params.get("favours", BOX)
        unknown = set(favours) - set(GUILD_NAMES)
        if unknown:
            raise ValueError(f"best_friends: unknown guild {sorted(unknown)[0]!r}")
        self.favours = {g: int(favours.get(g, 0)) for g in GUILD_NAMES}
        if any(n < 0 for n in self.favours.values()):
            raise ValueError("best_friends: favour counts must be whole numbers >= 0")
        self.catan_chips = int(params.get("catan_chips", 12))
        self.trader_swaps = int(params.get("trader_swaps", 2))
        self.before_roll = bool(params.get("before_roll", False))
        self.reshuffle = bool(params.get("reshuffle", False))

    # -- state -----------------------------------------------------------------------------

    def setup(self, game: Game) -> None:
        game.hook_state[self.name] = {
            "supply": dict(self.favours),
            "redeemed": {g: 0 for g in GUILD_NAMES},
            # each player's tiles: [guild, turn drawn] (a tile is usable in a later turn)
            "held": {c: [] for c in game.players},
            "draws": [],  # colours owed a tile, in order
            "returning": None,  # the colour that must put a tile back after a swap
            "offer": None,  # an open gift: [giver, partner, resource]
            "refused": [],  # who refused a gift this turn
            "gave": False,  # a gift was accepted this turn
            "acted": -1,  # the turn of the current player's redemption or swap
            "swaps_left": 0,  # traders' swaps left this turn
            "chips": self.catan_chips,
        }

    def state(self, game: Game) -> dict[str, Any]:
        """This hook's part of ``game.hook_state`` (made by :meth:`setup`)."""
        return game.hook_state[self.name]

    def _owe(self, game: Game, colors: list[str]) -> None:
        """Queue favours for ``colors`` (one entry per tile), as far as the supply reaches
        (BF-EMPTY-SUPPLY: with ``reshuffle`` the redeemed tiles make a new supply)."""
        st = self.state(game)
        for color in colors:
            if self._supply_total(st) - len(st["draws"]) <= 0 and self.reshuffle:
                for g in GUILD_NAMES:
                    st["supply"][g] += st["redeemed"][g]
                    st["redeemed"][g] = 0
            if self._supply_total(st) - len(st["draws"]) > 0:
                st["draws"].append(color)

    def _supply_total(self, st: Mapping[str, Any]) -> int:
        return sum(st["supply"].values())

    def _usable(self, game: Game, color: str) -> dict[str, int]:
        """Tiles of ``color`` that may be redeemed now: drawn before this turn (5.1.6)."""
        out = {g: 0 for g in GUILD_NAMES}
        for guild, turn in self.state(game)["held"][color]:
            if turn < game.turn_number:
                out[guild] += 1
        return out

    def _counts(self, game: Game, color: str) -> dict[str, int]:
        out = {g: 0 for g in GUILD_NAMES}
        for guild, _ in self.state(game)["held"][color]:
            out[guild] += 1
        return out

    def _own_turn_phases(self) -> tuple[Any, ...]:
        from companion.game import Phase

        return (Phase.ROLL, Phase.MAIN) if self.before_roll else (Phase.MAIN,)

    # -- earning favours -------------------------------------------------------------------

    def may_spare(self, game: Game, p: int, h: int) -> bool:
        # 5.1.3a: on the desert one may choose not to rob a player who has a building there.
        return game.board.tiles[game.topology.hexes[h]].terrain == Terrain.DESERT

    def after_robber(self, game: Game, p: int, h: int, victim: int | None) -> list[Event]:
        t = game.topology
        empty = all(game.vertex_owner[v] < 0 for v in t.hex_vertices[h])
        spared = victim is None and self.may_spare(game, p, h)
        if not (empty or spared):
            return []
        color = game.players[p]
        self._owe(game, [color])
        why = "a harmless robber move" if empty else "sparing the desert's neighbours"
        return [
            {
                "type": "favour_earned",
                "player": color,
                "favours": 1,
                "text": f"earns a favour for {why}",
            }
        ]

    def after_route(self, game: Game, p: int, e: int, kind: int, founding: bool) -> list[Event]:
        if founding:  # 5.1.4: connections made in the founding phase earn nothing
            return []
        met = self._new_connections(game, p, e)
        if not met:
            return []
        color = game.players[p]
        # 5.1.4: each opponent first takes 1, then the builder 3 (the builder's order of the
        # opponents only changes who draws first from the same shuffled supply: clockwise).
        n = len(game.players)
        order = sorted(met, key=lambda o: (o - p) % n)
        self._owe(game, [game.players[o] for o in order] + [color] * 3)
        names = ", ".join(game.players[o] for o in order)
        return [
            {
                "type": "favour_earned",
                "player": color,
                "favours": 3,
                "connected": [game.players[o] for o in order],
                "text": f"connects to {names} for the first time: 1 favour each, 3 for the builder",
            }
        ]

    def _new_connections(self, game: Game, p: int, e: int) -> set[int]:
        """Opponents one of whose structures seat ``p``'s new road on side ``e`` touches,
        where no structure of ``p`` that the road joins touched it before (5.1.4)."""
        ends = set(game.topology.edge_vertices[e])
        joined = set().union(*(c for c in _structures(game, p, skip=e) if c & ends))
        met = set()
        for o in range(len(game.players)):
            if o == p:
                continue
            for structure in _structures(game, o):
                if structure & ends and not structure & joined:
                    met.add(o)
        return met

    # -- the hook's own actions ------------------------------------------------------------

    def pending(self, game: Game) -> IllegalAction | None:
        st = self.state(game)
        if st["returning"] is not None:
            return refusal("5.1.8", "{} must first return a favour tile", st["returning"])
        if st["offer"] is not None:
            return refusal("5.1.3", "{} must first accept or refuse the gift", st["offer"][1])
        if st["draws"]:
            return refusal("5.1.5", "{} must first draw a favour tile", st["draws"][0])
        return None

    def generate(self, game: Game, out: list[Action]) -> None:
        from companion.game import Phase

        st = self.state(game)
        if game.phase == Phase.GAME_OVER:
            return
        if st["returning"] is not None or st["offer"] is not None or st["draws"]:  # pending
            if st["returning"] is not None:
                color = st["returning"]
                out.extend(
                    ReturnFavour(color, g) for g, n in self._counts(game, color).items() if n
                )
            elif st["offer"] is not None:
                partner = st["offer"][1]
                out.extend((AcceptGift(partner), RefuseGift(partner)))
            else:
                # Drawn by the companion, or the tile drawn at the table, entered.
                color = st["draws"][0]
                out.append(DrawFavour(color))
                out.extend(DrawFavour(color, g) for g in GUILD_NAMES if st["supply"][g])
            return
        if game.phase not in self._own_turn_phases():
            return
        p, me = game.current, game.current_player
        hand = game.hands[p]
        if st["swaps_left"]:
            for give in range(len(RESOURCES)):
                if hand[give]:
                    for get in range(len(RESOURCES)):
                        if get != give and game.bank[get]:
                            out.append(TraderSwap(me, RESOURCES[give], RESOURCES[get]))
        if st["acted"] != game.turn_number:
            usable = self._usable(game, me)
            for guild in GUILD_NAMES:
                if usable[guild] >= NEEDED[guild] and self._effect_error(game, p, guild) is None:
                    if guild == "merchants":
                        out.extend(
                            RedeemFavour(me, guild, r)
                            for i, r in enumerate(RESOURCES)
                            if game.bank[i]
                        )
                    else:
                        out.append(RedeemFavour(me, guild))
            if self._supply_total(st):
                out.append(SwapFavour(me))
                out.extend(SwapFavour(me, g) for g in GUILD_NAMES if st["supply"][g])
        if self._may_gift(game):
            mine = game.public_victory_points(p)
            for o, other in enumerate(game.players):
                if o != p and other not in st["refused"] and game.public_victory_points(o) <= mine:
                    out.extend(OfferGift(me, other, r) for i, r in enumerate(RESOURCES) if hand[i])

    def _may_gift(self, game: Game) -> bool:
        from companion.game import Phase

        return game.phase == Phase.MAIN and not self.state(game)["gave"]

    def _effect_error(self, game: Game, p: int, guild: str) -> IllegalAction | None:
        """Why a favour of ``guild`` could do nothing for seat ``p`` now, or None."""
        st = self.state(game)
        if guild == "traders" and not any(game.hands[p]):
            return refusal("5.1.7", "traders swap a card of your hand: you hold none")
        if guild == "merchants" and not any(game.bank):
            return refusal("5.1.7", "the bank has no card for the merchants to give")
        if guild == "road_builders" and not (
            game.roads_left[p] and game.road_spots(game.players[p])
        ):
            return refusal("5.1.7", "there is no free spot (or no road) for the road builders")
        if guild == "scholars" and not any(game.deck):
            return refusal("5.1.7", "the development cards are used up")
        if guild == "master_builders" and st["chips"] <= 0:
            return refusal("5.1.7", "the master builders' Catan chips are used up")
        return None

    def check(self, game: Game, p: int, action: Action) -> None:
        st = self.state(game)
        me = game.players[p]
        pending = self.pending(game)
        if isinstance(action, DrawFavour):
            if not st["draws"] or st["draws"][0] != me or st["returning"] or st["offer"]:
                raise pending or refusal("5.1.5", "{} is owed no favour", me)
            self._check_guild(st, action.guild)
            return
        if isinstance(action, ReturnFavour):
            if st["returning"] != me:
                raise pending or refusal("5.1.8", "{} has no favour tile to return", me)
            if not self._counts(game, me).get(action.guild):
                raise refusal("5.1.8", "{} holds no {} tile", me, guild_words(action.guild))
            return
        if isinstance(action, AcceptGift | RefuseGift):
            if st["offer"] is None or st["offer"][1] != me:
                raise pending or refusal("5.1.3", "nobody offers {} a gift", me)
            return
        if pending is not None:
            raise pending
        if game.phase not in self._own_turn_phases() or p != game.current:
            when = "in one's own turn" + ("" if self.before_roll else ", after the roll")
            raise refusal("5.1.6", "favours and gifts are used {}", when)
        if isinstance(action, TraderSwap):
            self._check_trader_swap(game, p, action)
        elif isinstance(action, RedeemFavour | SwapFavour):
            if st["acted"] == game.turn_number:
                raise refusal("5.1.6", "one redemption or one swap a turn: {} had theirs", me)
            if isinstance(action, SwapFavour):
                if not self._supply_total(st):
                    raise refusal("5.1.8", "the favour supply is empty")
                self._check_guild(st, action.guild)
            else:
                self._check_redeem(game, p, action)
        elif isinstance(action, OfferGift):
            self._check_gift(game, p, action)

    def _check_guild(self, st: Mapping[str, Any], guild: str | None) -> None:
        if guild is None:
            return
        if guild not in GUILD_NAMES:
            raise refusal("5.1.1", "{!r} is not a guild ({})", guild, ", ".join(GUILD_NAMES))
        if not st["supply"][guild]:
            raise refusal("5.1.5", "no {} tile is left in the supply", guild_words(guild))

    def _check_trader_swap(self, game: Game, p: int, a: TraderSwap) -> None:
        if not self.state(game)["swaps_left"]:
            raise refusal("5.1.7", "no traders' swap left this turn: redeem a traders' favour")
        if a.give == a.get:
            raise refusal("5.1.7", "a swap gives one resource for another")
        if not game.hands[p][RESOURCES.index(a.give)]:
            raise refusal("5.1.7", "{} holds no {}", game.players[p], a.give.value)
        if not game.bank[RESOURCES.index(a.get)]:
            raise refusal("1.6.5", "the bank has no {} left", a.get.value)

    def _check_redeem(self, game: Game, p: int, a: RedeemFavour) -> None:
        me = game.players[p]
        if a.guild not in GUILD_NAMES:
            raise refusal("5.1.1", "{!r} is not a guild ({})", a.guild, ", ".join(GUILD_NAMES))
        need, have = NEEDED[a.guild], self._usable(game, me)[a.guild]
        if have < need:
            fresh = self._counts(game, me)[a.guild] - have
            later = f" ({fresh} drawn this turn count from the next)" if fresh else ""
            raise refusal(
                "5.1.6",
                "{} favours take {} tile(s); {} has {}{}",
                guild_words(a.guild),
                need,
                me,
                have,
                later,
            )
        error = self._effect_error(game, p, a.guild)
        if error is not None:
            raise error
        if a.guild == "merchants":
            if a.resource is None:
                raise refusal("5.1.7", "name the resource the merchants give")
            if not game.bank[RESOURCES.index(a.resource)]:
                raise refusal("1.6.5", "the bank has no {} left", a.resource.value)
        elif a.resource is not None:
            raise refusal("5.1.7", "only the merchants' favour takes a resource")
        if a.card is not None:
            if a.guild != "scholars":
                raise refusal("5.1.7", "only the scholars' favour draws a development card")
            if not game.deck[DEV_CARDS.index(a.card)]:
                raise refusal("1.10.1", "no {} is left in the deck", a.card.value)

    def _check_gift(self, game: Game, p: int, a: OfferGift) -> None:
        st = self.state(game)
        o = game.seat(a.partner)
        if not self._may_gift(game):
            raise refusal("5.1.3", "one accepted gift a turn, after the roll")
        if o == p:
            raise refusal("5.1.3", "a gift goes to an opponent")
        if a.partner in st["refused"]:
            raise refusal("5.1.3", "{} refused a gift this turn already", a.partner)
        if game.public_victory_points(o) > game.public_victory_points(p):
            raise refusal("5.1.3", "gifts go to players with no more visible points than yours")
        if not game.hands[p][RESOURCES.index(a.resource)]:
            raise refusal("5.1.3", "{} holds no {}", game.players[p], a.resource.value)

    def resolve(self, game: Game, action: Action) -> Action:
        st = self.state(game)
        if isinstance(action, DrawFavour | SwapFavour) and action.guild is None:
            return type(action)(action.player, self._draw_guild(game, st))
        if isinstance(action, RedeemFavour) and action.guild == "scholars" and action.card is None:
            card = DEV_CARDS[game.rng.pick(game.deck)]
            return RedeemFavour(action.player, action.guild, None, card)
        return action

    def _draw_guild(self, game: Game, st: Mapping[str, Any]) -> str:
        return GUILD_NAMES[game.rng.pick([st["supply"][g] for g in GUILD_NAMES])]

    def execute(self, game: Game, p: int, action: Action) -> list[Event]:
        st = self.state(game)
        me = game.players[p]
        if isinstance(action, DrawFavour | SwapFavour):
            assert action.guild is not None
            st["supply"][action.guild] -= 1
            st["held"][me].append([action.guild, game.turn_number])
            if isinstance(action, DrawFavour):
                st["draws"].pop(0)
                # The tile is face down: its guild stays in the journal and the owner's view.
                return [{"type": "favour_drawn", "player": me, "text": "draws a favour tile"}]
            st["acted"] = game.turn_number
            st["returning"] = me
            return [{"type": "favour_swap", "player": me, "text": "draws a tile to swap one"}]
        if isinstance(action, ReturnFavour):
            held = st["held"][me]
            # The newest tile of that guild goes back (a usable one is worth more to keep).
            i = max(i for i, (g, _) in enumerate(held) if g == action.guild)
            held.pop(i)
            st["supply"][action.guild] += 1
            st["returning"] = None
            return [{"type": "favour_returned", "player": me, "text": "returns a favour tile"}]
        if isinstance(action, OfferGift):
            st["offer"] = [me, action.partner, action.resource.value]
            return [
                {
                    "type": "gift_offered",
                    "player": me,
                    "partner": action.partner,
                    "resource": action.resource.value,
                    "text": f"offers {action.partner} 1 {action.resource.value} as a gift",
                }
            ]
        if isinstance(action, AcceptGift | RefuseGift):
            giver, _, resource = st["offer"]
            st["offer"] = None
            if isinstance(action, RefuseGift):
                st["refused"].append(me)
                return [{"type": "gift_refused", "player": me, "text": f"refuses {giver}'s gift"}]
            i = RESOURCES.index(Resource(resource))
            game.hands[game.seat(giver)][i] -= 1
            game.hands[p][i] += 1
            st["gave"] = True
            self._owe(game, [giver])
            return [
                {
                    "type": "gift_accepted",
                    "player": me,
                    "giver": giver,
                    "resource": resource,
                    "text": f"accepts 1 {resource} from {giver}, who earns a favour",
                }
            ]
        if isinstance(action, TraderSwap):
            give, get = RESOURCES.index(action.give), RESOURCES.index(action.get)
            game.hands[p][give] -= 1
            game.bank[give] += 1
            game.hands[p][get] += 1
            game.bank[get] -= 1
            st["swaps_left"] -= 1
            text = f"swaps 1 {action.give.value} for 1 {action.get.value} (traders)"
            return [{"type": "trader_swap", "player": me, "text": text}]
        assert isinstance(action, RedeemFavour)
        return self._redeem(game, p, action)

    def _redeem(self, game: Game, p: int, a: RedeemFavour) -> list[Event]:
        from companion.game import Phase

        st = self.state(game)
        me = game.players[p]
        held = st["held"][me]
        for _ in range(NEEDED[a.guild]):  # the oldest usable tiles go face up on the house
            i = min(i for i, (g, t) in enumerate(held) if g == a.guild and t < game.turn_number)
            held.pop(i)
        st["redeemed"][a.guild] += NEEDED[a.guild]
        st["acted"] = game.turn_number
        event: Event = {"type": "favour_redeemed", "player": me, "guild": a.guild}
        what = EFFECT[a.guild]
        if a.guild == "traders":
            st["swaps_left"] = self.trader_swaps
        elif a.guild == "merchants":
            assert a.resource is not None
            i = RESOURCES.index(a.resource)
            game.bank[i] -= 1
            game.hands[p][i] += 1
            what = f"takes 1 {a.resource.value}"
        elif a.guild == "road_builders":
            game.after_road_building = game.phase
            game.free_roads = 1
            game.phase = Phase.ROAD_BUILDING
        elif a.guild == "scholars":
            assert a.card is not None
            card = DEV_CARDS.index(a.card)
            game.deck[card] -= 1
            game.dev_hands[p][card] += 1
            game.turn.bought[card] += 1  # like a bought card: playable from the next turn
            event["card"] = a.card.value
            event["secret"] = ["card"]  # the owner's only: see web.views.redact
            what = "draws a development card"
        else:
            st["chips"] -= 1
            game.special_vp[p] += 1
            what = "takes a Catan chip (1 victory point)"
        event["text"] = f"redeems the {guild_words(a.guild)}' favour: {what}"
        return [event]

    def turn_ended(self, game: Game, p: int) -> list[Event]:
        st = self.state(game)
        st["swaps_left"] = 0
        st["refused"] = []
        st["gave"] = False
        return []

    # -- what the page shows ---------------------------------------------------------------

    def public_view(self, game: Game) -> dict[str, Any]:
        st = self.state(game)
        tiles = [
            {"label": c, "value": len(st["held"][c]), "color": c, "text": "favour tiles"}
            for c in game.players
        ]
        houses = [
            {
                "label": guild_words(g).capitalize(),
                "value": st["redeemed"][g],
                "text": f"{NEEDED[g]} tile{'s' if NEEDED[g] > 1 else ''}: {EFFECT[g]}",
            }
            for g in GUILD_NAMES
        ]
        status = [
            {"label": "Tiles in the face-down supply", "value": self._supply_total(st)},
            {"label": "Catan chips left for the master builders", "value": st["chips"]},
        ]
        if st["offer"] is not None:
            giver, partner, resource = st["offer"]
            status.append({"label": f"{giver} offers {partner} 1 {resource}", "color": giver})
        if st["draws"]:
            status.append(
                {
                    "label": f"{st['draws'][0]} draws a favour tile",
                    "color": st["draws"][0],
                    "text": f"{len(st['draws'])} tile(s) owed",
                }
            )
        return {
            "title": "Guild favours",
            "text": "Earn favours by harmless robber moves, gifts and new connections; "
            "one redemption or swap per turn.",
            "sections": [
                {"title": "Favour tiles held", "kind": "counters", "items": tiles},
                {"title": "Redeemed at the guild houses", "kind": "cards", "items": houses},
                {"title": "Supply", "kind": "list", "items": status},
            ],
        }

    def private_view(self, game: Game, p: int) -> dict[str, Any]:
        me = game.players[p]
        counts, usable = self._counts(game, me), self._usable(game, me)
        items = [
            {
                "label": guild_words(g).capitalize(),
                "value": counts[g],
                "text": f"{usable[g]} usable now; {NEEDED[g]} per redemption",
            }
            for g in GUILD_NAMES
            if counts[g]
        ]
        return {
            "title": "Your favour tiles",
            "sections": [{"kind": "counters", "items": items}],
        }

    def bot_score(self, game: Game, action: Action) -> float | None:
        # The base game's end of turn scores 5: a redemption is worth more, a swap less.
        if isinstance(action, RedeemFavour):
            return {"master_builders": 30.0, "scholars": 8.0, "road_builders": 7.0}.get(
                action.guild, 6.0
            )
        if isinstance(action, TraderSwap):
            hand = game.hands[game.seat(action.player)]
            return (
                6.0
                if hand[RESOURCES.index(action.give)] > 1 and not hand[RESOURCES.index(action.get)]
                else 1.0
            )
        if isinstance(action, AcceptGift):
            return 3.0
        if isinstance(action, ReturnFavour):
            return -NEEDED[action.guild] - GUILD_NAMES.index(action.guild) * 0.1
        if isinstance(action, OfferGift):
            return (
                5.5
                if game.hands[game.seat(action.player)][RESOURCES.index(action.resource)] > 2
                else 0.0
            )
        return None  # a base-game action: the bot's own rules of thumb judge it


def _structures(game: Game, p: int, skip: int = -1) -> list[set[int]]:
    """Seat ``p``'s structures (5.1.4) as the sets of corners their pieces occupy: roads and
    buildings that touch, side ``skip`` left out."""
    t = game.topology
    parent: dict[int, int] = {}

    def find(v: int) -> int:
        parent.setdefault(v, v)
        while parent[v] != v:
            parent[v] = parent[parent[v]]
            v = parent[v]
        return v

    for v in game.buildings_of[p]:
        find(v)
    for e in game.pieces_of[p]:
        if e != skip:
            a, b = t.edge_vertices[e]
            parent[find(a)] = find(b)
    groups: dict[int, set[int]] = {}
    for v in list(parent):
        groups.setdefault(find(v), set()).add(v)
    return list(groups.values())
