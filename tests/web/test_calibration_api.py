"""The calibration wizard's endpoints, with a fake camera that shows rendered frames."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from flask import Flask
from flask.testing import FlaskClient
from web_helpers import (
    CODE,
    PLAYERS,
    Clock,
    bind,
    csrf,
    error_of,
    table_fixture,  # noqa: F401  (a fixture, used by name)
)
from werkzeug.test import TestResponse

from calibration.pattern import Pattern
from calibration.profiles import DATA_ENV, ProfileStore
from calibration.synthetic import (
    SELF_CHECK_CAMERA,
    random_poses,
    render_view,
    with_setup_pieces,
)
from companion.layouts import random_board
from companion.table import Table
from vision.synth.render import Conditions, render_board
from web.app import create_app

REMOTE = {"REMOTE_ADDR": "192.168.1.20"}  # a phone on the table's Wi-Fi


class FakeCamera:
    """A frame provider: returns ``frame``, or raises ``error`` when set."""

    def __init__(self) -> None:
        self.frame: np.ndarray | None = None
        self.error: Exception | None = None
        self.calls = 0

    def __call__(self) -> np.ndarray | None:
        self.calls += 1
        if self.error is not None:
            raise self.error
        return self.frame


@pytest.fixture(scope="module")
def pattern_views() -> list[np.ndarray]:
    pattern = Pattern()
    return [
        cv2.cvtColor(render_view(pattern, SELF_CHECK_CAMERA, pose, rng=i), cv2.COLOR_GRAY2BGR)
        for i, pose in enumerate(random_poses(pattern, SELF_CHECK_CAMERA, 4, rng=2))
    ]


@pytest.fixture(scope="module")
def board_view() -> np.ndarray:
    board = with_setup_pieces(random_board(4, seed=11), PLAYERS, 11)
    cond = Conditions(tilt_deg=10.0, rotation_deg=20.0, noise_sigma=1.5)
    return render_board(board, width=800, height=600, rng=11, conditions=cond).image


@pytest.fixture(name="store")
def store_fixture(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ProfileStore:
    # The app uses the user's data directory, which the environment variable moves.
    monkeypatch.setenv(DATA_ENV, str(tmp_path / "data"))
    return ProfileStore()


@pytest.fixture(name="camera")
def camera_fixture() -> FakeCamera:
    return FakeCamera()


@pytest.fixture(name="app")
def app_fixture(table: Table, camera: FakeCamera, store: ProfileStore) -> Flask:
    return create_app(table, table_code=CODE, heartbeat=0.05, clock=Clock(), camera=camera)


@pytest.fixture(name="screen")
def screen_fixture(app: Flask) -> FlaskClient:
    """The big screen: a browser on the companion's own machine (loopback)."""
    return app.test_client()


def decode(jpeg: bytes) -> np.ndarray:
    image = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    assert image is not None, "not a JPEG"
    return image


def post(client: FlaskClient, path: str, body: dict | None = None, **kw: Any) -> TestResponse:
    return client.post(f"/api/calibration{path}", json=body or {}, headers=csrf(client), **kw)


def test_no_wizard_yet_and_no_camera(table: Table, store: ProfileStore) -> None:
    client = create_app(table, table_code=CODE).test_client()
    assert client.get("/api/calibration").get_json() == {"active": False, "camera": False}
    r = post(client, "/start", {"profile": "kitchen"})
    assert r.status_code == 503 and "no camera" in error_of(r)
    assert client.get("/api/calibration").get_json()["active"] is False


def test_a_phone_needs_binding_and_the_token(app: Flask, camera: FakeCamera) -> None:
    phone = app.test_client()
    r = post(phone, "/start", {"profile": "kitchen"}, environ_base=REMOTE)
    assert r.status_code == 403 and "bind this device" in error_of(r)
    assert phone.get("/api/calibration").get_json()["active"] is False
    headers = bind(phone, "red")
    r = phone.post("/api/calibration/start", json={"profile": "kitchen"}, environ_base=REMOTE)
    assert r.status_code == 403 and "X-CSRF-Token" in error_of(r)
    r = phone.post(
        "/api/calibration/start", json={"profile": "kitchen"}, headers=headers, environ_base=REMOTE
    )
    assert r.status_code == 200 and r.get_json()["step"] == "camera"
    # A spectator elsewhere sees that a calibration runs, but not the camera's picture.
    other = app.test_client()
    assert other.get("/api/calibration", environ_base=REMOTE).get_json()["active"] is True
    r = other.get("/api/calibration/preview.jpg", environ_base=REMOTE)
    assert r.status_code == 403
    assert phone.get("/api/calibration/preview.jpg", environ_base=REMOTE).status_code == 200
    assert camera.calls == 0


def test_bad_profile_names_and_damaged_files_are_refused(
    screen: FlaskClient, store: ProfileStore
) -> None:
    for body in ({}, {"profile": 7}, {"profile": "../etc"}, {"profile": ""}):
        r = post(screen, "/start", body)
        assert r.status_code == 400 and "profile" in error_of(r)
    store.directory.mkdir(parents=True)
    store.path("broken").write_text("{not json")
    r = post(screen, "/start", {"profile": "broken"})
    assert r.status_code == 400 and "broken" in error_of(r)
    assert screen.get("/api/calibration").get_json()["active"] is False
    r = screen.post("/api/calibration/start", data="x", headers=csrf(screen))
    assert r.status_code == 400 and "JSON object" in error_of(r)


def test_actions_need_a_running_wizard(screen: FlaskClient) -> None:
    for path in ("/frame", "/finish", "/skip"):
        r = post(screen, path)
        assert r.status_code == 409 and "start one" in error_of(r)
    assert screen.get("/api/calibration/preview.jpg").status_code == 409


def test_camera_failures_are_reported_without_details(
    screen: FlaskClient, camera: FakeCamera
) -> None:
    post(screen, "/start", {"profile": "kitchen"})
    r = post(screen, "/frame")
    assert r.status_code == 503 and "no frame yet" in error_of(r)
    camera.error = OSError("/dev/video0: device busy")
    r = post(screen, "/frame")
    assert r.status_code == 503 and "video0" not in r.get_data(as_text=True)
    camera.error = None
    camera.frame = np.zeros((480, 640), np.uint8)  # grey, not BGR
    r = post(screen, "/frame")
    assert r.status_code == 503 and "BGR" in error_of(r)
    state = screen.get("/api/calibration").get_json()
    assert state["step"] == "camera" and "feedback" not in state


def test_camera_step_through_the_api(
    screen: FlaskClient, camera: FakeCamera, store: ProfileStore, pattern_views: list[np.ndarray]
) -> None:
    assert post(screen, "/start", {"profile": "kitchen"}).get_json()["can_skip"] is True
    assert decode(screen.get("/api/calibration/preview.jpg").data).shape == (360, 640, 3)
    camera.frame = pattern_views[0]
    state = post(screen, "/frame").get_json()
    assert state["feedback"]["views"] == 1 and state["can_finish"] is False
    r = post(screen, "/finish")
    assert r.status_code == 409 and "at least 3 views" in error_of(r)
    assert not store.exists("kitchen")
    for frame in pattern_views[1:]:
        camera.frame = frame
        state = post(screen, "/frame").get_json()
    assert state["feedback"]["views"] == len(pattern_views) and state["can_finish"] is True
    r = screen.get("/api/calibration/preview.jpg")
    assert r.mimetype == "image/jpeg" and r.headers["Cache-Control"] == "no-store"
    assert decode(r.data).shape == pattern_views[0].shape
    state = post(screen, "/finish").get_json()
    assert state["step"] == "colors" and state["done"] == ["camera"]
    assert state["saved"]["rms_px"] < 1.0
    assert store.load("kitchen").camera is not None
    json.dumps(state)  # the answer went through jsonify; it must also be plain JSON


def test_skip_colours_and_board_lock(
    screen: FlaskClient, camera: FakeCamera, store: ProfileStore, board_view: np.ndarray
) -> None:
    post(screen, "/start", {"profile": "attic"})
    assert post(screen, "/skip").get_json()["step"] == "colors"
    r = post(screen, "/skip")
    assert r.status_code == 409 and "cannot be skipped" in error_of(r)
    r = post(screen, "/finish")
    assert r.status_code == 409 and "not been found" in error_of(r)
    camera.frame = np.full((600, 800, 3), 90, np.uint8)
    state = post(screen, "/frame").get_json()
    assert state["board_found"] is False and state["can_finish"] is False
    camera.frame = board_view
    state = post(screen, "/frame").get_json()
    assert state["board_found"] is True and state["kind"] == "base"
    state = post(screen, "/finish").get_json()
    # The colour step learns the table's own players.
    assert state["step"] == "board" and state["saved"]["players"] == sorted(PLAYERS)
    post(screen, "/frame")
    state = post(screen, "/finish").get_json()
    assert state["step"] == "done" and state["done"] == ["colors", "board_lock"]
    assert store.load("attic").sections() == ["colors", "board_lock"]
    assert post(screen, "/frame").get_json()["step"] == "done"


def test_stop_and_start_again_keeps_the_saved_steps(
    screen: FlaskClient, store: ProfileStore
) -> None:
    post(screen, "/start", {"profile": "attic"})
    post(screen, "/skip")
    stopped = post(screen, "/stop").get_json()
    assert stopped == {"active": False, "camera": True}
    assert screen.get("/api/calibration").get_json()["active"] is False
    # Restarting begins at the camera again; a new name starts a new profile.
    state = post(screen, "/start", {"profile": "attic"}).get_json()
    assert state["step"] == "camera" and state["profile"] == "attic"
    assert store.names() == []  # nothing was finished, so nothing was saved


def test_one_frame_is_looked_at_at_a_time(
    app: Flask, screen: FlaskClient, camera: FakeCamera, pattern_views: list[np.ndarray]
) -> None:
    # Every open page feeds frames; while one is being looked at, the others get the state.
    post(screen, "/start", {"profile": "kitchen"})
    camera.frame = pattern_views[0]
    with app.extensions["calibration"].feeding:
        r = post(screen, "/frame")
    assert r.status_code == 200 and r.get_json()["step"] == "camera"
    assert camera.calls == 0 and "feedback" not in r.get_json()
    assert post(screen, "/frame").get_json()["feedback"]["views"] == 1
    assert camera.calls == 1
