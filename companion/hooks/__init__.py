"""Scenario rule hooks: small, named rules a scenario file switches on with parameters.

The base class and the points where the engine calls a hook are in :mod:`companion.hooks.base`;
each module beside it holds the hooks of one scenario or family of scenarios. A scenario file
names a hook by its ``name``; :func:`make_hook` builds it from the file's entry.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.hooks import (
    best_friends,
    cloth,
    country,
    forgotten_tribe,
    helpers,
    pirate_islands,
    seafarers,
    wonders,
)
from companion.hooks.base import Hook

#: every hook a scenario file may name, by name
HOOKS: dict[str, type[Hook]] = {
    cls.name: cls
    for cls in (
        seafarers.FoundingArea,
        seafarers.NoSettlement,
        seafarers.RobberForbidden,
        seafarers.IslandBonus,
        seafarers.Exploration,
        pirate_islands.PirateIslands,
        country.Country,
        country.ErieCanal,
        best_friends.BestFriends,
        helpers.Helpers,
        wonders.FoundingForbidden,
        wonders.SettlementBonus,
        wonders.Wonders,
        forgotten_tribe.TribeGifts,
        forgotten_tribe.RobberNoReturn,
        cloth.ClothTrade,
        cloth.ThirdSettlement,
    )
}


def make_hook(spec: Mapping[str, Any], areas: Mapping[str, frozenset[tuple[int, int]]]) -> Hook:
    """Build a hook from its scenario-file entry, e.g. ``{"hook": "founding_area", ...}``."""
    if not isinstance(spec, Mapping) or "hook" not in spec:
        raise ValueError("a hook entry must be an object with a 'hook' name")
    cls = HOOKS.get(spec["hook"])
    if cls is None:
        raise ValueError(f"unknown hook {spec['hook']!r} (known: {', '.join(sorted(HOOKS))})")
    params = {k: v for k, v in spec.items() if k != "hook"}
    try:
        return cls(areas, **params)
    except KeyError as exc:
        raise ValueError(f"hook {spec['hook']}: missing parameter {exc}") from None


__all__ = ["HOOKS", "Hook", "make_hook"]
