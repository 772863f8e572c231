"""The Catan Dice Game and its Plus variant (RULES.md §6): one game object, like :mod:`game`.

Each player has a sheet (:class:`Sheet`): an island of roads, settlements, cities and knights
to mark. A turn is up to three rolls of the resource dice with any dice held, then building
with the dice, helped by resource jokers and the gold exchange. :meth:`DiceGame.legal_actions`
lists what may be done now; :meth:`DiceGame.apply` carries an action out and returns what
happened, or raises :class:`~companion.game.IllegalAction` with the rule number, leaving the
state exactly as it was.

>>> game = DiceGame(["red"], rng=3)
>>> roll = Roll("red", faces=("brick", "lumber", "ore", "ore", "wool", "gold"))
>>> game.apply(roll)[0]["dice"]
['brick', 'lumber', 'ore', 'ore', 'wool', 'gold']
>>> game.apply(Build("red", "settlement", 1))
Traceback (most recent call last):
...
companion.game.IllegalAction: settlement 4 must wait for settlement 3 (rule 6.3.2)

The sheets' layout (which road touches which, the values, the jokers) is only in the picture of
the printed pad (RULES.md 6.3.5 GAP): :data:`BASIC_SHEET` and :data:`PLUS_SHEET` are this
project's choice, described in docs/dice-game.md, and a table may pass its own
:class:`SheetLayout`.

Randomness is a :class:`companion.game.Randomness` (only its ``pick`` is used, one call per die
thrown); a :class:`Roll` may instead carry the faces that fell (the tower's resource dice).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from functools import lru_cache
from itertools import combinations
from typing import Any

from companion.game import IllegalAction, Randomness, RandomSource

#: Faces of a resource die, in the order of the tower's face indices (RULES.md 6.1.1).
FACES: tuple[str, ...] = ("wool", "grain", "brick", "ore", "lumber", "gold")
#: What a joker or the gold exchange may turn a die into: every face but gold.
RESOURCES: tuple[str, ...] = ("lumber", "brick", "wool", "grain", "ore")
ANY = "any"

#: Dice a turn of the basic game throws, and the most a turn of Plus throws (6.6.4).
DICE = 6
ROLLS_PER_TURN = 3
#: Score boxes on the basic sheet (6.2.4) and the entry of a turn without building (6.2.3).
TURNS = 15
PENALTY = -2
#: Plus: victory points to win (6.6.7), knights for Largest Army (6.6.2), and its bonuses.
PLUS_VP = 10
ARMY_MIN = 3
BONUS_VP = 2


class Variant(StrEnum):
    BASIC = "basic"
    PLUS = "plus"


class Piece(StrEnum):
    ROAD = "road"
    SETTLEMENT = "settlement"
    CITY = "city"
    KNIGHT = "knight"


#: What each item costs in dice (6.2.2).
COSTS: dict[Piece, Counter[str]] = {
    Piece.ROAD: Counter(brick=1, lumber=1),
    Piece.SETTLEMENT: Counter(brick=1, lumber=1, wool=1, grain=1),
    Piece.CITY: Counter(ore=3, grain=2),
    Piece.KNIGHT: Counter(ore=1, wool=1, grain=1),
}


@dataclass(frozen=True)
class Joker:
    """A resource joker: the resource it gives (or ``"any"``) and the knights that unlock it."""

    resource: str
    knights: tuple[int, ...]


@dataclass(frozen=True)
class SheetLayout:
    """The printed island of one side of the pad.

    Roads are edges between numbered crossings; road 0 is the pre-built start road (6.3.1).
    Settlements and cities sit on crossings; ``*_values`` are what each scores (basic: points on
    the score track, Plus: VP). In the basic game the order of settlements, cities and knights is
    their order here, which is ascending value (6.3.2-6.3.4).
    """

    roads: tuple[tuple[int, int], ...]
    settlements: tuple[int, ...]
    settlement_values: tuple[int, ...]
    cities: tuple[int, ...]
    city_values: tuple[int, ...]
    knight_values: tuple[int, ...]
    jokers: tuple[Joker, ...]
    #: what a road scores (basic 1, 6.3.1; Plus roads count only for Longest Road, 6.6.2)
    road_value: int = 1
    #: Plus: the road whose building wins Longest Road first (6.6.2); -1 on the basic sheet.
    marked_road: int = -1

    def __post_init__(self) -> None:
        crossings = {c for road in self.roads for c in road}
        problems = [
            (not self.roads, "roads: give at least the start road"),
            (
                not set(self.settlements) | set(self.cities) <= crossings,
                "settlements, cities: every one must stand at the end of a road",
            ),
            (
                len(self.settlement_values) != len(self.settlements)
                or len(self.city_values) != len(self.cities),
                "settlement_values, city_values: give one value per symbol",
            ),
            (
                any(
                    not j.knights or not all(0 <= k < len(self.knight_values) for k in j.knights)
                    for j in self.jokers
                ),
                "jokers: each must name knights of the sheet",
            ),
            (
                any(j.resource not in (*RESOURCES, ANY) for j in self.jokers),
                f"jokers: the resource must be one of {', '.join(RESOURCES)} or {ANY}",
            ),
            (not -1 <= self.marked_road < len(self.roads), "marked_road: give a road or -1"),
        ]
        for bad, message in problems:
            if bad:
                raise ValueError(f"sheet layout: {message}")

    def value(self, piece: Piece, index: int) -> int:
        if piece is Piece.ROAD:
            return self.road_value
        if piece is Piece.SETTLEMENT:
            return self.settlement_values[index]
        if piece is Piece.CITY:
            return self.city_values[index]
        return self.knight_values[index]

    def count(self, piece: Piece) -> int:
        return {
            Piece.ROAD: len(self.roads),
            Piece.SETTLEMENT: len(self.settlements),
            Piece.CITY: len(self.cities),
            Piece.KNIGHT: len(self.knight_values),
        }[piece]

    def crossing(self, piece: Piece, index: int) -> int:
        return (self.settlements if piece is Piece.SETTLEMENT else self.cities)[index]


# One road network for both sides (6.3.5 GAP, see docs/dice-game.md): a main line of roads
# 0-2-3-4-6-7-9-10-13-14 from the start road, side roads to the cities and a spur (road 15).
_ROADS: tuple[tuple[int, int], ...] = (
    (0, 1),  # 0: start road
    (1, 2),
    (1, 3),
    (3, 4),
    (4, 5),
    (4, 6),
    (5, 7),
    (7, 8),
    (7, 9),
    (8, 10),
    (10, 11),
    (10, 12),
    (12, 13),
    (11, 14),
    (14, 15),
    (14, 16),
)
_SETTLEMENTS = (1, 3, 5, 8, 11, 15)
_CITIES = (2, 6, 9, 13)

BASIC_SHEET = SheetLayout(
    roads=_ROADS,
    settlements=_SETTLEMENTS,
    settlement_values=(3, 4, 5, 7, 9, 11),
    cities=_CITIES,
    city_values=(7, 12, 20, 30),
    knight_values=(1, 2, 3, 4, 5, 6),
    jokers=tuple(
        Joker(r, (i,)) for i, r in enumerate(("ore", "grain", "wool", "lumber", "brick", ANY))
    ),
)

# Plus: one knight on each of the five resource hexes, and a double knight on each of two
# deserts (6.6.6); road 6 ends the fifth road of the main line (0, 2, 3, 4, 6).
PLUS_SHEET = SheetLayout(
    roads=_ROADS,
    settlements=_SETTLEMENTS,
    settlement_values=(1,) * 6,
    cities=_CITIES,
    city_values=(2,) * 4,
    knight_values=(0,) * 9,
    jokers=(
        *(Joker(r, (i,)) for i, r in enumerate(RESOURCES)),
        Joker(ANY, (5, 6)),
        Joker(ANY, (7, 8)),
    ),
    road_value=0,
    marked_road=6,
)


# --- actions -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Roll:
    """Throw the dice not in ``keep`` (indices into the current dice; empty on the first roll).

    ``faces`` are what fell, one per die thrown, in die order; left out, the game draws them.
    """

    player: str
    keep: tuple[int, ...] = ()
    faces: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Build:
    """Mark ``piece`` number ``index`` (0-based, in sheet order) paid with unused dice."""

    player: str
    piece: str
    index: int


@dataclass(frozen=True)
class UseJoker:
    """Cross out joker ``joker`` and turn die ``die`` into its resource (or ``resource``)."""

    player: str
    joker: int
    die: int
    resource: str | None = None


@dataclass(frozen=True)
class ExchangeGold:
    """Turn gold die ``dice[0]`` into ``resource``; gold die ``dice[1]`` is then void (6.5.1)."""

    player: str
    dice: tuple[int, int]
    resource: str


@dataclass(frozen=True)
class EndTurn:
    player: str


DiceAction = Roll | Build | UseJoker | ExchangeGold | EndTurn
Event = dict[str, Any]

_TYPES: dict[str, type] = {
    "roll": Roll,
    "build": Build,
    "use_joker": UseJoker,
    "exchange_gold": ExchangeGold,
    "end_turn": EndTurn,
}
_NAMES = {cls: name for name, cls in _TYPES.items()}


def action_to_json(action: DiceAction) -> dict[str, Any]:
    """The JSON-safe form of an action (tuples become lists)."""
    out: dict[str, Any] = {"type": _NAMES[type(action)]}
    for k, v in vars(action).items():
        out[k] = list(v) if isinstance(v, tuple) else v
    return out


def action_from_json(data: dict[str, Any]) -> DiceAction:
    """The action ``data`` describes; ValueError naming what is wrong if it describes none."""
    if not isinstance(data, dict) or data.get("type") not in _TYPES:
        raise ValueError(f"action type: give one of {', '.join(_TYPES)}")
    cls = _TYPES[data["type"]]
    kw = {k: v for k, v in data.items() if k != "type"}
    try:
        for k in ("keep", "faces", "dice"):
            if isinstance(kw.get(k), list):
                kw[k] = tuple(kw[k])
        return cls(**kw)  # type: ignore[no-any-return]
    except TypeError as exc:
        raise ValueError(f"action {data['type']}: {exc}") from None


# --- the sheet -------------------------------------------------------------------------------


@dataclass
class Sheet:
    """One player's sheet: when each symbol was marked, the jokers crossed out, the track.

    ``built[piece][i]`` is the turn number (0-based, the player's own turns) symbol ``i`` was
    marked in, or None; the start road is marked in turn -1. Plus has no track (6.6.1).
    ``order`` lists the marks in the order they were made, so the sheet checks (RULES.md 7.6)
    can be run on it.
    """

    layout: SheetLayout
    built: dict[Piece, list[int | None]] = field(default_factory=dict)
    jokers_used: list[int | None] = field(default_factory=list)
    order: list[tuple[Piece, int]] = field(default_factory=list)
    track: list[int] = field(default_factory=list)
    #: turns this player has finished
    turns: int = 0

    def __post_init__(self) -> None:
        if not self.built:
            self.built = {p: [None] * self.layout.count(p) for p in Piece}
            self.built[Piece.ROAD][0] = -1
            self.jokers_used = [None] * len(self.layout.jokers)

    def has(self, piece: Piece, index: int) -> bool:
        return self.built[piece][index] is not None

    def count(self, piece: Piece) -> int:
        return sum(t is not None for t in self.built[piece])

    def road_at(self, crossing: int) -> bool:
        """A marked road ends at ``crossing``."""
        return any(
            self.has(Piece.ROAD, i) and crossing in ends for i, ends in enumerate(self.layout.roads)
        )

    def longest_road(self) -> int:
        """Roads in the longest continuous road, branches not counted (6.6.3)."""
        built = frozenset(i for i in range(len(self.layout.roads)) if self.has(Piece.ROAD, i))
        return _longest_road(self.layout.roads, built)

    def points(self) -> int:
        """Value of every marked symbol but the free start road (basic points, Plus VP)."""
        return sum(
            self.layout.value(p, i)
            for p in Piece
            for i, t in enumerate(self.built[p])
            if t is not None and (p, i) != (Piece.ROAD, 0)
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "built": {p.value: list(ts) for p, ts in self.built.items()},
            "jokers_used": list(self.jokers_used),
            "order": [[p.value, i] for p, i in self.order],
            "track": list(self.track),
            "turns": self.turns,
        }

    @classmethod
    def from_json(cls, layout: SheetLayout, data: dict[str, Any]) -> Sheet:
        return cls(
            layout,
            {Piece(p): list(ts) for p, ts in data["built"].items()},
            list(data["jokers_used"]),
            [(Piece(p), int(i)) for p, i in data["order"]],
            [int(x) for x in data["track"]],
            int(data["turns"]),
        )


@lru_cache(maxsize=4096)
def _longest_road(roads: tuple[tuple[int, int], ...], built: frozenset[int]) -> int:
    """The most roads of ``built`` (indices into ``roads``) one walk can follow, each once."""
    links: dict[int, list[tuple[int, int]]] = {}
    for i in built:
        a, b = roads[i]
        links.setdefault(a, []).append((i, b))
        links.setdefault(b, []).append((i, a))

    # A side branch is a different walk, so it never adds to this one.
    def walk(at: int, used: frozenset[int]) -> int:
        return max((1 + walk(to, used | {i}) for i, to in links[at] if i not in used), default=0)

    return max((walk(c, frozenset()) for c in links), default=0)


def check_sheet(sheet: Sheet, variant: Variant, finished: bool = False) -> list[str]:
    """The RULES.md 7.6 checks the sheet fails (empty when it passes them all)."""
    lay = sheet.layout
    failed: list[str] = []
    marked: set[tuple[Piece, int]] = {(Piece.ROAD, 0)}
    for piece, i in sheet.order:
        roads_before = [lay.roads[j] for p, j in marked if p is Piece.ROAD]
        if piece is Piece.ROAD:
            if not any(set(lay.roads[i]) & set(r) for r in roads_before):
                failed.append("DICE-ROAD-CHAIN")
        elif piece in (Piece.SETTLEMENT, Piece.CITY):
            ok = any(lay.crossing(piece, i) in r for r in roads_before)
            if variant is Variant.BASIC:
                ok = ok and all((piece, j) in marked for j in range(i))
            if not ok:
                failed.append(
                    "DICE-SETTLE-ORDER" if piece is Piece.SETTLEMENT else "DICE-CITY-ORDER"
                )
        elif variant is Variant.BASIC and not all((piece, j) in marked for j in range(i)):
            failed.append("DICE-KNIGHT-ORDER")
        marked.add((piece, i))
    for j, turn in enumerate(sheet.jokers_used):
        knight_turns = [sheet.built[Piece.KNIGHT][k] for k in lay.jokers[j].knights]
        if turn is not None and any(t is None or t > turn for t in knight_turns):
            failed.append("DICE-JOKER")
    if variant is Variant.BASIC:
        per_turn = Counter[int]()
        for p in Piece:
            for i, t in enumerate(sheet.built[p]):
                if t is not None and t >= 0:
                    per_turn[t] += lay.value(p, i)
        expected = [per_turn.get(t, PENALTY) for t in range(len(sheet.track))]
        if sheet.track != expected or (finished and len(sheet.track) != TURNS):
            failed.append("DICE-TRACK")
    return sorted(set(failed))


# --- the game --------------------------------------------------------------------------------


@dataclass
class _Turn:
    """The dice of the current turn: their faces, which are used up or void, what was built."""

    dice: list[str] = field(default_factory=list)
    rolls: int = 0
    #: no more rolling: something was built, or a joker or the gold exchange was used (6.2.1)
    fixed: bool = False
    spent: list[bool] = field(default_factory=list)
    void: list[bool] = field(default_factory=list)
    built: bool = False

    def usable(self, i: int) -> bool:
        return not self.spent[i] and not self.void[i]

    def to_json(self) -> dict[str, Any]:
        return {
            "dice": list(self.dice),
            "rolls": self.rolls,
            "fixed": self.fixed,
            "spent": list(self.spent),
            "void": list(self.void),
            "built": self.built,
        }


class DiceGame:
    """A game of the Catan Dice Game between ``players`` (names in seat order).

    ``variant`` is the basic game (1-4 players, 15 turns each) or Plus (2-4 players, first to
    10 VP). ``layout`` replaces the printed sheet of the variant.
    """

    def __init__(
        self,
        players: Sequence[str],
        variant: Variant | str = Variant.BASIC,
        rng: Randomness | int | None = None,
        layout: SheetLayout | None = None,
    ):
        self.variant = Variant(variant)
        low = 2 if self.variant is Variant.PLUS else 1
        if not low <= len(players) <= 4 or len(set(players)) != len(players):
            raise ValueError(f"players: give {low} to 4 different names for {self.variant.value}")
        self.players: tuple[str, ...] = tuple(players)
        self.layout = layout or (PLUS_SHEET if self.variant is Variant.PLUS else BASIC_SHEET)
        self.rng: Randomness = rng if hasattr(rng, "pick") else RandomSource(rng)  # type: ignore
        self.sheets: dict[str, Sheet] = {p: Sheet(self.layout) for p in self.players}
        #: turns played so far by everybody together
        self.turn_number = 0
        self.turn = _Turn()
        #: Plus: who holds Largest Army and Longest Road (6.6.2)
        self.army: str | None = None
        self.road: str | None = None
        self.winners: tuple[str, ...] = ()

    # --- reading the state

    @property
    def current_player(self) -> str:
        return self.players[self.turn_number % len(self.players)]

    @property
    def over(self) -> bool:
        return bool(self.winners)

    def dice_this_turn(self) -> int:
        """How many dice the current turn throws (Plus ramp 6.6.4: 3, 4, 5, then 6)."""
        if self.variant is Variant.PLUS:
            return min(DICE, 3 + self.turn_number)
        return DICE

    def score(self, player: str) -> int:
        """Basic: the sum of the score track. Plus: VP with the bonuses held."""
        sheet = self.sheets[player]
        if self.variant is Variant.BASIC:
            return sum(sheet.track)
        return sheet.points() + BONUS_VP * ((self.army == player) + (self.road == player))

    def snapshot(self) -> dict[str, Any]:
        """The whole state as JSON-safe data (for the page and for resuming)."""
        return {
            "variant": self.variant.value,
            "players": list(self.players),
            "turn_number": self.turn_number,
            "current": None if self.over else self.current_player,
            "dice_this_turn": self.dice_this_turn(),
            "turn": self.turn.to_json(),
            "sheets": {p: s.to_json() for p, s in self.sheets.items()},
            "scores": {p: self.score(p) for p in self.players},
            "largest_army": self.army,
            "longest_road": self.road,
            "winners": list(self.winners),
        }

    @classmethod
    def from_snapshot(
        cls,
        data: dict[str, Any],
        rng: Randomness | int | None = None,
        layout: SheetLayout | None = None,
    ) -> DiceGame:
        """The game ``data`` (from :meth:`snapshot`) describes; ValueError if it is no snapshot.

        The sheets must be the players' and each must pass the RULES.md 7.6 checks, so a
        damaged save is caught here rather than in the middle of a game.
        """
        try:
            game = cls(data["players"], data["variant"], rng, layout)
            game.sheets = {p: Sheet.from_json(game.layout, data["sheets"][p]) for p in game.players}
            game.turn_number = int(data["turn_number"])
            t = data["turn"]
            game.turn = _Turn(
                [str(f) for f in t["dice"]],
                int(t["rolls"]),
                bool(t["fixed"]),
                [bool(x) for x in t["spent"]],
                [bool(x) for x in t["void"]],
                bool(t["built"]),
            )
            game.army, game.road = data["largest_army"], data["longest_road"]
            game.winners = tuple(data["winners"])
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise ValueError(f"snapshot: not a dice-game snapshot ({exc!r})") from None
        for p, sheet in game.sheets.items():
            failed = check_sheet(sheet, game.variant)
            if failed:
                raise ValueError(f"snapshot: {p}'s sheet fails {', '.join(failed)}")
        return game

    # --- legal actions

    def legal_actions(self) -> list[DiceAction]:
        """Every action the current player may take now (a Roll for each set of held dice)."""
        return [a for a in self._candidates() if self._refusal(a) is None]

    def _candidates(self) -> Iterator[DiceAction]:
        if self.over:
            return
        p, t = self.current_player, self.turn
        n = len(t.dice)
        for k in range(n if t.rolls else 1):
            for keep in combinations(range(n), k):
                yield Roll(p, keep)
        for piece in Piece:
            for i in range(self.layout.count(piece)):
                yield Build(p, piece.value, i)
        sheet = self.sheets[p]
        for j, joker in enumerate(self.layout.jokers):
            if sheet.jokers_used[j] is not None:
                continue
            for die in range(n):
                for r in RESOURCES if joker.resource == ANY else (joker.resource,):
                    yield UseJoker(p, j, die, r)
        # Only gold dice pair up: listing other pairs would only list refusals.
        gold = [i for i, face in enumerate(t.dice) if face == "gold"]
        for a, b in combinations(gold, 2):
            for r in RESOURCES:
                yield ExchangeGold(p, (a, b), r)
                yield ExchangeGold(p, (b, a), r)
        yield EndTurn(p)

    def is_legal(self, action: DiceAction) -> bool:
        return self._refusal(action) is None

    # --- applying

    def apply(
        self, action: DiceAction, journal: Callable[[DiceAction], None] | None = None
    ) -> list[Event]:
        """Carry ``action`` out; IllegalAction (state untouched) if the rules refuse it.

        ``journal`` gets the resolved action (a roll with its faces) before the state changes.
        """
        refusal = self._refusal(action)
        if refusal is not None:
            raise refusal
        if isinstance(action, Roll) and action.faces is None:
            n = len(self.turn.dice) if self.turn.rolls else self.dice_this_turn()
            thrown = n - len(action.keep)
            faces = tuple(FACES[self.rng.pick([1] * len(FACES))] for _ in range(thrown))
            action = Roll(action.player, action.keep, faces)
        if journal is not None:
            journal(action)
        if isinstance(action, Roll):
            return self._roll(action)
        if isinstance(action, Build):
            return self._build(action)
        if isinstance(action, UseJoker):
            return self._joker(action)
        if isinstance(action, ExchangeGold):
            return self._exchange(action)
        return self._end_turn()

    def _refusal(self, action: DiceAction) -> IllegalAction | None:
        if not isinstance(action, Roll | Build | UseJoker | ExchangeGold | EndTurn):
            return IllegalAction("6.2", "{} is no action of the dice game", type(action).__name__)
        if self.over:
            return IllegalAction("6.2.4", "the game is over")
        if action.player != self.current_player:
            return IllegalAction(
                "6.2", "it is {}'s turn, not {}'s", self.current_player, action.player
            )
        t = self.turn
        if isinstance(action, Roll):
            return self._roll_refusal(action)
        if t.rolls == 0:
            return IllegalAction("6.2.1", "roll the dice first")
        if isinstance(action, Build):
            return self._build_refusal(action)
        if isinstance(action, UseJoker):
            return self._joker_refusal(action)
        if isinstance(action, ExchangeGold):
            return self._exchange_refusal(action)
        return None

    def _roll_refusal(self, a: Roll) -> IllegalAction | None:
        t = self.turn
        if t.rolls >= ROLLS_PER_TURN:
            return IllegalAction("6.2.1", "three rolls are the most in a turn")
        if t.fixed:
            return IllegalAction("6.2.1", "the result is fixed once a die is used")
        n = len(t.dice) if t.rolls else self.dice_this_turn()
        if t.rolls == 0 and a.keep:
            return IllegalAction("6.2.1", "the first roll throws all the dice")
        if len(set(a.keep)) != len(a.keep) or any(
            not isinstance(i, int) or not 0 <= i < n for i in a.keep
        ):
            return IllegalAction("6.2.1", "keep: give different die numbers from 0 to {}", n - 1)
        if len(a.keep) == n:
            return IllegalAction("6.2.1", "a roll must throw at least one die")
        if a.faces is not None:
            if len(a.faces) != n - len(a.keep):
                return IllegalAction(
                    "6.2.1", "faces: give {} faces, one per die thrown", n - len(a.keep)
                )
            bad = [f for f in a.faces if f not in FACES]
            if bad:
                return IllegalAction("6.1.1", "faces: {!r} is no face of a resource die", bad[0])
        return None

    def _build_refusal(self, a: Build) -> IllegalAction | None:
        if a.piece not in tuple(Piece):
            return IllegalAction("6.2.2", "piece: give road, settlement, city or knight")
        piece, lay, sheet = Piece(a.piece), self.layout, self.sheets[a.player]
        if not isinstance(a.index, int) or not 0 <= a.index < lay.count(piece):
            return IllegalAction("6.3.5", "the sheet has no {} {}", a.piece, a.index)
        if sheet.has(piece, a.index):
            return IllegalAction("6.1.2", "{} is marked already", self._symbol(piece, a.index))
        basic = self.variant is Variant.BASIC
        if piece is Piece.ROAD:
            ends = set(lay.roads[a.index])
            if not any(sheet.has(Piece.ROAD, i) and ends & set(r) for i, r in enumerate(lay.roads)):
                return IllegalAction("6.3.1", "road {} must touch a marked road", a.index)
        elif piece in (Piece.SETTLEMENT, Piece.CITY):
            rule = "6.3.2" if piece is Piece.SETTLEMENT else "6.3.3"
            if basic:
                for j in range(a.index):
                    if not sheet.has(piece, j):
                        return IllegalAction(
                            rule,
                            "{} must wait for {}",
                            self._symbol(piece, a.index),
                            self._symbol(piece, j),
                        )
            if not sheet.road_at(lay.crossing(piece, a.index)):
                return IllegalAction(
                    "6.6.5" if not basic else rule,
                    "{} needs a marked road next to it",
                    self._symbol(piece, a.index),
                )
        elif basic:
            for j in range(a.index):
                if not sheet.has(piece, j):
                    return IllegalAction(
                        "6.3.4",
                        "{} must wait for {}",
                        self._symbol(piece, a.index),
                        self._symbol(piece, j),
                    )
        if self._pay(COSTS[piece]) is None:
            cost = ", ".join(f"{n} {r}" for r, n in COSTS[piece].items())
            return IllegalAction(
                "6.2.2", "a {} costs {}; the unused dice do not pay it", a.piece, cost
            )
        return None

    def _symbol(self, piece: Piece, index: int) -> str:
        """A symbol as the printed sheet names it (basic: settlement 3, city 7, knight 1)."""
        if self.variant is Variant.BASIC and piece in (Piece.SETTLEMENT, Piece.CITY):
            return f"{piece.value} {self.layout.value(piece, index)}"
        if piece is Piece.KNIGHT:
            return f"knight {index + 1}"
        return f"{piece.value} {index}"

    def _pay(self, cost: Counter[str]) -> list[int] | None:
        """Indices of unused dice that pay ``cost`` (lowest first), or None if they don't."""
        t, need, dice = self.turn, Counter(cost), []
        for i, face in enumerate(t.dice):
            if t.usable(i) and need[face] > 0:
                need[face] -= 1
                dice.append(i)
        return dice if not +need else None

    def _joker_refusal(self, a: UseJoker) -> IllegalAction | None:
        lay, sheet, t = self.layout, self.sheets[a.player], self.turn
        if not isinstance(a.joker, int) or not 0 <= a.joker < len(lay.jokers):
            return IllegalAction("6.4.1", "the sheet has no joker {}", a.joker)
        joker = lay.jokers[a.joker]
        if sheet.jokers_used[a.joker] is not None:
            return IllegalAction("6.4.1", "joker {} is crossed out already", a.joker)
        if not all(sheet.has(Piece.KNIGHT, k) for k in joker.knights):
            rule = "6.6.6" if len(joker.knights) > 1 else "6.4.1"
            return IllegalAction(rule, "joker {} needs its knights marked first", a.joker)
        if not isinstance(a.die, int) or not 0 <= a.die < len(t.dice) or not t.usable(a.die):
            return IllegalAction("6.4.1", "die {} is not an unused die", a.die)
        if joker.resource == ANY:
            if a.resource not in RESOURCES:
                return IllegalAction("6.4.1", "resource: give one of {}", ", ".join(RESOURCES))
        elif a.resource not in (None, joker.resource):
            return IllegalAction("6.4.1", "joker {} gives {} only", a.joker, joker.resource)
        return None

    def _exchange_refusal(self, a: ExchangeGold) -> IllegalAction | None:
        t = self.turn
        if len(a.dice) != 2 or a.dice[0] == a.dice[1]:
            return IllegalAction("6.5.1", "dice: give two different gold dice")
        for i in a.dice:
            if not isinstance(i, int) or not 0 <= i < len(t.dice) or not t.usable(i):
                return IllegalAction("6.5.1", "die {} is not an unused die", i)
            if t.dice[i] != "gold":
                return IllegalAction("6.5.1", "die {} shows {}, not gold", i, t.dice[i])
        if a.resource not in RESOURCES:
            return IllegalAction("6.5.1", "resource: give one of {}", ", ".join(RESOURCES))
        return None

    def _roll(self, a: Roll) -> list[Event]:
        t = self.turn
        assert a.faces is not None
        if t.rolls == 0:
            t.dice = list(a.faces)
        else:
            thrown = iter(a.faces)
            t.dice = [d if i in a.keep else next(thrown) for i, d in enumerate(t.dice)]
        t.rolls += 1
        t.spent = [False] * len(t.dice)
        t.void = [False] * len(t.dice)
        return [{"type": "rolled", "player": a.player, "roll": t.rolls, "dice": list(t.dice)}]

    def _build(self, a: Build) -> list[Event]:
        t, piece, sheet = self.turn, Piece(a.piece), self.sheets[a.player]
        paid = self._pay(COSTS[piece])
        assert paid is not None
        for i in paid:
            t.spent[i] = True
        t.fixed = t.built = True
        sheet.built[piece][a.index] = sheet.turns
        sheet.order.append((piece, a.index))
        events: list[Event] = [
            {"type": "built", "player": a.player, "piece": piece.value, "index": a.index}
        ]
        if self.variant is Variant.PLUS:
            events += self._bonuses(a.player)
            if self.score(a.player) >= PLUS_VP:
                self.winners = (a.player,)
                events.append({"type": "game_over", "winners": [a.player]})
        return events

    def _bonuses(self, player: str) -> list[Event]:
        """Plus: Largest Army and Longest Road after ``player`` built (6.6.2, 6.6.3)."""
        events: list[Event] = []
        sheet, other = self.sheets[player], None
        knights = sheet.count(Piece.KNIGHT)
        if self.army != player and knights >= ARMY_MIN:
            other = self.army
            if other is None or knights > self.sheets[other].count(Piece.KNIGHT):
                self.army = player
                events.append({"type": "largest_army", "player": player, "from": other})
        marked = self.layout.marked_road
        length = sheet.longest_road()
        if self.road != player and marked >= 0 and sheet.has(Piece.ROAD, marked):
            other = self.road
            if other is None or length > self.sheets[other].longest_road():
                self.road = player
                events.append({"type": "longest_road", "player": player, "from": other})
        return events

    def _joker(self, a: UseJoker) -> list[Event]:
        t, joker = self.turn, self.layout.jokers[a.joker]
        resource = joker.resource if joker.resource != ANY else a.resource
        assert resource is not None
        t.dice[a.die] = resource
        t.fixed = True
        sheet = self.sheets[a.player]
        sheet.jokers_used[a.joker] = sheet.turns
        return [
            {"type": "joker", "player": a.player, "joker": a.joker, "die": a.die, "to": resource}
        ]

    def _exchange(self, a: ExchangeGold) -> list[Event]:
        t = self.turn
        t.dice[a.dice[0]] = a.resource
        t.void[a.dice[1]] = True
        t.fixed = True
        return [
            {
                "type": "gold_exchanged",
                "player": a.player,
                "dice": list(a.dice),
                "to": a.resource,
            }
        ]

    def _end_turn(self) -> list[Event]:
        player, sheet = self.current_player, self.sheets[self.current_player]
        events: list[Event] = []
        if self.variant is Variant.BASIC:
            this_turn = sheet.turns
            entry = sum(
                self.layout.value(p, i)
                for p in Piece
                for i, t in enumerate(sheet.built[p])
                if t == this_turn
            )
            sheet.track.append(entry if self.turn.built else PENALTY)
            events.append({"type": "scored", "player": player, "entry": sheet.track[-1]})
        sheet.turns += 1
        self.turn_number += 1
        self.turn = _Turn()
        if self.variant is Variant.BASIC and self.turn_number == TURNS * len(self.players):
            best = max(self.score(p) for p in self.players)
            self.winners = tuple(p for p in self.players if self.score(p) == best)
            events.append({"type": "game_over", "winners": list(self.winners)})
        else:
            events.append({"type": "turn", "player": self.current_player})
        return events


__all__ = [
    "ANY",
    "BASIC_SHEET",
    "COSTS",
    "FACES",
    "PLUS_SHEET",
    "RESOURCES",
    "Build",
    "DiceAction",
    "DiceGame",
    "EndTurn",
    "ExchangeGold",
    "Joker",
    "Piece",
    "Roll",
    "Sheet",
    "SheetLayout",
    "UseJoker",
    "Variant",
    "action_from_json",
    "action_to_json",
    "check_sheet",
]
