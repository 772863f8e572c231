"""The app served over real HTTP: live updates through werkzeug's threaded server."""

from __future__ import annotations

import json
import socket
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from web_helpers import CODE, first_legal, make_table

from companion.table import ApplyAction
from web.app import create_app
from web.server import WebServer


def _read_event(stream: object) -> tuple[str, dict]:
    """The next named server-sent event from a raw HTTP response (comments skipped)."""
    fields: dict[str, str] = {}
    while True:
        line = stream.readline().decode()  # type: ignore[attr-defined]
        if line in ("\n", "\r\n"):
            if "event" in fields:
                return fields["event"], json.loads(fields["data"])
            fields = {}
            continue
        if line == "":
            raise EOFError("the stream ended")
        name, _, value = line.rstrip("\n").partition(": ")
        fields[name] = value


def test_live_updates_over_http(tmp_path: Path) -> None:
    table = make_table(tmp_path / "g.sqlite")
    server = WebServer(create_app(table, table_code=CODE, heartbeat=0.2))
    try:
        with urllib.request.urlopen(server.url + "/api/events", timeout=10) as stream:
            assert stream.headers["Content-Type"].startswith("text/event-stream")
            name, state = _read_event(stream)
            assert name == "state" and state["action_count"] == 0
            table.call(ApplyAction(first_legal(table), source="test"))
            name, update = _read_event(stream)
            assert name == "update" and update["state"]["action_count"] == 1
        with urllib.request.urlopen(server.url + "/api/state", timeout=10) as r:
            assert json.load(r)["action_count"] == 1
    finally:
        server.close()
        table.stop()


def test_errors_over_http_are_json_without_traceback(tmp_path: Path) -> None:
    table = make_table(tmp_path / "g.sqlite")
    server = WebServer(create_app(table, table_code=CODE))
    try:
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(server.url + "/api/actions", timeout=10)
        assert info.value.code == 403
        body = json.load(info.value)
        assert "spectator" in body["error"]
    finally:
        server.close()
        table.stop()


def test_a_busy_port_is_a_clear_error() -> None:
    from flask import Flask

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(OSError, match=f"cannot listen on 127.0.0.1:{port}"):
            WebServer(Flask("x"), port=port)
