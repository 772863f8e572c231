"""The base frame's six parts in any order: where the harbours not read must lie.

The marks (icons, "3:1" texts) are given to :func:`read_harbours` directly, as in
test_harbour_complete; the top view is plain sea, so no harbour is read by colour and no
standard layout is taken.
"""

from __future__ import annotations

import numpy as np
import pytest

import vision.harbours as harbours
from companion.board import Terrain, Tile, base_frame
from companion.layouts import BASE_HARBOR_SITES, base_frame_layouts
from vision.bench import HARBOUR_LABELS
from vision.harbours import Site, frame_layouts, read_harbours

PX = 40.0
PLANE_TO_TOP = np.array([[PX, 0.0, 300.0], [0.0, PX, 300.0], [0.0, 0.0, 1.0]])
TILES = {h: Tile(Terrain.FOREST, 5) for h in base_frame()}
#: Layout E of boards-dev (its parts in another order than the rulebook's), as labelled.
LAYOUT_E = {((h.q, h.r), h.side): h.kind for h in HARBOUR_LABELS["vieja_E"]}


def test_the_rulebook_and_both_real_frames_are_orders_of_the_parts() -> None:
    layouts = base_frame_layouts()
    assert len(layouts) == len(set(layouts)) == 20
    assert all(len(layout) == 9 for layout in layouts)
    assert frozenset(BASE_HARBOR_SITES) in layouts
    for labels in HARBOUR_LABELS.values():
        assert frozenset(((h.q, h.r), h.side) for h in labels) in layouts


def _read(marks: dict[Site, tuple[str | None, float]], monkeypatch: pytest.MonkeyPatch):  # noqa: ANN202
    monkeypatch.setattr(harbours, "_with_ratios", lambda *_args, **_kw: dict(marks))
    sea = np.empty((600, 600, 3), np.float32)
    sea[:] = (52.0, 1.0, -43.0)
    return read_harbours(sea, PLANE_TO_TOP, "base", TILES)


def test_the_last_harbour_is_where_the_parts_leave_it(monkeypatch: pytest.MonkeyPatch) -> None:
    logs = next(s for s, k in LAYOUT_E.items() if k == "lumber")
    marks = {s: (k, 0.99) for s, k in LAYOUT_E.items() if s != logs}
    reading = _read(marks, monkeypatch)
    got = {((h.q, h.r), h.side): h.kind for h in reading.harbors}
    assert got == LAYOUT_E and reading.unread == 0
    assert not any(w.startswith("uncertain") for w in reading.warnings)
    # Two "3:1"s left on the sides the parts leave: both are named.
    generic = [s for s, k in LAYOUT_E.items() if k == "3:1"][:2]
    reading = _read({s: (k, 0.99) for s, k in LAYOUT_E.items() if s not in generic}, monkeypatch)
    assert {((h.q, h.r), h.side): h.kind for h in reading.harbors} == LAYOUT_E


def test_nothing_is_placed_on_doubt_or_when_the_parts_do_not_say(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    logs = next(s for s, k in LAYOUT_E.items() if k == "lumber")
    # One mark read with doubt: nothing is deduced from it.
    doubt = {s: (k, 0.99 if k != "grain" else 0.8) for s, k in LAYOUT_E.items() if s != logs}
    assert logs not in {((h.q, h.r), h.side) for h in _read(doubt, monkeypatch).harbors}
    # Two kinds left (lumber and ore): the sides are known, the kinds on them are not.
    ore = next(s for s, k in LAYOUT_E.items() if k == "ore")
    two = {s: (k, 0.99) for s, k in LAYOUT_E.items() if s not in (logs, ore)}
    assert len(_read(two, monkeypatch).harbors) == 7
    # Marks that no order of the parts holds (a harbour moved to a side beside it).
    layouts = frame_layouts("base", list(TILES))
    moved = {s: (k, 0.99) for s, k in LAYOUT_E.items() if s != logs}
    grain = next(s for s, k in LAYOUT_E.items() if k == "grain")
    del moved[grain]
    beside = next(s for s in harbours.coast_sites(TILES) if s not in LAYOUT_E and s[0] == grain[0])
    moved[beside] = ("grain", 0.99)
    assert not any(set(moved) <= layout for layout in layouts)
    assert len(_read(moved, monkeypatch).harbors) == 8
