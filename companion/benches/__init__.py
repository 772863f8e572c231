"""companion.benches: one module per bench target (add_arguments, run)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any


def print_report(report: Mapping[str, Any], as_json: bool) -> None:
    """Print a bench's figures on stdout: one JSON document, or one ``key: value`` line each.

    >>> print_report({"median_ms": 0.5, "runs": 3}, as_json=False)
    median_ms: 0.5
    runs: 3
    >>> print_report({"median_ms": 0.5}, as_json=True)
    {"median_ms": 0.5}
    """
    if as_json:
        print(json.dumps(report))
        return
    for key, value in report.items():
        print(f"{key}: {value}")
