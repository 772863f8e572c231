"""Accuracy and speed of the chip reader on a directory of labelled chip crops.

The board engineer's ``catan-companion bench vision`` calls :func:`evaluate_chips` on
``../shared/datasets/coins-dev``; it can also be run alone::

    .venv/bin/python -m vision.bench_chips ../shared/datasets/coins-dev
    .venv/bin/python -m vision.bench_chips --synthetic 300
    .venv/bin/python -m vision.bench_chips --board-renders 30

The last reads the chips of hard board renders cut at their *true* places, as the board reader
cuts them: what the reader alone achieves on boards, whatever registration does.

A dataset directory holds the crops and a ``labels.csv`` with at least the columns ``file`` and
``value``.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.chips import CHIP_VALUES, ChipModel, default_model, read_chip
from vision.register import project


def evaluate_chips(dataset_dir: str | Path, model: ChipModel | None = None) -> dict[str, Any]:
    """Read every labelled crop of a dataset and score the readings.

    Args:
        dataset_dir: directory with ``labels.csv`` (columns ``file``, ``value``) and the crops.
        model: glyph classifier; the shipped one by default.

    Returns:
        A JSON-ready dict: ``chips`` (labelled crops), ``correct``, ``wrong``, ``abstentions``
        (read ``None``), ``unloadable`` (files that could not be decoded, counted as
        abstentions), ``accuracy`` (correct / chips), ``accuracy_when_answered`` (correct /
        (correct + wrong)), ``per_value`` (value -> ``chips``, ``correct``, ``abstentions``,
        ``accuracy``), ``confusion`` (true value -> read value or ``"null"`` -> count, as
        strings for JSON), ``seconds_per_chip`` (mean wall time of :func:`read_chip`, decoding
        excluded) and ``dataset``.

    Raises:
        ValueError: the directory or its ``labels.csv`` is missing or malformed.
    """
    root = Path(dataset_dir)
    labels_path = root / "labels.csv"
    if not labels_path.is_file():
        raise ValueError(f"{root} is not a chip dataset: it has no labels.csv")
    with labels_path.open(newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        if reader.fieldnames is None or not {"file", "value"} <= set(reader.fieldnames):
            raise ValueError(f"{labels_path} must have the columns 'file' and 'value'")
        rows = list(reader)
    truth: list[tuple[str, int]] = []
    for n, row in enumerate(rows, start=2):
        try:
            value = int(row["value"])
        except (TypeError, ValueError):
            raise ValueError(
                f"{labels_path} line {n}: value {row['value']!r} is not a number"
            ) from None
        if value not in CHIP_VALUES:
            raise ValueError(f"{labels_path} line {n}: {value} is not a chip value")
        truth.append((row["file"], value))
    if not truth:
        raise ValueError(f"{labels_path} lists no chips")

    model = model or default_model()
    reads: list[tuple[int, int | None]] = []
    unloadable = 0
    elapsed = 0.0
    for name, value in truth:
        image = cv2.imread(str(root / name), cv2.IMREAD_COLOR)
        if image is None:
            unloadable += 1
            reads.append((value, None))
            continue
        start = time.perf_counter()
        reading = read_chip(image, model)
        elapsed += time.perf_counter() - start
        reads.append((value, reading.value))
    timed = len(truth) - unloadable
    result = _summarise(reads, elapsed / timed if timed else 0.0)
    return {"dataset": str(root), **result, "unloadable": unloadable}


def evaluate_synthetic_chips(
    count: int = 300, seed: int = 1, model: ChipModel | None = None
) -> dict[str, Any]:
    """Score the reader on synthetic photos of chips (all styles, the training augmentation).

    The chips come from :func:`vision.training.train_chips.photograph_chip` with a seed the
    training script does not use by default, values and styles in turn.

    Returns:
        The same keys as :func:`evaluate_chips`, with ``dataset`` naming the seed and count.

    Raises:
        ValueError: ``count`` below 1.
    """
    from vision.synth.chip_art import CHIP_STYLES
    from vision.training.train_chips import photograph_chip

    if count < 1:
        raise ValueError(f"count must be at least 1, not {count}")
    model = model or default_model()
    rng = np.random.default_rng(seed + 1_000_003)
    reads: list[tuple[int, int | None]] = []
    elapsed = 0.0
    for i in range(count):
        value = CHIP_VALUES[i % len(CHIP_VALUES)]
        style = CHIP_STYLES[(i // len(CHIP_VALUES)) % len(CHIP_STYLES)]
        image, _ = photograph_chip(value, style, rng)
        start = time.perf_counter()
        reads.append((value, read_chip(image, model).value))
        elapsed += time.perf_counter() - start
    result = _summarise(reads, elapsed / count)
    return {"dataset": f"synthetic photos, {count} chips, seed {seed}", **result, "unloadable": 0}


def evaluate_board_chips(renders: int = 30, seed: int = 0) -> dict[str, Any]:
    """Read the chips of hard board renders, cut at their true places through the true camera.

    The renders are those of ``catan-companion bench vision --seed SEED`` (the same boards and
    conditions, render ``i`` from seed ``SEED * 100003 + i``). Each chip is cut with
    :func:`vision.read_board.photo_chip_crop` and read with its disc given, as the board reader
    does, then the board's chips are read jointly under its multiset (base and 5-6).

    Returns:
        The keys of :func:`evaluate_chips` for the single readings, plus ``joint`` (``chips``,
        ``correct``, ``wrong``, ``abstentions``, ``accuracy``) over the boards with a known
        multiset, and ``dataset`` naming the renders.

    Raises:
        ValueError: ``renders`` below 1.
    """
    from companion.board import hex_center
    from vision.chips import read_chips_jointly
    from vision.read_board import _CROP_MARGIN, _READ_SIDE, CHIP_COUNTS, photo_chip_crop
    from vision.synth.boards import seafarers_board, standard_board
    from vision.synth.render import Conditions, distort_points, render_board

    if renders < 1:
        raise ValueError(f"renders must be at least 1, not {renders}")
    model = default_model()
    # The renderer's chip: 0.8 hex radii across, its disc 0.47 of the print's side.
    radius = 0.8 * 0.47
    c = (_READ_SIDE - 1) / 2.0
    disc = (c, c, _READ_SIDE / 2.0 / _CROP_MARGIN)
    reads: list[tuple[int, int | None]] = []
    covered: list[tuple[int, int | None]] = []  # chips a hand covers by more than a quarter
    joint = {"chips": 0, "correct": 0, "wrong": 0, "abstentions": 0}
    elapsed = 0.0
    for i in range(renders):
        rng = np.random.default_rng(seed * 100_003 + i)
        kind = ("base", "5-6", "seafarers")[i % 3]
        truth = seafarers_board(rng) if kind == "seafarers" else standard_board(kind, rng)
        cond = Conditions.random(rng)
        render = render_board(truth, rng=rng, conditions=cond)
        h, w = render.image.shape[:2]
        values, readings = [], []
        for hx, tile in truth.tiles.items():
            if tile.number is None:
                continue
            centre = np.array(hex_center(hx), np.float64)
            # Lens distortion moves the chip; the homography is the undistorted camera's.
            p = render.homography @ np.array([centre[0], centre[1], 1.0])
            seen = distort_points((p[:2] / p[2])[None], cond.distortion, w, h)[0]
            shift = np.eye(3)
            shift[:2, 2] = seen - p[:2] / p[2]
            crop = photo_chip_crop(
                render.image, shift @ render.homography, (centre[0], centre[1], radius)
            )
            if crop is None:
                continue
            start = time.perf_counter()
            reading = read_chip(crop, model, disc=disc)
            elapsed += time.perf_counter() - start
            values.append(tile.number)
            readings.append(reading)
            reads.append((tile.number, reading.value))
            if _hand_cover(render, shift @ render.homography, centre, radius) > 0.25:
                covered.append((tile.number, reading.value))
        expected = CHIP_COUNTS.get(kind)
        if expected is not None and readings:
            for value, got in zip(values, read_chips_jointly(readings, expected), strict=True):
                joint["chips"] += 1
                key = "correct" if got == value else "abstentions" if got is None else "wrong"
                joint[key] += 1
    result = _summarise(reads, elapsed / max(1, len(reads)))
    joint_acc = joint["correct"] / joint["chips"] if joint["chips"] else 0.0
    return {
        "dataset": f"{renders} hard board renders, seed {seed}, chips at their true places",
        **result,
        "unloadable": 0,
        "joint": {**joint, "accuracy": joint_acc},
        "under_a_hand": {
            "chips": len(covered),
            "correct": sum(1 for v, r in covered if r == v),
            "abstentions": sum(1 for _, r in covered if r is None),
        },
    }


def _hand_cover(render: Any, plane_to_image: np.ndarray, centre: np.ndarray, r: float) -> float:
    """Fraction of a chip's disc (points on it, in the board plane) under the render's hands."""
    mask = render.hand_mask
    if mask is None or not mask.any():
        return 0.0
    ang = np.linspace(0.0, 2.0 * np.pi, 12, endpoint=False)
    pts = [centre] + [
        centre + f * r * np.array([np.cos(a), np.sin(a)]) for f in (0.5, 0.9) for a in ang
    ]
    img = project(plane_to_image, np.array(pts))
    h, w = mask.shape
    x = np.clip(np.round(img[:, 0]).astype(int), 0, w - 1)
    y = np.clip(np.round(img[:, 1]).astype(int), 0, h - 1)
    return float(mask[y, x].mean())


def _summarise(reads: list[tuple[int, int | None]], seconds_per_chip: float) -> dict[str, Any]:
    """Counts, accuracies, per-value figures and confusion of (true, read) pairs."""
    confusion: dict[int, dict[str, int]] = {v: {} for v in CHIP_VALUES}
    for value, read in reads:
        key = "null" if read is None else str(read)
        confusion[value][key] = confusion[value].get(key, 0) + 1
    per_value: dict[str, dict[str, float | int]] = {}
    correct = wrong = abstentions = 0
    for value in CHIP_VALUES:
        row = confusion[value]
        n = sum(row.values())
        ok = row.get(str(value), 0)
        null = row.get("null", 0)
        correct += ok
        abstentions += null
        wrong += n - ok - null
        per_value[str(value)] = {
            "chips": n,
            "correct": ok,
            "abstentions": null,
            "accuracy": ok / n if n else 0.0,
        }
    answered = correct + wrong
    return {
        "chips": len(reads),
        "correct": correct,
        "wrong": wrong,
        "abstentions": abstentions,
        "accuracy": correct / len(reads),
        "accuracy_when_answered": correct / answered if answered else 0.0,
        "per_value": per_value,
        "confusion": {str(v): dict(sorted(r.items())) for v, r in confusion.items()},
        "seconds_per_chip": seconds_per_chip,
    }


def main(argv: list[str] | None = None) -> int:
    """Print :func:`evaluate_chips` (or :func:`evaluate_synthetic_chips`) as JSON."""
    parser = argparse.ArgumentParser(prog="python -m vision.bench_chips", description=__doc__)
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("dataset", nargs="?", help="directory with labels.csv and chip crops")
    group.add_argument("--synthetic", type=int, metavar="N", help="score N synthetic photos")
    group.add_argument(
        "--board-renders",
        type=int,
        metavar="N",
        help="score the chips of N hard board renders, cut at their true places",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the board renders")
    args = parser.parse_args(argv)
    try:
        if args.board_renders is not None:
            result = evaluate_board_chips(args.board_renders, args.seed)
        elif args.synthetic is not None:
            result = evaluate_synthetic_chips(args.synthetic)
        else:
            result = evaluate_chips(args.dataset)
    except ValueError as exc:
        print(f"bench_chips: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
