"""Fixtures of the web tests: a real Table over a JournaledGame in a temporary directory."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from web_helpers import CODE, Clock, make_table

from companion.table import Table
from web.app import create_app


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Table]:
    t = make_table(tmp_path / "game.sqlite")
    yield t
    t.stop()


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def app(table: Table, clock: Clock) -> Flask:
    return create_app(table, table_code=CODE, heartbeat=0.05, clock=clock)


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()
