"""Register a photo of a map whose frame is known: which hexes it has, which are sea.

:func:`vision.register.register` places one of a few board kinds' frames (base 19, 5-6 30,
a hexagonal Seafarers 37) on the chips' lattice. A scenario's map (a Seafarers scenario, a
Big Box country map) has its own shape, but a game knows its map: its hexes, which of them are
sea, and which land hexes hold a number chip (a desert, and a face-down fog hex, hold none).
Given that :class:`KnownFrame`, the lattice is found as for any board (steps 1-2 of
``vision.register``) and the frame is placed on it by rotation and translation with the same
costs as step 3:

- a chip seen where the map has none (off the map, on sea, on a chip-less hex): 1.5;
- sea seen on a land hex without a chip seen (3 x its sea fraction), and a sea hex that does
  not look like sea (0.5: ships, the pirate and harbours cover some of it);
- open sea all round a cell just outside the map (1 each: the frame would be too small);
- the band just outside the map not being sea (10 x its land fraction), for the cheapest.

Translations are proposed by the chips: each chip seen votes for the shifts that lay it on a
chip hex of the map, per rotation. The cheapest placement wins; a runner-up within 1 that is
not the same board (up to a turn of the map onto itself, sea and chips included) makes the
registration ambiguous. The result is in the map's own coordinates, so a known frame names
its hexes like the game that gave it (unless the map is symmetric: ``vision.known_board``
then tells the turns apart by terrain).

>>> from companion.scenario import load_scenario
>>> from vision.synth.render import Conditions, render_board
>>> board = load_scenario("new-shores", 4, seed=1).board
>>> shot = render_board(board, width=960, height=540, rng=0, conditions=Conditions())
>>> reg = register_frame(shot.image, KnownFrame.of_board(board))
>>> sorted(reg.hexes) == sorted(board.tiles), reg.ambiguous
(True, False)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from companion.board import Board, Hex, Terrain, hex_center
from vision.frame_islands import unconfirmed_islands
from vision.register import (
    _BAND_CANDIDATES,
    _BAND_WEIGHT,
    _MAX_COST_PER_HEX,
    _MIN_BAND_SEA,
    Lattice,
    NoBoardError,
    Registration,
    _robust_homography,
    _rotation_matrix,
    _sample,
    axial_to_plane,
    band_points,
    board_sea_mask,
    find_lattice,
    project,
    rotate_axial,
    sea_fraction,
)

_NEIGHBOURS = ((1, -1), (1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1))
# Shifts kept per rotation, by the chips' votes (the best and those close to it).
_SHIFTS_PER_TURN = 12
# A placement must find a chip on at least this share of the map's chip hexes: a lattice that
# holds only a part of the map (an island not relaid) is laid anywhere the part fits. Chosen on
# renders of seeds 0-2 (right placements 0.73..1, wrong 0.30..0.50); seeds 5-6 held out.
_MIN_CHIPS_SEEN = 0.6


def symmetries(frame: Sequence[Hex], hexes: set[Hex]) -> list[tuple[int, Hex]]:
    """The turns ``k`` (x 60 degrees) and shifts ``d`` with rotate(h, k) + d laying ``frame``
    exactly onto ``hexes``.

    >>> from companion.board import base_frame
    >>> len(symmetries(list(base_frame()), set(base_frame())))
    6
    """
    out = []
    target_low = min(hexes)
    for k in range(6):
        turned = [rotate_axial(h, k) for h in frame]
        low = min(turned)
        d = (target_low[0] - low[0], target_low[1] - low[1])
        if {(q + d[0], r + d[1]) for q, r in turned} == hexes:
            out.append((k, d))
    return out


@dataclass(frozen=True)
class KnownFrame:
    """A map's frame as the game knows it.

    Attributes:
        kind: the board kind it is reported as (``seafarers``: ships are played on it).
        hexes: every hex of the map, sea included.
        sea: the sea hexes.
        chips: the land hexes holding a number chip, or None when unknown (then any land hex
            may hold one).
    """

    kind: str
    hexes: frozenset[Hex]
    sea: frozenset[Hex]
    chips: frozenset[Hex] | None = None

    @classmethod
    def of_board(cls, board: Board) -> KnownFrame:
        """The frame of ``board``: its hexes, its sea, and the hexes with a chip.

        A face-down (unexplored) hex is land without a chip, whatever it turns out to be.
        """
        return cls(
            board.kind,
            frozenset(board.tiles),
            frozenset(h for h, t in board.tiles.items() if t.terrain == Terrain.SEA),
            frozenset(h for h, t in board.tiles.items() if t.number is not None),
        )

    @property
    def land(self) -> frozenset[Hex]:
        return self.hexes - self.sea

    @property
    def chip_hexes(self) -> frozenset[Hex]:
        """Where a chip may be: the chip hexes when known, else the land."""
        return self.land if self.chips is None else self.chips

    def symmetries(self) -> list[tuple[int, Hex]]:
        """The turns ``k`` (x 60 degrees) and shifts ``d`` with rotate(h, k) + d laying the map
        onto itself, sea on sea and chips on chips; (0, (0, 0)) first.

        >>> square = KnownFrame("seafarers", frozenset({(0, 0), (1, 0)}), frozenset())
        >>> square.symmetries()
        [(0, (0, 0)), (3, (1, 0))]
        """
        return [
            (k, d)
            for k, d in symmetries(list(self.hexes), set(self.hexes))
            if all({_moved(h, k, d) for h in part} == part for part in (self.sea, self.chip_hexes))
        ]


def _moved(h: Hex, k: int, t: Hex) -> Hex:
    """rotate(h, k) + t."""
    q, r = rotate_axial(h, k)
    return (q + t[0], r + t[1])


def _cell(h: Hex, k: int, t: Hex) -> Hex:
    """The lattice cell that frame hex ``h`` lies on when frame = rotate(cell, k) + t."""
    return rotate_axial((h[0] - t[0], h[1] - t[1]), -k % 6)


@dataclass
class FrameRegistration(Registration):
    """A :class:`vision.register.Registration` of a known frame.

    Attributes:
        sea_hexes: the frame's sea hexes (known, where ``sea_fraction`` is what was seen).
        unconfirmed: land hexes of the islands the image places elsewhere
            (:mod:`vision.frame_islands`); the registration is then ambiguous.
    """

    sea_hexes: tuple[Hex, ...] = ()
    unconfirmed: tuple[Hex, ...] = ()


def register_frame(bgr: np.ndarray, frame: KnownFrame) -> FrameRegistration:
    """Find the map ``frame`` in a photo, in the frame's own coordinates.

    Args:
        bgr: uint8 (H, W, 3) photo, any size.
        frame: the map's hexes, sea and chips.

    Returns:
        The registration (``kind`` the frame's, ``hexes`` its hexes), homography board plane
        -> pixels of ``bgr`` fitted to the chips seen on the map's chip hexes
        (:func:`fit_on_chip_hexes`); ``ambiguous`` when another placement, not the same board,
        was nearly as good, or when an island is not where the image has it
        (``unconfirmed``).

    Raises:
        NoBoardError: no lattice of chips, no sea band round the placed map, a placement
            too costly to be this map, or one finding chips on too few of its chip hexes
            (:data:`_MIN_CHIPS_SEEN`, when the frame knows its chips).
    """
    if not frame.chip_hexes:
        raise ValueError("a known frame needs land hexes where chips may lie")
    lat = find_lattice(bgr)
    blue = board_sea_mask(lat.small, lat.h_lat, lat.chip_cells)
    k, t, cost, ambiguous, sea, band = place_known_frame(lat, frame, blue)
    if band < _MIN_BAND_SEA:
        raise NoBoardError(
            f"no board found: the {len(lat.chip_cells)} disc(s) on a hex lattice have no sea "
            "frame around them (is the whole map in the photo?)"
        )
    if cost > _MAX_COST_PER_HEX * len(frame.hexes):
        raise NoBoardError(
            f"no board found: the {len(lat.chip_cells)} disc(s) on a hex lattice do not lie "
            f"like the chips of the game's {len(frame.hexes)}-hex map"
        )
    reg = lat.placed(frame.kind, sorted(frame.hexes), k, t, cost, ambiguous, sea)
    if frame.chips is not None and len(reg.chip_hexes & frame.chips) < _MIN_CHIPS_SEEN * len(
        frame.chips
    ):
        raise NoBoardError(
            f"the map is not seen whole: chips were found on {len(reg.chip_hexes & frame.chips)}"
            f" of its {len(frame.chips)} chip hexes at best"
        )
    reg.homography = fit_on_chip_hexes(reg, frame)
    to_small = np.diag([lat.scale, lat.scale, 1.0]) @ reg.homography
    off = sorted(h for g in unconfirmed_islands(blue, to_small, frame.land) for h in g)
    reg.ambiguous = reg.ambiguous or bool(off)
    return FrameRegistration(
        **vars(reg), sea_hexes=tuple(sorted(frame.sea)), unconfirmed=tuple(off)
    )


def fit_on_chip_hexes(reg: Registration, frame: KnownFrame) -> np.ndarray:
    """The homography (float64 (3, 3), board plane -> pixels) fitted to the chips seen on the
    map's chip hexes only, robustly (``vision.register._robust_homography``).

    The lattice's own homography was fitted to every disc it took as a chip; a harbour token,
    a Catan chip or a gift on a chip-less island's coast is one too, and a disc off its
    hex's centre bends the fit most where nothing else holds it: at the far, chip-less hexes
    (0.78 hex spacings off on Forgotten Tribe, seed 5). The map says which hexes hold a chip,
    so only those chips are fitted. ``reg.homography`` when fewer than 4 remain.
    """
    hexes = sorted(reg.chip_hexes & frame.chip_hexes)
    if len(hexes) < 4 or not reg.candidates:
        return reg.homography
    src = np.array([hex_center(h) for h in hexes])
    cands = np.array([[c.x, c.y] for c in reg.candidates])
    # Each chip hex's disc: the candidate nearest where the lattice put the hex's centre.
    near = np.linalg.norm(reg.project(src)[:, None] - cands[None], axis=2).argmin(axis=1)
    fitted = _robust_homography(src, cands[near])
    if fitted is None:
        return reg.homography
    return fitted / fitted[2, 2]


def place_known_frame(
    lat: Lattice, frame: KnownFrame, blue: np.ndarray | None = None
) -> tuple[int, Hex, float, bool, dict[Hex, float], float]:
    """Choose the rotation and translation of ``frame`` that best explain chips and sea
    (``blue``: the lattice's ``board_sea_mask`` when already made).

    Returns ``(k, t, cost, ambiguous, sea, band)`` where frame hex = rotate(lattice cell, k)
    + t, ``sea`` is the sea fraction per lattice cell examined and ``band`` the fraction of
    the frame's surrounding band that is sea (see the module's docstring for the costs).
    """
    chips = sorted(lat.chip_cells)
    targets = frame.chip_hexes
    proposals: list[tuple[int, Hex]] = []
    for k in range(6):
        turned = [rotate_axial(c, k) for c in chips]
        votes = Counter((g[0] - c[0], g[1] - c[1]) for c in turned for g in targets)
        best = votes.most_common(_SHIFTS_PER_TURN)
        proposals += [(k, t) for t, n in best if n >= best[0][1] // 2]
    ring = {(h[0] + dq, h[1] + dr) for h in frame.hexes for dq, dr in _NEIGHBOURS} - frame.hexes
    # Every lattice cell any proposal lays the frame or its ring on is measured once.
    outline = frame.hexes | ring
    cells = {_cell(h, k, t) for k, t in proposals for h in outline}
    if blue is None:
        blue = board_sea_mask(lat.small, lat.h_lat, lat.chip_cells)
    sea = sea_fraction(lat.small, lat.h_lat, sorted(cells), blue)
    results = sorted((_cost(frame, ring, chips, sea, k, t), k, t) for k, t in proposals)
    band_pts = band_points(tuple(sorted(frame.hexes)))
    scored = []
    for cost, k, t in results[:_BAND_CANDIDATES]:
        shift = band_pts - axial_to_plane(np.array([t]))[0]
        on_sea = float(
            _sample(blue, project(lat.h_lat, project(_rotation_matrix(-k), shift))).mean()
        )
        scored.append((cost + _BAND_WEIGHT * (1.0 - on_sea), k, t, on_sea))
    scored.sort(key=lambda x: x[0])
    cost, k, t, band = scored[0]
    same = {_compose(s, (k, t)) for s in frame.symmetries()}
    ambiguous = any(c - cost < 1.0 and (kk, tt) not in same for c, kk, tt, _ in scored[1:20])
    return k, t, cost, ambiguous, sea, band


def _compose(s: tuple[int, Hex], p: tuple[int, Hex]) -> tuple[int, Hex]:
    """The placement ``p`` followed by the frame's symmetry ``s``."""
    (ks, ds), (kp, tp) = s, p
    turned = rotate_axial(tp, ks)
    return (ks + kp) % 6, (turned[0] + ds[0], turned[1] + ds[1])


def _cost(
    frame: KnownFrame,
    ring: set[Hex],
    chips: list[Hex],
    sea: dict[Hex, float],
    k: int,
    t: Hex,
) -> float:
    """How badly frame hex = rotate(lattice cell, k) + t explains what is seen (0 =
    perfectly); ``sea`` is the sea fraction by lattice cell."""

    def sea_at(h: Hex) -> float:
        return sea.get(_cell(h, k, t), 0.0)

    placed = {_moved(c, k, t) for c in chips}
    cost = 1.5 * len(placed - frame.chip_hexes)
    cost += sum(3.0 * sea_at(h) for h in frame.land - placed)
    cost += sum(0.5 for h in frame.sea if sea_at(h) < 0.6)
    cost += sum(1.0 for h in ring if sea_at(h) > 0.85)
    return cost
