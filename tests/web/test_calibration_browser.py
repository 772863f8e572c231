"""Browser test of the calibration wizard: the big screen walks it with a fake camera.

The fake camera shows rendered chessboard views during the camera step and a rendered set-up
board afterwards; the page's own live loop feeds them to the wizard. The walk is done with the
keyboard (screen-reader names checked), at 1920 px, then the finished wizard is looked at on a
360-px phone. Screenshots go to artifacts/web/ like the other browser tests'.
"""

from __future__ import annotations

import itertools
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from test_browser import Device
from web_helpers import (
    CODE,
    NEEDS_CHROMIUM,
    PHONE,
    PLAYERS,
    SCREEN,
    browser_fixture,  # noqa: F401  (a fixture, used by name)
    make_table,
)

from calibration.pattern import Pattern
from calibration.profiles import DATA_ENV, ProfileStore
from calibration.synthetic import SELF_CHECK_CAMERA, random_poses, render_view, with_setup_pieces
from companion.layouts import random_board
from vision.synth.render import Conditions, render_board
from web.app import create_app
from web.server import WebServer

pytestmark = NEEDS_CHROMIUM


class FakeCamera:
    """Pattern views in turn while ``showing_pattern``, else the set-up board.

    Called from the server's request threads, hence the lock.
    """

    def __init__(self, views: list[np.ndarray], board: np.ndarray) -> None:
        self._views = itertools.cycle(views)
        self._board = board
        self._lock = threading.Lock()
        self.showing_pattern = True

    def __call__(self) -> np.ndarray:
        with self._lock:
            return next(self._views) if self.showing_pattern else self._board


@pytest.fixture(scope="module")
def frames() -> tuple[list[np.ndarray], np.ndarray]:
    """Chessboard views of the synthetic camera, and a set-up board: BGR uint8, 800x600."""
    pattern = Pattern()
    views = [
        cv2.cvtColor(render_view(pattern, SELF_CHECK_CAMERA, pose, rng=i), cv2.COLOR_GRAY2BGR)
        for i, pose in enumerate(random_poses(pattern, SELF_CHECK_CAMERA, 4, rng=2))
    ]
    board = with_setup_pieces(random_board(4, seed=11), PLAYERS, 11)
    cond = Conditions(tilt_deg=10.0, rotation_deg=20.0, noise_sigma=1.5)
    return views, render_board(board, width=800, height=600, rng=11, conditions=cond).image


@pytest.fixture
def camera(frames: tuple[list[np.ndarray], np.ndarray]) -> FakeCamera:
    return FakeCamera(*frames)


@pytest.fixture
def url(tmp_path: Path, camera: FakeCamera, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    monkeypatch.setenv(DATA_ENV, str(tmp_path / "data"))
    table = make_table(tmp_path / "game.sqlite")
    server = WebServer(create_app(table, table_code=CODE, heartbeat=5.0, camera=camera))
    yield server.url
    server.close()
    table.stop()


def _press(device: Device, name: str) -> None:
    """Activate a button by keyboard: focus it, then Enter."""
    device.page.get_by_role("button", name=name, exact=True).focus()
    device.page.keyboard.press("Enter")


def _wait_step(device: Device, step: str) -> None:
    device.page.wait_for_selector(f'#calibration-steps li[aria-current="step"] >> text={step}')


def _wait_board_found(device: Device) -> None:
    """Until the live loop has found the base board (and so the step can be finished).

    Anchored: the failure "no board found: ..." also contains "board found", and a pattern view
    fetched just before the camera turned to the board gives that failure.
    """
    device.page.wait_for_selector("#calibration-feedback >> text=/^base board found/")
    device.page.wait_for_selector('#calibration-finish[aria-disabled="false"]')


def test_the_wizard_walked_on_the_big_screen(
    browser: Any, url: str, camera: FakeCamera, tmp_path: Path
) -> None:
    screen = Device(browser, url, SCREEN)
    page = screen.page
    page.wait_for_selector("#calibration:not([hidden])")
    page.fill("#calibration-profile", "kitchen")
    page.focus("#calibration-profile")
    page.keyboard.press("Enter")
    _wait_step(screen, "Camera")
    # Focus moves to the instruction, so a screen reader reads what to do.
    assert page.evaluate("document.activeElement.id") == "calibration-instruction"
    assert "pattern" in page.text_content("#calibration-instruction")
    assert screen.unnamed_controls() == []

    # The live loop feeds frames by itself until enough views are kept.
    page.wait_for_selector('#calibration-finish[aria-disabled="false"]')
    feedback = page.text_content("#calibration-feedback")
    assert "views kept" in feedback and "% of the picture covered" in feedback
    assert re.fullmatch(r"[A-Z].*\. [A-Z].*", feedback), feedback  # "Why. What to do."
    # The preview shows the camera's frame (800x600), not the "no frame yet" card.
    page.wait_for_function(
        "() => document.getElementById('calibration-preview').naturalWidth === 800"
    )
    screen.shot("calibration-camera-1920")
    _press(screen, "Finish this step")
    _wait_step(screen, "Colours")
    assert "Camera saved" in page.text_content("#calibration-message")
    assert page.is_hidden("#calibration-skip")  # only the camera step can be skipped
    assert page.locator("#calibration-steps li.done").count() == 1

    camera.showing_pattern = False
    _wait_board_found(screen)
    _press(screen, "Finish this step")
    _wait_step(screen, "Board lock")
    assert "Colours saved for" in page.text_content("#calibration-message")
    _wait_board_found(screen)
    _press(screen, "Finish this step")
    page.wait_for_selector("#calibration-instruction >> text=Calibration complete")
    assert page.is_hidden("#calibration-preview") and page.is_hidden("#calibration-finish")
    assert page.locator("#calibration-steps li.done").count() == 3
    screen.shot("calibration-done-1920")
    profile = ProfileStore(tmp_path / "data" / "profiles").load("kitchen")
    assert profile.sections() == ["camera", "colors", "board_lock"]

    # A phone bound to a player sees the same wizard; its layout fits 360 px.
    phone = Device(browser, url, PHONE)
    phone.bind("red")
    phone.page.wait_for_selector("#calibration-instruction >> text=Calibration complete")
    assert phone.page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth"), (
        "the page scrolls sideways at 360 px"
    )
    phone.shot("calibration-done-360")
    # Closing brings back the start form, with the focus on its field.
    _press(phone, "Close")
    phone.page.wait_for_selector("#calibration-start:not([hidden])")
    assert phone.page.evaluate("document.activeElement.id") == "calibration-profile"
    assert screen.errors == [] and phone.errors == []
    screen.close()
    phone.close()


def test_only_a_bound_phone_sees_the_wizard(
    browser: Any, tmp_path: Path, camera: FakeCamera, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Without the big-screen rights, this browser is like any phone on the Wi-Fi.
    monkeypatch.setenv(DATA_ENV, str(tmp_path / "data"))
    table = make_table(tmp_path / "game.sqlite")
    app = create_app(table, table_code=CODE, camera=camera, show_code_to_loopback=False)
    server = WebServer(app)
    try:
        phone = Device(browser, server.url, PHONE)
        assert phone.page.is_hidden("#calibration")
        phone.bind("blue")
        phone.page.wait_for_selector("#calibration-start:not([hidden])")
        phone.page.get_by_role("button", name="Leave", exact=True).click()
        phone.page.wait_for_selector("#calibration", state="hidden")
        assert phone.errors == []
        phone.close()
    finally:
        server.close()
        table.stop()
