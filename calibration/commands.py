"""``catan-companion calibrate ...``: camera, colours and board lock, kept in profiles.

Steps (each stores its result in the profile named by ``--profile``)::

    calibrate pattern --out pattern.pdf          print this, stick it on something flat
    calibrate camera --profile T --camera 0      wave the pattern until it says ready
    calibrate camera --profile T --images DIR    ... or use photos of it
    calibrate camera --synthetic 14              self-check on views from a known camera
    calibrate colors --profile T IMAGE --players red,blue,orange,white
    calibrate board --profile T IMAGE            lock the board of a fixed camera
    calibrate check --profile T IMAGE            did the camera/board move? light changed?
    calibrate list | show NAME | delete NAME

IMAGE may be ``--camera INDEX`` instead (one frame is grabbed). With ``--json`` one JSON
document goes to standard output; progress and feedback go to standard error.
"""

from __future__ import annotations

import argparse
import itertools
import json
import logging
import math
import sys
import time
from collections import Counter, deque
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

# Every `catan-companion` invocation builds all commands' parsers: the heavy modules
# (OpenCV, SciPy, the calibration code) are imported by the steps that use them.
if TYPE_CHECKING:
    import numpy as np

    from calibration.pattern import Pattern
    from calibration.profiles import Profile

log = logging.getLogger("calibration")

_IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    steps = parser.add_subparsers(dest="step", metavar="STEP", required=True)

    p = steps.add_parser("pattern", help="write the calibration pattern to print (PDF or PNG)")
    _pattern_args(p)
    p.add_argument("--out", required=True, help="file to write: .pdf (true size on A4) or .png")
    p.add_argument("--px-per-mm", type=float, default=8.0, help="resolution (8 = 203 dpi)")

    p = steps.add_parser("camera", help="camera intrinsics from views of the printed pattern")
    _pattern_args(p)
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--camera", metavar="INDEX", help="live camera to read (index or URL)")
    src.add_argument("--images", nargs="+", metavar="PATH", help="photos or folders of photos")
    src.add_argument(
        "--synthetic",
        type=int,
        metavar="N",
        help="self-check: N views rendered through a known camera; nothing is saved",
    )
    p.add_argument("--profile", help="profile to store the camera in (not with --synthetic)")
    p.add_argument("--max-seconds", type=float, default=180.0, help="live: stop after this")
    p.add_argument(
        "--interval", type=float, default=0.4, help="live: seconds between views examined"
    )
    p.add_argument(
        "--views", type=int, default=16, help="live: stop once ready with this many views"
    )
    p.add_argument("--json", action="store_true", help="print one JSON document")

    p = steps.add_parser("colors", help="terrain and player colours from the set-up board")
    _frame_args(p, synthetic=True)
    p.add_argument(
        "--dataset",
        metavar="DIR",
        help="self-check on labelled real photos (groundtruth.json as in boards-dev); "
        "nothing is saved",
    )
    p.add_argument("--kind", choices=("base", "5-6"), help="board kind (default: detected)")
    p.add_argument(
        "--players",
        default="",
        help="player colours whose set-up pieces are out, comma-separated "
        "(red, blue, orange, white, green, brown)",
    )

    p = steps.add_parser("board", help="lock the board's registration for a fixed camera")
    _frame_args(p, synthetic=True)
    p.add_argument("--kind", choices=("base", "5-6", "seafarers"), help="board kind")

    p = steps.add_parser("check", help="has the camera or board moved, has the light changed?")
    _frame_args(p)

    p = steps.add_parser("list", help="the stored profiles")
    p.add_argument("--json", action="store_true", help="print one JSON document")
    p = steps.add_parser("show", help="what a profile holds")
    p.add_argument("name")
    p.add_argument("--json", action="store_true", help="print one JSON document")
    p = steps.add_parser("delete", help="remove a profile")
    p.add_argument("name")


def _pattern_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--pattern", choices=("chessboard", "charuco"), default="chessboard", help="pattern kind"
    )
    p.add_argument("--squares", default="10x7", help="squares across x down (default 10x7)")
    p.add_argument("--square-mm", type=float, default=25.0, help="side of a square, mm")
    p.add_argument("--marker-mm", type=float, help="ChArUco marker side, mm (default 0.75 square)")


def _frame_args(p: argparse.ArgumentParser, *, synthetic: bool = False) -> None:
    p.add_argument("image", nargs="?", help="photo of the board (or use --camera)")
    p.add_argument(
        "--camera", metavar="INDEX", help="grab one frame from this camera (index or URL)"
    )
    p.add_argument("--profile", help="the table's profile")
    if synthetic:
        p.add_argument(
            "--synthetic",
            type=int,
            metavar="N",
            help="self-check on N synthetic boards instead; nothing is saved",
        )
    p.add_argument("--json", action="store_true", help="print one JSON document")


def _pattern(args: argparse.Namespace) -> Pattern:
    from calibration.pattern import Pattern, parse_squares

    cols, rows = parse_squares(args.squares)
    marker = args.marker_mm
    if args.pattern == "charuco" and marker is None:
        marker = round(0.75 * args.square_mm, 2)
    return Pattern(args.pattern, cols, rows, args.square_mm, marker)


def _emit(args: argparse.Namespace, data: dict[str, Any], text: str) -> None:
    if getattr(args, "json", False):
        json.dump(data, sys.stdout)
        sys.stdout.write("\n")
    else:
        print(text)


def run(args: argparse.Namespace) -> int:
    handler = {
        "pattern": _run_pattern,
        "camera": _run_camera,
        "colors": _run_colors,
        "board": _run_board,
        "check": _run_check,
        "list": _run_list,
        "show": _run_show,
        "delete": _run_delete,
    }[args.step]
    return handler(args)


# --- pattern -------------------------------------------------------------------------------------


def _run_pattern(args: argparse.Namespace) -> int:
    import cv2

    from calibration.pattern import PatternError

    pattern = _pattern(args)
    out = Path(args.out)
    suffix = out.suffix.lower()
    if suffix == ".pdf":
        data = pattern.pdf(args.px_per_mm)
        out.write_bytes(data)
    elif suffix == ".png":
        ok, buf = cv2.imencode(".png", pattern.render(args.px_per_mm))
        if not ok:
            raise PatternError("could not encode the PNG")
        out.write_bytes(buf.tobytes())
        log.info(
            "print the PNG at %.1f dpi so that squares are %g mm",
            args.px_per_mm * 25.4,
            pattern.square_mm,
        )
    else:
        raise PatternError(f"--out must end in .pdf or .png, not {out.name!r}")
    print(f"wrote {out}: {pattern.describe()}", file=sys.stderr)
    return 0


# --- camera --------------------------------------------------------------------------------------


def _image_paths(items: list[str]) -> list[Path]:
    paths: list[Path] = []
    for item in items:
        p = Path(item)
        if p.is_dir():
            paths.extend(sorted(q for q in p.iterdir() if q.suffix.lower() in _IMAGE_SUFFIXES))
        elif p.is_file():
            paths.append(p)
        else:
            raise ValueError(f"no such image or folder: {item}")
    if not paths:
        raise ValueError("no images found (looked for .jpg, .png, .bmp, .tif, .webp)")
    return paths


def read_image(path: str | Path) -> np.ndarray:
    """A BGR uint8 photo; ValueError with the file name when it cannot be read."""
    import cv2

    image = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if image is None:
        raise ValueError(f"cannot read image {path}: missing, not an image, or damaged")
    return image


def _camera_frames(device: str, max_seconds: float) -> Iterator[np.ndarray]:
    """Frames of a live camera (index or stream URL) for at most ``max_seconds``."""
    from vision.capture import CameraSource

    with CameraSource(device) as source:
        for t, frame in source:
            if t > max_seconds:
                return
            yield frame


def _grab(args: argparse.Namespace) -> np.ndarray:
    if (args.image is None) == (args.camera is None):
        raise ValueError("give either an IMAGE or --camera INDEX")
    if args.image is not None:
        return read_image(args.image)
    frames = _camera_frames(args.camera, 10.0)
    # Webcams need a few frames to settle exposure and white balance: keep the 15th.
    last = deque(itertools.islice(frames, 15), maxlen=1)
    frames.close()
    if not last:
        raise OSError(f"camera {args.camera} gave no frame")
    return last[0]


def _run_camera(args: argparse.Namespace) -> int:
    pattern = _pattern(args)
    if args.synthetic is not None:
        if args.profile:
            raise ValueError("--synthetic is a self-check and saves nothing: leave out --profile")
        return _camera_self_check(args, pattern)
    if not args.profile:
        raise ValueError("--profile NAME is needed to store the camera calibration")
    if args.max_seconds <= 0 or args.interval < 0 or args.views < 3:
        raise ValueError("--max-seconds must be > 0, --interval >= 0 and --views >= 3")
    from calibration.camera import ViewCollector
    from calibration.profiles import ProfileStore

    store = ProfileStore()
    profile = store.load_or_new(args.profile)
    reasons: Counter[str] = Counter()
    collector: ViewCollector | None = None
    if args.images:
        frames: Iterator[np.ndarray] = (read_image(p) for p in _image_paths(args.images))
    else:
        frames = _camera_frames(args.camera, args.max_seconds)
        log.info("show the pattern; Ctrl-C finishes with the views kept so far")
    last = -math.inf
    try:
        for frame in frames:
            h, w = frame.shape[:2]
            if collector is None:
                collector = ViewCollector(pattern, (w, h))
                log.info("looking for a %s in %dx%d frames", pattern.describe(), w, h)
            if args.camera is not None and time.monotonic() - last < args.interval:
                continue  # live: near-identical frames add nothing, the detector needs time
            last = time.monotonic()
            fb = collector.add(frame)
            reasons["accepted" if fb.accepted else fb.reason.split(" (")[0].split(":")[0]] += 1
            log.info(
                "%s | views %d, coverage %.0f%%, tilted %d | %s",
                "kept" if fb.accepted else fb.reason,
                fb.views,
                100 * fb.coverage,
                fb.tilted_views,
                fb.hint,
            )
            if args.camera is not None and fb.ready and fb.views >= args.views:
                break
    except KeyboardInterrupt:
        log.info(
            "stopped: solving with the %d views kept", len(collector.views) if collector else 0
        )
    if collector is None:
        raise ValueError("no frames to calibrate from")
    result = collector.solve()
    for w in result.warnings:
        log.warning("%s", w)
    profile.camera = result.model
    path = store.save(profile)
    data = {**result.to_json(), "frames": dict(reasons), "profile": str(path)}
    m = result.model
    _emit(
        args,
        data,
        f"camera calibrated from {len(result.per_view_rms_px)} views: reprojection error "
        f"{result.rms_px:.3f} px, fx {m.fx:.1f} fy {m.fy:.1f} px, field of view "
        f"{m.hfov_deg():.1f} deg, k1 {m.dist[0]:+.4f} k2 {m.dist[1]:+.4f}\nsaved in {path}",
    )
    return 0


def _camera_self_check(args: argparse.Namespace, pattern: Pattern) -> int:
    from calibration.camera import ViewCollector
    from calibration.synthetic import SELF_CHECK_CAMERA, random_poses, render_view

    if not 3 <= args.synthetic <= 200:
        raise ValueError("--synthetic needs 3..200 views")
    true = SELF_CHECK_CAMERA
    collector = ViewCollector(pattern, true.image_size)
    started = time.perf_counter()
    for i, pose in enumerate(random_poses(pattern, true, args.synthetic, rng=0)):
        fb = collector.add(render_view(pattern, true, pose, rng=i))
        log.info("view %d: %s", i + 1, "kept" if fb.accepted else fb.reason)
    result = collector.solve()
    seconds = time.perf_counter() - started
    m = result.model
    errors = {
        "fx_rel": abs(m.fx - true.fx) / true.fx,
        "fy_rel": abs(m.fy - true.fy) / true.fy,
        "k1_rel": abs(m.dist[0] - true.dist[0]) / abs(true.dist[0]),
        "k2_rel": abs(m.dist[1] - true.dist[1]) / abs(true.dist[1]),
        "cx_px": abs(m.matrix[0, 2] - true.matrix[0, 2]),
        "cy_px": abs(m.matrix[1, 2] - true.matrix[1, 2]),
    }
    data = {
        **result.to_json(),
        "true_camera": true.to_json(),
        "errors": {k: round(float(v), 5) for k, v in errors.items()},
        "views_kept": len(collector.views),
        "seconds": round(seconds, 2),
    }
    _emit(
        args,
        data,
        f"self-check with {len(collector.views)} views: reprojection {result.rms_px:.3f} px; "
        f"fx off by {100 * errors['fx_rel']:.2f}%, fy {100 * errors['fy_rel']:.2f}%, "
        f"k1 {100 * errors['k1_rel']:.2f}%, k2 {100 * errors['k2_rel']:.2f}%, principal point "
        f"({errors['cx_px']:.2f}, {errors['cy_px']:.2f}) px",
    )
    return 0


# --- colours, board lock, check ------------------------------------------------------------------


def _register(image: np.ndarray, kind: str | None) -> Any:
    from calibration.registration import register_board

    return register_board(image, kind)


def _prepared(args: argparse.Namespace, profile: Profile) -> np.ndarray:
    """The frame, undistorted with the profile's camera when it has one."""
    frame = _grab(args)
    if profile.camera is not None:
        h, w = frame.shape[:2]
        frame = profile.camera.scaled_to(w, h).undistort(frame)
    return frame


def _land(reg: Any) -> list[tuple[int, int]]:
    sea = reg.sea_fraction
    return [h for h in reg.hexes if sea.get(h, 0.0) < 0.5]


def _profile_name(args: argparse.Namespace) -> str:
    if getattr(args, "synthetic", None) is not None:
        if args.profile or args.image or args.camera is not None:
            raise ValueError(
                "--synthetic is a self-check on its own: no IMAGE, --camera, --profile"
            )
        if not 1 <= args.synthetic <= 100:
            raise ValueError("--synthetic needs 1..100 boards")
        return ""
    if not args.profile:
        raise ValueError("--profile NAME is needed: the profile to use or store")
    return args.profile


def _run_colors(args: argparse.Namespace) -> int:
    if args.dataset is not None:
        if args.synthetic is not None or args.profile or args.image or args.camera is not None:
            raise ValueError("--dataset is a self-check on its own: no IMAGE, --camera, --profile")
        from calibration.selfcheck import real_photo_check

        data = real_photo_check(args.dataset)
        lines = [
            "colour profiles on real photos (learned on each photo, read on all of the board):"
        ]
        for name, b in data["boards"].items():
            acc = b["terrain_accuracy"]
            lines.append(
                f"  {name:10s} {b['registered']}/{b['photos']} photos registered; terrain "
                + (
                    f"{100 * acc:.1f}% ({100 * b['terrain_accuracy_with_counts']:.1f}% with counts)"
                    if acc is not None
                    else "not measured"
                )
            )
        lines += [f"  failed: {f}" for f in data["failures"]]
        _emit(args, data, "\n".join(lines))
        return 0
    if not _profile_name(args):
        from calibration.selfcheck import colour_self_check

        data = colour_self_check(args.synthetic)
        lines = [f"colour self-check on {args.synthetic} boards (learned in neutral light):"]
        for name in ("neutral", "warm 2700 K", "cold 6500 K", "dim (40 %)"):
            r = data[name]
            lines.append(
                f"  {name:12s} terrain {100 * r['terrain_accuracy']:.1f}%, pieces "
                f"{100 * r['piece_accuracy']:.1f}%, empty sites read as pieces "
                f"{r['empty_sites_read_as_pieces']}"
            )
        _emit(args, data, "\n".join(lines))
        return 0
    from calibration.colors import learn_colors
    from calibration.profiles import ProfileStore

    store = ProfileStore()
    profile = store.load_or_new(args.profile)
    players = [p.strip() for p in args.players.split(",") if p.strip()]
    frame = _prepared(args, profile)
    reg = _register(frame, args.kind)
    if reg.kind not in ("base", "5-6"):
        raise ValueError(
            f"the board looks like {reg.kind!r}: colours are learned on a base or 5-6 board "
            "set up with its standard material (pass --kind if it was misread)"
        )
    hexes = list(reg.hexes)
    colors = learn_colors(frame, reg.homography, hexes, kind=reg.kind, players=players)
    profile.colors = colors
    path = store.save(profile)
    data = {
        "profile": str(path),
        "kind": reg.kind,
        "terrains": sorted(t.value for t in colors.terrains),
        "players": sorted(colors.players),
        "light_bgr": [round(float(v), 1) for v in colors.light_bgr],
    }
    _emit(
        args,
        data,
        f"colours of {len(colors.terrains)} terrains"
        + (f" and players {', '.join(sorted(colors.players))}" if colors.players else "")
        + f" learned on the {reg.kind} board; saved in {path}",
    )
    return 0


def _run_board(args: argparse.Namespace) -> int:
    if not _profile_name(args):
        from calibration.selfcheck import lock_self_check

        data = lock_self_check(args.synthetic)
        right = ", ".join(f"{k} {v}/{args.synthetic}" for k, v in data["right"].items())
        _emit(
            args,
            data,
            f"board lock self-check: right verdicts: {right}; re-found registration within "
            f"{data['worst_refound_error_px']} px; {data['check_cpu_ms_median']} ms CPU per check",
        )
        return 0
    from calibration.board_lock import BoardLock
    from calibration.profiles import ProfileStore

    store = ProfileStore()
    profile = store.load_or_new(args.profile)
    frame = _prepared(args, profile)
    reg = _register(frame, args.kind)
    if reg.ambiguous:
        log.warning("the board's placement was ambiguous: check the orientation on the page")
    profile.board_lock = BoardLock.create(frame, reg.homography, list(reg.hexes), reg.kind)
    path = store.save(profile)
    _emit(
        args,
        {"profile": str(path), "kind": reg.kind, "homography": reg.homography.tolist()},
        f"{reg.kind} board locked for this camera; saved in {path}",
    )
    return 0


def _run_check(args: argparse.Namespace) -> int:
    from calibration.profiles import ProfileStore

    store = ProfileStore()
    profile = store.load(_profile_name(args))
    if profile.board_lock is None and profile.colors is None:
        raise ValueError(
            f"profile {args.profile!r} has neither a board lock nor colours to check against"
        )
    frame = _prepared(args, profile)
    data: dict[str, Any] = {}
    lines = []
    homography = None
    hexes: list[tuple[int, int]] = []
    if profile.board_lock is not None:
        status = profile.board_lock.check(frame)
        data["board"] = status.to_json()
        lines.append(f"board: {status.state} ({status.reason})")
        homography, hexes = status.homography, profile.board_lock.hexes
    if profile.colors is not None:
        if homography is None:
            reg = _register(frame, profile.colors.board_kind)
            homography, hexes = reg.homography, _land(reg)
        ref = profile.colors.reference(frame, homography, hexes)
        light = profile.colors.check_light(ref)
        data["light"] = light.to_json()
        lines.append(
            "light: as calibrated"
            if light.ok
            else "light: calibrate colours again: " + "; ".join(light.reasons)
        )
    _emit(args, data, "\n".join(lines))
    return 0


# --- listing -------------------------------------------------------------------------------------


def _run_list(args: argparse.Namespace) -> int:
    from calibration.profiles import ProfileStore

    store = ProfileStore()
    infos = store.list()
    text = (
        "\n".join(
            f"{i.name:20s} {i.updated or '-':25s} "
            + (f"DAMAGED: {i.error}" if i.error else ", ".join(i.sections) or "(empty)")
            for i in infos
        )
        or f"no profiles yet in {store.directory}"
    )
    _emit(args, {"directory": str(store.directory), "profiles": [i.to_json() for i in infos]}, text)
    return 0


def _run_show(args: argparse.Namespace) -> int:
    from calibration.profiles import ProfileStore

    profile = ProfileStore().load(args.name)
    summary: dict[str, Any] = {
        "name": profile.name,
        "created": profile.created,
        "updated": profile.updated,
    }
    lines = [f"profile {profile.name} (updated {profile.updated})"]
    if profile.camera is not None:
        c = profile.camera
        summary["camera"] = c.to_json()
        rms = "default model" if c.rms_px is None else f"reprojection {c.rms_px:.3f} px"
        lines.append(
            f"  camera {c.image_size[0]}x{c.image_size[1]}: fx {c.fx:.1f} px, field of view "
            f"{c.hfov_deg():.1f} deg, k1 {c.dist[0]:+.4f}, {rms}"
        )
    if profile.colors is not None:
        col = profile.colors
        summary["colors"] = {
            "board_kind": col.board_kind,
            "terrains": sorted(t.value for t in col.terrains),
            "players": sorted(col.players),
        }
        lines.append(
            f"  colours: {len(col.terrains)} terrains, players: "
            f"{', '.join(sorted(col.players)) or 'none'}"
        )
    if profile.board_lock is not None:
        lock = profile.board_lock
        summary["board_lock"] = {"kind": lock.kind, "image_size": list(lock.image_size)}
        lines.append(
            f"  board lock: {lock.kind} board at {lock.image_size[0]}x{lock.image_size[1]}"
        )
    _emit(args, summary, "\n".join(lines))
    return 0


def _run_delete(args: argparse.Namespace) -> int:
    from calibration.profiles import ProfileStore

    ProfileStore().delete(args.name)
    print(f"deleted profile {args.name}", file=sys.stderr)
    return 0
