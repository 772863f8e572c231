"""Start ``catan-companion demo`` as a separate process, for the end-to-end and crash tests."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def start_demo(journal: Path, *extra: str) -> tuple[subprocess.Popen[str], str]:
    """The demo on a free port with ``journal``; returns the process and its page's URL."""
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "companion.cli",
            "demo",
            "--port",
            "0",
            "--journal",
            str(journal),
            *extra,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert proc.stdout is not None
    first = proc.stdout.readline()
    assert "open http://" in first, f"the demo did not start: {first!r}"
    return proc, first.split("open ", 1)[1].strip()
