"""Start ``catan-companion demo`` or ``run`` as a separate process, for end-to-end tests."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def start_companion(*args: str) -> tuple[subprocess.Popen[str], str]:
    """``catan-companion ARGS`` (demo or run) started; returns the process and its page's URL."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "companion.cli", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert proc.stdout is not None
    first = proc.stdout.readline()
    assert "open http://" in first, f"the companion did not start: {first!r}"
    return proc, first.split("open ", 1)[1].strip()


def start_demo(journal: Path, *extra: str) -> tuple[subprocess.Popen[str], str]:
    """The demo on a free port with ``journal``; returns the process and its page's URL."""
    return start_companion("demo", "--port", "0", "--journal", str(journal), *extra)
