"""Which LEDs under the board belong to which hex.

A tower's LED strip runs under the frame hex after hex; how it was laid is the builder's choice,
so the map is data: hex ``(q, r)`` -> LED indices (one or more per hex). The usual way to lay a
strip is row by row, turning round at the end of each row (a serpentine), which
:meth:`LedMap.serpentine` reproduces for any frame: 19 or 30 hexes, or a Seafarers map.

>>> m = LedMap.serpentine([(0, -1), (1, -1), (-1, 0), (0, 0), (1, 0)], leds_per_hex=2)
>>> m.leds_of([(0, 0)])
[6, 7]
>>> m.n_leds
10
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

Hex = tuple[int, int]


@dataclass(frozen=True)
class LedMap:
    leds: Mapping[Hex, tuple[int, ...]]

    def __post_init__(self) -> None:
        seen: dict[int, Hex] = {}
        for h, indices in self.leds.items():
            if not indices:
                raise ValueError(f"hex {h} has no LEDs in the LED map")
            for i in indices:
                if not isinstance(i, int) or i < 0:
                    raise ValueError(f"hex {h}: LED index {i!r} must be an integer >= 0")
                if i in seen:
                    raise ValueError(f"LED {i} is mapped to both {seen[i]} and {h}")
                seen[i] = h

    @property
    def n_leds(self) -> int:
        """LEDs the map needs: one past the highest index."""
        return 1 + max((i for ids in self.leds.values() for i in ids), default=-1)

    @classmethod
    def serpentine(cls, hexes: Iterable[Hex], leds_per_hex: int = 1) -> LedMap:
        """Rows top to bottom (r), left to right (q) on even rows and right to left on odd."""
        if leds_per_hex < 1:
            raise ValueError(f"leds_per_hex must be at least 1, got {leds_per_hex}")
        rows: dict[int, list[Hex]] = {}
        for h in set(hexes):
            rows.setdefault(h[1], []).append(h)
        order: list[Hex] = []
        for n, r in enumerate(sorted(rows)):
            order += sorted(rows[r], reverse=n % 2 == 1)
        return cls(
            {h: tuple(range(k * leds_per_hex, (k + 1) * leds_per_hex)) for k, h in enumerate(order)}
        )

    def leds_of(self, hexes: Iterable[Hex]) -> list[int]:
        """LED indices of the given hexes, sorted; an unknown hex raises ValueError."""
        out: list[int] = []
        for h in hexes:
            key = (int(h[0]), int(h[1]))
            if key not in self.leds:
                raise ValueError(f"hex {key} is not on the LED map (check the board kind)")
            out += self.leds[key]
        return sorted(out)

    def to_json(self) -> dict[str, list[int]]:
        return {f"{q},{r}": list(ids) for (q, r), ids in sorted(self.leds.items())}

    @classmethod
    def from_json(cls, data: Mapping[str, Iterable[int]]) -> LedMap:
        """Inverse of :meth:`to_json`: ``{"q,r": [led, ...]}``."""
        leds: dict[Hex, tuple[int, ...]] = {}
        for key, ids in data.items():
            try:
                q, r = (int(v) for v in key.split(","))
            except ValueError:
                raise ValueError(f"LED map key {key!r} must look like 'q,r'") from None
            leds[(q, r)] = tuple(ids)
        return cls(leds)

    @classmethod
    def load(cls, path: str | Path) -> LedMap:
        try:
            return cls.from_json(json.loads(Path(path).read_text()))
        except json.JSONDecodeError as exc:
            raise ValueError(f"LED map {path} is not valid JSON: {exc}") from exc
