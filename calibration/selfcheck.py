"""Self-checks of the colour profile and the board lock on synthetic photos.

They answer "how well does this work?" with numbers, without a camera: boards are drawn by
the project's renderer (``vision.synth``, imported only here) under known lights and camera
moves, and what calibration reports is compared with the truth. ``catan-companion calibrate
colors --synthetic N`` and ``calibrate board --synthetic N`` print them.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import cv2
import numpy as np

from calibration.board_lock import BoardLock
from calibration.colors import ColorProfile, board_sites, learn_colors
from calibration.light import camera_gains_bgr
from calibration.synthetic import with_setup_pieces
from companion.board import Board

PLAYERS = ("red", "blue", "orange", "white")
#: The lights of the colour check: camera balanced for 5000 K throughout.
LIGHTS: dict[str, dict[str, Any]] = {
    "neutral": {},
    "warm 2700 K": {"white_balance": camera_gains_bgr(2700)},
    "cold 6500 K": {"white_balance": camera_gains_bgr(6500)},
    "dim (40 %)": {"brightness": 0.4},
}
_CAMERA: dict[str, Any] = {
    "tilt_deg": 15.0,
    "noise_sigma": 2.0,
    "blur_sigma": 0.6,
    "jpeg_quality": 85,
    "light_gradient": 0.2,
}


def _render(board: Board, seed: int, rotation: float, **extra: Any) -> Any:
    from vision.synth.render import Conditions, render_board

    cond = Conditions(**{**_CAMERA, "rotation_deg": rotation, **extra})
    return render_board(board, width=1200, height=900, rng=seed, conditions=cond)


def read_accuracy(
    profile: ColorProfile, board: Board, render: Any
) -> tuple[int, int, int, int, int]:
    """(terrain right, hexes, pieces right, pieces, empty sites taken for pieces)."""
    hexes = sorted(board.tiles)
    chips = [h for h in hexes if board.tiles[h].number is not None]
    ref = profile.reference(render.image, render.homography, hexes, chips)
    labels = profile.classify_terrain(ref)
    truth = {h: board.tiles[h].terrain for h in hexes}
    vs, es = board_sites(hexes)
    sites: Sequence[Any] = [*vs, *es]
    occupied = {p.vertex or p.edge: p.color for p in board.pieces}
    seen = profile.classify_sites(render.image, render.homography, ref, sites, truth)
    pairs = list(zip(sites, seen, strict=True))
    return (
        sum(labels[h][0] == truth[h] for h in hexes),
        len(hexes),
        sum(c == occupied[s] for s, c in pairs if s in occupied),
        len(occupied),
        sum(c is not None for s, c in pairs if s not in occupied),
    )


def colour_self_check(boards: int, seed: int = 0) -> dict[str, Any]:
    """Learn on a neutral photo of a set-up board, read the next game under every light.

    For each of ``boards`` print runs (renderer colour jitter), a profile is learned from one
    neutral photo of a set-up base board with four players' pieces; then a new layout with
    new piece positions is photographed from another angle under each light of
    :data:`LIGHTS` and read with the profile, without the material counts.

    Returns:
        Per light: terrain and piece accuracy, empty sites misread as pieces; and the time
        to learn a profile.
    """
    from companion.layouts import random_board

    totals = {name: np.zeros(5, int) for name in LIGHTS}
    learn_s = []
    for i in range(boards):
        s = seed + i
        board = with_setup_pieces(random_board(4, seed=s), PLAYERS, s)
        photo = _render(board, s, 37.0 * s)
        started = time.perf_counter()
        profile = learn_colors(photo.image, photo.homography, sorted(board.tiles), players=PLAYERS)
        learn_s.append(time.perf_counter() - started)
        game = with_setup_pieces(random_board(4, seed=s + 1000), PLAYERS, s + 1000)
        for name, light in LIGHTS.items():
            render = _render(game, s, 37.0 * s + 100.0, **light)
            totals[name] += read_accuracy(profile, game, render)
    out: dict[str, Any] = {
        "boards": boards,
        "learn_seconds_median": round(float(np.median(learn_s)), 3),
    }
    for name, (tr, tn, pr, pn, false) in totals.items():
        out[name] = {
            "terrain_accuracy": round(tr / tn, 4),
            "piece_accuracy": round(pr / pn, 4),
            "empty_sites_read_as_pieces": int(false),
        }
    return out


def lock_self_check(boards: int, seed: int = 0) -> dict[str, Any]:
    """Lock boards, then check frames with noise and a hand, a knocked camera, a pushed board
    and another board.

    Returns:
        Counts of right verdicts per case, the worst error (pixels) of the re-found
        registration, and the median CPU time of one check.
    """
    from companion.layouts import random_board

    cases = ("same", "hand", "camera knocked", "board pushed", "other board")
    right = dict.fromkeys(cases, 0)
    worst = 0.0
    times = []
    probes = np.array([[0.0, 0.0], [3.5, 1.0], [-2.0, -3.0], [-3.0, 2.5]]).reshape(-1, 1, 2)
    for i in range(boards):
        s = seed + i
        board = random_board(4, seed=s)
        hexes = sorted(board.tiles)
        extra = {"tilt_deg": 20.0, "fill": 0.75, "light_gradient": 0.0}
        render = _render(board, s, 25.0 * s, **extra)
        lock = BoardLock.create(render.image, render.homography, hexes, "base")
        h, w = render.image.shape[:2]
        knock = cv2.getRotationMatrix2D((w / 2, h / 2), 0.6, 1.0)
        knock[:, 2] += (9.0, -6.0)
        pushed = _render(board, s, 25.0 * s, offset=(0.012, -0.006), **extra)
        frames = {
            "same": (_render(board, s, 25.0 * s, **{**extra, "noise_sigma": 3.0}).image, None),
            "hand": (_render(board, s, 25.0 * s, hands=1, **extra).image, None),
            "camera knocked": (
                cv2.warpAffine(render.image, knock, (w, h), borderMode=cv2.BORDER_REFLECT),
                np.vstack([knock, [0, 0, 1]]) @ render.homography,
            ),
            "board pushed": (pushed.image, pushed.homography),
            "other board": (
                _render(random_board(4, seed=s + 500), s + 500, 0.0, **extra).image,
                None,
            ),
        }
        for case, (frame, truth) in frames.items():
            # CPU time: wall-clock time on a shared machine measures the neighbours.
            started = time.process_time()
            status = lock.check(frame)
            times.append(time.process_time() - started)
            expected = {"same": "locked", "hand": "locked", "other board": "lost"}.get(
                case, "moved"
            )
            right[case] += status.state == expected
            if truth is not None and status.homography is not None:
                err = cv2.perspectiveTransform(
                    probes, status.homography
                ) - cv2.perspectiveTransform(probes, truth)
                worst = max(worst, float(np.abs(err).max()))
    return {
        "boards": boards,
        "right": right,
        "worst_refound_error_px": round(worst, 3),
        "check_cpu_ms_median": round(1000 * float(np.median(times)), 1),
    }


def _hex_symmetries(h: tuple[int, int]) -> list[tuple[int, int]]:
    """The 12 images of a hex under the grid's rotations and mirrors about (0, 0)."""
    q, r = h
    cube = (q, r, -q - r)
    out = []
    for mirror in (False, True):
        c = (cube[0], cube[2], cube[1]) if mirror else cube
        for _ in range(6):
            out.append((c[0], c[1]))
            c = (-c[2], -c[0], -c[1])
    return out


def _truth_rows(rows: list[list[Any]]) -> dict[tuple[int, int], str]:
    """Ground-truth rows (3, 4, 5, 4, 3 of [terrain, number]) -> terrain per base-frame hex."""
    from companion.board import base_frame

    by_row: dict[int, list[tuple[int, int]]] = {}
    for h in base_frame():
        by_row.setdefault(h[1], []).append(h)
    out = {}
    for row, r in zip(rows, sorted(by_row), strict=True):
        for h, (terrain, _) in zip(sorted(by_row[r]), row, strict=True):
            out[h] = terrain
    return out


def real_photo_check(dataset: str) -> dict[str, Any]:
    """Colour profiles on labelled real photos (``boards-dev`` of the shared datasets).

    For every board with photos, a profile is learned from each photo in turn (material
    counts only, no labels) and every photo of the same physical board is read with it,
    without and with the material counts; the score of a reading is the best over the 12
    symmetries of the grid (a camera cannot know which way is up). Photos where the board is
    not found count as wrong and are listed.
    """
    import json
    from pathlib import Path

    from calibration.registration import register_board

    root = Path(dataset)
    try:
        entries = json.loads((root / "groundtruth.json").read_text())["entries"]
    except (OSError, ValueError, KeyError) as exc:
        raise ValueError(f"{dataset} has no readable groundtruth.json: {exc}") from None
    from companion.layouts import BASE_TERRAINS as counts

    boards: dict[str, Any] = {}
    failures: list[str] = []
    for entry in entries:
        truth = _truth_rows(entry["rows"])
        seen = []
        for name in entry["files"]:
            image = cv2.imread(str(root / name), cv2.IMREAD_COLOR)
            try:
                if image is None:
                    raise ValueError("unreadable image")
                reg = register_board(image, "base")
                seen.append((name, image, reg))
            except ValueError as exc:
                failures.append(f"{name}: {exc}")
        right = {"plain": 0, "counts": 0}
        total = 0
        for src, image, reg in seen:
            try:
                profile = learn_colors(image, reg.homography, list(reg.hexes), kind="base")
            except ValueError as exc:
                failures.append(f"{src} (learning): {exc}")
                total += len(truth) * len(seen)
                continue
            for _, other, other_reg in seen:
                ref = profile.reference(other, other_reg.homography, list(other_reg.hexes))
                for mode, use in (("plain", None), ("counts", counts)):
                    labels = profile.classify_terrain(ref, use)
                    right[mode] += max(
                        sum(
                            labels.get(_hex_symmetries(h)[k], ("",))[0] == t
                            for h, t in truth.items()
                        )
                        for k in range(12)
                    )
                total += len(truth)
        boards[entry["id"]] = {
            "photos": len(entry["files"]),
            "registered": len(seen),
            "terrain_accuracy": round(right["plain"] / total, 4) if total else None,
            "terrain_accuracy_with_counts": round(right["counts"] / total, 4) if total else None,
            "readings": total // max(1, len(truth)),
        }
    return {"boards": boards, "failures": failures}
