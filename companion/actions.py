"""Game actions: what a player (or the table on their behalf) does, as immutable values.

An action names its player by colour. Actions whose outcome is random (a roll, a bought card, a
stolen card) carry that outcome as an optional field: left empty, the engine draws it from its
randomness source; filled in, it is what happened at the table (the tower's roll, the card the
player drew). The engine always journals the *resolved* action, with the outcome filled in, so a
replay needs no randomness at all.

Every action converts to and from a JSON-safe dict:

>>> a = BuildRoad("red", Edge(0, 0, "E"))
>>> action_to_json(a)
{'type': 'build_road', 'player': 'red', 'edge': [0, 0, 'E']}
>>> action_from_json(action_to_json(a)) == a
True
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import MISSING, dataclass, fields
from enum import StrEnum
from typing import Any, ClassVar

from companion.board import (
    CORNERS,
    RESOURCES,
    SIDES,
    Edge,
    Hex,
    Resource,
    Terrain,
    Vertex,
    edge,
    vertex,
)


class DevCard(StrEnum):
    KNIGHT = "knight"
    VICTORY_POINT = "victory_point"
    ROAD_BUILDING = "road_building"
    YEAR_OF_PLENTY = "year_of_plenty"
    MONOPOLY = "monopoly"


DEV_CARDS: tuple[DevCard, ...] = tuple(DevCard)


class ActionError(ValueError):
    """An action's JSON form is malformed (not a rules refusal: see IllegalAction)."""


@dataclass(frozen=True)
class Cards:
    """A multiset of resource cards, counts in the order of :data:`companion.board.RESOURCES`.

    >>> Cards.of(ore=3, grain=2)
    Cards(lumber=0, brick=0, wool=0, grain=2, ore=3)
    >>> Cards.of(ore=3).total
    3
    """

    counts: tuple[int, int, int, int, int] = (0, 0, 0, 0, 0)

    @classmethod
    def of(cls, **kw: int) -> Cards:
        unknown = set(kw) - {r.value for r in RESOURCES}
        if unknown:
            raise ActionError(f"unknown resource {sorted(unknown)[0]!r}")
        return cls(tuple(int(kw.get(r.value, 0)) for r in RESOURCES))  # type: ignore[arg-type]

    @classmethod
    def from_list(cls, resources: Iterable[Resource | str]) -> Cards:
        counts = [0] * len(RESOURCES)
        for r in resources:
            counts[RESOURCES.index(Resource(r))] += 1
        return cls(tuple(counts))  # type: ignore[arg-type]

    @property
    def total(self) -> int:
        return sum(self.counts)

    def to_json(self) -> dict[str, int]:
        return {r.value: n for r, n in zip(RESOURCES, self.counts, strict=True) if n}

    @classmethod
    def from_json(cls, data: Any, where: str = "cards") -> Cards:
        if not isinstance(data, Mapping):
            raise ActionError(f'{where}: must be an object like {{"ore": 2}}')
        counts = []
        for r in RESOURCES:
            n = data.get(r.value, 0)
            if not isinstance(n, int) or isinstance(n, bool) or n < 0:
                raise ActionError(f"{where}.{r.value}: must be a whole number >= 0")
            counts.append(n)
        extra = set(data) - {r.value for r in RESOURCES}
        if extra:
            raise ActionError(f"{where}: unknown resource {sorted(extra)[0]!r}")
        return cls(tuple(counts))  # type: ignore[arg-type]

    def __repr__(self) -> str:
        inner = ", ".join(f"{r.value}={n}" for r, n in zip(RESOURCES, self.counts, strict=True))
        return f"Cards({inner})"


@dataclass(frozen=True)
class Action:
    """Base class of all actions."""

    type: ClassVar[str] = ""
    player: str


@dataclass(frozen=True)
class RollDice(Action):
    """Roll for production (RULES.md 1.5.1). ``dice`` is the roll if it happened at the table."""

    type: ClassVar[str] = "roll_dice"
    dice: tuple[int, int] | None = None
    #: where the roll came from: "button", "tower", "host", "manual" (typed in), or None for
    #: the engine's own generator; journaled with the roll, ignored by the rules.
    source: str | None = None


@dataclass(frozen=True)
class BuildSettlement(Action):
    """A settlement: in the founding phase free, afterwards for brick, lumber, wool and grain."""

    type: ClassVar[str] = "build_settlement"
    vertex: Vertex


#: A fog hex turned face up: (q, r, terrain, chip number or 0). RULES.md 4.3.5.
Reveal = tuple[int, int, str, int]


@dataclass(frozen=True)
class BuildRoad(Action):
    """A road: free in the founding phase and with Road Building, else brick and lumber.

    ``revealed`` is what an exploring piece turned face up (Fog Islands), if known.
    """

    type: ClassVar[str] = "build_road"
    edge: Edge
    revealed: tuple[Reveal, ...] | None = None


@dataclass(frozen=True)
class BuildShip(Action):
    """A ship (Seafarers, RULES.md 3.2): lumber and wool; free in founding and Road Building."""

    type: ClassVar[str] = "build_ship"
    edge: Edge
    revealed: tuple[Reveal, ...] | None = None


@dataclass(frozen=True)
class MoveShip(Action):
    """Move the ship at the open end of a route from ``edge`` to ``to`` (RULES.md 3.4)."""

    type: ClassVar[str] = "move_ship"
    edge: Edge
    to: Edge


@dataclass(frozen=True)
class BuildCity(Action):
    type: ClassVar[str] = "build_city"
    vertex: Vertex


@dataclass(frozen=True)
class BuyDevelopmentCard(Action):
    """Buy the top card of the deck; ``card`` is the card drawn, if known."""

    type: ClassVar[str] = "buy_development_card"
    card: DevCard | None = None


@dataclass(frozen=True)
class PlayKnight(Action):
    type: ClassVar[str] = "play_knight"


@dataclass(frozen=True)
class PlayRoadBuilding(Action):
    type: ClassVar[str] = "play_road_building"


@dataclass(frozen=True)
class PlayYearOfPlenty(Action):
    type: ClassVar[str] = "play_year_of_plenty"
    resources: tuple[Resource, ...]


@dataclass(frozen=True)
class PlayMonopoly(Action):
    type: ClassVar[str] = "play_monopoly"
    resource: Resource


@dataclass(frozen=True)
class Discard(Action):
    """Return cards to the bank after a 7 (RULES.md 1.7.2)."""

    type: ClassVar[str] = "discard"
    cards: Cards


@dataclass(frozen=True)
class MoveRobber(Action):
    """Move the robber and steal from ``victim``; ``stolen`` is the card taken, if known."""

    type: ClassVar[str] = "move_robber"
    hex: Hex
    victim: str | None = None
    stolen: Resource | None = None


@dataclass(frozen=True)
class MovePirate(Action):
    """Move the pirate to a sea hex and maybe rob a ship owner there (RULES.md 3.6)."""

    type: ClassVar[str] = "move_pirate"
    hex: Hex
    victim: str | None = None
    stolen: Resource | None = None


@dataclass(frozen=True)
class ChooseGold(Action):
    """The resources a player takes for gold-field production (RULES.md 3.7)."""

    type: ClassVar[str] = "choose_gold"
    cards: Cards


@dataclass(frozen=True)
class MaritimeTrade(Action):
    """Trade with the bank at the player's best rate for ``give`` (4:1, 3:1 or 2:1)."""

    type: ClassVar[str] = "maritime_trade"
    give: Resource
    get: Resource


@dataclass(frozen=True)
class DomesticTrade(Action):
    """The active player gives ``give`` to ``partner`` and receives ``get`` (both agreed)."""

    type: ClassVar[str] = "domestic_trade"
    partner: str
    give: Cards
    get: Cards


@dataclass(frozen=True)
class EndTurn(Action):
    type: ClassVar[str] = "end_turn"


ACTION_TYPES: dict[str, type[Action]] = {
    cls.type: cls
    for cls in (
        RollDice,
        BuildSettlement,
        BuildRoad,
        BuildShip,
        MoveShip,
        BuildCity,
        BuyDevelopmentCard,
        PlayKnight,
        PlayRoadBuilding,
        PlayYearOfPlenty,
        PlayMonopoly,
        Discard,
        MoveRobber,
        MovePirate,
        ChooseGold,
        MaritimeTrade,
        DomesticTrade,
        EndTurn,
    )
}


def register_action(cls: type[Action]) -> type[Action]:
    """Make a scenario's action class known to :func:`action_from_json` (usable as a decorator).

    Its ``type`` must be new: a name already taken raises :class:`ValueError`.
    """
    if not cls.type or ACTION_TYPES.get(cls.type, cls) is not cls:
        raise ValueError(f"action type {cls.type!r} is empty or already taken")
    ACTION_TYPES[cls.type] = cls
    return cls


def action_to_json(action: Action) -> dict[str, Any]:
    out: dict[str, Any] = {"type": action.type}
    for f in fields(action):
        value = getattr(action, f.name)
        if value is None and f.default is None:
            continue  # an outcome not known yet (or none): left out, read back as None
        if isinstance(value, Cards):
            value = value.to_json()
        elif isinstance(value, tuple):
            value = [list(v) if isinstance(v, tuple) else v for v in value]
        out[f.name] = value
    return out


def action_from_json(data: Any) -> Action:
    """Parse an action's JSON form; raise :class:`ActionError` naming the bad field."""
    if not isinstance(data, Mapping):
        raise ActionError("an action must be a JSON object")
    kind = data.get("type")
    import companion.hooks  # noqa: F401  (scenario hooks register their actions on import)

    cls = ACTION_TYPES.get(kind)  # type: ignore[arg-type]
    if cls is None:
        raise ActionError(f"type: {kind!r} is not one of {', '.join(ACTION_TYPES)}")
    kwargs: dict[str, Any] = {}
    for f in fields(cls):
        if f.name not in data:
            if f.default is MISSING:
                raise ActionError(f"{kind}: missing field {f.name!r}")
            continue
        kwargs[f.name] = _parse_field(f"{kind}.{f.name}", str(f.type), data[f.name])
    extra = set(data) - {f.name for f in fields(cls)} - {"type"}
    if extra:
        raise ActionError(f"{kind}: unknown field {sorted(extra)[0]!r}")
    return cls(**kwargs)


def _parse_field(where: str, ftype: str, value: Any) -> Any:
    """Parse one field by its declared type (the annotation's text)."""
    optional = ftype.endswith("| None")
    if value is None:
        if optional:
            return None
        raise ActionError(f"{where}: must not be null")
    base = ftype.removesuffix(" | None")
    try:
        match base:
            case "str":
                if not isinstance(value, str) or not value:
                    raise ActionError(f"{where}: must be a player's colour")
                return value
            case "Vertex":
                return vertex(*_triple(value, where, CORNERS))
            case "Edge":
                return edge(*_triple(value, where, SIDES))
            case "Hex":
                if not (isinstance(value, list | tuple) and len(value) == 2):
                    raise ActionError(f"{where}: must be [q, r]")
                if not all(isinstance(x, int) and not isinstance(x, bool) for x in value):
                    raise ActionError(f"{where}: q and r must be integers")
                return (value[0], value[1])
            case "tuple[int, int]":
                if not (
                    isinstance(value, list | tuple)
                    and len(value) == 2
                    and all(isinstance(d, int) and not isinstance(d, bool) for d in value)
                    and all(1 <= d <= 6 for d in value)
                ):
                    raise ActionError(f"{where}: must be two dice values 1-6")
                return (value[0], value[1])
            case "int":
                if not isinstance(value, int) or isinstance(value, bool):
                    raise ActionError(f"{where}: must be a whole number")
                return value
            case "DevCard":
                return DevCard(value)
            case "Resource":
                return Resource(value)
            case "tuple[Resource, ...]":
                if not isinstance(value, list | tuple):
                    raise ActionError(f"{where}: must be a list of resources")
                return tuple(Resource(v) for v in value)
            case "Cards":
                return Cards.from_json(value, where)
            case "tuple[Reveal, ...]":
                return tuple(_reveal(v, where) for v in value)
    except ActionError:
        raise
    except (ValueError, TypeError) as exc:
        raise ActionError(f"{where}: {value!r} is not valid ({exc})") from None
    raise AssertionError(f"no parser for field type {ftype!r}")  # a programming error


def _reveal(value: Any, where: str) -> Reveal:
    if not (isinstance(value, list | tuple) and len(value) == 4):
        raise ActionError(f"{where}: each revealed hex is [q, r, terrain, number]")
    q, r, terrain, number = value
    ints = (q, r, number)
    if not all(isinstance(x, int) and not isinstance(x, bool) for x in ints):
        raise ActionError(f"{where}: q, r and number must be integers")
    if terrain not in {t.value for t in Terrain}:
        raise ActionError(f"{where}: {terrain!r} is not a terrain")
    return (q, r, terrain, number)


def _triple(value: Any, where: str, names: tuple[str, ...]) -> tuple[int, int, str]:
    if not (isinstance(value, list | tuple) and len(value) == 3):
        raise ActionError(f"{where}: must be [q, r, name]")
    q, r, n = value
    if not all(isinstance(x, int) and not isinstance(x, bool) for x in (q, r)):
        raise ActionError(f"{where}: q and r must be integers")
    if n not in names:
        raise ActionError(f"{where}: {n!r} is not one of {', '.join(names)}")
    return q, r, n
