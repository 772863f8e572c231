"""A frame's harbours read one by one are certain only when they are its whole set, each
named by its printed mark.

The marks (icons, "3:1" texts) are given to :func:`read_harbours` directly (their reading is
tested in test_harbour_icons, test_harbour_text and test_harbour_grey); the top view is a base
board on plain sea, so no harbour is read by colour and no standard layout is taken.
"""

from __future__ import annotations

import numpy as np
import pytest

import vision.harbours as harbours
from companion.board import Harbor, Terrain, Tile, base_frame
from companion.layouts import BASE_HARBOR_KINDS
from vision.harbours import Site, _complete, coast_sites, read_harbours

PX = 40.0
PLANE_TO_TOP = np.array([[PX, 0.0, 300.0], [0.0, PX, 300.0], [0.0, 0.0, 1.0]])
TILES = {h: Tile(Terrain.FOREST, 5) for h in base_frame()}
SITES = coast_sites(TILES)
#: Nine coast sides far apart, and the frame's kinds laid on them.
NINE = SITES[::3][:9]
KINDS = sorted(BASE_HARBOR_KINDS)


def _sea() -> np.ndarray:
    lab = np.empty((600, 600, 3), np.float32)
    lab[:] = (52.0, 1.0, -43.0)
    return lab


def _read(marks: dict[Site, tuple[str | None, float]], monkeypatch: pytest.MonkeyPatch):  # noqa: ANN202
    monkeypatch.setattr(harbours, "_with_ratios", lambda *_args: dict(marks))
    return read_harbours(_sea(), PLANE_TO_TOP, "base", TILES)


def test_the_whole_set_each_by_its_mark_is_certain(monkeypatch: pytest.MonkeyPatch) -> None:
    reading = _read({s: (k, 0.99) for s, k in zip(NINE, KINDS, strict=True)}, monkeypatch)
    assert len(reading.harbors) == 9 and reading.unread == 0
    assert reading.layout == "free"
    assert not any(w.startswith("uncertain") for w in reading.warnings)


def test_a_mark_fewer_or_a_kind_twice_is_uncertain(monkeypatch: pytest.MonkeyPatch) -> None:
    eight = {s: (k, 0.99) for s, k in zip(NINE[:8], KINDS[:8], strict=True)}
    reading = _read(eight, monkeypatch)
    assert len(reading.harbors) == 8
    assert any(w.startswith("uncertain") for w in reading.warnings)
    # Two brick marks where the set holds one: neither is named.
    twice = {s: (k, 0.99) for s, k in zip(NINE, KINDS, strict=True)}
    twice[NINE[0]] = ("brick", 0.99) if KINDS[0] != "brick" else ("grain", 0.99)
    reading = _read(twice, monkeypatch)
    assert len(reading.harbors) < 9
    assert any(w.startswith("uncertain") for w in reading.warnings)


def _harbours(sites: list[Site]) -> list[Harbor]:
    return [Harbor(q, r, side, k, 0.95) for ((q, r), side), k in zip(sites, KINDS, strict=True)]


def test_a_harbour_named_by_its_colour_alone_or_in_doubt_is_not_complete() -> None:
    nine = _harbours(NINE)
    assert _complete(nine, BASE_HARBOR_KINDS, set(NINE))
    # One side read by the colour of its spot only.
    assert not _complete(nine, BASE_HARBOR_KINDS, set(NINE[1:]))
    # One harbour read with doubt.
    doubt = [*nine[:8], Harbor(nine[8].q, nine[8].r, nine[8].side, nine[8].kind, 0.6)]
    assert not _complete(doubt, BASE_HARBOR_KINDS, set(NINE))
