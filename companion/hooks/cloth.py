"""Cloth for Catan (RULES.md 4.6): the tribe's villages trade cloth with the players' ships.

Eight villages (number chips on marked corners of the tribe's four small islands) each start
with a stock of cloth (Catan chips); the rest of the cloth is the general supply. A player
whose ship reaches a village's corner (the ship's route always starts at one of their own
buildings, 3.2.3) trades with it from then on: they take one cloth at once, and one whenever
the village's number is rolled; a village that cannot serve everyone is topped up from the
general supply, an empty one serves nobody (4.6.6-4.6.8). Two cloth are worth a victory point
(4.6.9); the ships touching a village stay where they are (4.6.10). Only a trading player may
choose the pirate on a 7 or a knight, and the pirate may take a cloth instead of a card
(4.6.12, 4.6.13). The game ends at 14 points, or as soon as only 3 villages hold cloth: then
the most points win, the most cloth breaks a tie (4.6.15).

GAP choices, each a parameter of the ``cloth_trade`` hook entry: the villages' end comes when
``end_villages`` (3) or fewer hold cloth ([IS]: "3 or fewer"); a tie on points and cloth goes
to the tied player who comes first in turn order from the player on turn (``tie``:
"turn_order"); a village found empty gives nothing on the link; when the general supply is
empty too, a short village serves the connected players in turn order from the roller. The
third founding round (:class:`ThirdSettlement`, 4.6.4) pays starting resources for the third
settlement only (``pays``: "third"; "second_and_third" pays both).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from companion.actions import Action, register_action
from companion.board import Hex, vertex
from companion.hooks.base import Hook

if TYPE_CHECKING:
    from companion.game import Event, Game, IllegalAction


@register_action
@dataclass(frozen=True)
class PirateTakesCloth(Action):
    """Move the pirate to ``hex`` and take one cloth from ``victim``, a player with a ship
    next to it, instead of a resource card (RULES.md 4.6.13)."""

    type: ClassVar[str] = "pirate_takes_cloth"
    label: ClassVar[str] = "Pirate: take a cloth"
    hex: Hex
    victim: str


class ClothTrade(Hook):
    """The villages, their cloth and the pirate's gate (RULES.md 4.6.1-4.6.15).

    ``villages`` lists ``[q, r, corner, number]``; ``cloth_per_village`` (5) and ``supply``
    (10) are the Catan chips beside each village and in the general supply.

    >>> from companion.scenario import load_scenario
    >>> from companion.game import Game
    >>> s = load_scenario("cloth-for-catan", 4, seed=1)
    >>> game = Game(s.board, ["red", "blue", "white", "orange"], s.rules, rng=1)
    >>> trade = next(h for h in game.hooks if h.name == "cloth_trade")
    >>> len(trade.villages), trade.stock(game), trade.supply(game)
    (8, [5, 5, 5, 5, 5, 5, 5, 5], 10)
    """

    name = "cloth_trade"
    actions = (PirateTakesCloth,)

    def __init__(self, area_map: Mapping[str, frozenset[tuple[int, int]]], **params: Any):
        super().__init__(area_map, **params)
        self.villages = tuple(vertex(int(q), int(r), str(c)) for q, r, c, _ in params["villages"])
        self.numbers = tuple(int(v[3]) for v in params["villages"])
        if len(set(self.villages)) != len(self.villages):
            raise ValueError("hook cloth_trade: two villages on one corner")
        self.per_village = int(params.get("cloth_per_village", 5))
        self.general = int(params.get("supply", 10))
        self.cloth_per_vp = int(params.get("cloth_per_vp", 2))
        self.end_villages = int(params.get("end_villages", 3))
        self.pirate_gate = bool(params.get("pirate_gate", True))

    # -- state -------------------------------------------------------------------------------

    def _state(self, game: Game) -> dict[str, Any]:
        """Read-only view of the stocks (the initial ones until something changed)."""
        return game.hook_state.get(self.name) or {
            "stock": [self.per_village] * len(self.villages),
            "supply": self.general,
            "cloth": {},
            "links": {},
        }

    def _mutable(self, game: Game) -> dict[str, Any]:
        return game.hook_state.setdefault(self.name, self._state(game))

    def stock(self, game: Game) -> list[int]:
        """Cloth left beside each village, in the order of :attr:`villages`."""
        return list(self._state(game)["stock"])

    def supply(self, game: Game) -> int:
        return int(self._state(game)["supply"])

    def cloth(self, game: Game, p: int) -> int:
        return int(self._state(game)["cloth"].get(game.players[p], 0))

    def links(self, game: Game, p: int) -> list[int]:
        """The villages (indices into :attr:`villages`) seat ``p`` trades with."""
        return list(self._state(game)["links"].get(game.players[p], []))

    def _give(self, game: Game, p: int, n: int) -> None:
        """Seat ``p``'s cloth changes by ``n``; every 2 cloth is a point (4.6.9)."""
        state = self._mutable(game)
        color = game.players[p]
        before = state["cloth"].get(color, 0)
        state["cloth"][color] = before + n
        k = self.cloth_per_vp
        game.special_vp[p] += (before + n) // k - before // k

    def _take(self, game: Game, p: int, village: int, topped_up: bool) -> str | None:
        """One cloth for seat ``p`` from ``village`` (or, if ``topped_up``, from the general
        supply when the village is out): where it came from, or None if from nowhere."""
        state = self._mutable(game)
        if state["stock"][village] > 0:
            state["stock"][village] -= 1
            source = "village"
        elif topped_up and state["supply"] > 0:
            state["supply"] -= 1
            source = "supply"
        else:
            return None
        self._give(game, p, 1)
        return source

    # -- ships reaching villages (4.6.6, 4.6.10) ---------------------------------------------

    def _villages_at(self, game: Game, e: int) -> list[int]:
        t = game.topology
        corners = {t.vertices[v] for v in t.edge_vertices[e]}
        return [i for i, v in enumerate(self.villages) if v in corners]

    def _arrive(self, game: Game, p: int, e: int) -> list[Event]:
        events: list[Event] = []
        color = game.players[p]
        for i in self._villages_at(game, e):
            if i in self.links(game, p):
                continue
            self._mutable(game)["links"].setdefault(color, []).append(i)
            got = self._take(game, p, i, topped_up=False)
            events.append(
                {
                    "type": "village_linked",
                    "player": color,
                    "village": list(self.villages[i]),
                    "cloth": 1 if got else 0,
                }
            )
        return events

    def after_route(self, game: Game, p: int, e: int, kind: int, founding: bool) -> list[Event]:
        from companion.longest_route import SHIP

        return self._arrive(game, p, e) if kind == SHIP else []

    def after_ship_moved(self, game: Game, p: int, e: int) -> list[Event]:
        return self._arrive(game, p, e)

    def ship_move_error(self, game: Game, p: int, e: int) -> IllegalAction | None:
        from companion.game import IllegalAction

        if any(i in self.links(game, p) for i in self._villages_at(game, e)):
            return IllegalAction("4.6.10", "a shipping route to a village is closed")
        return None

    # -- production (4.6.6-4.6.8) ------------------------------------------------------------

    def on_roll(self, game: Game, p: int, dice: tuple[int, int]) -> list[Event]:
        total = dice[0] + dice[1]
        n = len(game.players)
        order = [(p + k) % n for k in range(n)]  # the roller first, then clockwise
        events: list[Event] = []
        for i, number in enumerate(self.numbers):
            if number != total:
                continue
            where = list(self.villages[i])
            if not any(i in self.links(game, q) for q in order):
                continue  # nobody trades with it yet
            if self.stock(game)[i] == 0:  # 4.6.8: an empty village serves nobody
                events.append({"type": "cloth", "village": where, "gains": {}, "empty": True})
                continue
            gains: dict[str, int] = {}
            for q in order:
                if i in self.links(game, q) and self._take(game, q, i, topped_up=True):
                    gains[game.players[q]] = 1
            events.append({"type": "cloth", "village": where, "gains": gains})
        return events

    # -- the pirate (4.6.12, 4.6.13) ---------------------------------------------------------

    def pirate_error(self, game: Game, p: int, h: int) -> IllegalAction | None:
        from companion.game import IllegalAction

        if self.pirate_gate and not self.links(game, p):
            return IllegalAction(
                "4.6.12", "only a player trading with a village may choose the pirate"
            )
        return None

    def _cloth_victims(self, game: Game, p: int, h: int) -> list[int]:
        from companion.longest_route import SHIP

        owners = {
            game.edge_owner[e] for e in game.topology.hex_edges[h] if game.edge_kind[e] == SHIP
        }
        return sorted(o for o in owners if o not in (-1, p) and self.cloth(game, o) > 0)

    def generate(self, game: Game, out: list[Action]) -> None:
        from companion.game import Phase

        p = game.current
        if game.phase != Phase.MOVE_ROBBER or game.pirate is None:
            return
        me = game.players[p]
        for h, (q, r) in enumerate(game.topology.hexes):
            if not game.hex_sea[h] or h == game.pirate or self.pirate_error(game, p, h):
                continue
            for o in self._cloth_victims(game, p, h):
                out.append(PirateTakesCloth(me, (q, r), game.players[o]))

    def check(self, game: Game, p: int, action: Action) -> None:
        from companion.game import IllegalAction, Phase

        assert isinstance(action, PirateTakesCloth)
        if game.phase != Phase.MOVE_ROBBER or p != game.current:
            raise IllegalAction("1.7.3", f"{action.player} may not move the pirate now")
        h = game.topology.hex_index.get(action.hex)
        if game.pirate is None or h is None or not game.hex_sea[h] or h == game.pirate:
            raise IllegalAction(
                "3.6.2", f"the pirate must move to another sea hex, not {action.hex}"
            )
        err = self.pirate_error(game, p, h)
        if err is not None:
            raise err
        if game.seat(action.victim) not in self._cloth_victims(game, p, h):
            raise IllegalAction(
                "4.6.13", f"{action.victim} has no ship next to {action.hex} and cloth to take"
            )

    def execute(self, game: Game, p: int, action: Action) -> list[Event]:
        assert isinstance(action, PirateTakesCloth)
        game.pirate = game.topology.hex_index[action.hex]
        self._give(game, game.seat(action.victim), -1)
        self._give(game, p, 1)
        game.phase = game.after_robber
        return [
            {
                "type": "pirate_moved",
                "player": action.player,
                "hex": list(action.hex),
                "victim": action.victim,
                "stolen": "cloth",
            }
        ]

    def bot_score(self, game: Game, action: Action) -> float | None:
        """A computer player links a village it can reach with this ship (cloth is points),
        and lets the pirate take cloth as readily as it would rob."""
        from companion.actions import BuildShip

        if isinstance(action, PirateTakesCloth):
            return 35.0
        if isinstance(action, BuildShip):
            e = game.topology.edge_index[action.edge]
            p = game.seat(action.player)
            if any(i not in self.links(game, p) for i in self._villages_at(game, e)):
                return 95.0
        return None

    # -- the end (4.6.15) --------------------------------------------------------------------

    def game_end(self, game: Game) -> int | None:
        if sum(n > 0 for n in self.stock(game)) > self.end_villages:
            return None
        n = len(game.players)
        order = [(game.current + k) % n for k in range(n)]
        # most points, then most cloth; a tie beyond that: first in turn order (GAP)
        return max(
            order,
            key=lambda q: (game.victory_points(q), self.cloth(game, q), -order.index(q)),
        )

    # -- what the page shows -----------------------------------------------------------------

    def public_view(self, game: Game) -> dict[str, Any]:
        stock = self.stock(game)
        villages = [
            {
                "label": f"Village {self.numbers[i]} at {tuple(v)}",
                "value": stock[i],
                "tags": [c for c in game.players if i in self.links(game, game.seat(c))],
            }
            for i, v in enumerate(self.villages)
        ]
        cloth = [
            {"label": c, "value": self.cloth(game, q), "color": c}
            for q, c in enumerate(game.players)
        ]
        cloth.append({"label": "General supply", "value": self.supply(game)})
        tokens = [
            {"vertex": list(v), "text": str(self.numbers[i]), "empty": stock[i] == 0}
            for i, v in enumerate(self.villages)
        ]
        return {
            "title": "Cloth for Catan",
            "map": {"tokens": tokens},
            "text": f"Two cloth make a point; the game ends when {self.end_villages} or fewer "
            "villages hold cloth.",
            "sections": [
                {
                    "title": "Villages (cloth left; trading players)",
                    "kind": "list",
                    "items": villages,
                },
                {"title": "Cloth", "kind": "counters", "items": cloth},
            ],
        }


class ThirdSettlement(Hook):
    """A third founding round (RULES.md 4.6.4): after the last second settlement, every player
    places a third one with a road or ship, starting with the player who placed the last
    second settlement and going clockwise. ``pays``: "third" (default) pays starting
    resources for the third settlement only, "second_and_third" for both."""

    name = "third_settlement"

    def setup(self, game: Game) -> None:
        n = len(game.players)
        last = game.founding_order[-1]
        game.founding_order = [*game.founding_order, *((last + k) % n for k in range(n))]
        if self.params.get("pays", "third") == "third":
            game.paying_step = 2 * n
