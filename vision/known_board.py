"""Register a frame of a board whose layout the game already knows, in the game's names.

:func:`vision.register.register` names the hexes in its own canonical orientation: a base
board's frame looks the same turned by 60 degrees, so which way is "north" is the reader's
choice. A game whose board was not read by this camera (a generated layout, a board JSON, a
resumed journal) names its hexes its own way, and the camera's corners and sides must be named
like the game's or every piece would land on the wrong corner.

Of the turns (and shifts) that lay the registered frame onto the game's hexes, the one whose
terrain reads most like the game's board wins: each hex's colour is compared with the terrain
the game has there (``vision.terrain``), summed over the board. A random layout's terrain is
never the same after a turn, so the margin to the runner-up is large; a board whose terrain is
symmetric (or a frame of another shape) is refused with a ValueError, like a frame with no
board in it, and the tracker keeps trying.

A scenario's map (Seafarers, a Big Box country map) is registered by its own known frame
(``vision.known_frame``), placed in the game's names already; terrain only decides between
the turns that lay the map onto itself, sea and chips included (rare).

>>> from companion.layouts import random_board
>>> from vision.synth.render import Conditions, render_board
>>> board = random_board(4, seed=5)
>>> shot = render_board(board, width=640, height=480, rng=5, conditions=Conditions())
>>> reg = register_known(shot.image, board)
>>> sorted(reg.hexes) == sorted(board.tiles)
True
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np

from companion.board import SCENARIO_BOARD_KINDS, Board, Hex, hex_center
from vision.known_frame import KnownFrame, register_frame, symmetries
from vision.register import Registration, rectify, register, rotate_axial
from vision.terrain import PROTOTYPES, hex_features, normalise_light, terrain_costs

# Top-view resolution for reading the terrain (pixels per hex radius): the ring between chip
# and border is what counts, and it is wide at this size.
_PX = 24.0
# The best turn must beat the runner-up by this much terrain cost per hex; a board whose
# terrain reads as well one way as another cannot name its corners.
_MARGIN_PER_HEX = 0.5


def _plane_map(frame: Sequence[Hex], named: Sequence[Hex]) -> np.ndarray:
    """The 3x3 board-plane motion taking the centres of ``frame`` to those of ``named``."""
    src = np.array([hex_center(h) for h in frame])
    dst = np.array([hex_center(h) for h in named])
    a = np.hstack([src, np.ones((len(src), 1))])
    m, *_ = np.linalg.lstsq(a, dst, rcond=None)
    return np.vstack([m.T, [0.0, 0.0, 1.0]])


def register_known(frame: np.ndarray, board: Board) -> Registration:
    """Register ``frame`` (BGR uint8) and name its hexes, corners and sides like ``board``'s.

    A base or 5-6 board is registered by its kind's frame; a scenario's map (Seafarers, a
    country map) by its own frame (``vision.known_frame``: its hexes, sea and chips), whose
    placement already names it like the game unless the map lies the same turned.

    Raises:
        ValueError: no board in the frame (vision.register's message), a frame of another
            shape than the board's, a map whose placement is ambiguous, or terrain that does
            not tell the turns apart.
    """
    if board.kind in SCENARIO_BOARD_KINDS:
        known = KnownFrame.of_board(board)
        reg: Registration = register_frame(frame, known)
        if reg.ambiguous:
            raise ValueError(
                "the map's chips and sea fit more than one placement: cannot tell where it lies"
            )
        return _named_by_terrain(frame, reg, board, known.symmetries())
    reg = register(frame, board.kind)
    hexes = set(board.tiles)
    options = symmetries(reg.hexes, hexes)
    if not options:
        raise ValueError(
            f"the camera sees a {reg.kind} frame of {len(reg.hexes)} hexes; "
            f"the game's board has {len(hexes)}"
        )
    return _named_by_terrain(frame, reg, board, options)


def _named_by_terrain(
    frame: np.ndarray, reg: Registration, board: Board, options: list[tuple[int, Hex]]
) -> Registration:
    """``reg`` renamed by the option (turn, shift) whose terrain reads most like ``board``'s.

    Raises:
        ValueError: the best option does not beat the runner-up by :data:`_MARGIN_PER_HEX`.
    """
    if options == [(0, (0, 0))]:
        return reg  # already in the board's names, and nothing else lays it onto them
    top, plane_to_top = rectify(frame, reg, _PX)
    sea = set(getattr(reg, "sea_hexes", ()))
    land = np.array([h not in sea for h in reg.hexes])
    feats = normalise_light(hex_features(top, plane_to_top, reg.hexes), land, reg.kind)
    terrains = sorted({t.terrain for t in board.tiles.values()} & set(PROTOTYPES), key=str)
    costs = terrain_costs(feats, terrains)
    scored = []
    for k, d in options:
        named = [(rotate_axial(h, k)[0] + d[0], rotate_axial(h, k)[1] + d[1]) for h in reg.hexes]
        cost = sum(
            float(costs[i, terrains.index(board.tiles[g].terrain)])
            for i, g in enumerate(named)
            if board.tiles[g].terrain in terrains
        )
        scored.append((cost, named))
    scored.sort(key=lambda x: x[0])
    cost, named = scored[0]
    if len(scored) > 1 and scored[1][0] - cost < _MARGIN_PER_HEX * len(named):
        raise ValueError("the board's terrain reads alike turned: cannot tell its corners apart")
    rename = dict(zip(reg.hexes, named, strict=True))
    homography = reg.homography @ np.linalg.inv(_plane_map(reg.hexes, named))
    return replace(
        reg,
        hexes=sorted(named, key=lambda h: (h[1], h[0])),
        homography=homography / homography[2, 2],
        chip_hexes={rename[h] for h in reg.chip_hexes},
        sea_fraction={rename[h]: f for h, f in reg.sea_fraction.items()},
    )


def known_board_registrar(board: Board) -> Callable[[np.ndarray], Registration]:
    """A ``vision.tracker.Tracker`` registrar naming everything like ``board``."""
    return lambda frame: register_known(frame, board)
