"""``catan-companion bench vision [--json] [--renders N]``: board reading accuracy and speed.

Six measurements, each printed with the command line that produced it:

1. **Synthetic renders** (``--renders`` N, default 300): boards of every kind (base, 5-6,
   Seafarers-like, in turn) rendered under random hard conditions (tilt up to 45 degrees,
   light, glare, shadows, hands, blur, noise, JPEG) and read back; terrain and chip accuracy
   under the 12 grid symmetries, renders refused as "no board", and boards *reported certain
   but wrong* (the goal is none).
2. **coins-dev** chip crops, through ``vision.bench_chips.evaluate_chips``.
3. **boards-dev** real photos: terrain and chip accuracy of ``read_board`` against
   ``groundtruth.json`` under the 12 symmetries, per photo and overall, and whether the setup
   check reports layout E's adjacent red 6s.
4. **Scenario maps** (``--scenario-maps`` N, default 0: not run): the packaged scenarios'
   own maps (Seafarers, country maps), each set up by a seed of its own and rendered under
   the same hard conditions, read with the map known as ``run --scenario`` reads them;
   terrain, chips and harbours in the map's own hex names (no symmetry is given away: the
   game's pieces are named in them), boards reported certain but wrong.
5. **boards-dev with hands** (``--real-hands`` K, default 0: not run): K composites of every
   photo, each with one of the renderer's hands laid over its board
   (:mod:`vision.bench_hands`), read as the photos are; accuracy over all hexes and over the
   hexes the hand leaves in view, values wrong with confidence 0.9 or more by where they lie
   against the hand, refusals, registrations lost, boards reported certain but wrong.
6. **Time** per ``read_board`` of a 1600x1200 photo and per 1600x1200 hard render, on one
   core (OpenCV limited to one thread), median of several runs: wall time, and the process's
   CPU time (which a machine shared with other work does not inflate).

The real-photo parts need ``../shared/datasets`` (``--datasets`` to point elsewhere); they
are skipped with a note when it is absent.
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import re
import statistics
import sys
import time
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, NamedTuple

import cv2
import numpy as np

from companion.board import (
    SCENARIO_BOARD_KINDS,
    Board,
    Harbor,
    Hex,
    base_frame,
    hex_center,
    rows_of,
)
from vision.bench_chips import evaluate_chips
from vision.bench_hands import (
    DISC,
    DISC_HIDDEN,
    RING,
    RING_HIDDEN,
    HandComposite,
    composite_hand,
    cover_shares,
    hand_stream,
    score_composite,
)
from vision.bench_pieces import random_pieces
from vision.read_board import is_certain, load_image, read_board
from vision.register import Registration, register
from vision.scoring import HARBOUR_OUTCOMES, best_alignment, harbour_outcomes, truth_from_rows
from vision.synth.boards import seafarers_board, standard_board
from vision.synth.render import (
    CHIP_SCATTER,
    MAX_CHIP_SCATTER,
    Conditions,
    Render,
    own_stream,
    render_board,
)

log = logging.getLogger("vision.bench")

DEFAULT_DATASETS = Path(__file__).resolve().parents[2] / "shared" / "datasets"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the bench's arguments."""
    parser.add_argument("--json", action="store_true", help="print one JSON document on stdout")
    parser.add_argument(
        "--renders", type=int, default=300, help="synthetic renders to read (default 300)"
    )
    parser.add_argument(
        "--datasets",
        default=str(DEFAULT_DATASETS),
        help="directory holding coins-dev/ and boards-dev/ (default ../shared/datasets)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the synthetic renders")
    parser.add_argument(
        "--robber-on-chip",
        type=float,
        default=0.0,
        help="share of the renders whose robber stands on a chip (default 0: beside it)",
    )
    parser.add_argument(
        "--scenario-maps",
        type=int,
        default=0,
        metavar="N",
        help="also read N renders of the packaged scenarios' maps with the map known, as run "
        "--scenario does (default 0: not run)",
    )
    parser.add_argument(
        "--robber-off-desert",
        type=float,
        default=0.0,
        help="share of the renders whose robber stands beside the chip of another land hex "
        "(default 0: on the desert; a render whose robber stands on a chip stays there)",
    )
    parser.add_argument(
        "--pieces",
        type=float,
        default=0.0,
        help="share of the renders whose board carries a game's settlements, cities, roads "
        "and ships (default 0: none)",
    )
    parser.add_argument(
        "--chip-scatter",
        type=float,
        default=CHIP_SCATTER,
        metavar="SIGMA",
        help="how far the renders' chips lie from their hexes' centres: the standard deviation "
        f"of each coordinate, in hex radii (default {CHIP_SCATTER}; the boards-dev photos' chips: "
        "about 0.09)",
    )
    parser.add_argument(
        "--real-hands",
        type=int,
        default=0,
        metavar="K",
        help="also read K composites of every boards-dev photo, each with one of the "
        "renderer's hands over its board (default 0: not run)",
    )
    parser.add_argument(
        "--real-hands-debug",
        metavar="DIR",
        default=None,
        help="write each --real-hands composite there, its hand outlined (a /tmp directory: "
        "never the repository)",
    )
    parser.add_argument(
        "--known-map",
        action="store_true",
        help="read each render with its map known, as read-board --scenario does (a Seafarers "
        "map's frame, sea and terrain counts; a base or 5-6 board's kind)",
    )


def synthetic(
    renders: int,
    seed: int = 0,
    robber_on_chip: float = 0.0,
    known_map: bool = False,
    robber_off_desert: float = 0.0,
    pieces: float = 0.0,
    chip_scatter: float = CHIP_SCATTER,
) -> dict[str, Any]:
    """Read ``renders`` random hard renders; accuracy and certain-but-wrong boards.

    ``robber_on_chip``: the probability that a render's robber stands on a chip,
    ``robber_off_desert`` that it stands beside another land hex's chip (see
    ``Conditions.random``), ``pieces`` that its board carries a game's pieces (see
    :func:`hard_render`), ``chip_scatter`` how far its chips lie from their hexes' centres;
    the renders are otherwise the same. ``known_map``: each render is
    read with its map known (``read_board(known=...)``: the map's hexes, sea and terrain
    counts, not which land hex holds which terrain). A board whose only doubt is the kind of
    some pieces is counted apart (``board_certain_but_pieces``), with how many of those are
    wrong: pieces read from one photo always ask for a look, the board they stand on need not.
    """
    t_ok = t_all = c_ok = c_all = refused = wrong_certain = certain = 0
    certain_but_pieces = wrong_but_pieces = 0
    # Terrain of the hexes a hand leaves visible, and how many it hides; the same for chips.
    v_ok = v_all = hidden_total = 0
    cv_ok = cv_all = chips_hidden = 0
    # Where the wrong hexes are: a render refused, a board read as another kind or with over
    # a third of its hexes wrong (registration placed the frame wrong, as a rule), a hex a
    # hand hides, or any other.
    misses = dict.fromkeys(("refused", "kind_wrong_or_third_wrong", "hidden_by_hands", "other"), 0)
    figures = {f"{who}_{what}": 0 for who in ("robber", "pirate") for what in _FIGURE_OUTCOMES}
    wrong_anywhere = {"robber": 0, "pirate": 0}
    harbours = dict.fromkeys(HARBOUR_OUTCOMES, 0)
    per_kind: dict[str, dict[str, int]] = {}
    for i in range(renders):
        truth, conditions, render = hard_render(
            seed, i, robber_on_chip, robber_off_desert, pieces, chip_scatter
        )
        robber = render.board.robber  # moved by the conditions, maybe
        hidden = hidden_by_hands(render, conditions.distortion)
        hidden_total += len(hidden)
        chips = [h for h, t in truth.tiles.items() if t.number is not None]
        chips_under = chips_hidden_by_hands(render, conditions.distortion)
        chips_hidden += len(chips_under)
        cv_all += len(chips) - len(chips_under)
        v_all += len(truth.tiles) - len(hidden)
        stats = per_kind.setdefault(truth.kind, {"renders": 0, "terrain_right": 0, "hexes": 0})
        stats["renders"] += 1
        try:
            board = read_board(render.image, known=truth if known_map else None)
        except ValueError:
            refused += 1
            misses["refused"] += len(truth.tiles)
            t_all += len(truth.tiles)
            c_all += sum(1 for t in truth.tiles.values() if t.number is not None)
            stats["hexes"] += len(truth.tiles)
            continue
        s, aligned = best_alignment(truth.tiles, board.tiles)
        read_harbours = harbour_outcomes(truth.harbors, board.harbors, aligned)
        # A wrong figure is never to be presented, on a board read right or not.
        for who, read, true in (
            ("robber", board.robber, robber),
            ("pirate", board.pirate, truth.pirate),
        ):
            expected = None if true is None else aligned(true)
            wrong_anywhere[who] += read is not None and read != expected
        if s.terrain_right == s.terrain_total:  # figures are judged on boards read right
            for what, n in read_harbours.items():
                harbours[what] += n
            figures[f"robber_{_figure_outcome(board.robber, aligned(robber))}"] += 1
            if truth.pirate is not None:
                found = _figure_outcome(board.pirate, aligned(truth.pirate))
                figures[f"pirate_{found}"] += 1
        t_ok, t_all = t_ok + s.terrain_right, t_all + s.terrain_total
        c_ok, c_all = c_ok + s.chips_right, c_all + s.chips_total
        for h in chips:
            read = board.tiles.get(aligned(h))
            if h not in chips_under and read is not None:
                cv_ok += read.number == truth.tiles[h].number
        wrong = []
        for h, tile in truth.tiles.items():
            read = board.tiles.get(aligned(h))
            if read is None or read.terrain != tile.terrain:
                wrong.append(h)
            elif h not in hidden:
                v_ok += 1
        if board.kind != truth.kind or 3 * len(wrong) > len(truth.tiles):
            misses["kind_wrong_or_third_wrong"] += len(wrong)
        else:
            for h in wrong:
                misses["hidden_by_hands" if h in hidden else "other"] += 1
        stats["terrain_right"] += s.terrain_right
        stats["hexes"] += s.terrain_total
        perfect = (
            s.terrain_right == s.terrain_total
            and s.chips_right == s.chips_total
            and board.kind == truth.kind
            and read_harbours["right"] == len(truth.harbors)
            and read_harbours["extra"] == 0
        )
        if is_certain(board):
            certain += 1
            wrong_certain += not perfect
        elif is_certain(board, pieces=False):
            certain_but_pieces += 1
            wrong_but_pieces += not perfect
    return {
        "renders": renders,
        "seed": seed,
        "terrain_accuracy": t_ok / t_all if t_all else None,
        "hexes_hidden_by_hands": hidden_total,
        "terrain_accuracy_of_hexes_not_hidden": v_ok / v_all if v_all else None,
        "terrain_wrong_hexes": misses,
        "chip_accuracy": c_ok / c_all if c_all else None,
        "chips_hidden_by_hands": chips_hidden,
        "chip_accuracy_of_chips_not_hidden": cv_ok / cv_all if cv_all else None,
        "refused_as_no_board": refused,
        "figures_on_boards_read_right": figures,
        "figures_wrong_on_any_board": wrong_anywhere,
        "harbours_on_boards_read_right": harbours,
        "reported_certain": certain,
        "wrong_but_certain": wrong_certain,
        "board_certain_but_pieces": certain_but_pieces,
        "wrong_but_board_certain_but_pieces": wrong_but_pieces,
        "per_kind_terrain_accuracy": {
            k: v["terrain_right"] / v["hexes"] if v["hexes"] else None for k, v in per_kind.items()
        },
    }


def scenario_maps(renders: int, seed: int = 0) -> dict[str, Any]:
    """Read ``renders`` hard renders of the packaged scenarios' maps, each with its map known.

    The Seafarers and country maps whose sea is fixed (:func:`companion.scenario.scenario_map`;
    a map that draws its sea at random is read blind, as a base board is) and their player
    counts are taken in turn; each render's set-up is drawn by a seed of its own (which land
    hex holds which terrain and chip), and is read against the map of another set-up, as at
    the table. A hex is right when the reading names it as the game does and gives it its
    terrain; a chip when its number is the truth's; harbours are counted right, unseen, wrong
    and extra on every board. A board reported certain is wrong unless its terrain, chips and
    harbours are all right (as in :func:`synthetic`). Pieces are not read (the maps carry
    none).
    """
    from companion.scenario import list_scenarios, load_scenario, player_counts, scenario_map

    maps = []
    for name in list_scenarios():
        for players in player_counts(name):
            try:
                known = scenario_map(name, players)
            except ValueError:
                continue
            if known.kind in SCENARIO_BOARD_KINDS:
                maps.append((name, players, known))
    tally = dict.fromkeys(
        (
            "hexes",
            "terrain_right",
            "hexes_hidden_by_hands",
            "hexes_not_hidden_right",
            "chips",
            "chips_right",
            "chips_hidden_by_hands",
            "chips_not_hidden_right",
            "chip_values_wrong",
            "refused_as_no_board",
            "reported_certain",
            "wrong_but_certain",
        ),
        0,
    )
    per_map: dict[str, dict[str, int]] = {}
    harbours = dict.fromkeys(HARBOUR_OUTCOMES, 0)
    for i in range(renders):
        name, players, known = maps[i % len(maps)]
        rng = np.random.default_rng((seed, i))
        truth = load_scenario(name, players, seed=int(rng.integers(1 << 31))).board
        conditions = Conditions.random(rng)
        render = render_board(truth, rng=rng, conditions=conditions)
        hidden = hidden_by_hands(render, conditions.distortion)
        chips_under = chips_hidden_by_hands(render, conditions.distortion)
        own = per_map.setdefault(
            f"{name} ({players})",
            {"renders": 0, "terrain_right": 0, "hexes": 0, "chips_right": 0, "chips": 0},
        )
        own["renders"] += 1
        chips = {h: t.number for h, t in truth.tiles.items() if t.number is not None}
        tally["hexes"] += len(truth.tiles)
        tally["chips"] += len(chips)
        tally["hexes_hidden_by_hands"] += len(hidden)
        tally["chips_hidden_by_hands"] += len(chips_under)
        own["hexes"] += len(truth.tiles)
        own["chips"] += len(chips)
        try:
            board = read_board(render.image, known=known, pieces=False)
        except ValueError:
            tally["refused_as_no_board"] += 1
            continue
        terrain_right = chips_right = 0
        for h, tile in truth.tiles.items():
            read = board.tiles.get(h)
            right = read is not None and read.terrain == tile.terrain
            terrain_right += right
            tally["hexes_not_hidden_right"] += right and h not in hidden
        for h, number in chips.items():
            read = board.tiles.get(h)
            got = None if read is None else read.number
            chips_right += got == number
            tally["chips_not_hidden_right"] += got == number and h not in chips_under
            tally["chip_values_wrong"] += got is not None and got != number
        read_harbours = harbour_outcomes(truth.harbors, board.harbors, lambda h: h)
        for what, n in read_harbours.items():
            harbours[what] += n
        tally["terrain_right"] += terrain_right
        tally["chips_right"] += chips_right
        own["terrain_right"] += terrain_right
        own["chips_right"] += chips_right
        if is_certain(board):
            tally["reported_certain"] += 1
            tally["wrong_but_certain"] += not (
                terrain_right == len(truth.tiles)
                and chips_right == len(chips)
                and read_harbours["right"] == len(truth.harbors)
                and read_harbours["extra"] == 0
            )
    return {
        "renders": renders,
        "seed": seed,
        **_accuracies(tally, tally["hexes_hidden_by_hands"], tally["chips_hidden_by_hands"]),
        **tally,
        "harbours": harbours,
        "per_map": per_map,
    }


def _accuracies(
    tally: Mapping[str, int], hexes_hidden: int, chips_hidden: int
) -> dict[str, float | None]:
    """Terrain and chip accuracy over every hex and chip of ``tally``, and over those a hand
    leaves in view (``hexes_hidden`` and ``chips_hidden`` of them are under one)."""
    return {
        "terrain_accuracy": _share(tally["terrain_right"], tally["hexes"]),
        "terrain_accuracy_of_hexes_not_hidden": _share(
            tally["hexes_not_hidden_right"], tally["hexes"] - hexes_hidden
        ),
        "chip_accuracy": _share(tally["chips_right"], tally["chips"]),
        "chip_accuracy_of_chips_not_hidden": _share(
            tally["chips_not_hidden_right"], tally["chips"] - chips_hidden
        ),
    }


def _share(part: int, whole: int) -> float | None:
    return part / whole if whole else None


_FIGURE_OUTCOMES = ("right", "unseen", "wrong")
# The spawn key of the pieces' own stream (see vision.synth.render.own_stream).
_PIECES_STREAM = 2_000_003


def hidden_by_hands(render: Render, distortion: float) -> set[Hex]:
    """The hexes of a render whose terrain ring (0.45..0.8 hex radii) a hand mostly hides."""
    return _under_hands(render, distortion, list(render.board.tiles), RING, RING_HIDDEN)


def chips_hidden_by_hands(render: Render, distortion: float) -> set[Hex]:
    """The hexes of a render whose number chip a hand covers by half or more (no reader can
    read it; a chip lies at its hex's centre, 0.8 hex radii across)."""
    chips = [h for h, t in render.board.tiles.items() if t.number is not None]
    return _under_hands(render, distortion, chips, DISC, DISC_HIDDEN)


def _under_hands(
    render: Render, distortion: float, hexes: list[Hex], offsets: np.ndarray, share: float
) -> set[Hex]:
    """The ``hexes`` whose points at ``offsets`` (board-plane units from the hex centre) lie
    under the render's hands in at least this ``share`` (more than 0)."""
    if render.hand_mask is None or not render.hand_mask.any():
        return set()
    shares = cover_shares(render.hand_mask, render.homography, hexes, offsets, distortion)
    return {hx for hx, s in shares.items() if s >= share}


def _figure_outcome(read: Hex | None, truth: Hex | None) -> str:
    """How a robber or pirate reading compares with the truth: right, unseen or wrong."""
    if read == truth:
        return "right"
    return "unseen" if read is None else "wrong"


def _robber_truth(entry: dict[str, Any]) -> Hex | None:
    """The robber's hex in groundtruth.json's own rows, or None when it is not in view.

    The entry says it in words: "On the desert (row3 hex5)", "column4 hex2" for a photo whose
    rows are columns, "Not visible ..." otherwise.
    """
    text = str(entry.get("robber", ""))
    found = re.search(r"(?:row|column)\s*(\d+)\s+hex\s*(\d+)", text)
    if text.lower().startswith("not visible") or found is None:
        return None
    return rows_of(base_frame())[int(found[1]) - 1][int(found[2]) - 1]


#: Harbours of the boards-dev layouts: OUR OWN LABELS FROM LOOKING AT THE PHOTOS (the dataset
#: has none), in the coordinates of groundtruth.json's rows (``truth_from_rows`` on the base
#: frame): land hex, side, kind. Read off vieja_E_5 and vieja_F_1 (the photos whose orientation
#: the rows follow); every printed icon and ratio was visible there. The other boards
#: (catan_2, catan_12, catan_55) are not labelled.
HARBOUR_LABELS: dict[str, tuple[Harbor, ...]] = {
    "vieja_E": (
        Harbor(-2, 2, "SW", "3:1"),
        Harbor(-2, 1, "W", "grain"),
        Harbor(-1, -1, "W", "ore"),
        Harbor(0, -2, "NW", "3:1"),
        Harbor(1, -2, "NE", "wool"),
        Harbor(2, -2, "NE", "3:1"),
        Harbor(2, -1, "E", "brick"),
        Harbor(1, 1, "E", "lumber"),
        Harbor(-1, 2, "SE", "3:1"),
    ),
    "vieja_F": (
        Harbor(0, 2, "SE", "3:1"),
        Harbor(-1, 2, "SW", "brick"),
        Harbor(-2, 1, "SW", "lumber"),
        Harbor(-2, 0, "W", "3:1"),
        Harbor(-1, -1, "NW", "grain"),
        Harbor(1, -2, "NW", "ore"),
        Harbor(2, -2, "NE", "3:1"),
        Harbor(2, -1, "E", "wool"),
        Harbor(1, 1, "E", "3:1"),
    ),
}


class HardRender(NamedTuple):
    """One of ``bench vision``'s hard renders: the board drawn, its conditions, the photo."""

    truth: Board
    conditions: Conditions
    render: Render


def hard_render(
    seed: int,
    index: int,
    robber_on_chip: float = 0.0,
    robber_off_desert: float = 0.0,
    pieces: float = 0.0,
    chip_scatter: float = CHIP_SCATTER,
) -> HardRender:
    """Render ``index`` of ``bench vision --seed SEED`` (every third a base, 5-6 or
    Seafarers-like board), the same photo every time: how the bench and the tests that
    name a render make it (``robber_on_chip``, ``robber_off_desert``: see
    ``Conditions.random``). ``pieces``: the probability that the board carries a game's
    worth of pieces (:func:`vision.bench_pieces.random_pieces`), drawn from a stream of its
    own so that the board and the conditions stay the seed's. ``chip_scatter``: how far the
    chips lie from their hexes' centres (``Conditions.chip_scatter``).

    >>> first = hard_render(0, 2)
    >>> first.truth.kind, first.render.image.dtype, first.render.image.ndim
    ('seafarers', dtype('uint8'), 3)
    """
    rng = np.random.default_rng(seed * 100_003 + index)
    truth = _board(index % 3, rng)
    own = own_stream(rng, _PIECES_STREAM)
    if own.random() < pieces:
        truth = replace(truth, pieces=random_pieces(truth, own))
    conditions = Conditions.random(
        rng,
        robber_on_chip=robber_on_chip,
        robber_off_desert=robber_off_desert,
        chip_scatter=chip_scatter,
    )
    return HardRender(truth, conditions, render_board(truth, rng=rng, conditions=conditions))


def _board(which: int, rng: np.random.Generator) -> Board:
    """A random base (0), 5-6 (1) or Seafarers-like (2) board."""
    if which == 2:
        return seafarers_board(rng)
    return standard_board("base" if which == 0 else "5-6", rng)


def coins(datasets: Path) -> dict[str, Any] | None:
    """read-chip accuracy on coins-dev, when the data exist."""
    directory = datasets / "coins-dev"
    if not directory.is_dir():
        return None
    return evaluate_chips(directory)


def real_boards(datasets: Path) -> dict[str, Any] | None:
    """read_board on every boards-dev photo, scored under the 12 symmetries."""
    directory = datasets / "boards-dev"
    gt_path = directory / "groundtruth.json"
    if not gt_path.is_file():
        return None
    gt = json.loads(gt_path.read_text(encoding="utf-8"))
    photos: list[dict[str, Any]] = []
    t_ok = t_all = c_ok = c_all = 0
    red_reported = red_photos = 0
    robber = dict.fromkeys(_FIGURE_OUTCOMES, 0)
    harbours = dict.fromkeys(HARBOUR_OUTCOMES, 0)
    for entry in gt["entries"]:
        truth = truth_from_rows(entry["rows"], base_frame())
        robber_truth = _robber_truth(entry)
        for name in entry["files"]:
            row: dict[str, Any] = {"file": name, "board": entry["id"]}
            n_chips = sum(1 for t in truth.values() if t.number is not None)
            try:
                board = read_board(directory / name)
            except ValueError as exc:
                row["error"] = str(exc)
                t_all += len(truth)
                c_all += n_chips
                photos.append(row)
                continue
            s, aligned = best_alignment(truth, board.tiles)
            t_ok, t_all = t_ok + s.terrain_right, t_all + s.terrain_total
            c_ok, c_all = c_ok + s.chips_right, c_all + s.chips_total
            expected = None if robber_truth is None else aligned(robber_truth)
            outcome = _figure_outcome(board.robber, expected)
            robber[outcome] += 1
            labels = HARBOUR_LABELS.get(entry["id"])
            if labels is not None:
                read = harbour_outcomes(list(labels), board.harbors, aligned)
                for what, n in read.items():
                    harbours[what] += n
                row["harbours"] = read
            row.update(
                robber=outcome,
                kind=board.kind,
                terrain=f"{s.terrain_right}/{s.terrain_total}",
                chips=f"{s.chips_right}/{s.chips_total}",
                certain=is_certain(board),
            )
            if entry["id"] == "vieja_E":
                red_photos += 1
                reported = _reports_adjacent_reds(board)
                red_reported += bool(reported)
                row["adjacent_reds_reported"] = reported
            photos.append(row)
    return {
        "photos": photos,
        "terrain_accuracy": t_ok / t_all if t_all else None,
        "chip_accuracy": c_ok / c_all if c_all else None,
        "layout_E_adjacent_reds_reported": f"{red_reported}/{red_photos}",
        "robber": robber,
        "harbours_own_labels": harbours,
    }


def real_hands(
    datasets: Path, composites: int, seed: int = 0, debug_dir: Path | None = None
) -> dict[str, Any] | None:
    """read_board on ``composites`` composites of every boards-dev photo, each with one of
    the renderer's hands over its board (:mod:`vision.bench_hands`), scored under the 12
    symmetries; None without the data.

    Each photo is read clean first: its registration places the hands, and the symmetry its
    clean reading is best under names the truth's hexes a hand hides. A board reported
    certain is wrong unless its kind, terrain and chips are right, and on the layouts with
    harbour labels (:data:`HARBOUR_LABELS`) its harbours too. ``debug_dir``: each composite
    is written there with its hand's outline (nothing is written otherwise).
    """
    directory = datasets / "boards-dev"
    gt_path = directory / "groundtruth.json"
    if not gt_path.is_file():
        return None
    gt = json.loads(gt_path.read_text(encoding="utf-8"))
    if debug_dir is not None:
        debug_dir.mkdir(parents=True, exist_ok=True)
    keys = (
        "composites",
        "hexes",
        "terrain_right",
        "hexes_hidden",
        "hexes_not_hidden_right",
        "chips",
        "chips_right",
        "chips_hidden",
        "chips_not_hidden_right",
        "chips_null",
        "chips_wrong",
        "refused_as_no_board",
        "registration_lost",
        "registration_moved",
        "reported_certain",
        "wrong_but_certain",
        "board_certain_but_pieces",
        "wrong_but_board_certain_but_pieces",
        "confident_hidden_hexes",
        "confident_wrong_where_registration_lost",
    )
    tally = dict.fromkeys(keys, 0)
    clean = dict.fromkeys(
        ("hexes", "terrain_right", "chips", "chips_right", "board_certain_but_pieces"), 0
    )
    confident_hexes = dict.fromkeys(("hidden", "partly", "clear"), 0)
    confident_chips = dict.fromkeys(("hidden", "partly", "clear"), 0)
    robber = dict.fromkeys(_FIGURE_OUTCOMES, 0)
    harbours = dict.fromkeys(HARBOUR_OUTCOMES, 0)
    rows: list[dict[str, Any]] = []
    for entry in gt["entries"]:
        truth = truth_from_rows(entry["rows"], base_frame())
        robber_truth = _robber_truth(entry)
        labels = HARBOUR_LABELS.get(entry["id"])
        for name in entry["files"]:
            photo = load_image(directory / name)
            try:
                reg = register(photo)
                first = read_board(photo)
            except ValueError as exc:  # a photo refused clean has no board to lay a hand on
                rows.append({"file": name, "error": f"clean photo: {exc}"})
                continue
            s, clean_aligned = best_alignment(truth, first.tiles)
            clean["hexes"] += s.terrain_total
            clean["terrain_right"] += s.terrain_right
            clean["chips"] += s.chips_total
            clean["chips_right"] += s.chips_right
            clean["board_certain_but_pieces"] += is_certain(first, pieces=False)
            on_reg = {h: clean_aligned(h) for h in truth}
            for k in range(composites):
                comp = composite_hand(photo, reg.homography, reg.hexes, hand_stream(seed, name, k))
                ring = cover_shares(comp.mask, reg.homography, on_reg.values(), RING)
                disc = cover_shares(comp.mask, reg.homography, on_reg.values(), DISC)
                ring = {h: ring[a] for h, a in on_reg.items()}
                disc = {h: disc[a] for h, a in on_reg.items()}
                if debug_dir is not None:
                    _write_composite(debug_dir / f"{Path(name).stem}_hand{seed}_{k}.jpg", comp)
                tally["composites"] += 1
                row: dict[str, Any] = {"file": name, "composite": k}
                try:
                    board = read_board(comp.image)
                    # How far the hand moved the registration (read_board's own, made again).
                    offset = registration_offset(reg, register(comp.image))
                except ValueError as exc:
                    tally["refused_as_no_board"] += 1
                    tally["hexes"] += len(truth)
                    tally["chips"] += sum(1 for t in truth.values() if t.number is not None)
                    rows.append({**row, "error": str(exc)})
                    continue
                got = score_composite(truth, board, ring, disc)
                aligned = got.pop("aligned")
                for key in keys:
                    if key in got:
                        tally[key] += got[key]
                lost = board.kind != first.kind or got["third_wrong"]
                tally["registration_lost"] += lost
                tally["registration_moved"] += offset > _MOVED
                row["registration_offset"] = round(offset, 3)
                # On a board placed wrong no hex is where the hand's mask says: its confident
                # wrong values are counted apart.
                for place, n in got["confident_wrong_hexes"].items():
                    confident_hexes[place] += 0 if lost else n
                    tally["confident_wrong_where_registration_lost"] += n if lost else 0
                for place, n in got["confident_wrong_chips"].items():
                    confident_chips[place] += 0 if lost else n
                    tally["confident_wrong_where_registration_lost"] += n if lost else 0
                expected = None if robber_truth is None else aligned(robber_truth)
                row["robber"] = _figure_outcome(board.robber, expected)
                robber[row["robber"]] += 1
                perfect = got["perfect"] and board.kind == "base"
                if labels is not None:
                    read = harbour_outcomes(list(labels), board.harbors, aligned)
                    for what, n in read.items():
                        harbours[what] += n
                    perfect = perfect and read["right"] == len(labels) and read["extra"] == 0
                certain = is_certain(board)
                tally["reported_certain"] += certain
                tally["wrong_but_certain"] += certain and not perfect
                # Pieces read from one photo always ask for a look; the board they stand on
                # need not (as the synthetic bench counts them).
                but_pieces = not certain and is_certain(board, pieces=False)
                tally["board_certain_but_pieces"] += but_pieces
                tally["wrong_but_board_certain_but_pieces"] += but_pieces and not perfect
                rows.append(
                    {
                        **row,
                        "terrain": f"{got['terrain_right']}/{got['hexes']}",
                        "chips": f"{got['chips_right']}/{got['chips']}",
                        "hexes_hidden": got["hexes_hidden"],
                        "chips_hidden": got["chips_hidden"],
                        "certain": certain,
                        "certain_but_pieces": but_pieces,
                        "registration_lost": lost,
                        "wrong": got["wrong"],
                    }
                )
    return {
        "composites_per_photo": composites,
        "seed": seed,
        **_accuracies(tally, tally["hexes_hidden"], tally["chips_hidden"]),
        "clean_terrain_accuracy": _share(clean["terrain_right"], clean["hexes"]),
        "clean_chip_accuracy": _share(clean["chips_right"], clean["chips"]),
        "clean_board_certain_but_pieces": clean["board_certain_but_pieces"],
        **tally,
        "confident_wrong_hexes": confident_hexes,
        "confident_wrong_chips": confident_chips,
        "robber": robber,
        "harbours_own_labels": harbours,
        "composites_read": rows,
    }


#: A registration is moved by a hand when a hex centre lies this far (hex radii) from where the
#: clean photo's registration put it.
_MOVED = 0.25


def registration_offset(clean: Registration, other: Registration) -> float:
    """How far (hex radii of the clean one) ``other`` puts the board's hex centres from where
    ``clean`` puts them, at worst: each clean centre against the nearest of ``other``'s (the
    two may name the hexes under different symmetries); inf for a board of another kind."""
    if other.kind != clean.kind:
        return math.inf
    mine = clean.project(np.array([hex_center(h) for h in clean.hexes]))
    theirs = other.project(np.array([hex_center(h) for h in other.hexes]))
    origin, east = clean.project(np.array([[0.0, 0.0], [1.0, 0.0]]))
    unit = float(np.linalg.norm(east - origin))
    gaps = np.linalg.norm(mine[:, None, :] - theirs[None, :, :], axis=2).min(axis=1)
    return float(gaps.max()) / unit


def _write_composite(path: Path, comp: HandComposite) -> None:
    """A composite with its hand's outline in green, for a look (``--real-hands-debug``)."""
    out = comp.image.copy()
    contours, _ = cv2.findContours(
        comp.mask.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE
    )
    cv2.drawContours(out, contours, -1, (0, 255, 0), 2)
    cv2.imwrite(str(path), out)


def _reports_adjacent_reds(board: Board) -> bool | None:
    """Does the setup check flag two red numbers side by side? None without a checker."""
    try:
        from companion.setup_check import check_board
    except ImportError:
        return None
    try:
        report = check_board(board)
    except ValueError:
        return None
    return any("red" in v.message for v in report.violations)


def timing(datasets: Path, runs: int = 5) -> dict[str, Any]:
    """Median seconds per read_board of a 1600x1200 photo and per render, OpenCV on one
    thread."""
    photo = datasets / "boards-dev" / "vieja_F_0.jpg"
    image = cv2.imread(str(photo)) if photo.is_file() else None
    source = str(photo)
    if image is None or image.shape[:2] != (1200, 1600):
        render = render_board(standard_board("base", np.random.default_rng(1)), rng=1)
        image, source = render.image, "synthetic render (seed 1)"
    threads = cv2.getNumThreads()
    cv2.setNumThreads(1)
    try:
        read_board(image)  # warm-up: model loading is not per photo
        times, cpu, board_cpu = [], [], []
        for _ in range(runs):
            t0, c0 = time.perf_counter(), time.process_time()
            read_board(image)
            times.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
            c0 = time.process_time()
            read_board(image, pieces=False)
            board_cpu.append(time.process_time() - c0)
        render_times, render_cpu = [], []
        board = standard_board("base", np.random.default_rng(2))
        for i in range(runs):
            rng = np.random.default_rng(i)
            conditions = Conditions.random(rng)
            t0, c0 = time.perf_counter(), time.process_time()
            render_board(board, rng=rng, conditions=conditions)
            render_times.append(time.perf_counter() - t0)
            render_cpu.append(time.process_time() - c0)
    finally:
        cv2.setNumThreads(threads)
    return {
        "photo": source,
        "runs": runs,
        "median_seconds": statistics.median(times),
        "median_cpu_seconds": statistics.median(cpu),
        "board_only_median_cpu_seconds": statistics.median(board_cpu),
        "render_median_seconds": statistics.median(render_times),
        "render_median_cpu_seconds": statistics.median(render_cpu),
    }


def run(args: argparse.Namespace) -> int:
    """Run every measurement and print them with the command line."""
    if args.renders < 0:
        raise ValueError(f"--renders must be >= 0, not {args.renders}")
    if args.scenario_maps < 0:
        raise ValueError(f"--scenario-maps must be >= 0, not {args.scenario_maps}")
    if args.real_hands < 0:
        raise ValueError(f"--real-hands must be >= 0, not {args.real_hands}")
    for name, share in (
        ("--robber-on-chip", args.robber_on_chip),
        ("--robber-off-desert", args.robber_off_desert),
        ("--pieces", args.pieces),
    ):
        if not 0.0 <= share <= 1.0:
            raise ValueError(f"{name} is a share of the renders, within [0, 1], not {share}")
    if not 0.0 <= args.chip_scatter <= MAX_CHIP_SCATTER:
        raise ValueError(
            f"--chip-scatter must be within 0..{MAX_CHIP_SCATTER} hex radii, "
            f"not {args.chip_scatter}"
        )
    datasets = Path(args.datasets)
    # The command line that reproduces these figures (every option spelled out).
    command = f"catan-companion bench vision --renders {args.renders} --seed {args.seed}"
    if args.robber_on_chip:
        command += f" --robber-on-chip {args.robber_on_chip}"
    if args.robber_off_desert:
        command += f" --robber-off-desert {args.robber_off_desert}"
    if args.pieces:
        command += f" --pieces {args.pieces}"
    if args.chip_scatter != CHIP_SCATTER:
        command += f" --chip-scatter {args.chip_scatter}"
    if args.known_map:
        command += " --known-map"
    if args.scenario_maps:
        command += f" --scenario-maps {args.scenario_maps}"
    if args.real_hands:
        command += f" --real-hands {args.real_hands}"
    if datasets != DEFAULT_DATASETS:
        command += f" --datasets {datasets}"
    if args.json:
        command += " --json"
    result: dict[str, Any] = {"command": command, "synthetic": None}
    if args.renders:
        log.info("reading %d synthetic renders...", args.renders)
        result["synthetic"] = synthetic(
            args.renders,
            args.seed,
            args.robber_on_chip,
            args.known_map,
            args.robber_off_desert,
            args.pieces,
            args.chip_scatter,
        )
    result["scenario_maps"] = None
    if args.scenario_maps:
        log.info("reading %d renders of scenario maps...", args.scenario_maps)
        result["scenario_maps"] = scenario_maps(args.scenario_maps, args.seed)
    log.info("reading coins-dev...")
    result["coins_dev"] = coins(datasets)
    log.info("reading boards-dev...")
    result["boards_dev"] = real_boards(datasets)
    result["real_hands"] = None
    if args.real_hands:
        log.info("reading boards-dev with %d hand(s) over each photo...", args.real_hands)
        debug = None if args.real_hands_debug is None else Path(args.real_hands_debug)
        result["real_hands"] = real_hands(datasets, args.real_hands, args.seed, debug)
    log.info("timing...")
    result["timing"] = timing(datasets)
    if args.json:
        json.dump(result, sys.stdout, indent=2, default=str)
        sys.stdout.write("\n")
        return 0
    print(f"$ {result['command']}")
    syn = result["synthetic"]
    if syn:
        print(
            f"synthetic: {syn['renders']} renders, terrain {_pct(syn['terrain_accuracy'])}, "
            f"chips {_pct(syn['chip_accuracy'])}, refused {syn['refused_as_no_board']}, "
            f"certain {syn['reported_certain']} of which wrong {syn['wrong_but_certain']}"
        )
        if syn["board_certain_but_pieces"]:
            print(
                f"  certain but for some pieces' kind {syn['board_certain_but_pieces']}, of "
                f"which wrong {syn['wrong_but_board_certain_but_pieces']}"
            )
        print(
            f"  {syn['hexes_hidden_by_hands']} hexes hidden by hands; terrain of the others "
            f"{_pct(syn['terrain_accuracy_of_hexes_not_hidden'])}; "
            f"{syn['chips_hidden_by_hands']} chips half or more under hands; chips of the others "
            f"{_pct(syn['chip_accuracy_of_chips_not_hidden'])}"
        )
        print(
            "  wrong terrain: "
            + ", ".join(f"{k} {v}" for k, v in syn["terrain_wrong_hexes"].items())
        )
        for kind, acc in syn["per_kind_terrain_accuracy"].items():
            print(f"  terrain {kind}: {_pct(acc)}")
        fig = syn["figures_on_boards_read_right"]
        for who in ("robber", "pirate"):
            counts = ", ".join(f"{what} {fig[f'{who}_{what}']}" for what in _FIGURE_OUTCOMES)
            print(f"  {who} (boards read right): {counts}")
        anywhere = syn["figures_wrong_on_any_board"]
        print(
            "  figures wrong on any board: "
            + ", ".join(f"{who} {n}" for who, n in anywhere.items())
        )
        hb = syn["harbours_on_boards_read_right"]
        print("  harbours (boards read right): " + ", ".join(f"{k} {v}" for k, v in hb.items()))
    sm = result["scenario_maps"]
    if sm:
        print(
            f"scenario maps, map known: {sm['renders']} renders, terrain "
            f"{_pct(sm['terrain_accuracy'])} ({_pct(sm['terrain_accuracy_of_hexes_not_hidden'])} "
            f"of the hexes no hand hides), chips {_pct(sm['chip_accuracy'])} "
            f"({_pct(sm['chip_accuracy_of_chips_not_hidden'])} of the chips no hand half "
            f"covers), {sm['chip_values_wrong']} chip values wrong, refused "
            f"{sm['refused_as_no_board']}, certain {sm['reported_certain']} of which wrong "
            f"{sm['wrong_but_certain']}"
        )
        print("  harbours: " + ", ".join(f"{k} {v}" for k, v in sm["harbours"].items()))
        for what, m in sm["per_map"].items():
            print(
                f"  {what}: {m['renders']} renders, terrain "
                f"{_pct(_share(m['terrain_right'], m['hexes']))}, chips "
                f"{_pct(_share(m['chips_right'], m['chips']))}"
            )
    cd = result["coins_dev"]
    if cd:
        print(f"coins-dev read-chip: {_pct(cd.get('accuracy'))} of {cd.get('chips')} crops")
    else:
        print("coins-dev: skipped (no dataset or no chip bench)")
    bd = result["boards_dev"]
    if bd:
        for p in bd["photos"]:
            if "error" in p:
                print(f"  {p['file']}: {p['error']}")
            else:
                print(
                    f"  {p['file']}: {p['kind']}, terrain {p['terrain']}, chips {p['chips']}"
                    f"{'' if p['certain'] else ' (uncertain)'}"
                )
        print(
            f"boards-dev: terrain {_pct(bd['terrain_accuracy'])}, chips "
            f"{_pct(bd['chip_accuracy'])}, layout E red 6s reported "
            f"{bd['layout_E_adjacent_reds_reported']}, robber "
            + ", ".join(f"{k} {v}" for k, v in bd["robber"].items())
        )
        print(
            "  harbours (vieja_E, vieja_F; our own labels): "
            + ", ".join(f"{k} {v}" for k, v in bd["harbours_own_labels"].items())
        )
    else:
        print("boards-dev: skipped (no dataset)")
    rh = result["real_hands"]
    if rh:
        print(
            f"boards-dev with a hand, {rh['composites']} composites ({rh['composites_per_photo']} "
            f"per photo): terrain {_pct(rh['terrain_accuracy'])} "
            f"({_pct(rh['terrain_accuracy_of_hexes_not_hidden'])} of the hexes no hand hides; "
            f"clean {_pct(rh['clean_terrain_accuracy'])}), chips {_pct(rh['chip_accuracy'])} "
            f"({_pct(rh['chip_accuracy_of_chips_not_hidden'])} of the chips no hand half covers; "
            f"clean {_pct(rh['clean_chip_accuracy'])}), refused {rh['refused_as_no_board']}, "
            f"registration lost {rh['registration_lost']} (moved over {_MOVED} hex radii "
            f"{rh['registration_moved']}), certain {rh['reported_certain']} of "
            f"which wrong {rh['wrong_but_certain']}; certain but for some pieces' kind "
            f"{rh['board_certain_but_pieces']} of which wrong "
            f"{rh['wrong_but_board_certain_but_pieces']} (clean photos: "
            f"{rh['clean_board_certain_but_pieces']})"
        )
        for what in ("hexes", "chips"):
            n = rh[f"confident_wrong_{what}"]
            print(
                f"  {what} wrong with confidence >= 0.9 (boards registered right), against the "
                "hand: " + ", ".join(f"{place} {c}" for place, c in n.items())
            )
        print(
            "  hexes and chips wrong with confidence >= 0.9 on boards whose registration was "
            f"lost: {rh['confident_wrong_where_registration_lost']}"
        )
        print(
            f"  {rh['hexes_hidden']} hexes hidden ({rh['confident_hidden_hexes']} read with "
            f"confidence >= 0.9), {rh['chips_hidden']} chips hidden; chips wrong "
            f"{rh['chips_wrong']}, null {rh['chips_null']}; robber "
            + ", ".join(f"{k} {v}" for k, v in rh["robber"].items())
        )
    elif args.real_hands:
        print("boards-dev with hands: skipped (no dataset)")
    tm = result["timing"]
    print(
        f"read-board time: {tm['median_seconds']:.3f} s wall, {tm['median_cpu_seconds']:.3f} s "
        f"CPU ({tm['board_only_median_cpu_seconds']:.3f} s CPU without the pieces), median of "
        f"{tm['runs']} ({tm['photo']})"
    )
    print(
        f"render time: {tm['render_median_seconds']:.3f} s wall, "
        f"{tm['render_median_cpu_seconds']:.3f} s CPU, median of {tm['runs']} (1600x1200)"
    )
    return 0


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.1f}%"
