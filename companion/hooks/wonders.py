"""The Wonders of Catan (Seafarers scenario 8, RULES.md §4.8): its founding spots, its special
victory points and its wonders.

Three hooks: :class:`FoundingForbidden` keeps founding settlements off the small islands and
the marked corners (4.8.1), :class:`SettlementBonus` gives a Catan chip for every settlement
built later on a small island (4.8.4), and :class:`Wonders` lets each player start one wonder
when its condition holds and nobody else has taken it (4.8.5-4.8.8, check S8-WONDER-START), pay
for its levels, and win by completing it, or by the points with the most levels (4.8.9).

A wonder is data in the scenario file, so a table can change a cost or make up a wonder::

    "palace": {"title": "Palace", "needs": {"cities": 1, "victory_points": 6},
               "cost": {"ore": 2, "grain": 1, "wool": 1, "brick": 1}}

``needs`` are all required at once: ``settlement_on`` (a list of corners, e.g. ``"@strait"``: an
own settlement or city on one of them), ``cities``, ``harbour_cities`` (cities on a harbour's
corner), ``victory_points`` and ``route`` (the longest trade route, 3.5.1), each "at least".

>>> from companion.game import Game
>>> from companion.scenario import load_scenario
>>> s = load_scenario("wonders", 4, seed=1)
>>> game = Game(s.board, ["red", "blue", "white", "orange"], s.rules, rng=1)
>>> wonders = next(h for h in game.hooks if isinstance(h, Wonders))
>>> wonders.wonders["palace"].cost_text(), wonders.levels
('1 brick, 1 wool, 1 grain, 2 ore', 4)
>>> wonders.unmet(game, 0, wonders.wonders["great_theatre"])  # red, before any city
'2 cities'
>>> game.apply(StartWonder("red", "palace"))
Traceback (most recent call last):
...
companion.game.IllegalAction: wonders wait for one's own turn, after the roll (rule 4.8.7)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from companion.actions import Action, register_action
from companion.board import RESOURCES, Vertex, vertex, vertex_hexes
from companion.hooks.base import Hook, land_hexes_of

if TYPE_CHECKING:
    from companion.game import Event, Game, IllegalAction


def _corner_indices(game: Game, corners: Sequence[Sequence[Any]]) -> frozenset[int]:
    """The engine's indices of corners given as ``[q, r, name]`` (those on the board)."""
    index = game.topology.vertex_index
    found = (index.get(vertex(q, r, c)) for q, r, c in corners)
    return frozenset(v for v in found if v is not None)


class FoundingForbidden(Hook):
    """No founding settlement on the given areas nor on the given corners (S8-FOUND-FORBIDDEN,
    rule 4.8.1: the small islands, the brown and purple squares, the yellow "!")."""

    name = "founding_forbidden"

    def __init__(self, area_map: Mapping[str, frozenset[tuple[int, int]]], **params: Any):
        super().__init__(area_map, **params)
        self.forbidden = self.hexes(params.get("areas", []))
        self.corners: list[list[Any]] = list(params.get("corners", []))
        self.rule = params.get("rule", "4")
        self._corner_set: frozenset[int] | None = None

    def settlement_error(self, game: Game, p: int, v: int, founding: bool) -> IllegalAction | None:
        if not founding:
            return None
        from companion.game import IllegalAction

        if self._corner_set is None:
            self._corner_set = _corner_indices(game, self.corners)
        if v in self._corner_set:
            return IllegalAction(self.rule, "no founding settlement on a marked corner")
        land = land_hexes_of(game, v)
        if land and land <= self.forbidden:
            where = ", ".join(self.params["areas"])
            return IllegalAction(self.rule, f"no founding settlement on the {where}")
        return None


class SettlementBonus(Hook):
    """Special victory points for every settlement built after the founding on the given areas
    (rule 4.8.4: 1 VP, a Catan chip put under it), while the chips of the ``supply`` last.

    GAP choices: every such settlement earns it, not only a player's first (both seeds read so);
    the chips left once each player has their wonder marker are the ``supply`` (10 - 4 = 6 with
    four players), and a settlement built when none is left earns nothing.
    """

    name = "settlement_bonus"

    def __init__(self, area_map: Mapping[str, frozenset[tuple[int, int]]], **params: Any):
        super().__init__(area_map, **params)
        self.bonus_hexes = self.hexes(params["areas"])
        self.vp = int(params.get("vp", 1))
        self.supply = int(params["supply"])

    def given(self, game: Game) -> int:
        """How many chips the bonus has handed out so far."""
        return int(game.hook_state.get(self.name, {}).get("given", 0))

    def after_settlement(self, game: Game, p: int, v: int, founding: bool) -> list[Event]:
        land = land_hexes_of(game, v)
        if founding or not land or not land <= self.bonus_hexes:
            return []
        given = self.given(game)
        if given >= self.supply:
            return []
        game.hook_state[self.name] = {"given": given + 1}
        game.special_vp[p] += self.vp
        return [
            {
                "type": "special_vp",
                "player": game.players[p],
                "vp": self.vp,
                "why": "settlement on a small island",
                "text": f"takes a Catan chip ({self.vp} VP) for a settlement on a small island",
            }
        ]


@register_action
@dataclass(frozen=True)
class StartWonder(Action):
    """Take a wonder whose condition one meets, putting one of one's ships on its card
    (RULES.md 4.8.5-4.8.6); from then on it is the player's wonder."""

    type: ClassVar[str] = "start_wonder"
    label: ClassVar[str] = "Start a wonder"
    wonder: str


@register_action
@dataclass(frozen=True)
class BuildWonderLevel(Action):
    """Pay the cost of the next level of one's wonder (RULES.md 4.8.7)."""

    type: ClassVar[str] = "build_wonder_level"
    label: ClassVar[str] = "Build a wonder level"


@dataclass(frozen=True)
class Wonder:
    """One wonder card: its condition to start and the cost of each level."""

    id: str
    title: str
    needs: Mapping[str, Any]
    cost: tuple[int, ...]
    condition: str

    @classmethod
    def from_params(cls, wid: str, data: Mapping[str, Any]) -> Wonder:
        needs = dict(data["needs"])
        unknown = set(needs) - set(NEEDS)
        if unknown:
            raise ValueError(f"wonder {wid}: unknown condition {sorted(unknown)[0]!r}")
        cost = data["cost"]
        names = {r.value for r in RESOURCES}
        if set(cost) - names:
            raise ValueError(f"wonder {wid}: unknown resource {sorted(set(cost) - names)[0]!r}")
        text = data.get("condition") or " and ".join(_need_text(k, v) for k, v in needs.items())
        return cls(
            wid,
            str(data.get("title", wid)),
            needs,
            tuple(int(cost.get(r.value, 0)) for r in RESOURCES),
            str(text),
        )

    def cost_text(self) -> str:
        return ", ".join(f"{n} {r.value}" for r, n in zip(RESOURCES, self.cost, strict=True) if n)


def _corner_text(game: Game, v: Vertex) -> str:
    """A corner named by the hexes around it, land first: "hills 4, fields 9 and the sea"."""
    tiles = [game.board.tiles.get(h) for h in vertex_hexes(v)]
    land = sorted(
        (t for t in tiles if t is not None and t.terrain.is_land),
        key=lambda t: (t.terrain.value, t.number or 0),
    )
    names = [t.terrain.value + (f" {t.number}" if t.number else "") for t in land]
    if len(land) < 3:
        names.append("the sea")
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


#: what a wonder's condition may ask for, each "at least"
NEEDS = ("settlement_on", "cities", "harbour_cities", "victory_points", "route")


def _need_text(need: str, value: Any) -> str:
    """One part of a wonder's condition in words."""
    match need:
        case "settlement_on":
            return "a settlement or city on one of its marked corners"
        case "cities":
            return "1 city" if value == 1 else f"{value} cities"
        case "harbour_cities":
            return "a city on a harbour" if value == 1 else f"{value} cities on harbours"
        case "victory_points":
            return f"{value} victory points"
    return f"a trade route of {value} roads or ships in a row"


class Wonders(Hook):
    """The wonders: starting one (S8-WONDER-START), its levels, and the end of the game.

    Parameters: ``wonders`` (id -> card, see the module), ``levels`` (4), ``condition``
    (GAP, whether the condition must hold only to ``"start"``, the default, or also for
    ``"every_level"``), ``ship`` (GAP, what if no ship is left in the supply to put on the
    card: ``"if_any"``, the default, starts the wonder all the same, the ship being only a
    marker of whose wonder it is; ``"required"`` refuses the start), ``show_marks`` (label ->
    corners the page describes in words, for a board with no printed marks).

    Rule 4.8.9 replaces the plain victory: a player wins on their turn by completing the last
    level, or with the game's victory points while having built more levels than each other
    player; the points alone never win.
    """

    name = "wonders"
    actions = (StartWonder, BuildWonderLevel)

    def __init__(self, area_map: Mapping[str, frozenset[tuple[int, int]]], **params: Any):
        super().__init__(area_map, **params)
        self.wonders = {
            wid: Wonder.from_params(wid, card) for wid, card in params["wonders"].items()
        }
        self.levels = int(params.get("levels", 4))
        if params.get("condition", "start") not in ("start", "every_level"):
            raise ValueError("hook wonders: condition is 'start' or 'every_level'")
        if params.get("ship", "if_any") not in ("if_any", "required"):
            raise ValueError("hook wonders: ship is 'if_any' or 'required'")
        self.recheck = params.get("condition", "start") == "every_level"
        self.ship_required = params.get("ship", "if_any") == "required"
        #: corners the page describes, by label (e.g. "Strait (purple)": its corners)
        self.shown_marks: dict[str, list[list[Any]]] = dict(params.get("show_marks", {}))
        self._corners: dict[str, frozenset[int]] = {}

    # -- state -----------------------------------------------------------------------------

    def started(self, game: Game) -> dict[str, str]:
        """Each player's wonder, by colour."""
        return dict(game.hook_state.get(self.name, {}).get("started", {}))

    def level(self, game: Game, color: str) -> int:
        """How many levels of their wonder ``color`` has built."""
        return int(game.hook_state.get(self.name, {}).get("levels", {}).get(color, 0))

    def _state(self, game: Game) -> dict[str, Any]:
        return game.hook_state.setdefault(self.name, {"started": {}, "levels": {}})

    # -- conditions ------------------------------------------------------------------------

    def unmet(self, game: Game, p: int, wonder: Wonder) -> str | None:
        """The part of ``wonder``'s condition seat ``p`` does not meet, or None (4.8.8)."""
        mine = game.buildings_of[p]
        cities = [v for v in mine if game.vertex_level[v] == 2]
        for need, value in wonder.needs.items():
            match need:
                case "settlement_on":
                    spots = self._corners.get(wonder.id)
                    if spots is None:
                        spots = self._corners[wonder.id] = _corner_indices(game, value)
                    met = bool(mine & spots)
                case "cities":
                    met = len(cities) >= value
                case "harbour_cities":
                    met = sum(v in game.vertex_harbor for v in cities) >= value
                case "victory_points":
                    met = game.victory_points(p) >= value
                case _:
                    met = game.road_lengths[p] >= value
            if not met:
                return _need_text(need, value)
        return None

    # -- the hook's actions ----------------------------------------------------------------

    def _require_turn(self, game: Game, p: int) -> None:
        from companion.game import IllegalAction, Phase

        if p != game.current or game.phase != Phase.MAIN:
            raise IllegalAction("4.8.7", "wonders wait for one's own turn, after the roll")

    def check(self, game: Game, p: int, action: Action) -> None:
        from companion.game import IllegalAction

        self._require_turn(game, p)
        color = game.players[p]
        started = self.started(game)
        mine = started.get(color)
        if isinstance(action, StartWonder):
            wonder = self.wonders.get(action.wonder)
            if wonder is None:
                known = ", ".join(sorted(self.wonders))
                raise IllegalAction("4.8.5", f"no wonder {action.wonder!r} (wonders: {known})")
            if mine is not None:
                title = self.wonders[mine].title
                raise IllegalAction("4.8.6", f"{color} is committed to the {title}")
            holder = next((c for c, w in started.items() if w == wonder.id), None)
            if holder is not None:
                raise IllegalAction("4.8.5", f"{holder} has taken the {wonder.title}")
            missing = self.unmet(game, p, wonder)
            if missing is not None:
                raise IllegalAction("4.8.8", f"the {wonder.title} needs {missing}")
            if self.ship_required and game.ships_left[p] == 0:
                raise IllegalAction(
                    "4.8.6", f"{color} has no ship left to put on the {wonder.title}'s card"
                )
            return
        if mine is None:
            raise IllegalAction("4.8.6", f"{color} has not started a wonder")
        wonder = self.wonders[mine]  # its last level ends the game: no level beyond it
        if self.recheck:
            missing = self.unmet(game, p, wonder)
            if missing is not None:
                raise IllegalAction("4.8.8", f"the {wonder.title} needs {missing}")
        if any(h < c for h, c in zip(game.hands[p], wonder.cost, strict=True)):
            raise IllegalAction(
                "4.8.7", f"a level of the {wonder.title} costs {wonder.cost_text()}"
            )

    def generate(self, game: Game, out: list[Action]) -> None:
        from companion.game import Phase

        if game.phase != Phase.MAIN:
            return
        p = game.current
        color = game.players[p]
        started = self.started(game)
        mine = started.get(color)
        if mine is None:
            if self.ship_required and game.ships_left[p] == 0:
                return
            taken = set(started.values())
            for wid, wonder in self.wonders.items():
                if wid not in taken and self.unmet(game, p, wonder) is None:
                    out.append(StartWonder(color, wid))
            return
        wonder = self.wonders[mine]
        if all(h >= c for h, c in zip(game.hands[p], wonder.cost, strict=True)) and not (
            self.recheck and self.unmet(game, p, wonder) is not None
        ):
            out.append(BuildWonderLevel(color))

    def execute(self, game: Game, p: int, action: Action) -> list[Event]:
        color = game.players[p]
        state = self._state(game)
        if isinstance(action, StartWonder):
            title = self.wonders[action.wonder].title
            event: Event = {
                "type": "wonder_started",
                "player": color,
                "wonder": action.wonder,
                "text": f"starts the {title}",
            }
            if game.ships_left[p] > 0:
                game.ships_left[p] -= 1
                state.setdefault("ships", []).append(color)
                event["ship"] = True
            state["started"][color] = action.wonder
            state["levels"][color] = 0
            return [event]
        wonder = self.wonders[state["started"][color]]
        for i, c in enumerate(wonder.cost):
            game.hands[p][i] -= c
            game.bank[i] += c
        game.turn.built = True  # a level is a build: no trading after it (1.5 GAP option)
        state["levels"][color] += 1
        return [
            {
                "type": "wonder_level",
                "player": color,
                "wonder": wonder.id,
                "level": state["levels"][color],
                "text": f"builds level {state['levels'][color]} of the {wonder.title}",
                "cards": {r.value: n for r, n in zip(RESOURCES, wonder.cost, strict=True) if n},
            }
        ]

    # -- the end of the game, the pieces, the page -----------------------------------------

    def goal_reached(self, game: Game, p: int) -> bool:
        return self.level(game, game.players[p]) >= self.levels

    def may_win(self, game: Game, p: int) -> bool:
        color = game.players[p]
        others = max((self.level(game, c) for c in game.players if c != color), default=0)
        return self.level(game, color) > others

    def pieces_aside(self, game: Game, p: int) -> dict[str, int]:
        ships = game.hook_state.get(self.name, {}).get("ships", [])
        return {"ships": 1} if game.players[p] in ships else {}

    def bot_score(self, game: Game, action: Action) -> float | None:
        # Starting costs nothing and a level is what wins: before any build.
        return 120 if type(action) in self.actions else None

    def bot_goals(self, game: Game, p: int) -> list[tuple[int, ...]]:
        mine = self.started(game).get(game.players[p])
        return [] if mine is None else [self.wonders[mine].cost]

    def public_view(self, game: Game) -> dict[str, Any]:
        started = {w: c for c, w in self.started(game).items()}
        items = []
        for wid, wonder in self.wonders.items():
            item: dict[str, Any] = {
                "label": wonder.title,
                "text": f"to start: {wonder.condition}; each level: {wonder.cost_text()}",
            }
            holder = started.get(wid)
            if holder is not None:
                item["color"] = holder
                item["value"] = f"{self.level(game, holder)}/{self.levels}"
            items.append(item)
        return {
            "title": "Wonders of Catan",
            "text": (
                f"Complete level {self.levels} of your wonder, or reach "
                f"{game.rules.victory_points} points with more levels than anyone else."
            ),
            "sections": [
                {"title": "Wonders", "kind": "list", "items": items},
                *self._marks_section(game),
            ],
        }

    def _marks_section(self, game: Game) -> list[dict[str, Any]]:
        """The marked corners in words, for a table whose board has no printed marks: each
        corner by the hexes that meet there ("hills 4, fields 9 and the sea")."""
        if not self.shown_marks:
            return []
        items = []
        for label, corners in self.shown_marks.items():
            where = [_corner_text(game, vertex(q, r, c)) for q, r, c in corners]
            items.append({"label": label, "text": "; ".join(where)})
        return [{"title": "Marked corners", "kind": "list", "items": items}]
