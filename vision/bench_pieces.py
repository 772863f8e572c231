"""Pieces read from single renders: which kind each true piece was read as (a confusion table).

The renders of :mod:`vision.synth` draw settlements, cities, roads and ships of every colour on
base, 5-6 and Seafarers-like boards under random hard conditions (tilt, light, blur, noise,
JPEG; no hands, which are :mod:`vision.occlusion`'s). Each render is read by
:func:`vision.pieces.detect_pieces` through the render's true homography (registration is
benched elsewhere), so what is measured is the pieces' reading alone.

``python -c "from vision.bench_pieces import kinds_on_renders; print(kinds_on_renders(40, 0))"``
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from companion.board import Board, Piece, Terrain, Topology
from vision.pieces import COLOURS, detect_pieces
from vision.synth.boards import seafarers_board, standard_board
from vision.synth.render import Conditions, render_board

#: Kinds of the table's rows and columns; "none" is an empty site (row) or a missed piece
#: (column).
KINDS = ("settlement", "city", "road", "ship", "none")


@dataclass
class _Truth:
    """A render's true registration: what :func:`detect_pieces` reads from a registration."""

    kind: str
    hexes: list[Any]
    homography: np.ndarray
    sea_fraction: dict[Any, float]


def random_pieces(board: Board, rng: np.random.Generator, buildings: int = 14) -> list[Piece]:
    """Many pieces of every colour: buildings (half of them cities) on land corners, no two
    neighbours; a road on a land side of each and a few more; on Seafarers maps, ships on sea
    sides too."""
    t = Topology.of(board.tiles)
    sea = {i for i, h in enumerate(t.hexes) if board.tiles[h].terrain == Terrain.SEA}
    land_v = [v for v, hs in enumerate(t.vertex_hexes) if any(i not in sea for i in hs)]
    taken: set[int] = set()
    out: list[Piece] = []
    for v in rng.permutation(land_v):
        if len(taken) >= buildings:
            break
        if v in taken or any(u in taken for u in t.vertex_neighbours[v]):
            continue
        taken.add(int(v))
        kind = "city" if rng.random() < 0.5 else "settlement"
        out.append(Piece(kind, str(rng.choice(COLOURS)), vertex=t.vertices[v]))
    used: set[int] = set()
    for e, hs in enumerate(t.edge_hexes):
        if e in used:
            continue
        on_land = any(i not in sea for i in hs)
        on_sea = len(hs) < 2 or any(i in sea for i in hs)
        if board.kind == "seafarers" and on_sea and rng.random() < 0.12:
            out.append(Piece("ship", str(rng.choice(COLOURS)), edge=t.edges[e]))
            used.add(e)
        elif on_land and rng.random() < 0.15:
            out.append(Piece("road", str(rng.choice(COLOURS)), edge=t.edges[e]))
            used.add(e)
    return out


def kinds_on_renders(n: int, seed: int, width: int = 1280, height: int = 960) -> dict[str, Any]:
    """Render ``n`` boards with many pieces and read them.

    Returns:
        ``confusion``: true kind -> read kind -> count (rows include "none" for pieces read
        where none stands); ``wrong_colour``: pieces found at their site with another colour;
        ``renders``: n; ``pieces``: the true pieces drawn; ``by_board``: the confusion per
        board kind.
    """
    rng = np.random.default_rng(seed)
    confusion: dict[str, Counter[str]] = {k: Counter() for k in KINDS}
    by_board: dict[str, dict[str, Counter[str]]] = {}
    wrong_colour = placed = 0
    for i in range(n):
        kind = ("base", "5-6", "seafarers")[i % 3]
        board = seafarers_board(rng) if kind == "seafarers" else standard_board(kind, rng)
        board.pieces = random_pieces(board, rng)
        placed += len(board.pieces)
        cond = replace(Conditions.random(rng, hard=True), hands=0)
        r = render_board(board, width=width, height=height, rng=rng, conditions=cond)
        sea = {h: 1.0 for h, t in board.tiles.items() if t.terrain == Terrain.SEA}
        truth = _Truth(kind, list(board.tiles), r.homography, sea)
        read = {(p.vertex or p.edge): p for p in detect_pieces(r.image, truth)}
        table = by_board.setdefault(kind, {k: Counter() for k in KINDS})
        for p in board.pieces:
            site = p.vertex or p.edge
            got = read.pop(site, None)
            col = "none" if got is None else got.kind
            confusion[p.kind][col] += 1
            table[p.kind][col] += 1
            wrong_colour += got is not None and got.color != p.color
        for got in read.values():
            confusion["none"][got.kind] += 1
            table["none"][got.kind] += 1
    return {
        "renders": n,
        "pieces": placed,
        "confusion": {k: dict(v) for k, v in confusion.items()},
        "wrong_colour": wrong_colour,
        "by_board": {b: {k: dict(v) for k, v in t.items()} for b, t in by_board.items()},
    }
