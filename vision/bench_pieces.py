"""Pieces read from single renders: which kind each true piece was read as (a confusion table).

The renders of :mod:`vision.synth` draw settlements, cities, roads and ships of every colour on
base, 5-6 and Seafarers-like boards under random hard conditions (tilt, light, blur, noise,
JPEG; no hands, which are :mod:`vision.occlusion`'s). Each render is read by
:func:`vision.pieces.detect_pieces` through the render's true homography (registration is
benched elsewhere), so what is measured is the pieces' reading alone.

``python -c "from vision.bench_pieces import kinds_on_renders; print(kinds_on_renders(40, 0))"``
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from companion.board import Board, Piece, Terrain, Topology, vertex_position
from vision.pieces import COLOURS, KIND_CERTAIN, detect_pieces
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
        board kind; ``kind_sure``: the buildings read at true buildings, by true kind, kind
        right or wrong, and sure or unsure (kind confidence at least KIND_CERTAIN or not).
    """
    rng = np.random.default_rng(seed)
    confusion: dict[str, Counter[str]] = {k: Counter() for k in KINDS}
    by_board: dict[str, dict[str, Counter[str]]] = {}
    kind_sure: Counter[str] = Counter()
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
            if got is not None and got.vertex is not None:
                right = "right" if got.kind == p.kind else "wrong"
                sure = "sure" if got.kind_confidence >= KIND_CERTAIN else "unsure"
                kind_sure[f"{p.kind}_{right}_{sure}"] += 1
        for got in read.values():
            confusion["none"][got.kind] += 1
            table["none"][got.kind] += 1
    return {
        "renders": n,
        "pieces": placed,
        "confusion": {k: dict(v) for k, v in confusion.items()},
        "wrong_colour": wrong_colour,
        "kind_sure": dict(kind_sure),
        "by_board": {b: {k: dict(v) for k, v in t.items()} for b, t in by_board.items()},
    }


#: Buildings of the boards-dev photos without piece counts, labelled by eye (benchmark use
#: only): (x, y) of the piece's foot in the photo's own pixels, its colour and kind. The
#: photos of vieja_E and vieja_F have counts, and no city.
BUILDING_LABELS: dict[str, tuple[tuple[int, int, str, str], ...]] = {
    # 5th edition, plastic, camera low over the board's near edge.
    "catan_2_0": (
        (833, 84, "red", "settlement"),
        (735, 300, "red", "settlement"),
        (604, 186, "blue", "settlement"),
        (593, 445, "blue", "settlement"),
        (1101, 462, "white", "settlement"),
        (735, 571, "white", "settlement"),
    ),
    # An older edition, wooden pieces, low camera.
    "catan_55_0": (
        (487, 38, "red", "settlement"),
        (351, 88, "blue", "settlement"),
        (225, 113, "blue", "settlement"),
        (556, 90, "blue", "settlement"),
        (447, 122, "orange", "city"),
        (191, 181, "orange", "settlement"),
        (136, 280, "orange", "settlement"),
        (431, 196, "red", "settlement"),
        (609, 195, "blue", "city"),
        (460, 349, "red", "settlement"),
    ),
}
# A label and a building read are the same piece within this distance on the board plane (hex
# radii): buildings stand at least 1.7 apart, a piece's foot is within about half a hex radius
# of its corner.
_LABEL_REACH = 0.8


def kinds_on_photos(datasets: Path) -> dict[str, Any]:
    """City or settlement on real photos: :data:`BUILDING_LABELS`, and on the photos with
    piece counts and no city, every building read is a settlement.

    Each building read at a labelled piece (colour aside: the kind is what is scored) counts
    as ``right`` or ``wrong`` kind, and ``sure`` or ``unsure`` (kind confidence at least
    :data:`vision.pieces.KIND_CERTAIN` or not); buildings read where no label is are
    ``extra``, labels with nothing read near are ``missed``.
    """
    from vision.read_board import load_image
    from vision.register import register

    folder = datasets / "boards-dev"
    truth_path = folder / "groundtruth.json"
    if not truth_path.is_file():
        return {"skipped": f"{truth_path} not found"}
    no_city = [
        name
        for entry in json.loads(truth_path.read_text())["entries"]
        for name, counts in entry.get("pieces_per_photo", {}).items()
        if not any(isinstance(c, dict) and c.get("cities") for c in counts.values())
    ]
    photos: dict[str, Any] = {}
    total: Counter[str] = Counter()
    for name in sorted(BUILDING_LABELS) + sorted(no_city):
        path = folder / (name if name.endswith(".jpg") else f"{name}.jpg")
        image = load_image(path)
        reg = register(image)
        found = [p for p in detect_pieces(image, reg) if p.vertex is not None]
        plane = np.linalg.inv(reg.homography)
        labels = BUILDING_LABELS.get(path.stem)
        tally: Counter[str] = Counter()
        if labels is None:
            matched = [(p, "settlement") for p in found]
        else:
            feet = cv2.perspectiveTransform(
                np.array([[(x, y) for x, y, _, _ in labels]], np.float64), plane
            )[0]
            matched = []
            left = list(range(len(labels)))
            for p in found:
                at = np.array(vertex_position(p.vertex))
                dist = [float(np.linalg.norm(feet[i] - at)) for i in left]
                if dist and min(dist) <= _LABEL_REACH:
                    i = left.pop(int(np.argmin(dist)))
                    matched.append((p, labels[i][3]))
                else:
                    tally[f"extra_{p.kind}"] += 1
            tally["missed"] += len(left)
        for p, kind in matched:
            right = "right" if p.kind == kind else "wrong"
            sure = "sure" if p.kind_confidence >= KIND_CERTAIN else "unsure"
            tally[f"{kind}_{right}_{sure}"] += 1
        photos[path.stem] = dict(tally)
        total.update(tally)
    return {"photos": photos, "total": dict(total)}


#: The Seafarers maps :func:`coast_kinds` renders, in turn.
COAST_MAPS = ("new-shores", "four-islands", "new-world")


def coast_pieces(board: Board, rng: np.random.Generator, sides: int = 12) -> list[Piece]:
    """Roads and ships (half each, every colour) on coast sides of ``board`` (land on one hand,
    sea or the frame on the other), no two touching, each with a building of its colour at
    one end half the time (a piece is built beside its own; a building's colour lies near the
    side's ends)."""
    t = Topology.of(board.tiles)
    sea = {i for i, h in enumerate(t.hexes) if board.tiles[h].terrain == Terrain.SEA}
    land_v = {v for v, hs in enumerate(t.vertex_hexes) if any(i not in sea for i in hs)}
    coast = [
        e
        for e, hs in enumerate(t.edge_hexes)
        if any(i not in sea for i in hs) and (len(hs) < 2 or any(i in sea for i in hs))
    ]
    near: set[int] = set()
    out: list[Piece] = []
    for e in rng.permutation(coast):
        a, b = t.edge_vertices[e]
        if a in near or b in near or len(out) >= 2 * sides:
            continue
        near |= {a, b, *t.vertex_neighbours[a], *t.vertex_neighbours[b]}
        colour = str(rng.choice(COLOURS))
        kind = "ship" if rng.random() < 0.5 else "road"
        out.append(Piece(kind, colour, edge=t.edges[e]))
        end = a if rng.random() < 0.5 else b
        if rng.random() < 0.5 and end in land_v:
            big = "city" if rng.random() < 0.4 else "settlement"
            out.append(Piece(big, colour, vertex=t.vertices[end]))
    return out


def coast_kinds(n: int, seed: int, ground: bool = False) -> dict[str, Any]:
    """Road or ship on coast sides: ``n`` renders of Seafarers maps (:data:`COAST_MAPS`) with
    :func:`coast_pieces`, as the demo's camera films them (960x540, tilt 0-25 degrees, any
    rotation, mild light, noise and blur; ships at any angle, as the renderer draws them),
    read by a :class:`vision.pieces.PieceDetector` (the tracker's: colour classes, 32 pixels
    per hex radius; ``ground``: the ground model of single photos) through the render's true
    homography, refined on the tile borders as the tracker does.

    Returns:
        ``kinds``: true kind -> read kind ("none": missed) -> ``sure`` / ``unsure`` counts
        (kind confidence at least :data:`vision.pieces.KIND_CERTAIN` or not); ``scores``: per
        true kind, the ship scores (less their decision) of the pieces read with their own
        colour, sorted; ``sure_wrong``: pieces whose kind was read wrong and sure.
    """
    from companion.scenario import load_scenario
    from vision.pieces import PieceDetector, refine_homography

    rng = np.random.default_rng(seed)
    kinds: dict[str, dict[str, Counter[str]]] = {
        k: {r: Counter() for r in ("road", "ship", "none")} for k in ("road", "ship")
    }
    scores: dict[str, list[float]] = {"road": [], "ship": []}
    for i in range(n):
        board = load_scenario(
            COAST_MAPS[i % len(COAST_MAPS)], 4, seed=int(rng.integers(1000))
        ).board
        board.pieces = coast_pieces(board, rng)
        cond = Conditions(
            tilt_deg=float(rng.uniform(0, 25)),
            tilt_dir_deg=float(rng.uniform(0, 360)),
            rotation_deg=float(rng.uniform(0, 360)),
            brightness=float(rng.uniform(0.85, 1.1)),
            noise_sigma=float(rng.uniform(0, 3)),
            blur_sigma=float(rng.uniform(0, 0.8)),
        )
        # One seed for both renders: the board drawn the same, the pieces last.
        draw = int(rng.integers(2**31))
        r = render_board(board, width=960, height=540, rng=draw, conditions=cond)
        hexes = list(board.tiles)
        sea = [h for h in hexes if board.tiles[h].terrain == Terrain.SEA]
        homography = refine_homography(r.image, r.homography, hexes, sea)
        det = PieceDetector(homography, hexes, sea, True, ground=ground)
        top = det.top_view(r.image)
        changed = None
        if not ground:
            # The tracker reads a new piece with what differs from the board before it (its
            # reference top view): here the same render without the roads and ships.
            before = replace(board, pieces=[p for p in board.pieces if p.edge is None])
            ref = det.top_view(
                render_board(before, width=960, height=540, rng=draw, conditions=cond).image
            )
            changed = _differs(top, ref)
        read = det.read_top(top, changed=changed)
        assert read.edge_kind_conf is not None and read.edge_ship_score is not None
        index = {x: k for k, x in enumerate(read.edges)}
        for p in board.pieces:
            if p.edge is None:
                continue
            e = index[p.edge]
            state = int(read.edge_state[e])
            got = "none" if state <= 0 else ("ship" if (state - 1) % 2 else "road")
            sure = "sure" if read.edge_kind_conf[e] >= KIND_CERTAIN else "unsure"
            kinds[p.kind][got][sure] += 1
            if got != "none" and read.colours[(state - 1) // 2] == p.color:
                scores[p.kind].append(round(float(read.edge_ship_score[e]), 4))
    return {
        "renders": n,
        "seed": seed,
        "ground": ground,
        "kinds": {k: {r: dict(c) for r, c in v.items()} for k, v in kinds.items()},
        "sure_wrong": sum(kinds[k][r]["sure"] for k in kinds for r in ("road", "ship") if r != k),
        "scores": {k: sorted(v) for k, v in scores.items()},
    }


def _differs(top: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """bool (H, W): where a BGR uint8 top view differs from a reference as the tracker's
    difference mask does (:func:`vision.tracker.difference`)."""
    from vision.tracker import _DIFF, difference

    return difference(top, reference) > _DIFF
