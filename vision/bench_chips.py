"""Accuracy and speed of the chip reader on a directory of labelled chip crops.

The board engineer's ``catan-companion bench vision`` calls :func:`evaluate_chips` on
``../shared/datasets/coins-dev``; it can also be run alone::

    .venv/bin/python -m vision.bench_chips ../shared/datasets/coins-dev
    .venv/bin/python -m vision.bench_chips --synthetic 300

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
    args = parser.parse_args(argv)
    try:
        if args.synthetic is not None:
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
