"""Registration alone, on synthetic renders: what the chip candidates miss, where the grid lands.

``bench vision`` scores whole readings; this looks at the stage they all stand on::

    catan-companion bench register --renders 60 --seed 1 [--json]

The renders are ``bench vision``'s own (same boards, same hard conditions for a seed), so
the two benches' figures can be read side by side. Per render:

- **chips missed by the candidates**: chips not under a hand whose true centre (the mean of
  their hex's corners in the render, lens distortion included) has no candidate within
  :data:`TOLERANCE` hex radii;
- **refused**: registration found no board;
- **mis-registered**: the wrong kind, or a true hex centre farther than :data:`TOLERANCE`
  hex radii from every registered one;
- the largest centre error (hex radii), and registration's CPU time.

The renders refused or mis-registered are listed (index, true kind, kind read, largest
centre error, whether the placement was reported ambiguous) so that each can be looked at.

``--scenarios`` registers every scenario's map (Seafarers, country maps) by its known frame
instead: see :func:`scenario_registration`.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from typing import Any

import cv2
import numpy as np

from companion.board import hex_center
from vision.bench import hard_render
from vision.register import WORK_SIDE, ChipCandidate, find_chip_candidates, project, register
from vision.synth.render import Conditions, Render, render_board

#: Distance (hex radii) within which a candidate finds a chip, and a registered hex centre
#: a true one: about a chip's radius.
TOLERANCE = 0.3


def missed_chips(cands: list[ChipCandidate], centres: np.ndarray, spacing: float) -> int:
    """How many chip centres (N, 2) have no candidate within ``TOLERANCE * spacing`` pixels.

    >>> missed_chips([ChipCandidate(10.0, 10.0, 4.0)], np.array([[11.0, 10.0], [40.0, 10.0]]), 20.0)
    1
    """
    if len(centres) == 0:
        return 0
    if not cands:
        return len(centres)
    pts = np.array([[c.x, c.y] for c in cands])
    nearest = np.linalg.norm(centres[:, None] - pts[None], axis=2).min(axis=1)
    return int(np.sum(nearest > TOLERANCE * spacing))


def centre_error(truth: np.ndarray, found: np.ndarray, spacing: float) -> float:
    """Largest distance (hex radii) from a true hex centre (N, 2) to the nearest found one.

    >>> centre_error(np.array([[0.0, 0.0], [10.0, 0.0]]), np.array([[1.0, 0.0]]), 10.0)
    0.9
    """
    d = np.linalg.norm(truth[:, None] - found[None], axis=2).min(axis=1)
    return float(d.max() / spacing)


def _spacing(render: Render) -> float:
    """Pixels per hex radius at the board's centre."""
    a, b = project(render.homography, np.array([[0.0, 0.0], [1.0, 0.0]]))
    return float(np.linalg.norm(b - a))


def _visible_chip_centres(render: Render) -> np.ndarray:
    """True centres (N, 2) of the chips no hand covers, in image pixels."""
    hexes = [h for h, t in render.board.tiles.items() if t.number is not None]
    centres = np.array([render.hex_polygons[h].mean(axis=0) for h in hexes]).reshape(-1, 2)
    if render.hand_mask is None or len(centres) == 0:
        return centres
    hh, ww = render.hand_mask.shape
    xi = np.clip(np.round(centres[:, 0]).astype(int), 0, ww - 1)
    yi = np.clip(np.round(centres[:, 1]).astype(int), 0, hh - 1)
    return centres[~render.hand_mask[yi, xi]]


def synthetic_registration(renders: int, seed: int = 0) -> dict[str, Any]:
    """Register ``renders`` of ``bench vision``'s hard renders and score registration alone."""
    chips = missed = refused = misregistered = wrong_kind = 0
    errors: list[float] = []
    cpu: list[float] = []
    failures: list[dict[str, Any]] = []
    for i in range(renders):
        truth, _, render = hard_render(seed, i)
        spacing = _spacing(render)
        # The candidates as registration sees them: on the image scaled to its work size.
        scale = min(1.0, WORK_SIDE / max(render.image.shape[:2]))
        small = cv2.resize(render.image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        centres = _visible_chip_centres(render)
        chips += len(centres)
        missed += missed_chips(find_chip_candidates(small), centres * scale, spacing * scale)
        start = time.process_time()
        try:
            reg = register(render.image)
        except ValueError:
            refused += 1
            failures.append({"render": i, "kind": truth.kind, "read": None})
            continue
        cpu.append(time.process_time() - start)
        true_centres = np.array([render.hex_polygons[h].mean(axis=0) for h in truth.tiles])
        found = reg.project(np.array([hex_center(h) for h in reg.hexes]))
        error = centre_error(true_centres, found, spacing)
        errors.append(error)
        wrong_kind += reg.kind != truth.kind
        if reg.kind != truth.kind or error > TOLERANCE:
            misregistered += 1
            failures.append(
                {
                    "render": i,
                    "kind": truth.kind,
                    "read": reg.kind,
                    "largest_centre_error": round(error, 2),
                    "ambiguous": reg.ambiguous,
                }
            )
    return {
        "renders": renders,
        "seed": seed,
        "visible_chips": chips,
        "chips_missed_by_candidates": missed,
        "refused_as_no_board": refused,
        "misregistered": misregistered,
        "wrong_kind": wrong_kind,
        "median_largest_centre_error": statistics.median(errors) if errors else None,
        "median_register_cpu_s": statistics.median(cpu) if cpu else None,
        "refused_or_misregistered": failures,
    }


def scenario_registration(seed: int = 0, names: list[str] | None = None) -> dict[str, Any]:
    """Register a render of every scenario map (Seafarers and country maps, each player
    count; of the scenarios ``names`` only, when given) by its known frame
    (``vision.known_frame``) and score it.

    Each map is drawn with ``seed`` and rendered at 960x540 (the demo's camera), turned at
    random, tilted 5-30 degrees. A map is *named right* when every true hex centre is nearer
    its own registered centre than any other hex's; *wrong* when not and the placement was
    not reported ambiguous (the outcome that must not happen).
    """
    from companion.board import SCENARIO_BOARD_KINDS
    from companion.scenario import list_scenarios, load_scenario, player_counts
    from vision.known_frame import KnownFrame, register_frame

    counts = {"maps": 0, "named_right": 0, "ambiguous": 0, "refused": 0, "wrong": 0}
    errors: list[float] = []
    failures: list[dict[str, Any]] = []
    for name in names or list_scenarios():
        for players in player_counts(name):
            board = load_scenario(name, players, seed=seed).board
            if board.kind not in SCENARIO_BOARD_KINDS:
                continue
            counts["maps"] += 1
            rng = np.random.default_rng([seed, counts["maps"]])
            cond = Conditions(
                tilt_deg=float(rng.uniform(5, 30)),
                tilt_dir_deg=float(rng.uniform(0, 360)),
                rotation_deg=float(rng.uniform(0, 360)),
            )
            render = render_board(board, width=960, height=540, rng=rng, conditions=cond)
            case: dict[str, Any] = {"scenario": name, "players": players}
            try:
                reg = register_frame(render.image, KnownFrame.of_board(board))
            except ValueError as exc:
                counts["refused"] += 1
                failures.append({**case, "refused": str(exc)})
                continue
            hexes = sorted(board.tiles)
            truth = project(render.homography, np.array([hex_center(h) for h in hexes]))
            found = reg.project(np.array([hex_center(h) for h in hexes]))
            d = np.linalg.norm(truth[:, None] - found[None], axis=2)
            right = bool((d.argmin(axis=1) == np.arange(len(hexes))).all())
            errors.append(float(np.diagonal(d).max() / _spacing(render)))
            if reg.ambiguous:
                counts["ambiguous"] += 1
            elif right:
                counts["named_right"] += 1
                continue
            else:
                counts["wrong"] += 1
            failures.append({**case, "ambiguous": reg.ambiguous, "named_right": right})
    return {
        "seed": seed,
        **counts,
        "median_largest_centre_error": statistics.median(errors) if errors else None,
        "largest_centre_error_over_tolerance": sum(e > TOLERANCE for e in errors),
        "not_named_right": failures,
    }


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the bench's arguments."""
    parser.add_argument("--renders", type=int, default=60, help="renders to register (60)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the renders (0)")
    parser.add_argument(
        "--scenarios",
        action="store_true",
        help="every scenario map registered by its known frame instead (one render each)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON document")


def run(args: argparse.Namespace) -> int:
    """Print the registration figures (one JSON document with ``--json``)."""
    if args.renders < 1:
        raise ValueError("--renders must be at least 1")
    cv2.setNumThreads(1)
    if getattr(args, "scenarios", False):
        result = scenario_registration(args.seed)
        what = f"--scenarios --seed {args.seed}"
    else:
        result = synthetic_registration(args.renders, args.seed)
        what = f"--renders {args.renders} --seed {args.seed}"
    result["command"] = f"catan-companion bench register {what}" + (" --json" if args.json else "")
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key}: {value}")
    return 0
