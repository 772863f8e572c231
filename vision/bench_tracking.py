"""``catan-companion bench tracking [--json]``: the camera following a whole scripted game.

A game between greedy bots (companion.bots.GreedyBot) is played to a number of turns (default
60) and turned into a video (vision.capture.SyntheticGameSource, 1280x720 at 30 frames per
second by default): every build is made by a hand reaching in, most other turns have a hand
reaching over the board without changing anything, the lamp drifts all game long, glare spots
come and go, and the board is bumped once halfway.

The video feeds the tracker frame by frame (OpenCV on one thread), and every stable
observation goes through the camera link's reconciliation into a journaled game on a running
Table, as at a real table: what the camera does not do (rolls, trades, the robber, ends of
turns) is entered at the right moment, as the tower and the page would; the robber is moved by
a hand like the pieces. Measured:

- **pieces**: at the end of every step, the share of the pieces on the board that the tracker
  holds with the right kind, colour and place, per kind and per colour, and pieces it holds
  that are not there (extra);
- **actions**: builds and robber moves the camera applied (or, when someone was robbed, asked
  the page about: the page answers with what happened), those it missed (entered by hand so
  the game goes on), *false actions* (applied by the camera but not made: the goal is none),
  and the other questions and discrepancies it raised;
- **delay** from the frame where a piece appears to the frame whose observation applied it;
- **fps**: frames per second of the tracker alone in steady state (registrations excluded),
  on one core.

With ``--datasets`` holding boards-dev (default ../shared/datasets), the real photos' piece
counts are compared with what ``vision.pieces.detect_pieces`` finds (found and extra per
layout, by kind and by family), with its default options for real plastic and with each of
them changed (:data:`REAL_VARIANTS`): how far the renderer's colours carry to real pieces.

``--measure-colours N`` instead prints the CIELAB statistics of the colour classes over N
renders (how vision.pieces' class table was made).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import statistics
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from companion.actions import Action, BuildCity, BuildRoad, BuildSettlement, EndTurn, MoveRobber
from companion.board import (
    Board,
    Piece,
    Topology,
    edge_midpoint,
    edge_vertices,
    hex_center,
    vertex_position,
)
from companion.bots import GreedyBot
from companion.camera_link import CameraLink
from companion.game import Game, Phase
from companion.journal import JournaledGame
from companion.layouts import random_board
from companion.reconcile import game_pieces
from companion.table import ApplyAction, Inspect, Table
from vision.capture import SceneStep, SyntheticGameSource
from vision.pieces import GROUND_CONTEXT
from vision.synth.render import Conditions
from vision.tracker import Observation, Tracker

log = logging.getLogger("vision.bench_tracking")

DEFAULT_DATASETS = Path(__file__).resolve().parents[2] / "shared" / "datasets"
#: The two games of the default run: together they use all six colours.
PLAYER_SETS = (("red", "blue", "orange", "white"), ("green", "brown", "red", "blue"))
_VISUAL = (BuildSettlement, BuildRoad, BuildCity, MoveRobber)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the bench's arguments."""
    parser.add_argument("--json", action="store_true", help="print one JSON document on stdout")
    parser.add_argument("--turns", type=int, default=60, help="turns per game (default 60)")
    parser.add_argument(
        "--games", type=int, default=2, help="games (each a player set; default 2 = 6 colours)"
    )
    parser.add_argument("--width", type=int, default=1280, help="video width (default 1280)")
    parser.add_argument("--height", type=int, default=720, help="video height (default 720)")
    parser.add_argument("--fps", type=float, default=30.0, help="video frame rate (default 30)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the games and renders")
    parser.add_argument(
        "--stable", type=float, default=0.3, help="tracker stability time, s (default 0.3)"
    )
    parser.add_argument(
        "--truth-registration",
        action="store_true",
        help="give the tracker the true board position instead of registering the frames",
    )
    parser.add_argument(
        "--datasets",
        default=str(DEFAULT_DATASETS),
        help="directory holding boards-dev/ (default ../shared/datasets); 'none' to skip",
    )
    parser.add_argument(
        "--measure-colours",
        type=int,
        default=0,
        metavar="N",
        help="print the colour classes measured over N renders instead",
    )


# --- the script -------------------------------------------------------------------------------


@dataclass
class StepPlan:
    """What the table does at the start of a step, and the builds the camera should see."""

    before: list[Action] = field(default_factory=list)
    builds: list[Action] = field(default_factory=list)


def board_of(game: Game) -> Board:
    """The game's board with its pieces and robber, as the renderer draws it."""
    return replace(game.board, robber=game.topology.hexes[game.robber], pieces=game_pieces(game))


def where(action: Action) -> tuple[float, float]:
    """The board-plane point a hand reaches to for a build."""
    if isinstance(action, BuildRoad):
        return edge_midpoint(action.edge)
    if isinstance(action, MoveRobber):
        return hex_center(action.hex)
    return vertex_position(action.vertex)  # type: ignore[attr-defined]


def script_game(
    players: tuple[str, ...], turns: int, seed: int
) -> tuple[Board, list[SceneStep], list[StepPlan]]:
    """A bot game as a video script: one step per build, and hands on most other turns."""
    board = random_board(len(players), seed=seed)
    game = Game(board, list(players), rng=seed)
    bot = GreedyBot(seed=seed)
    rng = np.random.default_rng(seed)
    steps = [SceneStep(board_of(game), duration_s=1.0, label="start")]
    plans = [StepPlan()]
    waiting: list[Action] = []
    built_this_turn = False
    land = [hex_center(h) for h, t in board.tiles.items() if t.terrain.is_land]
    while game.phase != Phase.GAME_OVER and game.turn_number <= turns:
        action = game.resolve(bot.choose(game))
        game.apply(action)
        turn = game.turn_number
        glare = turn % 9 == 4
        bump = turn >= max(2, turns // 2) and not any(s.bump for s in steps)
        if isinstance(action, _VISUAL):
            steps.append(
                SceneStep(
                    board_of(game),
                    reach=where(action),
                    # Moving the robber takes a moment of thought, building less.
                    duration_s=2.5 if isinstance(action, MoveRobber) else 1.5,
                    glare=glare,
                    bump=bump,
                    label=type(action).type,
                )
            )
            plans.append(StepPlan(waiting, [action]))
            waiting = []
            built_this_turn = True
            continue
        waiting.append(action)
        if isinstance(action, EndTurn):
            if not built_this_turn and rng.random() < 0.8:
                # Someone reaches over the board (dice, cards) and changes nothing.
                reach = land[int(rng.integers(len(land)))]
                steps.append(
                    SceneStep(board_of(game), reach=reach, duration_s=1.2, glare=glare, bump=bump)
                )
                plans.append(StepPlan(waiting, []))
                waiting = []
            built_this_turn = False
    steps.append(SceneStep(board_of(game), duration_s=1.0, label="end"))
    plans.append(StepPlan(waiting, []))
    return board, steps, plans


# --- names between the registration and the game ---------------------------------------------


class NameMap:
    """Corners and sides of the tracker's registration -> the game's, by where they are in the
    image (the game's board here comes from the script, not from read-board)."""

    def __init__(self, truth_hexes: list[tuple[int, int]]):
        self.topology = Topology.of(truth_hexes)
        self._vpos = np.array([vertex_position(v) for v in self.topology.vertices])
        self._epos = np.array([edge_midpoint(e) for e in self.topology.edges])

    def mapper(self, reg_h: np.ndarray, truth_h: np.ndarray, reg_topology: Topology) -> Any:
        to_truth = np.linalg.inv(truth_h) @ reg_h

        def project(points: np.ndarray) -> np.ndarray:
            p = np.hstack([points, np.ones((len(points), 1))]) @ to_truth.T
            return p[:, :2] / p[:, 2:3]

        vmap = {}
        pts = project(np.array([vertex_position(v) for v in reg_topology.vertices]))
        for name, p in zip(reg_topology.vertices, pts, strict=True):
            d = np.linalg.norm(self._vpos - p, axis=1)
            if d.min() < 0.3:
                vmap[name] = self.topology.vertices[int(d.argmin())]
        emap = {}
        pts = project(np.array([edge_midpoint(e) for e in reg_topology.edges]))
        for name, p in zip(reg_topology.edges, pts, strict=True):
            d = np.linalg.norm(self._epos - p, axis=1)
            if d.min() < 0.3:
                emap[name] = self.topology.edges[int(d.argmin())]

        hmap = {}
        truth_hexes = np.array([hex_center(h) for h in self.topology.hexes])
        pts = project(np.array([hex_center(h) for h in reg_topology.hexes]))
        for name, p in zip(reg_topology.hexes, pts, strict=True):
            d = np.linalg.norm(truth_hexes - p, axis=1)
            if d.min() < 0.3:
                hmap[name] = self.topology.hexes[int(d.argmin())]

        def convert(pieces: Any) -> list[Piece]:
            out = []
            for piece in pieces:
                if piece.vertex is not None and piece.vertex in vmap:
                    out.append(Piece(piece.kind, piece.color, vertex=vmap[piece.vertex]))
                elif piece.edge is not None and piece.edge in emap:
                    out.append(Piece(piece.kind, piece.color, edge=emap[piece.edge]))
            return out

        convert.hexes = lambda hexes: tuple(hmap[h] for h in hexes if h in hmap)  # type: ignore[attr-defined]
        return convert


# --- the run ------------------------------------------------------------------------------------


@dataclass
class Tally:
    pieces: Counter = field(default_factory=Counter)  # (kind|colour, "seen"|"total")
    extra: int = 0
    expected: int = 0
    by_camera: int = 0
    missed: list[str] = field(default_factory=list)
    false: list[str] = field(default_factory=list)
    pending: int = 0
    robber_confirmed: int = 0
    delays: list[float] = field(default_factory=list)
    frames: int = 0
    track_s: float = 0.0
    registrations: int = 0


def _present(game: Game, action: Action) -> bool:
    t = game.topology
    if isinstance(action, MoveRobber):
        return game.robber == t.hex_index[action.hex] and game.phase != Phase.MOVE_ROBBER
    if isinstance(action, BuildRoad):
        return game.edge_owner[t.edge_index[action.edge]] != -1
    v = t.vertex_index[action.vertex]  # type: ignore[attr-defined]
    return game.vertex_level[v] >= (2 if isinstance(action, BuildCity) else 1)


def run_game(
    players: tuple[str, ...], args: argparse.Namespace, seed: int, tally: Tally, workdir: Path
) -> None:
    board, steps, plans = script_game(players, args.turns, seed)
    src = SyntheticGameSource(
        steps,
        width=args.width,
        height=args.height,
        fps=args.fps,
        seed=seed,
        conditions=Conditions(tilt_deg=18.0, tilt_dir_deg=40.0, rotation_deg=7.0),
        drift=0.12,
        reach_s=0.6,
    )
    registrar = None
    if args.truth_registration:
        from types import SimpleNamespace

        def registrar(frame: np.ndarray) -> Any:
            assert src.truth is not None
            return SimpleNamespace(
                homography=src.truth.homography, hexes=list(board.tiles), sea_fraction={}
            )

    tracker = Tracker(registrar=registrar, kind="base", stable_s=args.stable)
    jg = JournaledGame.create(workdir / f"game-{seed}.sqlite", board, list(players), seed=seed)
    table = Table(jg)
    table.start()
    link = CameraLink(table, [], tracker)
    names = NameMap(list(board.tiles))
    step = -1
    try:
        for t, frame in src:
            truth = src.truth
            assert truth is not None
            if truth.step != step:
                if step >= 0:
                    _end_step(tracker, names, truth.homography, steps[step].board, tally)
                    _catch_up(table, plans[step], tally)
                step = truth.step
                for action in plans[step].before:
                    table.call(ApplyAction(action, source="web"))
            registrations = tracker.status.registrations
            start = time.perf_counter()
            obs = tracker.update(t, frame)
            spent = time.perf_counter() - start
            if tracker.status.registrations == registrations and registrations > 0:
                tally.frames += 1
                tally.track_s += spent
            if obs is None or tracker.detector is None:
                continue
            convert = names.mapper(
                tracker.detector.homography, truth.homography, tracker.detector.topology
            )
            seen = Observation(
                obs.timestamp,
                tuple(convert(obs.pieces)),
                changed_hexes=convert.hexes(obs.changed_hexes),
            )
            before = len(jg.history)
            link.handle(seen, t)
            expected = plans[step].builds + (plans[step - 1].builds if step > 0 else [])
            for action in jg.history[before:]:
                if action in expected:
                    tally.by_camera += 1
                    assert truth.changed_at is not None
                    tally.delays.append(t - truth.changed_at)
                else:
                    tally.false.append(f"{action} at {t:.2f} s")
                    log.warning("false action from the camera: %s at %.2f s", action, t)
            tally.pending += len(link.pending()["discrepancies"])
            for item in link.pending()["proposals"]:
                robbed = [a for a in expected if isinstance(a, MoveRobber)]
                if robbed and item["action"].get("hex") == list(robbed[0].hex):
                    # The page answers "who was robbed?" with what happened at the table
                    # (the script's victim and card, so the game stays the script's).
                    link.dismiss(item["id"])
                    table.call(ApplyAction(robbed[0], source="web"))
                    tally.robber_confirmed += 1
                    assert truth.changed_at is not None
                    tally.delays.append(t - truth.changed_at)
                else:
                    tally.pending += 1
        _end_step(tracker, names, src.truth.homography, steps[step].board, tally)  # type: ignore[union-attr]
        _catch_up(table, plans[step], tally)
        tally.registrations += tracker.status.registrations
    finally:
        table.stop()


def _end_step(
    tracker: Tracker, names: NameMap, truth_h: np.ndarray, board: Board, tally: Tally
) -> None:
    """Score what the tracker holds against the step's board."""
    if tracker.detector is None:
        held: set[tuple[str, str, Any]] = set()
    else:
        convert = names.mapper(tracker.detector.homography, truth_h, tracker.detector.topology)
        held = {(p.kind, p.color, p.vertex or p.edge) for p in convert(tracker.pieces())}
    truth = {(p.kind, p.color, p.vertex or p.edge) for p in board.pieces}
    for kind, colour, site in truth:
        ok = (kind, colour, site) in held
        for key in (f"kind:{kind}", f"colour:{colour}"):
            tally.pieces[(key, "total")] += 1
            tally.pieces[(key, "seen")] += int(ok)
    tally.extra += len(held - truth)


def _catch_up(table: Table, plan: StepPlan, tally: Tally) -> None:
    """Builds the camera did not apply are entered by hand, so the game goes on."""
    for action in plan.builds:
        tally.expected += 1
        if not table.call(Inspect(lambda game, a=action: _present(game, a))):
            tally.missed.append(str(action))
            table.call(ApplyAction(action, source="web"))


# --- real photos --------------------------------------------------------------------------------


#: The single-photo readings compared on the real photos: the default, then each option of
#: vision.pieces.detect_pieces for standing, shaded plastic (keyword arguments).
REAL_VARIANTS: dict[str, dict[str, Any]] = {
    "default": {},
    "ground_and_check": {"context": GROUND_CONTEXT},
    "classes": {"ground": False, "context": GROUND_CONTEXT},
    "renderer_only": {"ground": False, "shades": (), "context": 1.0},
    "standing": {"standing": True},
}


def real_photos(datasets: Path) -> dict[str, Any]:
    """Found and extra pieces on boards-dev photos with piece counts, per layout and variant.

    A piece is found when the photo's count of its colour and kind is reached (kind: exactly,
    and by family, where a city read for a settlement still counts: telling them apart from
    one photo is its own question).
    """
    from vision.pieces import detect_pieces
    from vision.read_board import load_image
    from vision.register import register

    folder = datasets / "boards-dev"
    truth_path = folder / "groundtruth.json"
    if not truth_path.is_file():
        return {"skipped": f"{truth_path} not found"}
    truth = json.loads(truth_path.read_text())
    family = {"settlement": "building", "city": "building", "road": "road", "ship": "road"}
    tallies: dict[tuple[str, str, str], Counter] = defaultdict(Counter)
    photos: dict[str, Any] = {}
    for entry in truth["entries"]:
        for name, counts in entry.get("pieces_per_photo", {}).items():
            want: Counter = Counter()
            for colour, c in counts.items():
                if isinstance(c, dict):
                    want[(colour, "settlement")] = c.get("settlements", 0)
                    want[(colour, "city")] = c.get("cities", 0)
                    want[(colour, "road")] = c.get("roads", 0)
            try:
                image = load_image(folder / name)
                reg = register(image)
            except ValueError as exc:
                photos[name] = {"error": str(exc)}
                reg = None
            for variant, options in REAL_VARIANTS.items():
                pieces = detect_pieces(image, reg, **options) if reg is not None else []
                got = Counter((p.color, p.kind) for p in pieces)
                for scale, key in (
                    ("kind", lambda k: k),
                    ("family", lambda k: (k[0], family[k[1]])),
                ):
                    w, g = Counter(), Counter()
                    for k, n in want.items():
                        w[key(k)] += n
                    for k, n in got.items():
                        g[key(k)] += n
                    f = sum(min(g[k], n) for k, n in w.items())
                    x = sum(max(0, n - w.get(k, 0)) for k, n in g.items())
                    t = sum(w.values())
                    tallies[(entry["id"], variant, scale)].update(found=f, extra=x, pieces=t)
                    if variant == "default" and scale == "kind":
                        photos.setdefault(name, {}).update({"found": f, "extra": x, "pieces": t})
    layouts: dict[str, Any] = defaultdict(lambda: defaultdict(dict))
    for (layout, variant, scale), t in sorted(tallies.items()):
        layouts[layout][variant][scale] = {
            "found_rate": _rate(t["found"], t["pieces"]),
            "extra_rate": _rate(t["extra"], t["pieces"]),
            "pieces": t["pieces"],
        }
    total = Counter()
    for (_, variant, scale), t in tallies.items():
        if variant == "default" and scale == "kind":
            total.update(t)
    return {
        "photos": photos,
        "layouts": json.loads(json.dumps(layouts)),
        "found_rate": _rate(total["found"], total["pieces"]),
        "extra_rate": _rate(total["extra"], total["pieces"]),
        "pieces": total["pieces"],
    }


# --- colour classes ---------------------------------------------------------------------------


def measure_colours(n: int, seed: int) -> dict[str, Any]:
    """CIELAB mean and standard deviation of every colour class over ``n`` renders."""
    from vision.pieces import COLOURS, PieceDetector, normalise_light
    from vision.synth.render import render_board

    rng = np.random.default_rng(seed)
    values: dict[str, list[np.ndarray]] = defaultdict(list)
    for i in range(n):
        players = [str(c) for c in rng.permutation(COLOURS)[:4]]
        board, steps, _ = script_game(tuple(players), int(rng.integers(5, 60)), seed + i)
        b = steps[-1].board
        cond = replace(Conditions.random(rng), hands=0, distortion=0.0, glare=0.0)
        r = render_board(b, width=1280, height=720, rng=seed + i, conditions=cond)
        det = PieceDetector(r.homography, list(board.tiles))
        top = det.top_view(r.image)
        lab = cv2.cvtColor(normalise_light(top, det.land, det._anchor) / 255.0, cv2.COLOR_BGR2Lab)
        h, w = top.shape[:2]
        near_piece = np.zeros((h, w), np.uint8)
        s = det.px
        for p in b.pieces:
            m = np.zeros((h, w), np.uint8)
            if p.vertex is not None:
                c = det._to_top(np.array(vertex_position(p.vertex)))[0]
                cv2.circle(m, (int(round(c[0])), int(round(c[1]))), int(0.13 * s), 255, -1)
            else:
                a, bb = (
                    det._to_top(np.array(vertex_position(v)))[0] for v in edge_vertices(p.edge)
                )
                d = (bb - a) / np.linalg.norm(bb - a)
                mid = (a + bb) / 2
                p0, p1 = mid - d * 0.3 * s, mid + d * 0.3 * s
                cv2.line(
                    m, tuple(np.round(p0).astype(int)), tuple(np.round(p1).astype(int)), 255, 1
                )
            values[p.color].append(lab[m > 0])
            near_piece |= cv2.dilate(m, np.ones((9, 9), np.uint8))
        for hx, tile in board.tiles.items():
            c = det._to_top(np.array(hex_center(hx)))[0]
            m = np.zeros((h, w), np.uint8)
            centre = (int(round(c[0])), int(round(c[1])))
            cv2.circle(m, centre, int(0.8 * s), 255, -1)
            cv2.circle(m, centre, int(0.45 * s), 0, -1)
            m[near_piece > 0] = 0
            values[tile.terrain.value].append(lab[m > 0])
    out = {}
    for name, chunks in sorted(values.items()):
        v = np.concatenate(chunks)
        out[name] = {
            "mean": [round(float(x), 1) for x in v.mean(axis=0)],
            "std": [round(float(x), 1) for x in v.std(axis=0)],
            "pixels": int(len(v)),
        }
    return out


# --- the command ----------------------------------------------------------------------------------


def _rate(seen: int, total: int) -> float | None:
    return round(seen / total, 4) if total else None


def run(args: argparse.Namespace) -> int:
    """Run the bench and print its figures."""
    for name in ("turns", "games", "width", "height"):
        if getattr(args, name) < 1:
            raise ValueError(f"--{name} must be at least 1")
    if min(args.width, args.height) < 64:
        raise ValueError("--width and --height must be at least 64")
    if not args.fps > 0 or args.stable < 0:
        raise ValueError("--fps must be > 0 and --stable >= 0")
    cv2.setNumThreads(1)
    if args.measure_colours:
        doc: dict[str, Any] = {"colour_classes": measure_colours(args.measure_colours, args.seed)}
        print(json.dumps(doc, indent=2))
        return 0
    tally = Tally()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        for g in range(args.games):
            players = PLAYER_SETS[g % len(PLAYER_SETS)]
            log.info(
                "game %d of %d: %s, %d turns", g + 1, args.games, ", ".join(players), args.turns
            )
            run_game(players, args, args.seed + g, tally, Path(tmp))
    by_kind = {}
    by_colour = {}
    for (key, what), _ in sorted(tally.pieces.items()):
        if what != "total":
            continue
        group, name = key.split(":")
        entry = {
            "seen": tally.pieces[(key, "seen")],
            "total": tally.pieces[(key, "total")],
            "rate": _rate(tally.pieces[(key, "seen")], tally.pieces[(key, "total")]),
        }
        (by_kind if group == "kind" else by_colour)[name] = entry
    seen_all = sum(v["seen"] for v in by_kind.values())
    total_all = sum(v["total"] for v in by_kind.values())
    delays = sorted(tally.delays)
    doc = {
        "command": args.command_line,
        "video": f"{args.width}x{args.height} at {args.fps:g} fps, {args.games} game(s) of "
        f"{args.turns} turns",
        "pieces": {
            "rate": _rate(seen_all, total_all),
            "by_kind": by_kind,
            "by_colour": by_colour,
            "extra": tally.extra,
            "piece_steps": total_all,
        },
        "actions": {
            "expected_builds": tally.expected,
            "applied_by_camera": tally.by_camera,
            "robber_moves_confirmed_on_page": tally.robber_confirmed,
            "missed": len(tally.missed),
            "missed_examples": tally.missed[:5],
            "false": len(tally.false),
            "false_examples": tally.false[:5],
            "pending_items_raised": tally.pending,
        },
        "delay_s": {
            "median": round(statistics.median(delays), 3) if delays else None,
            "p95": round(delays[int(0.95 * (len(delays) - 1))], 3) if delays else None,
            "max": round(delays[-1], 3) if delays else None,
            "within_1s": _rate(sum(d <= 1.0 for d in delays), len(delays)),
        },
        "fps": {
            "steady_state": round(tally.frames / tally.track_s, 1) if tally.track_s else None,
            "frames": tally.frames,
            "registrations": tally.registrations,
            "one_core": True,
            "load_average": round(os.getloadavg()[0], 2),
        },
        "seconds": round(time.perf_counter() - started, 1),
    }
    if args.datasets != "none":
        doc["real_photos"] = real_photos(Path(args.datasets))
    if args.json:
        print(json.dumps(doc))
    else:
        _print(doc)
    return 0


def _print(doc: dict[str, Any]) -> None:
    print(f"tracking bench: {doc['video']}")
    p = doc["pieces"]
    print(f"pieces held right: {p['rate']} of {p['piece_steps']} piece-steps; extra {p['extra']}")
    for group in ("by_kind", "by_colour"):
        for name, e in p[group].items():
            print(f"  {name:<11} {e['seen']:>5} / {e['total']:<5} {e['rate']}")
    a = doc["actions"]
    print(
        f"builds and robber moves: {a['applied_by_camera']} applied by the camera and "
        f"{a['robber_moves_confirmed_on_page']} confirmed on the page of "
        f"{a['expected_builds']}, {a['missed']} missed, {a['false']} false; "
        f"{a['pending_items_raised']} other items raised"
    )
    for example in a["false_examples"]:
        print(f"  false: {example}")
    for example in a["missed_examples"]:
        print(f"  missed: {example}")
    d = doc["delay_s"]
    print(f"delay piece -> action: median {d['median']} s, p95 {d['p95']} s, max {d['max']} s")
    f = doc["fps"]
    print(
        f"tracker: {f['steady_state']} frames/s on one core over {f['frames']} frames "
        f"(load average {f['load_average']})"
    )
    if "real_photos" in doc:
        print(f"real photos: {json.dumps(doc['real_photos'])}")
