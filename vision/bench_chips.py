"""Accuracy and speed of the chip reader on a directory of labelled chip crops.

The board engineer's ``catan-companion bench vision`` calls :func:`evaluate_chips` on
``../shared/datasets/coins-dev``; it can also be run alone::

    .venv/bin/python -m vision.bench_chips ../shared/datasets/coins-dev

A dataset directory holds the crops and a ``labels.csv`` with at least the columns ``file`` and
``value``.
"""

from __future__ import annotations

import csv
import json
import sys
import time
from pathlib import Path
from typing import Any

import cv2

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
    confusion: dict[int, dict[str, int]] = {v: {} for v in CHIP_VALUES}
    unloadable = 0
    elapsed = 0.0
    timed = 0
    for name, value in truth:
        image = cv2.imread(str(root / name), cv2.IMREAD_COLOR)
        if image is None:
            unloadable += 1
            read = "null"
        else:
            start = time.perf_counter()
            reading = read_chip(image, model)
            elapsed += time.perf_counter() - start
            timed += 1
            read = "null" if reading.value is None else str(reading.value)
        confusion[value][read] = confusion[value].get(read, 0) + 1

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
        "dataset": str(root),
        "chips": len(truth),
        "correct": correct,
        "wrong": wrong,
        "abstentions": abstentions,
        "unloadable": unloadable,
        "accuracy": correct / len(truth),
        "accuracy_when_answered": correct / answered if answered else 0.0,
        "per_value": per_value,
        "confusion": {str(v): dict(sorted(r.items())) for v, r in confusion.items()},
        "seconds_per_chip": elapsed / timed if timed else 0.0,
    }


def main(argv: list[str] | None = None) -> int:
    """Print :func:`evaluate_chips` of the directory given as the only argument, as JSON."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m vision.bench_chips DATASET_DIR", file=sys.stderr)
        return 2
    try:
        result = evaluate_chips(args[0])
    except ValueError as exc:
        print(f"bench_chips: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
