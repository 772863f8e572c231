"""Start ``catan-companion demo`` or ``run`` as a separate process, for end-to-end tests."""

from __future__ import annotations

import os
import selectors
import subprocess
import sys
from pathlib import Path

#: Seconds a started companion gets to answer, a request to be served, or a stopped or killed
#: process to end. A sanity bound, not a benchmark: generous, for a CI machine under load.
DEADLINE = 60.0


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
    # Wait for the first line with a deadline: a start that hangs fails the test, not CI.
    with selectors.DefaultSelector() as sel:
        sel.register(proc.stdout, selectors.EVENT_READ)
        ready = sel.select(DEADLINE)
    if not ready:
        proc.kill()
        proc.wait(DEADLINE)
        raise AssertionError(f"the companion printed nothing in {DEADLINE:.0f} s: {args}")
    first = proc.stdout.readline()
    assert "open http://" in first, f"the companion did not start: {first!r}"
    return proc, first.split("open ", 1)[1].strip()


def start_demo(journal: Path, *extra: str) -> tuple[subprocess.Popen[str], str]:
    """The demo on a free port with ``journal``; returns the process and its page's URL."""
    return start_companion("demo", "--port", "0", "--journal", str(journal), *extra)
