"""Dice rolls and where they came from.

At the table the dice can come from the tower's button, from the tower on the host's request,
from the host's own random generator, or from physical dice whose values a player types in.
Every roll carries its source so the journal can tell them apart.

>>> manual_roll(DiceKind.TWO_D6, parse_dice("3 4")).total
7
>>> manual_roll(DiceKind.TWO_D6, [3, 9])
Traceback (most recent call last):
...
ValueError: die value 9 is not valid for TWO_D6 (allowed 1..6)
"""

from __future__ import annotations

import random
import secrets
from dataclasses import dataclass
from enum import StrEnum

from firmware_bridge.protocol import DICE_SHAPE, RESOURCE_FACES, DiceKind, validate_dice


class DiceSource(StrEnum):
    BUTTON = "button"  # someone pressed the tower's button
    TOWER = "tower"  # the host asked the tower to roll
    HOST = "host"  # the host's own generator, shown on the tower
    MANUAL = "manual"  # physical dice typed in on the web page


@dataclass(frozen=True)
class DiceRoll:
    kind: DiceKind
    values: tuple[int, ...]
    source: DiceSource

    @property
    def total(self) -> int:
        """Sum of the pips; only meaningful for numbered dice."""
        if self.kind == DiceKind.RESOURCE:
            raise ValueError("resource dice have no total")
        return sum(self.values)

    @property
    def faces(self) -> tuple[str, ...]:
        """Resource names of resource dice (RULES.md 6.1.1)."""
        if self.kind != DiceKind.RESOURCE:
            raise ValueError("only resource dice have named faces")
        return tuple(RESOURCE_FACES[v] for v in self.values)

    def to_json(self) -> dict[str, object]:
        return {"kind": self.kind.name.lower(), "values": list(self.values), "source": self.source}


_system = secrets.SystemRandom()


def host_roll(kind: DiceKind = DiceKind.TWO_D6, rng: random.Random | None = None) -> DiceRoll:
    """A roll from the host's generator (the operating system's by default)."""
    count, faces = DICE_SHAPE[kind]
    low = 0 if kind == DiceKind.RESOURCE else 1
    gen = rng or _system
    # randrange is uniform (it rejects, it never reduces modulo)
    values = tuple(gen.randrange(faces) + low for _ in range(count))
    return DiceRoll(kind, values, DiceSource.HOST)


def parse_dice(text: str) -> list[int]:
    """Dice values typed by a person: ``"3 4"``, ``"3,4"`` or ``"34"``."""
    cleaned = text.replace(",", " ").split()
    if len(cleaned) == 1 and cleaned[0].isdigit() and len(cleaned[0]) > 1:
        cleaned = list(cleaned[0])
    try:
        return [int(v) for v in cleaned]
    except ValueError:
        raise ValueError(f"dice values must be numbers like '3 4', got {text!r}") from None


def manual_roll(kind: DiceKind, values: list[int] | tuple[int, ...]) -> DiceRoll:
    """Physical dice typed in; raises ValueError naming the bad value."""
    return DiceRoll(kind, validate_dice(kind, values), DiceSource.MANUAL)
