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
registration ambiguous, and so does a placement whose sea hexes mostly do not look like
sea (the map laid with one island on another and its sea out on the table). A registration
refused or ambiguous on the lattice is tried once more on the lattice of the wider closing
(``vision.register.find_lattice(wide=True)``), which finds chips the first misses. The
result is in the map's own coordinates, so a known frame names its hexes like the game that
gave it (unless the map is symmetric: ``vision.known_board`` then tells the turns apart by
terrain).

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

from companion.board import Board, Hex, Terrain, hex_center, hex_neighbours
from vision.frame_islands import unconfirmed_islands
from vision.register import (
    _BAND_CANDIDATES,
    _BAND_WEIGHT,
    _MAX_COST_PER_HEX,
    _MIN_BAND_SEA,
    Lattice,
    NoBoardError,
    Registration,
    _local_scale2,
    _robust_homography,
    _rotation_matrix,
    _sample,
    axial_to_plane,
    band_points,
    board_sea_mask,
    find_lattice,
    hex_groups,
    project,
    rotate_axial,
    sea_fraction,
)

# Shifts kept per rotation, by the chips' votes (the best and those close to it).
_SHIFTS_PER_TURN = 12
# A placement must find a chip on at least this share of the map's chip hexes: a lattice that
# holds only a part of the map (an island not relaid) is laid anywhere the part fits. Chosen on
# renders of seeds 0-2 (right placements 0.73..1, wrong 0.30..0.50); seeds 5-6 held out.
_MIN_CHIPS_SEEN = 0.6
# A hex looks like sea when this share of its inner disc is on the sea mask (the costs' test).
_LOOKS_LIKE_SEA = 0.6
# A placement whose sea hexes look like sea fewer than this share of them is in doubt: a
# lattice holding one island of the map lays another island of it there and the rest of the
# map, sea and all, on the table; the costs charge a sea hex that is not seen only 0.5 (ships
# and harbours cover some), too little against the chips' votes. Scenario bench renders of
# seeds 0, 3 and 4 (both closings' lattices): placements right 0.62-1 (5th percentile 0.83),
# whole maps laid off 0-0.44.
_MIN_SEA_SEEN = 0.5
# Chips looked for where the map puts them (chips_by_frame): position (hex radii) and size
# (log of the plane radius over the chips' median) tolerances, as the lattice's growth has
# them (vision.register._GROW_TOL, 0.3 its inliers' size tolerance); rounds of look and fit.
_EXTEND_TOL = 0.35
_EXTEND_SIZE = 0.3
_EXTEND_ROUNDS = 12
# A group of the map's chips across the sea is slid this far (hex radii) on a grid of this
# step, and taken where it finds at least this share of its discs.
_SLIDE_REACH = 1.8
_SLIDE_STEP = 0.15
_SLIDE_SHARE = 0.6
# The slid group's chips are not one shift away from the fit's (it is bent across the sea,
# up to 0.4 hex radii across a group): a disc is taken within this many hex radii of its
# place (a neighbour's disc is 1.7 away).
_SLIDE_TOL = 0.5
# The group's best place (the middle of the shifts finding most) must find this many discs
# more than any shift this far (hex radii) from it: the shifts finding a group's discs lie
# within _SLIDE_TOL of the right one, those finding its neighbours' 1.7 - _SLIDE_TOL away.
_SLIDE_MARGIN = 2
_SLIDE_AWAY = 0.75
_SLIDES = np.array(
    [
        (x, y)
        for x in np.arange(-_SLIDE_REACH, _SLIDE_REACH + 1e-9, _SLIDE_STEP)
        for y in np.arange(-_SLIDE_REACH, _SLIDE_REACH + 1e-9, _SLIDE_STEP)
        if x * x + y * y <= _SLIDE_REACH**2 + 1e-9
    ]
)


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
        unconfirmed: land hexes of the islands the image places elsewhere (the registration
            is then ambiguous) or cannot judge (their terrain looks like sea), as
            :mod:`vision.frame_islands` tells them.
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

    A registration refused or ambiguous on the lattice of the first closing is tried again on
    that of the wider one (``find_lattice(wide=True)``): chips cut into notched shapes by
    their numerals, or merged with a tile's light border, are missed by one closing and not
    by the other, and a lattice holding one island of the map lays it on another as well.
    The second is taken when it is unambiguous, or when both are ambiguous and it costs less;
    else the first stands (a board the first placed cleanly is never looked at again, and one
    it refused is not read as a board only in doubt: a lattice of one island of the map lays
    the whole map on it, the rest out on the table, ambiguous or not).
    """
    if not frame.chip_hexes:
        raise ValueError("a known frame needs land hexes where chips may lie")
    try:
        first: FrameRegistration | NoBoardError = _registered(find_lattice(bgr), frame)
    except NoBoardError as refused:
        first = refused
    if isinstance(first, FrameRegistration) and not first.ambiguous:
        return first
    try:
        second = _registered(find_lattice(bgr, wide=True), frame)
    except NoBoardError:
        second = None
    if second is not None and (
        not second.ambiguous or (isinstance(first, FrameRegistration) and second.cost < first.cost)
    ):
        return second
    if isinstance(first, NoBoardError):
        raise first
    return first


def _registered(lat: Lattice, frame: KnownFrame) -> FrameRegistration:
    """:func:`register_frame` on the lattice ``lat``; ambiguous also when the map's sea
    hexes mostly do not look like sea (:data:`_MIN_SEA_SEEN`)."""
    blue = board_sea_mask(lat.small, lat.h_lat, lat.chip_cells)
    reg, placement, problem = _placed(lat, frame, blue)
    if frame.chips is not None:
        # A lattice holding one group of the map's chips (the others across the sea, not
        # relaid): the map says where the others are; with them, it is placed again, and
        # only that placement is judged (the first one's sea band may lie off a bent fit).
        matched, fitted = chips_by_frame(reg, frame)
        if len(matched) > len(reg.chip_hexes & frame.chips):
            k, t = placement
            cells = {_moved(c, k, t) for c in lat.chip_cells} | set(matched)
            scaled = np.diag([lat.scale, lat.scale, 1.0]) @ fitted
            lat = Lattice(lat.small, lat.scale, scaled, cells, lat.candidates)
            reg, again, problem = _placed(lat, frame, blue)
            # Placed elsewhere with them: the chips found by the first placement disagree.
            reg.ambiguous = reg.ambiguous or again not in frame.symmetries()
    if problem:
        raise lat.refusal(problem)
    looks = [reg.sea_fraction.get(h, 0.0) >= _LOOKS_LIKE_SEA for h in frame.sea]
    reg.ambiguous = reg.ambiguous or (bool(looks) and float(np.mean(looks)) < _MIN_SEA_SEEN)
    seen = len(reg.chip_hexes & frame.chips) if frame.chips is not None else 0
    if frame.chips is not None and seen < _MIN_CHIPS_SEEN * len(frame.chips):
        raise lat.refusal(
            f"the map is not seen whole: chips were found on {seen} of its "
            f"{len(frame.chips)} chip hexes at best"
        )
    reg.homography = fit_on_chip_hexes(reg, frame)
    to_small = np.diag([lat.scale, lat.scale, 1.0]) @ reg.homography
    elsewhere, unjudged = unconfirmed_islands(blue, to_small, frame.land)
    reg.ambiguous = reg.ambiguous or bool(elsewhere)
    off = sorted(h for g in elsewhere + unjudged for h in g)
    return FrameRegistration(
        **vars(reg), sea_hexes=tuple(sorted(frame.sea)), unconfirmed=tuple(off)
    )


def _placed(
    lat: Lattice, frame: KnownFrame, blue: np.ndarray
) -> tuple[Registration, tuple[int, Hex], str | None]:
    """The registration of ``frame`` placed on ``lat`` (:func:`place_known_frame`), the
    placement (turn, shift), and why it is no board (no sea band round the placed map, or a
    placement too costly to be it), or None.
    """
    k, t, cost, ambiguous, sea, band = place_known_frame(lat, frame, blue)
    problem = None
    if band < _MIN_BAND_SEA:
        problem = (
            f"no board found: the {len(lat.chip_cells)} disc(s) on a hex lattice have no sea "
            "frame around them (is the whole map in the photo?)"
        )
    elif cost > _MAX_COST_PER_HEX * len(frame.hexes):
        problem = (
            f"no board found: the {len(lat.chip_cells)} disc(s) on a hex lattice do not lie "
            f"like the chips of the game's {len(frame.hexes)}-hex map"
        )
    reg = lat.placed(frame.kind, sorted(frame.hexes), k, t, cost, ambiguous, sea)
    return reg, (k, t), problem


def chips_by_frame(reg: Registration, frame: KnownFrame) -> tuple[dict[Hex, int], np.ndarray]:
    """The map's chip hexes with a disc where the map puts a chip, grown from the lattice's.

    The chips on the map's chip hexes are fitted (as :func:`fit_on_chip_hexes`); then, round
    by round, the chip hexes next to those found are looked for where the fit puts their
    centres (:func:`_discs_at`), and fitted again. Across the sea to another island the fit is
    extrapolated, a hex or more off on a steep view, so when no neighbour is found, a group
    of the map's chips (chip hexes joined by a side, the largest first) is slid as one in the
    board plane (:func:`_slide_group`) and taken where it clearly finds most of its discs.

    Returns:
        ``(matched, homography)``: chip hex -> index in ``reg.candidates``, and the float64
        (3, 3) board plane -> pixels fitted on them (``reg.homography`` if under 4 chips).
    """
    matched = _discs_on_chip_hexes(reg, frame)
    if not matched:
        return {}, reg.homography
    cands = np.array([[c.x, c.y] for c in reg.candidates])
    rad = np.array([c.radius for c in reg.candidates])
    h = reg.homography
    for _ in range(_EXTEND_ROUNDS):
        chips = sorted(matched)
        centres = np.array([hex_center(x) for x in chips])
        fitted = _robust_homography(centres, cands[[matched[x] for x in chips]])
        if fitted is None:
            break
        h = fitted / fitted[2, 2]
        unit = np.sqrt(np.abs(_local_scale2(h, centres)))
        size = float(np.median(rad[[matched[x] for x in chips]] / unit))
        todo = frame.chip_hexes - set(matched)
        nextto = sorted(x for x in todo if any(n in matched for n in hex_neighbours(x)))
        new = _discs_at(h, nextto, np.zeros(2), cands, rad, size, set(matched.values()))
        if not new:
            for group in hex_groups(todo):
                new = _slide_group(
                    h, group, cands, rad, size, set(matched.values()), frame.chip_hexes
                )
                if new:
                    break
        if not new:
            break
        matched.update(new)
    return matched, h


def _discs_at(
    h: np.ndarray,
    hexes: list[Hex],
    shift: np.ndarray,
    cands: np.ndarray,
    rad: np.ndarray,
    size: float,
    taken: set[int],
    tol: float = 0.35,
) -> dict[Hex, int]:
    """The hexes with a disc of a chip's size where ``h`` puts their centres moved by
    ``shift`` (board plane, hex radii): hex -> candidate index, each candidate once.

    ``cands`` (N, 2) and ``rad`` (N,): candidates' centres and radii, pixels; ``size``: the
    chips' plane radius (hex radii); ``taken``: candidates already some hex's chip.
    """
    if not hexes:
        return {}
    at = np.array([hex_center(x) for x in hexes]) + shift
    unit = np.sqrt(np.abs(_local_scale2(h, at)))
    d = np.linalg.norm(project(h, at)[:, None] - cands[None], axis=2) / unit[:, None]
    j = d.argmin(axis=1)
    ok = (d[np.arange(len(hexes)), j] < tol) & (np.abs(np.log(rad[j] / unit / size)) < _EXTEND_SIZE)
    found = [(hexes[i], int(j[i])) for i in np.nonzero(ok)[0] if int(j[i]) not in taken]
    if len({c for _, c in found}) < len(found):
        return {}  # two hexes on one disc: the shift is not one cell's
    return dict(found)


def _slide_group(
    h: np.ndarray,
    group: list[Hex],
    cands: np.ndarray,
    rad: np.ndarray,
    size: float,
    taken: set[int],
    chip_hexes: frozenset[Hex],
) -> dict[Hex, int]:
    """A group of chip hexes' discs, the group slid in the board plane (up to
    :data:`_SLIDE_REACH` hex radii) to where it finds most: taken when that is at least
    :data:`_SLIDE_SHARE` of the group (and 3), and :data:`_SLIDE_MARGIN` more than any shift
    :data:`_SLIDE_AWAY` or more from the middle of the best shifts; a disc found beside the
    group where the map (``chip_hexes``) has no chip counts two less. Discs are taken within
    :data:`_SLIDE_TOL`.
    """
    # A disc beside the group, where the map has no chip, counts against the shift: a strip
    # of chips slid one cell along itself finds most of them again, and discs beyond its end.
    ring = sorted({n for x in group for n in hex_neighbours(x)} - set(group) - chip_hexes)
    counts = np.array(
        [
            len(_discs_at(h, group, s, cands, rad, size, taken, _SLIDE_TOL))
            - 2 * len(_discs_at(h, ring, s, cands, rad, size, taken, _SLIDE_TOL))
            for s in _SLIDES
        ]
    )
    best = int(counts.max())
    if best < max(3, _SLIDE_SHARE * len(group)):
        return {}
    # Every shift within the tolerance of the right one finds as many: the middle of those.
    centre = _SLIDES[counts == best].mean(axis=0)
    away = np.linalg.norm(_SLIDES - centre, axis=1) >= _SLIDE_AWAY
    if best - counts[away].max(initial=-len(ring) * 2) < _SLIDE_MARGIN:
        return {}
    return _discs_at(h, group, centre, cands, rad, size, taken, _SLIDE_TOL)


def fit_on_chip_hexes(reg: Registration, frame: KnownFrame) -> np.ndarray:
    """The homography (float64 (3, 3), board plane -> pixels) fitted to the chips seen on the
    map's chip hexes only, robustly (``vision.register._robust_homography``).

    The lattice's own homography was fitted to every disc it took as a chip; a harbour token,
    a Catan chip or a gift on a chip-less island's coast is one too, and a disc off its
    hex's centre bends the fit most where nothing else holds it: at the far, chip-less hexes
    (0.78 hex spacings off on Forgotten Tribe, seed 5). The map says which hexes hold a chip,
    so only those chips are fitted. ``reg.homography`` when fewer than 4 remain.
    """
    matched = _discs_on_chip_hexes(reg, frame)
    if not matched:
        return reg.homography
    src = np.array([hex_center(h) for h in matched])
    dst = np.array([[reg.candidates[i].x, reg.candidates[i].y] for i in matched.values()])
    fitted = _robust_homography(src, dst)
    if fitted is None:
        return reg.homography
    return fitted / fitted[2, 2]


def _discs_on_chip_hexes(reg: Registration, frame: KnownFrame) -> dict[Hex, int]:
    """The map's chip hexes the lattice found a chip on, each with its disc: the index in
    ``reg.candidates`` of the candidate nearest where the lattice put the hex's centre, in hex
    order. Empty when fewer than 4 (too few to fit a homography on)."""
    hexes = sorted(reg.chip_hexes & frame.chip_hexes)
    if len(hexes) < 4 or not reg.candidates:
        return {}
    cands = np.array([[c.x, c.y] for c in reg.candidates])
    src = np.array([hex_center(h) for h in hexes])
    near = np.linalg.norm(reg.project(src)[:, None] - cands[None], axis=2).argmin(axis=1)
    return dict(zip(hexes, (int(i) for i in near), strict=True))


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
    ring = {n for h in frame.hexes for n in hex_neighbours(h)} - frame.hexes
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
    cost += sum(0.5 for h in frame.sea if sea_at(h) < _LOOKS_LIKE_SEA)
    cost += sum(1.0 for h in ring if sea_at(h) > 0.85)
    return cost
