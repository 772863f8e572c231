"""The Forgotten Tribe (RULES.md 4.5): gifts on the coasts of the tribe's small islands.

Three kinds of gift lie on marked coast sides of the small islands, and the first player whose
ship arrives on such a side takes what lies there (4.5.9-4.5.11):

* a Catan chip: one victory point;
* a face-down development card: an ordinary card from then on (one play per turn, not in the
  turn it was found, a victory point card stays hidden). Turning it up is the hook's action
  :class:`TakeGiftCard`, whose card is a random outcome the table may state;
* a harbour token: the board's harbours lying on the small islands *are* these tokens. Its
  finder places it at one of their own coastal settlements at once (:class:`PlaceGiftHarbor`,
  a decision nothing else may overtake), or keeps it until they have a coastal settlement
  where it may go (4.5.12: not touching another harbour, at most one on the border of any sea
  hex).

GAP choices, each a parameter of the hook entry: a *moved* ship takes gifts too
(``moved_ship_takes``, default true: [IS] and the published rule); harbours may not touch
(``harbours_apart``, default true: [IS]); at most one harbour along any one sea hex
(``one_per_sea_hex``, default true: [HE]). The face-down cards stay in the engine's deck
until found, as cards set aside (not for sale: :meth:`TribeGifts.cards_aside`), and the card
turned up is drawn from the deck then: every card is as likely as if it had been set aside at
the start, and the table can say which card it turned up.

The robber never returns to its start desert (:class:`RobberNoReturn`, 4.5.8).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from companion.actions import DEV_CARDS, Action, DevCard, register_action
from companion.board import Edge, Harbor, edge, edge_hexes, side_of
from companion.hooks.base import Hook

if TYPE_CHECKING:
    from companion.game import Event, Game, IllegalAction


@register_action
@dataclass(frozen=True)
class TakeGiftCard(Action):
    """Turn up the development card a ship found (4.5.10); ``card`` is the card, if known."""

    type: ClassVar[str] = "take_gift_card"
    label: ClassVar[str] = "Turn up the card found"
    card: DevCard | None = None


@register_action
@dataclass(frozen=True)
class PlaceGiftHarbor(Action):
    """Lay a gifted harbour token of ``kind`` on coast side ``edge`` by one's own settlement
    or city (4.5.11)."""

    type: ClassVar[str] = "place_gift_harbor"
    label: ClassVar[str] = "Place the harbour token"
    edge: Edge
    kind: str


def _spot(value: Sequence[Any]) -> Edge:
    q, r, side = value
    return edge(int(q), int(r), str(side))


class TribeGifts(Hook):
    """The gifts of the Forgotten Tribe (RULES.md 4.5.9-4.5.12).

    Parameters: ``catan_chips`` and ``cards``, the marked coast sides ``[q, r, side]`` holding
    a Catan chip or a face-down card; ``areas``, the small islands (harbours lying on their
    coasts are the harbour gifts); ``vp`` per Catan chip (1); and the GAP switches of the
    module docstring.

    >>> from companion.scenario import load_scenario
    >>> from companion.game import Game
    >>> s = load_scenario("forgotten-tribe", 4, seed=1)
    >>> game = Game(s.board, ["red", "blue", "white", "orange"], s.rules, rng=1)
    >>> gifts = next(h for h in game.hooks if h.name == "tribe_gifts")
    >>> len(gifts.chip_spots), len(gifts.card_spots), len(gifts.harbor_spots(game))
    (8, 4, 6)
    """

    name = "tribe_gifts"
    actions = (TakeGiftCard, PlaceGiftHarbor)

    def __init__(self, area_map: Mapping[str, frozenset[tuple[int, int]]], **params: Any):
        super().__init__(area_map, **params)
        self.small = self.hexes(params["areas"])
        self.chip_spots = tuple(_spot(s) for s in params["catan_chips"])
        self.card_spots = tuple(_spot(s) for s in params["cards"])
        spots = [*self.chip_spots, *self.card_spots]
        if len(set(spots)) != len(spots):
            raise ValueError("hook tribe_gifts: two gifts on one side")
        self.vp = int(params.get("vp", 1))
        self.moved_ship_takes = bool(params.get("moved_ship_takes", True))
        self.apart = bool(params.get("harbours_apart", True))
        self.one_per_sea_hex = bool(params.get("one_per_sea_hex", True))

    # -- state -------------------------------------------------------------------------------

    def _state(self, game: Game) -> dict[str, Any]:
        """What happened to the gifts (read-only when nothing was taken yet)."""
        return game.hook_state.get(self.name) or {
            "taken": [],
            "card_due": None,
            "tokens": {},
            "placed": [],
        }

    def _mutable_state(self, game: Game) -> dict[str, Any]:
        return game.hook_state.setdefault(self.name, self._state(game))

    def harbor_spots(self, game: Game) -> list[Harbor]:
        """The harbour tokens still lying on the small islands' coasts."""
        return [hb for hb in game.board.harbors if (hb.q, hb.r) in self.small]

    # -- a ship arrives ----------------------------------------------------------------------

    def after_route(self, game: Game, p: int, e: int, kind: int, founding: bool) -> list[Event]:
        from companion.longest_route import SHIP

        return self._arrive(game, p, e) if kind == SHIP else []

    def after_ship_moved(self, game: Game, p: int, e: int) -> list[Event]:
        return self._arrive(game, p, e) if self.moved_ship_takes else []

    def _arrive(self, game: Game, p: int, e: int) -> list[Event]:
        """Seat ``p``'s ship is on side ``e`` now: it takes what lies there."""
        side = game.topology.edges[e]
        color = game.players[p]
        taken = self._state(game)["taken"]
        if list(side) in taken:
            return []  # 4.5.9: later arrivals get nothing
        if side in self.chip_spots:
            self._mutable_state(game)["taken"].append(list(side))
            game.special_vp[p] += self.vp
            return [{"type": "gift", "player": color, "gift": "catan_chip", "vp": self.vp}]
        if side in self.card_spots:
            state = self._mutable_state(game)
            state["taken"].append(list(side))
            if not any(game.deck):  # a home-made deck smaller than the cards laid out
                return [{"type": "gift", "player": color, "gift": "none", "why": "deck empty"}]
            state["card_due"] = color
            return [{"type": "gift", "player": color, "gift": "development_card"}]
        token = next((hb for hb in self.harbor_spots(game) if hb.edge == side), None)
        if token is None:
            return []
        state = self._mutable_state(game)
        state["taken"].append(list(side))
        state["tokens"].setdefault(color, []).append(token.kind)
        game.set_harbors([hb for hb in game.board.harbors if hb != token])
        # the token leaves the board: the page draws the board again
        gift = {"type": "gift", "player": color, "gift": "harbor", "kind": token.kind}
        return [{**gift, "board_changed": True}]

    def cards_aside(self, game: Game) -> int:
        """The cards still lying on the coasts (and one found but not yet turned up)."""
        state = self._state(game)
        taken = {tuple(s) for s in state["taken"]}
        return sum(s not in taken for s in self.card_spots) + (state["card_due"] is not None)

    # -- where a gifted harbour may go -------------------------------------------------------

    def harbor_places(self, game: Game, p: int) -> list[Edge]:
        """Coast sides by seat ``p``'s settlements or cities where a harbour may go (4.5.12)."""
        t = game.topology
        harbours = {hb.edge for hb in game.board.harbors}
        # the sea hexes along whose border a harbour already lies (tokens still lying on the
        # small islands are no harbours yet)
        placed = [hb for hb in game.board.harbors if (hb.q, hb.r) not in self.small]
        used_seas = {h for hb in placed for h in edge_hexes(hb.edge)}
        out: list[Edge] = []
        for v in sorted(game.buildings_of[p]):
            for e in t.vertex_edges[v]:
                side = t.edges[e]
                land = [h for h in t.edge_hexes[e] if game.hex_land[h]]
                if len(land) != 1 or not game.edge_sea[e] or side in harbours:
                    continue  # not a free coast side
                if self.apart and any(x in game.vertex_harbor for x in t.edge_vertices[e]):
                    continue
                # the sea hex across the side (none where it faces the frame)
                seas = {h for h in edge_hexes(side) if h in game.board.tiles}
                seas.discard(t.hexes[land[0]])
                if self.one_per_sea_hex and seas & used_seas:
                    continue
                out.append(side)
        return out

    def _harbor_error(self, game: Game, p: int, a: PlaceGiftHarbor) -> IllegalAction | None:
        from companion.game import IllegalAction

        held = self._state(game)["tokens"].get(a.player, [])
        if a.kind not in held:
            return IllegalAction("4.5.11", "{} holds no {} harbour token", a.player, a.kind)
        if a.edge not in self.harbor_places(game, p):
            return IllegalAction(
                "4.5.12",
                "a gifted harbour goes on a coast side by your own settlement, touching no "
                "other harbour and alone along its sea hex; {} is not one",
                a.edge,
            )
        return None

    # -- the hook's decisions ----------------------------------------------------------------

    def _harbor_due(self, game: Game) -> int | None:
        """The seat that holds a harbour token and has a place for it now, if any."""
        for color, kinds in sorted(self._state(game)["tokens"].items()):
            p = game.seat(color)
            if kinds and self.harbor_places(game, p):
                return p
        return None

    def pending(self, game: Game) -> IllegalAction | None:
        from companion.game import IllegalAction, Phase

        if game.phase == Phase.GAME_OVER:
            return None
        due = self._state(game)["card_due"]
        if due is not None:
            return IllegalAction("4.5.10", "{} first turns up the development card found", due)
        p = self._harbor_due(game)
        if p is not None:
            return IllegalAction(
                "4.5.11", "{} first places the harbour token found", game.players[p]
            )
        return None

    def generate(self, game: Game, out: list[Action]) -> None:
        from companion.game import Phase

        if game.phase == Phase.GAME_OVER:
            return
        due = self._state(game)["card_due"]
        if due is not None:
            out.append(TakeGiftCard(due))
            return
        p = self._harbor_due(game)
        if p is None:
            return
        color = game.players[p]
        places = self.harbor_places(game, p)
        for kind in sorted(set(self._state(game)["tokens"][color])):
            out.extend(PlaceGiftHarbor(color, side, kind) for side in places)

    def check(self, game: Game, p: int, action: Action) -> None:
        from companion.game import IllegalAction, Phase

        if game.phase == Phase.GAME_OVER:
            raise IllegalAction("1.13.2", f"the game is over: {game.winner_color} won")
        due = self._state(game)["card_due"]
        if isinstance(action, TakeGiftCard):
            if due != action.player:
                raise IllegalAction("4.5.10", f"{action.player} has found no card to turn up")
            if action.card is not None and game.deck[DEV_CARDS.index(action.card)] == 0:
                raise IllegalAction("1.1.5", f"no {action.card.value} card is left")
            return
        assert isinstance(action, PlaceGiftHarbor)
        if due is not None:
            raise IllegalAction("4.5.10", f"{due} first turns up the development card found")
        err = self._harbor_error(game, p, action)
        if err is not None:
            raise err

    def resolve(self, game: Game, action: Action) -> Action:
        if isinstance(action, TakeGiftCard) and action.card is None:
            return TakeGiftCard(action.player, DEV_CARDS[game.rng.pick(game.deck)])
        return action

    def execute(self, game: Game, p: int, action: Action) -> list[Event]:
        state = self._mutable_state(game)
        if isinstance(action, TakeGiftCard):
            assert action.card is not None
            card = DEV_CARDS.index(action.card)
            game.deck[card] -= 1
            game.dev_hands[p][card] += 1
            if p == game.current:  # 4.5.10: not played in the turn it was found
                game.turn.bought[card] += 1
            state["card_due"] = None
            return [{"type": "gift_card", "player": action.player, "card": action.card.value}]
        assert isinstance(action, PlaceGiftHarbor)
        state["tokens"][action.player].remove(action.kind)
        t = game.topology
        e = t.edge_index[action.edge]
        land = next(h for h in t.edge_hexes[e] if game.hex_land[h])
        q, r = t.hexes[land]
        harbor = Harbor(q, r, side_of((q, r), action.edge), action.kind)
        state["placed"].append([q, r, harbor.side, action.kind])
        game.set_harbors([*game.board.harbors, harbor])
        return [
            {
                "type": "harbor_placed",
                "player": action.player,
                "edge": list(action.edge),
                "kind": action.kind,
                "board_changed": True,
            }
        ]

    def bot_score(self, game: Game, action: Action) -> float | None:
        """A computer player sails for a gift it can reach with this ship (a Catan chip is
        a point: nearly a settlement's worth)."""
        from companion.actions import BuildShip, MoveShip

        side = action.edge if isinstance(action, BuildShip) else None
        if isinstance(action, MoveShip):
            side = action.to
        if side is None or list(side) in self._state(game)["taken"]:
            return None
        if side in self.chip_spots:
            return 85.0
        if side in self.card_spots or any(hb.edge == side for hb in self.harbor_spots(game)):
            return 60.0
        return None

    # -- what the page shows -----------------------------------------------------------------

    def public_view(self, game: Game) -> dict[str, Any]:
        state = self._state(game)
        taken = {tuple(s) for s in state["taken"]}
        left = [
            {"label": "Catan chips", "value": sum(s not in taken for s in self.chip_spots)},
            {"label": "Face-down cards", "value": sum(s not in taken for s in self.card_spots)},
            {"label": "Harbour tokens", "value": len(self.harbor_spots(game))},
        ]
        sections: list[dict[str, Any]] = [
            {"title": "Gifts on the coasts", "kind": "counters", "items": left}
        ]
        held = [
            {"label": f"{kind} harbour token", "color": color}
            for color, kinds in sorted(state["tokens"].items())
            for kind in kinds
        ]
        if held:
            sections.append(
                {"title": "Harbour tokens waiting for a place", "kind": "list", "items": held}
            )
        # the gifts still on the coasts, for the board: a Catan chip "1", a card "?"
        tokens = [
            {"edge": list(side), "text": text}
            for spots, text in ((self.chip_spots, "1"), (self.card_spots, "?"))
            for side in spots
            if side not in taken
        ]
        return {
            "title": "The Forgotten Tribe",
            "map": {"tokens": tokens},
            "text": "The first ship on a marked coast side takes its gift.",
            "sections": sections,
        }


class RobberNoReturn(Hook):
    """Once the robber has left its start hex it never goes back there (RULES.md 4.5.8).

    The robber must move on every move (1.7.3), so it has left its start at its first move:
    from then on that hex is simply closed to it.
    """

    name = "robber_no_return"

    def robber_error(self, game: Game, p: int, h: int) -> IllegalAction | None:
        from companion.game import IllegalAction

        if game.topology.hexes[h] == game.board.robber:
            return IllegalAction("4.5.8", "the robber never returns to the desert it started on")
        return None
