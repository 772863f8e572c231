"""``catan-companion read-chip IMAGE... [--json]``: read cropped number chips.

Each IMAGE is a photo crop roughly centred on one chip. The plain output is one line per file;
``--json`` prints one list of ``{"file", "value", "confidence"}``. A file that is missing,
corrupt or not an image, like a chip that cannot be read honestly, gets ``value`` null; the
reason goes to standard error and the other files are still read.
"""

from __future__ import annotations

import argparse
import json
import logging
from pathlib import Path

import cv2
import numpy as np

from vision.chips import ChipReading, default_model, read_chip

log = logging.getLogger("vision.read_chip")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the command's arguments."""
    parser.add_argument("images", nargs="+", metavar="IMAGE", help="chip crop (JPEG, PNG...)")
    parser.add_argument("--json", action="store_true", help="print one JSON list on stdout")


def _load(path: Path) -> np.ndarray | None:
    """Decode an image file as BGR, or log why not and return None."""
    if not path.is_file():
        log.warning("%s: no such file", path)
        return None
    # imdecode of the bytes, not imread, so that paths with any characters work.
    data = np.fromfile(path, dtype=np.uint8)
    image = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    if image is None:
        log.warning("%s: not an image OpenCV can decode (corrupt or unsupported format)", path)
        return None
    if min(image.shape[:2]) < 8:
        log.warning("%s: image of %dx%d pixels is too small to read", path, *image.shape[1::-1])
        return None
    return image


def run(args: argparse.Namespace) -> int:
    """Read every image; exit 0 even when some could not be read (they are reported null)."""
    model = default_model()
    results: list[dict[str, object]] = []
    for name in args.images:
        path = Path(name)
        image = _load(path)
        reading: ChipReading | None = None if image is None else read_chip(image, model)
        if reading is not None and reading.value is None:
            log.warning("%s: no clear reading (best guess below confidence)", path)
        value = None if reading is None else reading.value
        confidence = 0.0 if reading is None else round(reading.confidence, 4)
        results.append({"file": name, "value": value, "confidence": confidence})
        if not args.json:
            shown = "unreadable" if value is None else str(value)
            print(f"{name}: {shown} (confidence {confidence:.2f})")
    if args.json:
        print(json.dumps(results))
    return 0
