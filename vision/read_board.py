"""Read a whole board from one photo: registration, terrain, chips, with confidences.

``read_board(image_or_path)`` returns a :class:`companion.board.Board` whose hexes carry a
terrain, a number (``None`` where a chip could not be read honestly) and a confidence, and
whose ``warnings`` say what is doubtful. A board whose warnings include one starting with
``"uncertain"`` must not be trusted without a look; :func:`is_certain` tells.
"""

from __future__ import annotations

import logging
import math
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from companion.board import SCENARIO_BOARD_KINDS, Board, Hex, Terrain, Tile, hex_center
from vision.chip_rim import rim_ellipse, round_affine
from vision.harbours import Site, read_harbours, token_discs
from vision.known_frame import FrameRegistration, KnownFrame, register_frame
from vision.occlusion import cover_mask, covered_fraction
from vision.pieces import KIND_CERTAIN, detect_pieces
from vision.register import (
    DESERTS,
    NoBoardError,
    Registration,
    band_doubt,
    circle_points,
    hex_groups,
    plane_to_axial,
    project,
    rectify,
    register,
    round_axial,
)
from vision.robber import board_balance, find_pirate, find_robber
from vision.terrain import (
    PROTOTYPES,
    TerrainReading,
    board_paper,
    chip_light,
    chip_paper,
    classify_terrain,
    hex_features,
    stray_discs,
)

log = logging.getLogger(__name__)

#: Chip counts of the boards whose material is fixed.
CHIP_COUNTS: dict[str, Counter[int]] = {
    "base": Counter({2: 1, 3: 2, 4: 2, 5: 2, 6: 2, 8: 2, 9: 2, 10: 2, 11: 2, 12: 1}),
    "5-6": Counter({2: 2, 3: 3, 4: 3, 5: 3, 6: 3, 8: 3, 9: 3, 10: 3, 11: 3, 12: 2}),
}

#: A hex read with less confidence than this makes the board uncertain.
CERTAIN = 0.9
# A hex is hidden when this share of its ring is covered (too little is left to read it by).
_HIDDEN = 0.75
# A hex a hand reaches into by more than this share of its ring is read from what shows of
# it, but not trusted (terrain and chip at most _PARTLY_CONFIDENCE), and not searched for the
# robber or pirate: the hand's fingers and shaded rim, which the cover mask misses, may lie
# over its chip and along what shows of its art (so the hex is more covered than measured;
# bench vision --real-hands: vieja_F_2 read a 6 under the fingers as 4 with 0.93, the mask
# seeing 6% of the disc covered; catan_55 a pasture 41% covered as desert with 0.95), and a
# wrong reading is worse than none.
_REACHED = 0.1
# Highest confidence of a hex read from the part a hand leaves clear, or whose place is in
# doubt (an ambiguous frame, a Seafarers band that is not sea, an island nothing places, a
# frame running beyond the photo: its reading may be another hex's).
_PARTLY_CONFIDENCE = 0.5
# A base or 5-6 frame with this many land hexes bare of chips in plain view, beyond its
# deserts, is placed in doubt (see _bare_land; bench vision --real-hands seeds 0-3: of 198
# composites registered, the frames placed right leave at most 4 bare but for two of
# catan_12's (5 and 6, its far row's chips flat and small), those laid off the chips 5 to 8).
_BARE_DOUBT = 5
# A hex is sea when this fraction of its interior is open-sea blue.
_SEA_FRACTION = 0.7
# Top-view resolution bounds, pixels per hex radius (chips stay 30..70 px wide).
_MIN_PX, _MAX_PX = 40.0, 90.0
# Score given to an unread chip (and floor of any score) in the joint log-score; the chip
# reader's own floor for leaving a chip unread.
_SCORE_FLOOR = 0.02
# Side, in pixels, of the chip crops handed to the reader (the size it works at).
_READ_SIDE = 128
# Nominal chip diameter in hex radii.
_CHIP_CROP = 0.8
# How far (hex radii) from its hex's centre a chip may lie: players place chips by hand, 0.4
# off is common; pieces stand on corners (1.0) and sides (0.87), well beyond this.
_CHIP_OFFSET = 0.5
# Half-side of a chip crop in disc radii: the rim and a little of the tile show.
_CROP_MARGIN = 1.08
# A chip whose disc is under a hand by this share is not read (see _read_chips): on the hard
# renders (bench vision, seeds 0 and 5, 400 renders) none of 135 chips so covered was read
# right and 5 were read wrong.
_CHIP_HIDDEN = 0.5
# Highest confidence of a chip value deduced from the counts rather than read (see
# _deduced_confidence): under CERTAIN, since the chip was not seen.
_DEDUCED_MAX = 0.85


def load_image(image_or_path: np.ndarray | str | Path) -> np.ndarray:
    """A BGR uint8 (H, W, 3) image from an array or a file (EXIF orientation applied).

    Raises:
        ValueError: a file that does not exist or is not an image, or an array that is not a
            colour or grey image.
    """
    if isinstance(image_or_path, str | Path):
        path = Path(image_or_path)
        if not path.is_file():
            raise ValueError(f"{path}: no such image file")
        # imread applies the EXIF orientation tag unless told not to.
        img = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if img is None:
            raise ValueError(f"{path}: not an image OpenCV can read (JPEG, PNG, ...)")
        return img
    img = np.asarray(image_or_path)
    if img.dtype != np.uint8:
        raise ValueError(f"the image must be uint8, not {img.dtype}")
    if img.ndim == 2:
        return cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
    if img.ndim == 3 and img.shape[2] == 3:
        return img
    if img.ndim == 3 and img.shape[2] == 4:
        return cv2.cvtColor(img, cv2.COLOR_BGRA2BGR)
    raise ValueError(f"the image must be (H, W) or (H, W, 3), not {img.shape}")


#: What the doubt on a building's kind and on a coast piece's kind says (in that order), after
#: "uncertain: N ".
PIECE_DOUBTS = (
    "building(s) could be a city or a settlement",
    "piece(s) on the coast could be a road or a ship",
)


def is_certain(board: Board, pieces: bool = True) -> bool:
    """True when nothing in the reading is in doubt; with ``pieces`` False, nothing but the
    kind of some pieces (the board itself is certain: a mid-game photo's hexes, chips and
    harbours can be trusted while a player looks at a building)."""
    return not any(
        w.startswith("uncertain") and (pieces or not any(d in w for d in PIECE_DOUBTS))
        for w in board.warnings
    )


def unanchored_islands(reg: FrameRegistration, known: Board | None) -> list[list[Hex]]:
    """The islands of the known map ``known`` that nothing in the photo places: not confirmed
    by their land against the sea (``reg.unconfirmed``) and without a chip seen where the map
    has a number (the homography is fitted on the chips, so an island with one is where the
    fit puts it; a disc on a chip-less island is a token, which places nothing). Their hexes
    may lie off the photo's, so the reading cannot be certain."""
    numbered = {h for h, t in known.tiles.items() if t.number is not None} if known else set()
    anchors = reg.chip_hexes & numbered
    return [g for g in hex_groups(reg.unconfirmed) if not anchors.intersection(g)]


def _bare_land(reg: Registration, cover: np.ndarray, out_of_view: np.ndarray) -> int:
    """How many hexes of a base or 5-6 frame beyond its deserts show no chip where the photo
    shows them clear (ring at most :data:`_REACHED` under a hand, less than half of it beyond
    the photo's edge; ``cover`` and ``out_of_view`` per hex of ``reg.hexes``).

    Every land hex but the deserts holds a chip, and chips are found in plain view: a frame
    placed right leaves at most a missed chip or two bare, one laid off the chips (the lattice
    grown on one side of an arm and extrapolated, or the board placed as another) leaves its
    cells beyond the chips bare though nothing covers them.
    """
    clear = (cover <= _REACHED) & (out_of_view < 0.5)
    bare = sum(1 for h, c in zip(reg.hexes, clear, strict=True) if c and h not in reg.chip_hexes)
    return max(0, bare - DESERTS[reg.kind])


def for_setup_check(board: Board) -> Board:
    """The board as a setup check should judge it: without its harbours when some were left
    unread (their warnings say so), since a partial set would be judged as harbours missing
    from the frame; the check then notes that the harbours were not checked."""
    if any(w.startswith("uncertain") and "harbour" in w for w in board.warnings):
        return replace(board, harbors=[])
    return board


def read_board(
    image_or_path: np.ndarray | str | Path,
    kind: str | None = None,
    debug_dir: str | Path | None = None,
    pieces: bool = True,
    known: Board | None = None,
) -> Board:
    """Read the board in a photo.

    Args:
        image_or_path: BGR uint8 (H, W, 3) array or an image file of any size.
        kind: base, 5-6 or seafarers when known; None to detect it.
        debug_dir: if given, stage images are written there (see :mod:`vision.debug`).
        pieces: read the players' pieces too (see :func:`vision.pieces.detect_pieces`); the
            board alone is read faster.
        known: the map on the table (a scenario's, ``companion.scenario.scenario_map``),
            whose hexes, sea, terrain and chip counts are known though not which land hex
            holds which: a Seafarers or country map is registered by its frame
            (:mod:`vision.known_frame`) with its own sea, the terrain is read under its
            counts as a base board's is (:func:`map_counts`), its chips under its chip
            counts (:func:`map_chip_counts`), its face-down hexes given
            (:func:`is_face_down`), its land without chips not read for one
            (:func:`map_chipless`) and its harbours read on its sides (:func:`map_harbours`);
            overrides ``kind``.

    Returns:
        The board; hexes in canonical coordinates (orientation chosen by the reader and stable
        for a fixed camera), with confidences and warnings.

    Raises:
        ValueError: bad input, or "no board found ..." when the photo shows no board.
    """
    image = load_image(image_or_path)
    if min(image.shape[:2]) < 64:
        raise ValueError(f"the image is too small ({image.shape[1]}x{image.shape[0]}) to read")
    warnings: list[str] = []
    counts = map_counts(known, warnings) if known is not None else None
    try:
        if known is not None and known.kind in SCENARIO_BOARD_KINDS:
            frame = KnownFrame.of_board(known)
            # Which land hexes hold a chip is the set-up's draw (a desert's place), not the
            # map's.
            reg: Registration = register_frame(image, replace(frame, chips=None))
        else:
            reg = register(image, known.kind if known is not None else kind)
    except NoBoardError as exc:
        if debug_dir is not None:
            from vision.debug import write_refusal_images

            written = write_refusal_images(Path(debug_dir), image, exc)
            raise NoBoardError(f"{exc}; what was seen of it: {written[0]}") from None
        raise
    # Hexes whose place is in doubt: what is read there may be another hex's (a frame laid
    # off its cells reads the board's hexes surely, each under another hex's name).
    misplaced: set[Hex] = set()
    if reg.ambiguous:
        warnings.append("uncertain: the frame fits the chips in more than one place")
        misplaced = set(reg.hexes)
    elif doubt := band_doubt(reg):
        warnings.append(doubt)
        misplaced = set(reg.hexes)
    elif isinstance(reg, FrameRegistration) and (adrift := unanchored_islands(reg, known)):
        names = "; ".join(", ".join(str(h) for h in group) for group in adrift)
        warnings.append(
            f"uncertain: the map's island(s) {names} could not be checked against the photo "
            "(no chip seen on them, and their land is not told from the sea)"
        )
        misplaced = {h for group in adrift for h in group}

    native = _native_px_per_unit(reg)
    px = float(np.clip(native, _MIN_PX, _MAX_PX))
    top, plane_to_top = rectify(image, reg, px)

    sea = np.array([reg.sea_fraction.get(h, 0.0) > _SEA_FRACTION for h in reg.hexes])
    sea &= np.array([h not in reg.chip_hexes for h in reg.hexes])
    if isinstance(reg, FrameRegistration):
        # The map says where its sea is, hand or glare over it or not.
        sea = np.array([h in reg.sea_hexes for h in reg.hexes])
    elif reg.kind != "seafarers" and sea.any():
        warnings.append(f"uncertain: {int(sea.sum())} hex(es) of a {reg.kind} board look like sea")
        sea[:] = False
    discs, read_discs = _chip_discs(top, plane_to_top, reg)
    # What the photo shows of the top view: an arm may come in over the photo's border.
    in_view = rectify(np.full(image.shape[:2], 255, np.uint8), reg, px)[0] > 0
    out_of_view = covered_fraction(~in_view, plane_to_top, reg.hexes)
    beyond = int(np.sum(out_of_view >= 1.0))
    if beyond:
        # The frame's place and kind rest on the part of it in view: what lies beyond (its
        # rows, its band) is not seen (bench vision --real-hands: catan_55, a base board, was
        # laid as a 5-6 frame whose near row ran beyond the photo and read 5 values wrongly
        # with 0.93-0.98; no frame placed right, of 104 composites and 100 renders, had one).
        warnings.append(
            f"uncertain: {beyond} hex(es) of the frame lie beyond the photo's edge, so its "
            "place rests on the part in view (is the whole board in the photo?)"
        )
        misplaced = set(reg.hexes)
    covered = cover_mask(top, plane_to_top, reg.hexes, ~sea, in_view)
    feats = hex_features(top, plane_to_top, reg.hexes, covered)
    cover = covered_fraction(covered, plane_to_top, reg.hexes)
    if not isinstance(reg, FrameRegistration) and reg.kind != "seafarers":
        bare = _bare_land(reg, cover, out_of_view)
        if bare >= _BARE_DOUBT:
            # A frame laid off the board's chips (an arm across a row stops the lattice, which
            # then extrapolates the rest) reads its hexes as surely as a right one.
            warnings.append(
                f"uncertain: {bare} land hex(es) in plain view show no chip, so the frame may "
                "lie off the board's chips"
            )
            misplaced = set(reg.hexes)
    hidden = cover > _HIDDEN
    chips = {h: d for h, d in discs.items() if h in reg.chip_hexes}
    papers = chip_paper(top, reg.hexes, chips)
    light = chip_light(papers, reg.hexes)
    paper = board_paper(papers)
    chipped = np.zeros(len(reg.hexes), bool)
    # A face-down fog hex shows its back, not its terrain: the map says what it is.
    face_down = np.array([is_face_down(known, h) for h in reg.hexes])
    shown = ~face_down
    # A known map's sea is the map's, whatever lies over it.
    given_sea = sea if isinstance(reg, FrameRegistration) else np.zeros(len(reg.hexes), bool)

    def classify() -> list[TerrainReading]:
        read = classify_terrain(
            feats[shown],
            kind=reg.kind,
            sea=sea[shown],
            counts=counts,
            light=light[shown],
            hidden=hidden[shown],
            chipped=chipped[shown],
            paper=paper,
            touched=cover[shown] > 0.0,
        )
        face_up = iter(_partly_capped(read, cover[shown], given_sea[shown]))
        given = TerrainReading(Terrain.UNEXPLORED, 1.0, {})
        return [given if f else next(face_up) for f in face_down]

    terrain = classify()
    # A hex freed of the desert passes it to another, whose chip may be read as surely: read
    # again until the desert lands where no chip is read surely (bench vision seed 0, render
    # 57: the fourth round found it, a shadow's edge over the true desert having made it look
    # busy as fields). Every round forbids one hex more, so the rounds end.
    while True:
        more = _barren_with_chips(image, top, plane_to_top, reg, terrain, read_discs, covered, sea)
        if not (more & ~chipped).any():
            break
        chipped |= more
        terrain = classify()
    unseen = sum(t.unseen for t in terrain)
    if unseen:
        warnings.append(
            f"uncertain: {unseen} hex(es) covered or looking like no terrain (a hand, an object?)"
        )

    chip_counts = map_chip_counts(known) if known is not None else CHIP_COUNTS.get(reg.kind)
    no_chip = map_chipless(known) if isinstance(reg, FrameRegistration) else frozenset()
    numbers, chip_conf, deduced = _read_chips(
        image, top, plane_to_top, reg, terrain, read_discs, covered, warnings, chip_counts, no_chip
    )

    tiles: dict[Hex, Tile] = {}
    for i, h in enumerate(reg.hexes):
        t = terrain[i]
        number = numbers.get(h)
        # A hex a hand reaches into has its terrain capped (_partly_capped), so its chip too.
        conf = min(t.confidence, chip_conf.get(h, 1.0))
        if h in misplaced:
            conf = min(conf, _PARTLY_CONFIDENCE)
        if t.terrain in _CHIPLESS:
            number = None
        tiles[h] = Tile(t.terrain, number, round(float(conf), 4))
    low = [h for h, t in tiles.items() if (t.confidence or 0.0) < CERTAIN]
    if low:
        warnings.append(f"uncertain: {len(low)} hex(es) read with confidence below {CERTAIN}")
    # Only real chips white-balance the view (a desert's "disc" is just its centre).
    # Nor does a chip whose number was only deduced (a hand or a book may lie over it).
    chips = {
        h: d
        for h, d in discs.items()
        if h in reg.chip_hexes or (tiles[h].number and h not in deduced)
    }
    lab, cast = board_balance(top, chips)
    # A hand, its fingers or its shadow can look like a figure: a hex a hand reaches into is
    # not searched (a figure under a hand is not in view anyway).
    clear = {h for h, c in zip(reg.hexes, cover, strict=True) if c <= _REACHED}
    # Chips read with doubt: the robber may stand on one and hide part of its numeral.
    unsure = {h for h, c in chip_conf.items() if c < CERTAIN}
    on_map = map_harbours(known) if isinstance(reg, FrameRegistration) else None
    harbours = read_harbours(lab, plane_to_top, reg.kind, tiles, covered=covered, known=on_map)
    tokens = token_discs(harbours, plane_to_top) if reg.kind == "seafarers" else []
    # A known map says whether the game has a pirate; read blind, a Seafarers map may.
    has_pirate = None if known is None else known.pirate is not None
    robber, pirate = _figures(
        lab, plane_to_top, reg, tiles, chips, clear, unsure, tokens, has_pirate, warnings, cast
    )
    warnings.extend(harbours.warnings)
    found = detect_pieces(image, reg) if pieces else []
    seen = [p.to_piece() for p in found]
    # Named by place: the pieces' JSON carries no kind confidence, and a player must know
    # which piece to look at.
    for on_vertex, what in zip((True, False), PIECE_DOUBTS, strict=True):
        doubt = [
            p
            for p in found
            if (p.vertex is not None) == on_vertex and p.kind_confidence < KIND_CERTAIN
        ]
        if doubt:
            which = "; ".join(
                f"{p.color} {p.kind} at ({', '.join(map(str, p.vertex or p.edge or ()))})"
                for p in doubt
            )
            warnings.append(f"uncertain: {len(doubt)} {what}: {which}")
    if seen:
        # Colour classes come from the renderer unless the table was calibrated: on real
        # plastic, pieces read from one photo need a look (docs/vision-tracking.md).
        warnings.append(f"{len(seen)} piece(s) read by colour alone: confirm them")
    board = Board(
        reg.kind,
        tiles,
        harbours.harbors,
        robber=robber,
        pirate=pirate,
        pieces=seen,
        warnings=warnings,
    )
    if debug_dir is not None:
        from vision.debug import write_debug_images
        from vision.harbours import draw_harbours

        extra = {"4_harbours.png": draw_harbours(top, plane_to_top, harbours)}
        write_debug_images(Path(debug_dir), image, reg, top, plane_to_top, board, extra)
    return board


def is_face_down(known: Board | None, h: Hex) -> bool:
    """Whether the map ``known`` has hex ``h`` face down (fog, ``unexplored``): its back shows,
    and the reading gives it as the map does."""
    tile = known.tiles.get(h) if known is not None else None
    return tile is not None and tile.terrain == Terrain.UNEXPLORED


#: hexes that never carry a number chip
_CHIPLESS = (Terrain.SEA, Terrain.DESERT, Terrain.UNEXPLORED)


def map_counts(known: Board, warnings: list[str]) -> Counter[Terrain] | None:
    """The terrain counts of the map ``known`` (sea included) over the hexes that show their
    face (a face-down hex is given as the map has it, :func:`is_face_down`), the constraint
    its reading is held to; None, noted in ``warnings``, when the map has hexes of a terrain
    the reader does not know.

    >>> from companion.layouts import random_board
    >>> map_counts(random_board(4, seed=1), [])[Terrain.FOREST]
    4
    """
    counts = Counter(t.terrain for t in known.tiles.values() if t.terrain != Terrain.UNEXPLORED)
    unread = [t.value for t in counts if t not in PROTOTYPES]
    if unread:
        warnings.append(
            f"the map's terrain counts are not used: it has {', '.join(sorted(unread))} hexes"
        )
        return None
    return counts


def map_chip_counts(known: Board) -> Counter[int] | None:
    """The number chips of the map ``known``, the multiset its chips are read under, or None
    when the map has none (a map whose chips differ from one set-up to the next carries no
    numbers, see :func:`companion.scenario.scenario_map`).

    A scenario's chips are its own (Seafarers and country maps share no standard set), and the
    map knows them: read blind, such a board's chips are read one by one, with nothing to
    deduce a hidden chip from.

    >>> from companion.scenario import scenario_map
    >>> map_chip_counts(scenario_map("four-islands", 4))[6]
    2
    """
    counts = known.chip_counts()
    return counts if counts else None


def map_harbours(known: Board | None) -> tuple[frozenset[Site], tuple[str, ...]] | None:
    """The sides the map ``known`` puts its harbours on and the kinds of its set (none on a
    map without harbours: a country map's sea has none), or None without a map. The set-ups
    of a :func:`companion.scenario.scenario_map` agree on them.

    >>> from companion.scenario import scenario_map
    >>> sides, kinds = map_harbours(scenario_map("four-islands", 4))
    >>> len(sides), kinds.count("3:1")
    (9, 4)
    """
    if known is None:
        return None
    sides = frozenset(((h.q, h.r), h.side) for h in known.harbors)
    return sides, tuple(sorted(h.kind for h in known.harbors))


def map_chipless(known: Board | None) -> frozenset[Hex]:
    """The hexes of the map ``known`` that carry no chip in any set-up: land, not desert,
    without a number on a map that has numbers (a scenario's villages and tribes; the
    set-ups of a :func:`companion.scenario.scenario_map` agree on them). Their chip is not
    looked for, and not missed.

    >>> from companion.scenario import scenario_map
    >>> sorted(map_chipless(scenario_map("cloth-for-catan", 4)))
    [(1, 0), (3, 0)]
    """
    if known is None or not known.chip_counts():
        return frozenset()
    return known.chipless_land()


def _figures(
    lab: np.ndarray,
    plane_to_top: np.ndarray,
    reg: Registration,
    tiles: dict[Hex, Tile],
    chips: dict[Hex, tuple[float, float, float]],
    clear: set[Hex],
    unsure: set[Hex],
    tokens: list[tuple[float, float, float]],
    has_pirate: bool | None,
    warnings: list[str],
    cast: tuple[float, float],
) -> tuple[Hex | None, Hex | None]:
    """The robber's hex and (on Seafarers maps whose game may have one: ``has_pirate`` True,
    or None when not known) the pirate's, noting doubts in ``warnings``.

    ``lab`` is the top view white-balanced on the ``chips`` (see :func:`board_balance`), which
    are left out of the search, except those that could not be read or were read with doubt
    (``unsure``: the robber may stand on one); only the ``clear`` hexes (no hand over them)
    are searched. The pirate is not searched on the harbour ``tokens`` (top-view discs, see
    :func:`vision.harbours.token_discs`): a dark token is as black as the ship. ``cast``:
    what :func:`board_balance` added to ``lab``'s a*, b* (see :func:`find_pirate`)."""
    land = [h for h, t in tiles.items() if t.terrain.is_land and h in clear]
    # A robber standing on a chip hides its numeral: chips unread or read with doubt are
    # searched too (the desert has none).
    unsure = {
        h
        for h in land
        if tiles[h].terrain != Terrain.DESERT and (tiles[h].number is None or h in unsure)
    }
    robber = find_robber(lab, plane_to_top, land, chips, unsure)
    if robber.ambiguous:
        warnings.append("uncertain: the robber could be on more than one hex")
    elif robber.hex is None:
        warnings.append("the robber is not in view")
    pirate: Hex | None = None
    if reg.kind == "seafarers" and has_pirate is not False:
        sea = [h for h, t in tiles.items() if t.terrain == Terrain.SEA and h in clear]
        found = find_pirate(lab, plane_to_top, sea, tokens, cast=cast)
        if found.ambiguous:
            warnings.append("uncertain: the pirate could be on more than one hex")
        elif found.hex is None:
            # A game with a pirate has it on the sea from the start (RULES.md 3.6.1): not
            # found, it is hidden or off the photo, not gone.
            warnings.append(
                "the pirate is not in view"
                if has_pirate
                else "no pirate seen (if the game has one, it is hidden or off the photo)"
            )
        pirate = found.hex
    return robber.hex, pirate


def _native_px_per_unit(reg: Registration) -> float:
    """Median image pixels per board-plane unit over the board's hexes."""
    centres = np.array([hex_center(h) for h in reg.hexes])
    a = project(reg.homography, centres)
    b = project(reg.homography, centres + [1.0, 0.0])
    return float(np.median(np.linalg.norm(b - a, axis=1)))


def chip_disc(
    top: np.ndarray,
    centre: np.ndarray,
    px: float,
    known: tuple[float, float, float] | None,
    nominal: float,
) -> tuple[float, float, float]:
    """Where the chip disc of a hex is in the top view: ``(x, y, radius)`` in pixels.

    ``known`` is the disc registration found there (mapped into the top view), used when its
    size is close to ``nominal`` (this board's chip radius in top-view pixels). Otherwise a
    circle of about that size is searched near the hex centre (Hough transform on the
    window); failing that, the nominal chip at the hex centre.
    """
    if known is not None:
        x, y, r = known
        if (
            0.7 * nominal < r < 1.3 * nominal
            and math.hypot(x - centre[0], y - centre[1]) < _CHIP_OFFSET * px
        ):
            return known
    # The window holds a whole chip lying as far off centre as a chip may.
    half = int(math.ceil(_CHIP_OFFSET * px + 1.25 * nominal))
    cx, cy = int(round(centre[0])), int(round(centre[1]))
    x0, y0 = max(0, cx - half), max(0, cy - half)
    win = top[y0 : cy + half, x0 : cx + half]
    if min(win.shape[:2]) > 16:
        grey = cv2.GaussianBlur(cv2.cvtColor(win, cv2.COLOR_BGR2GRAY), (3, 3), 0)
        circles = cv2.HoughCircles(
            grey,
            cv2.HOUGH_GRADIENT,
            dp=1,
            minDist=nominal,
            param1=80,
            param2=12,
            minRadius=int(0.75 * nominal),
            maxRadius=int(1.25 * nominal),
        )
        # The strongest circle close enough to the centre (they come strongest first).
        for x, y, r in circles[0] if circles is not None else ():
            x, y = float(x) + x0, float(y) + y0
            if math.hypot(x - centre[0], y - centre[1]) < _CHIP_OFFSET * px:
                return (x, y, float(r))
    return (float(centre[0]), float(centre[1]), nominal)


def photo_chip_crop(
    image: np.ndarray,
    top_to_image: np.ndarray,
    disc: tuple[float, float, float],
    side: int = _READ_SIDE,
    fix: np.ndarray | None = None,
) -> np.ndarray | None:
    """The chip as seen from straight above, cut from the original photo.

    The square around the disc ``(x, y, radius)`` of the top view is mapped through the
    homography back into the photo and resampled once, at ``side`` pixels: the camera's own
    (sharpest) pixels, with the perspective undone locally, so the chip is a centred circle
    filling the crop whatever the camera's tilt. None if the disc leaves the photo.
    ``fix`` (float (3, 3), top view to top view) maps the disc onto where the chip really is
    in the top view (an ellipse, see :func:`_rim_fix`), to make that round instead.
    """
    x, y, r = disc
    k = r * _CROP_MARGIN / (side / 2.0)
    # Crop pixel (u, v) -> top view, sampling at pixel centres.
    crop_to_top = np.array(
        [[k, 0.0, x - k * (side - 1) / 2.0], [0.0, k, y - k * (side - 1) / 2.0], [0, 0, 1]]
    )
    if fix is not None:
        crop_to_top = fix @ crop_to_top
    crop_to_image = top_to_image @ crop_to_top
    corners = project(crop_to_image, np.array([[0, 0], [side, 0], [side, side], [0, side]]))
    x0, y0 = np.floor(corners.min(axis=0)).astype(int)
    x1, y1 = np.ceil(corners.max(axis=0)).astype(int)
    h, w = image.shape[:2]
    if x0 < 0 or y0 < 0 or x1 > w or y1 > h or min(x1 - x0, y1 - y0) < 8:
        return None
    roi = image[y0:y1, x0:x1]
    # Photo pixels per crop pixel along the longer crop axis: a shrink needs a low-pass first.
    shrink = max(np.linalg.norm(corners[1] - corners[0]), np.linalg.norm(corners[3] - corners[0]))
    shrink /= side
    if shrink > 1.3:
        roi = cv2.GaussianBlur(roi, (0, 0), 0.5 * math.sqrt(shrink * shrink - 1.0))
    shift = np.array([[1.0, 0.0, -x0], [0.0, 1.0, -y0], [0.0, 0.0, 1.0]])
    return cv2.warpPerspective(
        roi,
        shift @ crop_to_image,
        (side, side),
        flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
        borderMode=cv2.BORDER_REPLICATE,
    )


def _rim_fix(
    image: np.ndarray, top_to_image: np.ndarray, disc: tuple[float, float, float]
) -> np.ndarray | None:
    """float (3, 3), top view to top view: the map from the disc ``(x, y, radius)`` onto the
    ellipse the chip's rim really draws in the top view, when it is clearly not round there
    (a steep view's far rows, where the board's homography is off: see
    :mod:`vision.chip_rim`); None when the rim is round or not found."""
    x, y, r = disc
    wide = photo_chip_crop(image, top_to_image, (x, y, r * _RIM_LOOK))
    if wide is None:
        return None
    inside = wide.shape[1] / 2.0 / (_RIM_LOOK * _CROP_MARGIN)
    mid = ((wide.shape[1] - 1) / 2.0, (wide.shape[0] - 1) / 2.0)
    found = rim_ellipse(wide, mid, inside)
    if found is None:
        return None
    # Crop pixels -> top-view pixels: a scale and a shift, which keep an ellipse's shape.
    k = r / inside
    (cx, cy), (a, b), t = found
    on_top = ((x + k * (cx - mid[0]), y + k * (cy - mid[1])), (k * a, k * b), t)
    return round_affine(on_top, (x, y), r)


#: the rim is looked for in a crop this many chip radii to each side of the centre (times the
#: crop margin): room for a rim up to 1.45 radii out
_RIM_LOOK = 1.4


def chip_crop(top: np.ndarray, disc: tuple[float, float, float]) -> np.ndarray | None:
    """The square crop of the top view that the disc ``(x, y, radius)`` fills (BGR uint8),
    or None when it falls outside the top view."""
    x, y, r = disc
    r *= _CROP_MARGIN
    a, b = int(round(x - r)), int(round(y - r))
    side = int(round(2 * r))
    h, w = top.shape[:2]
    if a < 0 or b < 0 or a + side > w or b + side > h or side < 8:
        return None
    return top[b : b + side, a : a + side]


def _known_discs(
    reg: Registration, plane_to_top: np.ndarray
) -> dict[Hex, tuple[float, float, float]]:
    """The chip candidates registration found, mapped into the top view, by nearest hex."""
    out: dict[Hex, tuple[float, float, float]] = {}
    if not reg.candidates:
        return out
    img_to_top = plane_to_top @ np.linalg.inv(reg.homography)
    pts = np.array([[c.x, c.y] for c in reg.candidates])
    rad = np.array([c.radius for c in reg.candidates])
    centres = project(img_to_top, pts)
    # The radius maps with the local scale: average of two perpendicular offsets.
    ex = project(img_to_top, pts + np.column_stack([rad, np.zeros_like(rad)]))
    ey = project(img_to_top, pts + np.column_stack([np.zeros_like(rad), rad]))
    top_r = (np.linalg.norm(ex - centres, axis=1) + np.linalg.norm(ey - centres, axis=1)) / 2
    px = float(plane_to_top[0, 0])
    plane = (centres - plane_to_top[:2, 2]) / px
    cells = round_axial(plane_to_axial(plane))
    for i, cell in enumerate(cells):
        h = (int(cell[0]), int(cell[1]))
        best = out.get(h)
        if best is None or top_r[i] > best[2]:
            out[h] = (float(centres[i, 0]), float(centres[i, 1]), float(top_r[i]))
    return out


def _chip_discs(
    top: np.ndarray, plane_to_top: np.ndarray, reg: Registration
) -> tuple[dict[Hex, tuple[float, float, float]], dict[Hex, tuple[float, float, float]]]:
    """Each hex's chip disc ``(x, y, radius)`` in top-view pixels (see :func:`chip_disc`),
    twice: for the board (the light of each hex, the discs left out of the robber search) and
    for reading the chips.

    Chip sizes differ between editions (0.25..0.4 hex radii): each takes this board's own, as
    the median of the light discs registration found near the hexes. The chips are read at the
    median of the discs on the lattice only, which is truer (sea foam, glare and white pieces
    pull the other down to 0.28 hex radii against 0.37 on some renders, and a crop that small
    cuts the numeral); the board's discs keep the median of all, which the robber search was
    measured with (with the lattice's, one render's robber moved to a wrong hex).
    """
    px = float(plane_to_top[0, 0])
    known = _known_discs(reg, plane_to_top)
    every = [r for (_, _, r) in known.values() if 0.2 * px < r < 0.5 * px]
    nominal = float(np.median(every)) if len(every) >= 3 else _CHIP_CROP * px / 2
    lattice = [
        r for h, (_, _, r) in known.items() if h in reg.chip_hexes and 0.2 * px < r < 0.5 * px
    ]
    reading = float(np.median(lattice)) if len(lattice) >= 3 else nominal
    centres = project(plane_to_top, np.array([hex_center(h) for h in reg.hexes]))
    board = {
        h: chip_disc(top, c, px, known.get(h), nominal)
        for h, c in zip(reg.hexes, centres, strict=True)
    }
    if abs(reading - nominal) < 0.05 * nominal:
        return board, board
    chips = {
        h: chip_disc(top, c, px, known.get(h), reading)
        for h, c in zip(reg.hexes, centres, strict=True)
    }
    return board, chips


def _joint_confidences(
    readings: list[Any], values: list[int | None], expected: Counter[int]
) -> list[float]:
    """Confidence of each chip's value within the board's joint reading.

    The chip's value is weighed against every other value it could hold and against leaving
    it unread (scored as :data:`_SCORE_FLOOR`): each alternative scores the chip's own score for
    it plus the best joint reading of the other chips with one chip of that value fewer. The
    confidence is the value's share of all (a posterior). Against the best alternative alone, a
    chip the reader left unread and the joint reading gave a value scored 0.28 got 0.93 from
    the board, though values the board leaves free (its true 11 among them) shared most of the
    rest of its scores. A chip left unread has confidence 0.
    """
    from vision.chips import CHIP_VALUES, assign_values, score_table

    # The board is solved again for each chip left out and each value it might hold (about
    # 70 times a board): the scores are tabled once, and their logs taken once.
    table = score_table(readings)
    scores = table.tolist()
    column = {v: j for j, v in enumerate(CHIP_VALUES)}
    logs = [[math.log(max(s, _SCORE_FLOOR)) for s in row] for row in scores]
    unread = math.log(_SCORE_FLOOR)

    def log_score(rows: list[int], vs: list[int | None]) -> float:
        return sum(
            logs[r][column[v]] if v is not None else unread for r, v in zip(rows, vs, strict=True)
        )

    def rest_best(rest: list[int], counts: Counter[int]) -> float:
        return log_score(rest, assign_values(table[rest], counts)) if rest else 0.0

    everyone = list(range(len(readings)))
    best = log_score(everyone, values)
    out = []
    for i, v in enumerate(values):
        if v is None:
            out.append(0.0)
            continue
        rest = everyone[:i] + everyone[i + 1 :]
        free = rest_best(rest, expected)
        # Every alternative relative to the joint reading (which scores 1); the best of the
        # rest with all slots bounds the rest with one slot fewer, so a value whose bound is
        # negligible is counted at its bound (an overestimate: the confidence only drops).
        total = 1.0 + math.exp(min(math.log(_SCORE_FLOOR) + free - best, 50.0))
        for w, n in expected.items():
            if w == v or n <= 0:
                continue
            own = math.log(max(scores[i][column[w]], 1e-9))
            bound = own + free - best
            if bound > math.log(_NEGLIGIBLE):
                bound = own + rest_best(rest, expected - Counter({w: 1})) - best
            total += math.exp(min(bound, 50.0))
        out.append(float(1.0 / total))
    return out


#: an alternative value whose weight (relative to the joint reading) is bounded below this
#: is counted at its bound rather than solved for
_NEGLIGIBLE = 1e-3


def _read_chips(
    image: np.ndarray | None,
    top: np.ndarray,
    plane_to_top: np.ndarray,
    reg: Registration,
    terrain: list[TerrainReading],
    discs: dict[Hex, tuple[float, float, float]],
    covered: np.ndarray | None,
    warnings: list[str],
    expected: Counter[int] | None,
    no_chip: frozenset[Hex] = frozenset(),
) -> tuple[dict[Hex, int | None], dict[Hex, float], set[Hex]]:
    """Crop every chip from the top view and read them, jointly when the counts are known:
    each chip's number and confidence, and the chips whose number was deduced, not read.

    A chip whose disc is half or more under a hand (``covered``, bool (H, W) of the top view,
    from :func:`vision.occlusion.cover_mask`) is not read: what shows of it is a part of a
    numeral (a 12 whose 1 is hidden reads 2), and its confident wrong reading would push a
    clear chip off its value in the joint reading. On boards whose counts are known it gets
    the value every laying of the chips the others leave over agrees on, if any (see
    :func:`_fill_from_counts`). ``expected`` is the board's chip counts (:data:`CHIP_COUNTS`
    of its kind, or a known map's, :func:`map_chip_counts`); None reads each chip alone.
    The hexes ``no_chip`` carry none (:func:`map_chipless`): they are not read.
    """
    no_reader = _chip_reader_missing()
    if no_reader is not None:
        warnings.append(f"uncertain: no chip reader available ({no_reader}); numbers are not read")
        return {}, {}, set()
    from vision.chips import ChipReading, read_chips_jointly

    top_to_image = reg.homography @ np.linalg.inv(plane_to_top)
    hexes: list[Hex] = []
    readings = []
    # The colour of each chip's ink: a cue for the deduction from the counts of any chip left
    # unread (see _ink_colour); None until measured or when it cannot be told.
    red: list[bool | None] = []
    hidden: list[bool] = []
    strays = stray_discs(top, discs, reg.chip_hexes)
    for i, h in enumerate(reg.hexes):
        if terrain[i].terrain in _CHIPLESS or h in no_chip:
            continue
        reading = _read_disc(image, top, top_to_image, discs[h], None)
        if reading is None:
            continue
        if h in strays:
            # Not what a chip shows: the count may still say what the chip it missed holds.
            reading = ChipReading.unread()
        hexes.append(h)
        # Red ink is 6 or 8 whatever part of the numeral shows.
        ink: bool | None = True if reading.red else None
        hidden.append(covered is not None and _disc_cover(covered, discs[h]) >= _CHIP_HIDDEN)
        if hidden[-1]:
            # Of a hidden chip, the colour of what ink shows is the one cue kept, for that
            # deduction only.
            ink = _ink_colour(image, top, top_to_image, discs[h], reading)
            reading = ChipReading.unread()
        red.append(ink)
        readings.append(reading)
    deduced: set[Hex] = set()
    if expected is not None and readings:
        readings = [_ink_consistent(r) for r in readings]
        values = read_chips_jointly(readings, expected)
        confs = _joint_confidences(readings, values, expected)
        # A chip left unread in view (a hand's fingers over it, which the cover mask misses,
        # or faint print) may still show a good part of a clearly black numeral: it is then
        # no 6 or 8, as a hidden one is (bench vision seed 0 render 249: a 3 under fingers
        # the mask saw over a third of, and a 6 wholly hidden; the counts left a 3 and a 6).
        # Measured only where the deduction may use it: reading the colour costs a look.
        red = [
            _ink_colour(image, top, top_to_image, discs[h], r)
            if v is None and ink is None and not gone
            else ink
            for h, r, v, ink, gone in zip(hexes, readings, values, red, hidden, strict=True)
        ]
        filled = _fill_from_counts(values, expected, red)
        if filled != values:
            new = [v is None and f is not None for v, f in zip(values, filled, strict=True)]
            deduced = {h for h, d in zip(hexes, new, strict=True) if d}
            n = len(deduced)
            warnings.append(
                f"uncertain: {n} chip(s) not read, their number deduced from the chip counts"
            )
            sure = _deduced_confidence(
                [c for v, c in zip(values, confs, strict=True) if v is not None]
            )
            confs = [sure if d else c for d, c in zip(new, confs, strict=True)]
            values = filled
    else:
        values = [r.value for r in readings]
        confs = [
            float(r.scores.get(v, 0.0)) if v is not None else 0.0
            for r, v in zip(readings, values, strict=True)
        ]
    numbers: dict[Hex, int | None] = {}
    conf: dict[Hex, float] = {}
    for h, v, c in zip(hexes, values, confs, strict=True):
        numbers[h] = v
        conf[h] = c
    missing = [h for h, v in numbers.items() if v is None]
    if missing:
        warnings.append(f"uncertain: {len(missing)} chip(s) could not be read")
    return numbers, conf, deduced


def _ink_consistent(reading: Any) -> Any:
    """The reading with the values its ink's colour rules out scored 0, for the joint reading.

    Only 6 and 8 are printed red, in every edition: a red chip is a 6 or an 8, a black one is
    neither. The reader weighs the colour softly (a glyph can outweigh it), and the joint
    reading then laid a black 9 read 6 on a 6's slot, or a red 6 read on no glyph at all on a
    10's (``catan_12_0``); the colour measured wrong on none of the 224 chips of the boards-dev
    photos nor of 2400 chips of base and 5-6 renders (seeds 0 and 5). A hidden chip (all
    scores 0) is left as it is.
    """
    if not any(reading.scores.values()):
        return reading
    scores = {
        v: (p if (v in _RED_VALUES) == reading.red else 0.0) for v, p in reading.scores.items()
    }
    return replace(reading, scores=scores)


#: the values printed in red ink
_RED_VALUES = (6, 8)


def _chip_reader_missing() -> str | None:
    """Why the chip reader cannot run (its model cannot be loaded), or None."""
    try:
        from vision.chips import default_model

        default_model()
    except (ImportError, OSError) as exc:
        return str(exc)
    return None


def _partly_capped(
    terrain: list[TerrainReading], cover: np.ndarray, given: np.ndarray
) -> list[TerrainReading]:
    """The readings with the confidence of every hex whose ring is covered by more than
    :data:`_REACHED` (``cover``, float (N,)) capped at :data:`_PARTLY_CONFIDENCE`, but
    those the map gives (``given``, bool (N,): a known map's sea), which no hand changes."""
    return [
        replace(t, confidence=min(t.confidence, _PARTLY_CONFIDENCE))
        if c > _REACHED and not g
        else t
        for t, c, g in zip(terrain, cover, given, strict=True)
    ]


def _read_disc(
    image: np.ndarray | None,
    top: np.ndarray,
    top_to_image: np.ndarray,
    disc: tuple[float, float, float],
    covered: np.ndarray | None,
) -> Any | None:
    """The chip reader's own reading of the disc ``(x, y, radius)`` (top-view pixels): None
    where no crop can be cut, an empty reading where the disc is half or more under a hand."""
    from vision.chips import ChipReading, read_chip

    cut = _cut_chip(image, top, top_to_image, disc)
    if cut is None:
        return None
    if covered is not None and _disc_cover(covered, disc) >= _CHIP_HIDDEN:
        return ChipReading.unread()
    return read_chip(cut[0], disc=cut[1])


def _cut_chip(
    image: np.ndarray | None,
    top: np.ndarray,
    top_to_image: np.ndarray,
    disc: tuple[float, float, float],
) -> tuple[np.ndarray, tuple[float, float, float] | None] | None:
    """The crop the chip reader reads the disc ``(x, y, radius)`` (top-view pixels) from, and
    where the disc lies in it (None when unknown); None where no crop can be cut."""
    crop = None
    if image is not None:
        crop = photo_chip_crop(image, top_to_image, disc, fix=_rim_fix(image, top_to_image, disc))
    if crop is None:
        crop = chip_crop(top, disc)
    if crop is None:
        return None
    # A photo crop is cut around the disc: centred, _CROP_MARGIN radii to each side.
    known = (
        (
            (crop.shape[1] - 1) / 2.0,
            (crop.shape[0] - 1) / 2.0,
            crop.shape[1] / 2.0 / _CROP_MARGIN,
        )
        if crop.shape[:2] == (_READ_SIDE, _READ_SIDE)
        else None
    )
    return crop, known


def _ink_colour(
    image: np.ndarray | None,
    top: np.ndarray,
    top_to_image: np.ndarray,
    disc: tuple[float, float, float],
    reading: Any,
) -> bool | None:
    """The colour of the ink a chip shows, read or not (half or more under a hand, or left
    unread): True for red (a 6 or an 8), False for surely black (neither), None when it
    cannot tell. ``reading`` is the chip reader's own reading of the disc.

    Red is the reader's own verdict: red ink is red on whatever part of the numeral shows
    (over every chip of 300 hard renders, seed 0, 291 of the 292 read red were 6 or 8). Black
    is no proof on a little ink (a red numeral half hidden or dimmed can measure black): the
    chip is called black only when a good part of a numeral shows
    (:data:`_BLACK_INK` squared disc radii) and its ink is no redder than its paper
    (:data:`_BLACK_REDNESS`). On the chips a hand covers by a fifth or more (read_board's
    crops of bench vision seeds 0, 13 and 29), every 6 or 8 with that much ink measured 0.167
    or more; black ink measures about 0, half of it below. Over every chip with ink, covered or
    not, of the 48 renders of seed 0 holding a chip not read right (944 chips), no 6 or 8
    measured black (187 of them; the least red of those with 0.03 of ink measured 0.073).
    """
    from vision.chips import analyse_chip

    if reading.red:
        return True
    cut = _cut_chip(image, top, top_to_image, disc)
    if cut is None:
        return None
    analysis = analyse_chip(cut[0], cut[1])
    if analysis is None:
        return None
    ink = len(analysis.numeral_points) / analysis.radius**2
    return False if ink >= _BLACK_INK and analysis.redness < _BLACK_REDNESS else None


#: an unread chip (hidden or not) whose numeral shows this much ink (squared disc radii; a whole
#: one-digit numeral 0.1-0.2) and is no redder than this is black (see _ink_colour)
_BLACK_INK, _BLACK_REDNESS = 0.06, 0.0


def _barren_with_chips(
    image: np.ndarray | None,
    top: np.ndarray,
    plane_to_top: np.ndarray,
    reg: Registration,
    terrain: list[TerrainReading],
    discs: dict[Hex, tuple[float, float, float]],
    covered: np.ndarray | None,
    sea: np.ndarray,
) -> np.ndarray:
    """bool (N,) over ``reg.hexes``: the hexes read desert or sea whose chip the reader reads
    on its own with confidence :data:`_CHIP_VETO` or more (no desert or sea carries a chip).
    Only hexes where registration found a chip disc (``reg.chip_hexes``) are looked at: the
    robber on a desert's pale middle, where no disc was found, was read as a 2 with 0.975
    (bench vision seed 0, render 254). The hexes registration found open sea on (``sea``,
    bool (N,)) hold no chip either."""
    out = np.zeros(len(reg.hexes), bool)
    barren = [
        i
        for i, t in enumerate(terrain)
        if t.terrain in (Terrain.SEA, Terrain.DESERT)
        and not sea[i]
        and reg.hexes[i] in reg.chip_hexes
    ]
    if not barren or _chip_reader_missing() is not None:
        return out
    top_to_image = reg.homography @ np.linalg.inv(plane_to_top)
    for i in barren:
        reading = _read_disc(image, top, top_to_image, discs[reg.hexes[i]], covered)
        out[i] = (
            reading is not None and reading.value is not None and (reading.confidence >= _CHIP_VETO)
        )
    return out


#: a chip the reader reads this surely on its own forbids desert and sea on its hex: chips
#: dropped on hexes read desert read 0.94-0.99 (bench vision seeds 0 and 13, 400 renders);
#: no disc registration found on a true desert or sea hex read above 0.81 there
_CHIP_VETO = 0.9


def _disc_cover(covered: np.ndarray, disc: tuple[float, float, float]) -> float:
    """Share (0..1) of the disc ``(x, y, radius)`` (top-view pixels) that ``covered`` (bool
    (H, W)) covers, sampled on its centre and three circles; points off the view left out."""
    x, y, r = disc
    pts = circle_points((0.35 * r, 0.65 * r, 0.95 * r), 16, centre=True) + (x, y)
    xi, yi = np.round(pts[:, 0]).astype(int), np.round(pts[:, 1]).astype(int)
    h, w = covered.shape
    ok = (xi >= 0) & (xi < w) & (yi >= 0) & (yi < h)
    return float(covered[yi[ok], xi[ok]].mean()) if ok.any() else 0.0


def _deduced_confidence(read: list[float]) -> float:
    """Confidence of a chip value deduced from the counts, given the joint confidences of the
    chips read (``read``): the deduction holds when every one of them is right, so the
    product of their confidences (as if their errors were independent), capped at
    :data:`_DEDUCED_MAX`. The cap keeps a deduced chip below CERTAIN however sure the rest:
    the chip itself was not seen (a hand, a book or the robber may lie over it; the robber
    search looks on the chips read with doubt), and the board stays uncertain (its warning
    says the number was deduced). On seed 0's cached renders the deductions made wrong by a
    clear chip misread scored 0.25 and 0.27 so, those right 0.56-0.69 (a fixed 0.5 before).

    >>> _deduced_confidence([0.99, 0.98, 0.5])
    0.4851
    >>> _deduced_confidence([1.0] * 18)
    0.85
    """
    return round(min(math.prod(read), _DEDUCED_MAX), 4)


def _fill_from_counts(
    values: list[int | None], expected: Counter[int], red: list[bool | None] | None = None
) -> list[int | None]:
    """The board's chip values with the unread ones (None) given what the counts leave over,
    where every way of laying the left-over chips on the unread ones agrees on the value.

    The counts must leave exactly as many chips as are unread. What an unread chip's ink
    shows (``red``, one flag per chip; a hand may hide all but part of the numeral, see
    :func:`_ink_colour`) narrows its values: red (True) to a 6 or an 8, surely black (False)
    to any other, unknown (None) to none. Such a value is a deduction, right only if every
    other chip was read right (and the terrain put the chips on the right hexes): its
    confidence is :func:`_deduced_confidence`'s, never enough for a certain board.

    >>> _fill_from_counts([2, None, 3], Counter({2: 1, 3: 2}))
    [2, 3, 3]
    >>> _fill_from_counts([None, None, 3], Counter({2: 1, 3: 2}))
    [None, None, 3]
    >>> _fill_from_counts([None, None, 3], Counter({6: 1, 3: 2}), [None, True, None])
    [3, 6, 3]
    >>> _fill_from_counts([None, None, 3], Counter({6: 1, 3: 2}), [False, None, None])
    [3, 6, 3]
    """
    left = expected - Counter(v for v in values if v is not None)
    unread = [i for i, v in enumerate(values) if v is None]
    if not unread or sum(left.values()) != len(unread) or len(unread) > _FILL_MAX:
        return values
    flags = red if red is not None else [None] * len(values)
    allowed = [
        set(left) if flags[i] is None else {v for v in left if (v in _RED_VALUES) == flags[i]}
        for i in unread
    ]
    seen: list[set[int]] = [set() for _ in unread]

    def lay(k: int, pool: Counter[int]) -> bool:
        """Lay the pool on the unread chips from the k-th on; note each chip's values of every
        complete laying in ``seen``. False when no laying is complete."""
        if k == len(unread):
            return True
        found = False
        for v in sorted(pool):
            if pool[v] > 0 and v in allowed[k] and lay(k + 1, pool - Counter({v: 1})):
                seen[k].add(v)
                found = True
        return found

    if not lay(0, left):
        return values
    out = list(values)
    for k, i in enumerate(unread):
        if len(seen[k]) == 1:
            out[i] = next(iter(seen[k]))
    return out


#: at most this many unread chips are deduced from the counts (the layings grow as their
#: factorial; a board with more unread chips is read too poorly to deduce anything from)
_FILL_MAX = 8
