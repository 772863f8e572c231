"""Is each island of a placed map where the photo shows it?

A known frame (``vision.known_frame``) is laid on the chips' lattice, and its homography is
fitted to the chips. Hexes far from every chip (a Seafarers map's chip-less outer islands,
fog, deserts) are placed by extrapolation only: a chip-sized blob that is no chip, or too few
chips on one side of the map, bends the fit there, and an island can be drawn most of a hex
off while the chips fit well. Nothing else in the registration looks at those hexes, so this
asks the image: each island of the map (land hexes joined by their sides) is drawn as a
land/sea template in the board plane (its land hexes' interiors should not be sea; just
beyond each coast side, where the map has sea or ends, should be sea) and slid over the
image's sea mask. An island placed right agrees with the image at its own place about as well
as anywhere near it; one placed off agrees clearly better somewhere else, and is reported
*elsewhere*. An island whose terrain the sea mask takes for sea (blue-grey mountains) is seen
nowhere and cannot be judged: it is reported *unjudged*.

The gap allowed (:data:`MAX_GAP`) was chosen on the scenario bench's renders of seeds 0-2 (see
docs/vision-tracking.md, "Scenario maps: the known frame").
"""

from __future__ import annotations

import numpy as np

from companion.board import SQRT3, Hex, hex_center, hex_neighbours
from vision.register import _sample, circle_points, hex_groups, project

# Land samples per hex (board-plane offsets, hex radii): the centre and two rings inside.
_LAND = circle_points((0.3, 0.6), 8, centre=True)
# Sea samples beyond a coast side: distances from the hex centre, offsets along the side.
_SEA_REACH = (SQRT3 / 2 + 0.25, SQRT3 / 2 + 0.55)
_SEA_ALONG = (-0.4, 0.0, 0.4)
# The island's template is slid this far (hex radii) each way, on a grid of this step: a
# misplaced island seen on renders was up to 1.6 radii (0.93 hex spacings) off.
_REACH = 1.6
_STEP = 0.1
# Agreement (0..1: the mean of the land samples off the sea and the sea samples on it) that
# the best shift may have over the island's own place. Right islands (errors <= 0.11 hex
# spacings) reached 0.094; islands 0.3 spacings off or more 0.16-0.37 (seeds 0-2).
MAX_GAP = 0.15
# An island whose land samples are mostly on the sea mask wherever it is slid is not judged:
# the learned sea colour takes in the renderer's blue-grey mountains (Cloth for Catan's
# one-hex mountain island sees at most 0.53-0.59 of its land, 0.12 in place). Islands 0.25
# hex spacings off or more saw 0.96-1.0 at best, right ones with some mountain 0.65-0.88
# (the scenario bench, seeds 0-2, before the homography was fitted on chip hexes only).
MIN_LAND_SEEN = 0.75


def island_template(island: list[Hex], land: frozenset[Hex]) -> tuple[np.ndarray, np.ndarray]:
    """Board-plane samples (hex radii) that should be land, and that should be sea.

    Returns ``(land_pts, sea_pts)``, float64 (N, 2) and (M, 2): the island's hex interiors,
    and points just beyond each of its sides whose other hex is not land (sea, or off the map:
    the frame's sea band).
    """
    centres = np.array([hex_center(h) for h in island])
    land_pts = (centres[:, None, :] + _LAND[None]).reshape(-1, 2)
    sea_pts = []
    for h, c in zip(island, centres, strict=True):
        for n in hex_neighbours(h):
            if n in land:
                continue
            u = (np.array(hex_center(n)) - c) / SQRT3
            along = np.array([-u[1], u[0]])
            sea_pts += [c + u * d + along * a for d in _SEA_REACH for a in _SEA_ALONG]
    return land_pts, np.array(sea_pts).reshape(-1, 2)


_SHIFTS = np.array(
    [
        (x, y)
        for x in np.arange(-_REACH, _REACH + 1e-9, _STEP)
        for y in np.arange(-_REACH, _REACH + 1e-9, _STEP)
        if x * x + y * y <= _REACH**2 + 1e-9
    ]
)


def placement_gap(
    sea: np.ndarray, homography: np.ndarray, island: list[Hex], land: frozenset[Hex]
) -> tuple[float, float]:
    """How much better the island's template agrees with the image shifted than in place.

    Args:
        sea: bool (H, W) sea mask of the image (``vision.register.board_sea_mask``).
        homography: float (3, 3), board plane (hex radii) -> pixels of ``sea``.
        island: the island's hexes; land: every land hex of the map.

    Returns:
        ``(gap, land_seen)``: the best agreement over shifts up to :data:`_REACH` hex radii
        less the agreement in place (0 when no shift does better; agreements run 0..1), and
        the largest share of the island's land samples off the sea at any shift (low when
        the mask takes its terrain for sea: then it tells nothing).
    """
    land_pts, sea_pts = island_template(island, land)

    def on_sea(pts: np.ndarray) -> np.ndarray:
        moved = (_SHIFTS[:, None, :] + pts[None]).reshape(-1, 2)
        seen = _sample(sea, project(homography, moved)).reshape(len(_SHIFTS), len(pts))
        return seen.mean(axis=1)

    land_seen = 1.0 - on_sea(land_pts)
    score = (land_seen + on_sea(sea_pts)) / 2.0 if len(sea_pts) else land_seen
    here = int(np.argmin(np.linalg.norm(_SHIFTS, axis=1)))
    return float(score.max() - score[here]), float(land_seen.max())


def unconfirmed_islands(
    sea: np.ndarray, homography: np.ndarray, land: frozenset[Hex]
) -> tuple[list[list[Hex]], list[list[Hex]]]:
    """The islands of ``land`` the image places elsewhere (gap over :data:`MAX_GAP`), and
    those it cannot judge (their land nowhere seen off the sea: under :data:`MIN_LAND_SEEN`).

    Args:
        sea: bool (H, W) sea mask; homography: float (3, 3) board plane -> its pixels.
        land: the map's land hexes.

    Returns:
        ``(elsewhere, unjudged)``, each a list of islands (lists of hexes).
    """
    elsewhere, unjudged = [], []
    for group in hex_groups(land):
        gap, land_seen = placement_gap(sea, homography, group, land)
        if land_seen < MIN_LAND_SEEN:
            unjudged.append(group)
        elif gap > MAX_GAP:
            elsewhere.append(group)
    return elsewhere, unjudged
