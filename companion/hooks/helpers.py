"""The Helpers (Die Helfer, RULES.md 5.2): each player has one helper card whose advantage they
use, then keep (turned to its B side, for one more use) or exchange for another from the
display.

The seeds give the stack and how cards change hands (5.2.1-5.2.5) but not what the helpers do
(GAP 5.2.6). The companion's ten helpers, each one effect of :data:`HELPERS`, are our choice,
close to the published cards where their rules are plain enough for a rules engine (see
docs/rules-choices.md, HELPER-TEXTS); a scenario file deals them in the order it lists under
``stack`` (check BB-HELPER-STACK), so a table may renumber or replace them.

Using a helper is an action of its own (:class:`HelperClaim`, :class:`HelperPort`,
:class:`HelperAssist`, :class:`HelperAlms`, :class:`HelperDesert`,
:class:`HelperForcedTrade`); the game then waits for the user's :class:`HelperKeep` or
:class:`HelperExchange` (5.2.4).

>>> HELPERS["free_port"].name
'Harbour master'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from companion.actions import Action, register_action
from companion.board import RESOURCES, Hex, Resource, Terrain
from companion.hooks.base import Hook, refusal

if TYPE_CHECKING:
    from companion.game import Event, Game, IllegalAction


@dataclass(frozen=True)
class Helper:
    """One helper's advantage: ``kind`` says how it is used (``claim``: after a roll, by its
    holder in anyone's turn; ``turn``: in the holder's own turn, after the roll)."""

    key: str
    name: str
    kind: str
    text: str


HELPERS: dict[str, Helper] = {
    h.key: h
    for h in (
        Helper(
            "balance",
            "Mayor",
            "claim",
            "After a roll other than 7 that gives you nothing: take 1 resource of your choice.",
        ),
        Helper(
            "free_port",
            "Harbour master",
            "turn",
            "Name a resource: trade it 2:1 with the bank for the rest of your turn.",
        ),
        Helper(
            "road_assist",
            "Road mender",
            "turn",
            "Swap 1 card with the bank for the lumber or brick your next road lacks.",
        ),
        Helper(
            "seven_help",
            "Healer",
            "claim",
            "When a 7 is rolled: with 7 cards or fewer take 1 resource of your choice; with "
            "more, discard nothing.",
        ),
        Helper(
            "forced_trade",
            "Merchant",
            "turn",
            "Name a resource: take 1 from an opponent who has it, and give them any 1 card.",
        ),
        Helper(
            "alms",
            "Almoner",
            "turn",
            "Take 1 card of your choice from a player with more visible points than you.",
        ),
        Helper(
            "settlement_assist",
            "Carpenter",
            "turn",
            "Swap 1 card with the bank for the card your next settlement lacks.",
        ),
        Helper(
            "city_assist",
            "Stonemason",
            "turn",
            "Swap 1 card with the bank for the grain or ore your next city lacks.",
        ),
        Helper(
            "robber_to_desert",
            "Sheriff",
            "turn",
            "Send the robber to a desert and take 1 card of the hex it leaves, if it has one.",
        ),
        Helper(
            "dev_assist",
            "Scholar",
            "turn",
            "Swap 1 card with the bank for the card your next development card lacks.",
        ),
    )
}

#: The stack of RULES.md 5.2.2 as the scenario files deal it by default.
DEFAULT_STACK: tuple[dict[str, Any], ...] = (
    {"number": 1, "helper": "balance"},
    {"number": 2, "helper": "free_port"},
    {"number": 3, "helper": "road_assist"},
    {"number": 4, "helper": "seven_help"},
    {"number": 5, "helper": "forced_trade"},
    {"number": 6, "helper": "alms"},
    {"helper": "settlement_assist"},
    {"helper": "city_assist"},
    {"helper": "robber_to_desert"},
    {"helper": "dev_assist"},
)

#: What each assisting helper helps to build: its cost by resource index (lumber, brick,
#: wool, grain, ore) and what ``Game`` offers to build it.
ASSIST_COSTS: dict[str, tuple[int, int, int, int, int]] = {
    "road_assist": (1, 1, 0, 0, 0),
    "settlement_assist": (1, 1, 1, 1, 0),
    "city_assist": (0, 0, 0, 2, 3),
    "dev_assist": (0, 0, 1, 1, 1),
}


def stack_problems(stack: Sequence[Mapping[str, Any]]) -> list[str]:
    """What is wrong with a helper stack (RULES.md 5.2.1-5.2.2), in words; empty if nothing.

    >>> stack_problems(DEFAULT_STACK)
    []
    >>> stack_problems(DEFAULT_STACK[1:])[0]
    'the stack has 9 cards; the box has 10 (6 numbered, 4 unnumbered)'
    """
    out = []
    if len(stack) != 10:
        out.append(f"the stack has {len(stack)} cards; the box has 10 (6 numbered, 4 unnumbered)")
    keys = [c.get("helper") for c in stack]
    unknown = [k for k in keys if k not in HELPERS]
    if unknown:
        out.append(f"unknown helper {unknown[0]!r} (known: {', '.join(HELPERS)})")
    if len(set(keys)) != len(keys):
        out.append("a helper is in the stack twice")
    numbers = [c.get("number") for c in stack]
    numbered = [n for n in numbers if n is not None]
    if numbered != list(range(1, 7)) or numbers[: len(numbered)] != numbered:
        out.append("the numbered cards 1 to 6 go on top in order, the unnumbered ones below")
    return out


# -- the actions ---------------------------------------------------------------------------


@register_action
@dataclass(frozen=True)
class HelperClaim(Action):
    """A claim helper's resource (the Mayor's after a barren roll, the Healer's on a 7)."""

    type: ClassVar[str] = "helper_claim"
    label: ClassVar[str] = "Helper: take a resource"
    resource: Resource


@register_action
@dataclass(frozen=True)
class HelperPort(Action):
    type: ClassVar[str] = "helper_port"
    label: ClassVar[str] = "Helper: trade 2:1 this turn"
    resource: Resource


@register_action
@dataclass(frozen=True)
class HelperAssist(Action):
    """Swap ``give`` for ``get`` with the bank, so that the build the helper serves is paid."""

    type: ClassVar[str] = "helper_assist"
    label: ClassVar[str] = "Helper: swap a card to build"
    give: Resource
    get: Resource


@register_action
@dataclass(frozen=True)
class HelperAlms(Action):
    type: ClassVar[str] = "helper_alms"
    label: ClassVar[str] = "Helper: alms"
    partner: str
    resource: Resource


@register_action
@dataclass(frozen=True)
class HelperDesert(Action):
    type: ClassVar[str] = "helper_desert"
    label: ClassVar[str] = "Helper: robber to the desert"
    hex: Hex


@register_action
@dataclass(frozen=True)
class HelperForcedTrade(Action):
    type: ClassVar[str] = "helper_forced_trade"
    label: ClassVar[str] = "Helper: forced trade"
    partner: str
    take: Resource
    give: Resource


@register_action
@dataclass(frozen=True)
class HelperKeep(Action):
    """After a use on the A side: turn the card to its B side, for one more use (5.2.4)."""

    type: ClassVar[str] = "helper_keep"
    label: ClassVar[str] = "Keep the helper (B side)"


@register_action
@dataclass(frozen=True)
class HelperExchange(Action):
    """After a use: return the card to the display and take ``card`` from it (5.2.4)."""

    type: ClassVar[str] = "helper_exchange"
    label: ClassVar[str] = "Exchange the helper"
    card: str


USES: tuple[type[Action], ...] = (
    HelperClaim,
    HelperPort,
    HelperAssist,
    HelperAlms,
    HelperDesert,
    HelperForcedTrade,
)
#: the helper each use action belongs to (an assist serves several)
USE_OF: dict[type[Action], tuple[str, ...]] = {
    HelperClaim: ("balance", "seven_help"),
    HelperPort: ("free_port",),
    HelperAssist: tuple(ASSIST_COSTS),
    HelperAlms: ("alms",),
    HelperDesert: ("robber_to_desert",),
    HelperForcedTrade: ("forced_trade",),
}


class Helpers(Hook):
    """The helper cards of RULES.md 5.2. See the module's docstring."""

    name = "helpers"
    actions = (*USES, HelperKeep, HelperExchange)

    def __init__(self, area_map: Mapping[str, frozenset[tuple[int, int]]], **params: Any):
        super().__init__(area_map, **params)
        stack = params.get("stack", DEFAULT_STACK)
        problems = stack_problems(stack)
        if problems:
            raise ValueError(f"helpers: {problems[0]}")
        self.stack = [str(c["helper"]) for c in stack]
        self.numbers = {str(c["helper"]): c.get("number") for c in stack}

    # -- state -----------------------------------------------------------------------------

    def setup(self, game: Game) -> None:
        game.hook_state[self.name] = {
            "display": list(self.stack),  # the stack, then (after founding) the display
            # colour -> {"card": key, "side": "A" | "B", "since": turn, "used": turn}
            "cards": {},
            "after": None,  # the colour that must keep or exchange after a use
            "claims": {},  # colour -> the helper whose claim the last roll opened
            "shielded": None,  # the colour the Healer spares the discard of the last 7
            "ports": {},  # colour -> resource traded 2:1 this turn
        }

    def state(self, game: Game) -> dict[str, Any]:
        """This hook's part of ``game.hook_state`` (made by :meth:`setup`)."""
        return game.hook_state[self.name]

    def card_of(self, game: Game, color: str) -> dict[str, Any] | None:
        return self.state(game)["cards"].get(color)

    def _ready(self, game: Game, color: str, *keys: str) -> dict[str, Any] | None:
        """``color``'s card if it is one of ``keys`` and may be used now (5.2.5: not in the
        turn it was received, once a turn)."""
        card = self.card_of(game, color)
        if (
            card is None
            or card["card"] not in keys
            or card["since"] >= game.turn_number
            or card["used"] == game.turn_number
        ):
            return None
        return card

    # -- dealing (5.2.3) and the claims a roll opens ---------------------------------------

    def after_settlement(self, game: Game, p: int, v: int, founding: bool) -> list[Event]:
        if not founding or game.founding_step < len(game.players):
            return []
        st = self.state(game)
        key = st["display"].pop(0)
        color = game.players[p]
        st["cards"][color] = {"card": key, "side": "A", "since": game.turn_number, "used": -1}
        return [
            {
                "type": "helper_dealt",
                "player": color,
                "card": key,
                "text": f"takes the helper {HELPERS[key].name} (A side)",
            }
        ]

    def on_roll(self, game: Game, p: int, dice: tuple[int, int]) -> list[Event]:
        st = self.state(game)
        st["claims"] = {}
        st["shielded"] = None
        total = dice[0] + dice[1]
        shield: list[Event] = []
        for q, color in enumerate(game.players):
            if total == 7 and self._ready(game, color, "seven_help"):
                if sum(game.hands[q]) <= game.rules.discard_limit:
                    st["claims"][color] = "seven_help"
                else:  # used at once: nobody would rather discard
                    st["shielded"] = color
                    self.card_of(game, color)["used"] = game.turn_number  # type: ignore[index]
                    st["after"] = color
                    text = "keeps every card on this 7 (Healer)"
                    shield.append({"type": "helper_used", "player": color, "text": text})
            elif total != 7 and self._ready(game, color, "balance") and not _earns(game, q, total):
                st["claims"][color] = "balance"
        return shield + [
            {
                "type": "helper_claim_open",
                "player": c,
                "text": f"may take a resource ({HELPERS[k].name})",
            }
            for c, k in st["claims"].items()
        ]

    def keeps_hand(self, game: Game, p: int) -> bool:
        return self.state(game)["shielded"] == game.players[p]

    def turn_ended(self, game: Game, p: int) -> list[Event]:
        st = self.state(game)
        st["claims"] = {}
        for color, resource in st["ports"].items():
            q = game.seat(color)
            r = RESOURCES.index(Resource(resource))
            game.trade_ratios[q][r] = _harbour_ratio(game, q, r)
        st["ports"] = {}
        return []

    # -- decisions the game waits for --------------------------------------------------------

    def pending(self, game: Game) -> IllegalAction | None:
        st = self.state(game)
        if st["after"] is not None:
            return refusal("5.2.4", "{} must first keep or exchange their helper", st["after"])
        for color, key in st["claims"].items():
            # 5.2.4: on the B side the advantage must be used when the situation arises (if
            # the bank has any card to give).
            card = self._ready(game, color, key)
            if card is not None and card["side"] == "B" and any(game.bank):
                return refusal("5.2.4", "{} must first take the resource of their helper", color)
        return None

    def generate(self, game: Game, out: list[Action]) -> None:
        from companion.game import Phase

        st = self.state(game)
        if game.phase == Phase.GAME_OVER:
            return
        if st["after"] is not None:
            color = st["after"]
            card = self.card_of(game, color)
            assert card is not None
            if card["side"] == "A":
                out.append(HelperKeep(color))
            out.extend(HelperExchange(color, k) for k in st["display"] if k != card["card"])
            return
        for color, key in st["claims"].items():
            if self._ready(game, color, key):
                out.extend(HelperClaim(color, r) for i, r in enumerate(RESOURCES) if game.bank[i])
        if self.pending(game) is not None or game.phase != Phase.MAIN:
            return
        p, me = game.current, game.current_player
        card = self._ready(game, me, *(k for k, h in HELPERS.items() if h.kind == "turn"))
        if card is None:
            return
        for action in self._turn_uses(game, p, card["card"]):
            out.append(action)

    def _turn_uses(self, game: Game, p: int, key: str) -> list[Action]:
        me, hand = game.players[p], game.hands[p]
        held = [r for i, r in enumerate(RESOURCES) if hand[i]]
        out: list[Action] = []
        if key == "free_port":
            out.extend(
                HelperPort(me, r) for i, r in enumerate(RESOURCES) if game.trade_ratios[p][i] > 2
            )
        elif key in ASSIST_COSTS:
            out.extend(self._assists(game, p, key))
        elif key == "alms":
            mine = game.public_victory_points(p)
            for o, other in enumerate(game.players):
                if game.public_victory_points(o) > mine:
                    out.extend(
                        HelperAlms(me, other, r)
                        for i, r in enumerate(RESOURCES)
                        if game.hands[o][i]
                    )
        elif key == "robber_to_desert":
            out.extend(
                HelperDesert(me, h)
                for h in _deserts(game)
                if game.topology.hex_index[h] != game.robber
            )
        elif key == "forced_trade":
            for o, other in enumerate(game.players):
                if o == p:
                    continue
                for t, take in enumerate(RESOURCES):
                    if game.hands[o][t]:
                        out.extend(
                            HelperForcedTrade(me, other, take, give)
                            for give in held
                            if give != take
                        )
        return out

    def _assists(self, game: Game, p: int, key: str) -> list[Action]:
        """The swaps that pay for the build ``key`` helps with: exactly one card is missing,
        the bank has it, a spare card pays for it, and there is room to build."""
        cost, hand = ASSIST_COSTS[key], game.hands[p]
        missing = [i for i in range(len(RESOURCES)) if hand[i] < cost[i]]
        if len(missing) != 1 or cost[missing[0]] - hand[missing[0]] != 1:
            return []
        get = missing[0]
        if not game.bank[get] or _room_error(game, p, key) is not None:
            return []
        me = game.players[p]
        return [
            HelperAssist(me, RESOURCES[give], RESOURCES[get])
            for give in range(len(RESOURCES))
            if give != get and hand[give] > cost[give]
        ]

    def _assist_error(self, game: Game, p: int, key: str, a: HelperAssist) -> IllegalAction | None:
        """Why the swap ``a`` would not serve the build ``key`` helps with, or None."""
        cost = ASSIST_COSTS[key]
        hand = list(game.hands[p])
        give, get = RESOURCES.index(a.give), RESOURCES.index(a.get)
        what = key.removesuffix("_assist").replace("dev", "development card")
        if give == get or not hand[give] or not game.bank[get]:
            return refusal("5.2.6", "swap a card you hold for another the bank has")
        if all(h >= c for h, c in zip(hand, cost, strict=True)):
            return refusal("5.2.6", "you can pay for the {} already", what)
        hand[give] -= 1
        hand[get] += 1
        if not all(h >= c for h, c in zip(hand, cost, strict=True)):
            return refusal("5.2.6", "after that swap the {} is still not paid", what)
        return _room_error(game, p, key)

    def check(self, game: Game, p: int, action: Action) -> None:
        from companion.game import Phase

        st = self.state(game)
        me = game.players[p]
        if isinstance(action, HelperKeep | HelperExchange):
            if st["after"] != me:
                raise self.pending(game) or refusal(
                    "5.2.5", "{} has not used their helper: an unused one is not exchanged", me
                )
            card = self.card_of(game, me)
            assert card is not None
            if isinstance(action, HelperKeep) and card["side"] == "B":
                raise refusal("5.2.4", "after its second use the helper must be exchanged")
            if isinstance(action, HelperExchange) and (
                action.card not in st["display"] or action.card == card["card"]
            ):
                names = ", ".join(k for k in st["display"] if k != card["card"])
                raise refusal("5.2.4", "take another helper from the display: {}", names)
            return
        pending = self.pending(game)
        if isinstance(action, HelperClaim):
            key = st["claims"].get(me)
            if st["after"] is not None:
                raise pending  # type: ignore[misc]
            if key is None or not self._ready(game, me, key):
                raise refusal("5.2.6", "{}'s helper gives nothing for this roll", me)
            if not game.bank[RESOURCES.index(action.resource)]:
                raise refusal("1.6.5", "the bank has no {} left", action.resource.value)
            return
        if pending is not None:
            raise pending
        keys = USE_OF[type(action)]
        card = self.card_of(game, me)
        if card is None or card["card"] not in keys:
            raise refusal("5.2.6", "{}'s helper does not do that", me)
        if card["since"] >= game.turn_number:
            raise refusal("5.2.5", "a helper is not used in the turn it was received")
        if card["used"] == game.turn_number:
            raise refusal("5.2.5", "a helper is used once a turn")
        if game.phase != Phase.MAIN or p != game.current:
            raise refusal("5.2.6", "this helper works in one's own turn, after the roll")
        if action not in self._turn_uses(game, p, card["card"]):
            raise self._why_not(game, p, card["card"], action)

    def _why_not(self, game: Game, p: int, key: str, action: Action) -> IllegalAction:
        if isinstance(action, HelperAssist):
            return self._assist_error(game, p, key, action) or refusal("5.2.6", "not possible")
        if isinstance(action, HelperAlms):
            return refusal(
                "5.2.6", "alms come from a player with more visible points who holds that card"
            )
        if isinstance(action, HelperDesert):
            return refusal("5.2.6", "the robber goes to a desert it is not on")
        if isinstance(action, HelperForcedTrade):
            return refusal("5.2.6", "take a card the opponent holds, for a different one you hold")
        return refusal("5.2.6", "that resource is traded 2:1 already")

    def execute(self, game: Game, p: int, action: Action) -> list[Event]:
        st = self.state(game)
        me = game.players[p]
        card = self.card_of(game, me)
        assert card is not None
        if isinstance(action, HelperKeep):
            card["side"] = "B"
            st["after"] = None
            return [{"type": "helper_kept", "player": me, "text": "keeps the helper (B side)"}]
        if isinstance(action, HelperExchange):
            st["display"].remove(action.card)
            st["display"].append(card["card"])
            old = HELPERS[card["card"]].name
            st["cards"][me] = {
                "card": action.card,
                "side": "A",
                "since": game.turn_number,
                "used": -1,
            }
            st["after"] = None
            text = f"exchanges {old} for {HELPERS[action.card].name}"
            return [{"type": "helper_exchanged", "player": me, "card": action.card, "text": text}]
        event = self._use(game, p, action)
        card["used"] = game.turn_number
        st["claims"].pop(me, None)
        st["after"] = me
        return [event]

    def _use(self, game: Game, p: int, action: Action) -> Event:
        me = game.players[p]
        hands, bank = game.hands, game.bank

        def move(frm: list[int], to: list[int], r: Resource) -> None:
            i = RESOURCES.index(r)
            frm[i] -= 1
            to[i] += 1

        text: str
        if isinstance(action, HelperClaim):
            move(bank, hands[p], action.resource)
            text = f"takes 1 {action.resource.value} (helper)"
        elif isinstance(action, HelperPort):
            r = RESOURCES.index(action.resource)
            game.trade_ratios[p][r] = 2
            self.state(game)["ports"][me] = action.resource.value
            text = f"trades {action.resource.value} 2:1 this turn (helper)"
        elif isinstance(action, HelperAssist):
            move(hands[p], bank, action.give)
            move(bank, hands[p], action.get)
            text = f"swaps 1 {action.give.value} for 1 {action.get.value} to build (helper)"
        elif isinstance(action, HelperAlms):
            move(hands[game.seat(action.partner)], hands[p], action.resource)
            text = f"takes 1 {action.resource.value} from {action.partner} as alms (helper)"
        elif isinstance(action, HelperDesert):
            t = game.topology
            left = game.robber
            game.robber = t.hex_index[action.hex]
            resource = game.board.tiles[t.hexes[left]].terrain.resource
            text = "sends the robber to the desert (helper)"
            if resource is not None and bank[RESOURCES.index(resource)]:
                move(bank, hands[p], resource)
                text += f" and takes 1 {resource.value}"
            return {"type": "helper_used", "player": me, "hex": list(action.hex), "text": text}
        else:
            assert isinstance(action, HelperForcedTrade)
            o = game.seat(action.partner)
            move(hands[o], hands[p], action.take)
            move(hands[p], hands[o], action.give)
            text = (
                f"takes 1 {action.take.value} from {action.partner} for 1 {action.give.value}"
                " (helper)"
            )
        return {"type": "helper_used", "player": me, "text": text}

    # -- what the page shows ---------------------------------------------------------------

    def public_view(self, game: Game) -> dict[str, Any]:
        st = self.state(game)
        held = []
        for color in game.players:
            card = st["cards"].get(color)
            if card is None:
                continue
            helper = HELPERS[card["card"]]
            tags = [f"{card['side']} side"]
            if card["since"] >= game.turn_number:
                tags.append("new this turn")
            if st["claims"].get(color):
                tags.append("may take a resource")
            held.append(
                {
                    "label": f"{helper.name}{self._number(helper.key)}",
                    "text": helper.text,
                    "color": color,
                    "tags": tags,
                }
            )
        display = [
            {
                "label": f"{HELPERS[k].name}{self._number(k)}",
                "text": HELPERS[k].text,
                "tags": ["A side"],
            }
            for k in st["display"]
        ]
        title = "Stack" if game.phase.value.startswith("founding") else "Display"
        sections = [{"title": "Helpers in play", "kind": "cards", "items": held}]
        if st["after"] is not None:
            sections.append(
                {
                    "title": "Waiting",
                    "kind": "list",
                    "items": [
                        {
                            "label": f"{st['after']} keeps or exchanges their helper",
                            "color": st["after"],
                        }
                    ],
                }
            )
        sections.append({"title": title, "kind": "cards", "items": display})
        return {
            "title": "Helpers",
            "text": "Use your helper, then keep it (B side, one more use) or exchange it.",
            "sections": sections,
        }

    def _number(self, key: str) -> str:
        n = self.numbers.get(key)
        return f" (A{n})" if n else ""

    def bot_score(self, game: Game, action: Action) -> float | None:
        # The base game's end of turn scores 5: a use that gains a card beats it.
        if isinstance(action, HelperKeep):
            return 2.0
        if isinstance(action, HelperExchange):
            return 1.0
        if isinstance(action, HelperClaim | HelperAssist | HelperAlms):
            return 6.0
        if isinstance(action, HelperDesert):
            return 5.5
        if isinstance(action, HelperForcedTrade):
            hand = game.hands[game.seat(action.player)]
            return (
                5.5
                if not hand[RESOURCES.index(action.take)] and hand[RESOURCES.index(action.give)] > 1
                else 0.0
            )
        return None  # a base-game action: the bot's own rules of thumb judge it


def _room_error(game: Game, p: int, key: str) -> IllegalAction | None:
    """Why seat ``p`` could not make the build the assisting helper ``key`` serves, even
    paid for (no spot, no piece, no card left), or None."""
    me = game.players[p]
    if key == "road_assist" and not (game.roads_left[p] and game.road_spots(me)):
        return refusal("5.2.6", "there is no spot (or no road left) for a road")
    if key == "settlement_assist" and not (game.settlements_left[p] and game.settlement_spots(me)):
        return refusal("5.2.6", "there is no spot (or no settlement left) for a settlement")
    if key == "city_assist" and not (game.cities_left[p] and game.city_spots(me)):
        return refusal("5.2.6", "there is no settlement to turn into a city")
    if key == "dev_assist" and not any(game.deck):
        return refusal("5.2.6", "the development cards are used up")
    return None


def _earns(game: Game, p: int, total: int) -> bool:
    """Whether a roll of ``total`` pays seat ``p`` anything (the robber's hex pays nobody)."""
    t = game.topology
    return any(
        game.vertex_owner[v] == p
        for h in game.hexes_by_number.get(total, ())
        if h != game.robber
        for v in t.hex_vertices[h]
    )


def _deserts(game: Game) -> list[Hex]:
    return [h for h, tile in sorted(game.board.tiles.items()) if tile.terrain == Terrain.DESERT]


def _harbour_ratio(game: Game, p: int, r: int) -> int:
    """Seat ``p``'s rate for resource ``r`` from its harbours alone (RULES.md 1.8.3-1.8.4)."""
    ratio = 4
    for v in game.buildings_of[p]:
        kind = game.vertex_harbor.get(v)
        if kind == 0:
            ratio = min(ratio, 3)
        elif kind == r + 1:
            ratio = 2
    return ratio
