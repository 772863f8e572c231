"""The examples in firmware_bridge docstrings (the package is outside the doctest paths)."""

from __future__ import annotations

import doctest
import importlib

import pytest


@pytest.mark.parametrize("module", ["protocol", "dice", "leds"])
def test_docstring_examples(module: str) -> None:
    mod = importlib.import_module(f"firmware_bridge.{module}")
    result = doctest.testmod(mod)
    assert result.attempted > 0 and result.failed == 0
