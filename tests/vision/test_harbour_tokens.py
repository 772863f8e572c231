"""What a harbour token offers beyond its colour: a generic token's dark print, a dark
resource's own colour under its paper ring (:func:`vision.harbours.read_sites`)."""

from __future__ import annotations

import numpy as np

from companion.board import Harbor
from vision.harbours import (
    DOUBTFUL_CONFIDENCE,
    SiteReading,
    _colour_doubts,
    spot_geometry,
    token_marks,
)
from vision.harbours import read_sites as read

SITE = ((0, 0), "E")
SEA = (40.0, 0.0, -30.0)
# 60 pixels a hex radius, the board plane's origin at (100, 100).
PLANE_TO_TOP = np.array([[60.0, 0.0, 100.0], [0.0, 60.0, 100.0], [0.0, 0.0, 1.0]])
# Between white paper's print and ore's: a generic token in shadow, or an ore token.
GREY = (74.0, 1.0, -3.0)


def _distance_map(out: float) -> np.ndarray:
    """Each top-view pixel's distance (hex radii) from the token's centre ``out`` off SITE."""
    centre = spot_geometry([SITE], out)[0][0] * 60.0 + 100.0
    yy, xx = np.mgrid[0:200, 0:260]
    return np.hypot(xx - centre[0], yy - centre[1]) / 60.0


def _view(token: tuple[float, float, float], ring: float | None = None) -> np.ndarray:
    """A sea with one token 0.5 hex radii off SITE, printed with a dark ring of radius
    ``ring`` (a generic harbour's print) when given."""
    lab = np.empty((200, 260, 3), np.float32)
    lab[:] = SEA
    d = _distance_map(0.5)
    lab[d <= 0.25] = token
    if ring is not None:
        lab[np.abs(d - ring) <= 0.02] = (25.0, 0.0, 0.0)
    return lab


def test_a_grey_token_with_a_dark_print_is_generic() -> None:
    """A token of a grey between white paper's and ore's is told by its print: a dark ring
    (as a generic harbour's "3:1" or "?") makes it generic, none makes it no generic one."""
    printed = read(_view(GREY, ring=0.12), PLANE_TO_TOP, [SITE])[0]
    plain = read(_view(GREY), PLANE_TO_TOP, [SITE])[0]
    assert printed.inked is True and plain.inked is False
    assert printed.scores["3:1"] >= 0.9
    assert plain.scores["3:1"] < 0.5


def test_ink_running_beyond_the_token_is_no_print() -> None:
    """Dark strokes crossing the whole disc (the gaps between a hand's fingers) are not a
    token's print; strokes inside it are."""
    lab = _view((85.0, 10.0, 20.0))
    d = _distance_map(0.45)
    across = lab.copy()
    across[(np.abs(np.mgrid[0:200, 0:260][0] - 100) <= 1) & (d <= 0.5)] = (25.0, 0.0, 0.0)
    centre = spot_geometry([SITE], 0.45)[0]
    share, _ = token_marks(across[..., 0], PLANE_TO_TOP, centre)
    assert share[0] < 0.005  # a few pixels of its ends, resampled
    inside = lab.copy()
    inside[(np.abs(np.mgrid[0:200, 0:260][0] - 100) <= 1) & (d <= 0.1)] = (25.0, 0.0, 0.0)
    share, paper = token_marks(inside[..., 0], PLANE_TO_TOP, centre)
    assert share[0] > 0.04 and paper[0] == 85.0


def test_a_dark_green_token_under_a_paper_ring_reads_its_green() -> None:
    """A lumber token in shadow (darker than ink's 35 L*, but green) within a white paper
    ring, as the icon style prints it: its colour is the green, not the ring's grey."""
    lab = _view((90.0, 0.0, 0.0))
    d = _distance_map(0.5)
    lab[d <= 0.19] = (30.0, -25.0, 20.0)
    reading = read(lab, PLANE_TO_TOP, [SITE])[0]
    assert reading.colour is not None and reading.colour[1] < -15.0
    assert max(reading.scores, key=reading.scores.__getitem__) == "lumber"


def test_a_generic_token_told_by_its_print_is_not_in_doubt() -> None:
    """A Seafarers token read as generic with its colour between white's and ore's prints is
    in doubt when its colour alone told it, not when its dark print did."""
    sites = {
        ((0, n), "E"): SiteReading(((0, n), "E"), True, 1.0, GREY, {}, inked)
        for n, inked in enumerate((None, True))
    }
    harbors = [Harbor(0, n, "E", "3:1", 0.95) for n in range(2)]
    kept, warnings = _colour_doubts(harbors, sites, marked=set())
    assert [h.confidence for h in kept] == [DOUBTFUL_CONFIDENCE, 0.95]
    assert len(warnings) == 1
