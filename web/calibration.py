"""The calibration wizard's endpoints (``/api/calibration/...``): docs/api.md documents each.

The work is done by :class:`calibration.wizard.CalibrationWizard`; this blueprint relays the
camera's latest frame to it and the page's button presses. Frames come from the frame provider
given to ``create_app(..., camera=...)``: a callable returning the latest BGR uint8 frame
(H, W, 3), or None while the camera has none yet. Without a provider the wizard cannot run and
the page says so.

Who may use it: a device bound to a player, or the big screen on the companion's own machine
(the same machines that may control the game). The live preview is restricted the same way,
as the camera may see the cards in someone's hand. Every state-changing request passes the
API's guard (CSRF token, rate limits) like any other.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field

import numpy as np
from flask import Response, current_app, jsonify
from flask.blueprints import BlueprintSetupState

from calibration.camera import CalibrationError
from calibration.profiles import ProfileError, ProfileStore
from calibration.wizard import CalibrationWizard, WizardError
from web.common import (
    ApiError,
    api_blueprint,
    current_context,
    is_loopback,
    json_body,
    table_players,
    viewer,
)

log = logging.getLogger(__name__)

calibration = api_blueprint("calibration", __name__, url_prefix="/api/calibration")

#: JPEG quality of the live preview: a phone on Wi-Fi reloads it twice a second.
PREVIEW_QUALITY = 70


@dataclass
class WizardSlot:
    """The app's one wizard (one camera, one table), kept in ``app.extensions``."""

    store: ProfileStore | None = None  # None: the user's data directory, resolved on start
    wizard: CalibrationWizard | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)
    #: held while a frame is looked at: every open page feeds frames, one search at a time is
    #: enough (the others get the state as it is), and the CPU stays bounded
    feeding: threading.Lock = field(default_factory=threading.Lock)


@calibration.record_once
def _setup(state: BlueprintSetupState) -> None:
    state.app.extensions["calibration"] = WizardSlot()


def _slot() -> WizardSlot:
    return current_app.extensions["calibration"]


def _require_control() -> None:
    ctx = current_context()
    if viewer() is None and not (ctx.show_code_to_loopback and is_loopback()):
        raise ApiError(
            403,
            "calibration is for a device bound to a player or the companion's own screen: "
            "bind this device with the table code",
        )


def _wizard() -> CalibrationWizard:
    wizard = _slot().wizard
    if wizard is None:
        raise ApiError(409, "no calibration is running: start one with a profile name")
    return wizard


def _frame() -> np.ndarray:
    camera = current_context().camera
    if camera is None:
        raise ApiError(503, "no camera is connected to the companion")
    try:
        frame = camera()
    except Exception:
        # The camera's own error (a driver, a stream URL) is for the log, not the browser.
        log.exception("the frame provider failed")
        raise ApiError(503, "the camera failed to give a frame; the log has the details") from None
    if frame is None:
        raise ApiError(503, "the camera has no frame yet; try again in a moment")
    return frame


def _answer(state: dict[str, object]) -> Response:
    return jsonify({"active": True, "camera": current_context().camera is not None, **state})


@calibration.get("")
def get_state() -> Response:
    wizard = _slot().wizard
    if wizard is None:
        return jsonify({"active": False, "camera": current_context().camera is not None})
    return _answer(wizard.state())


@calibration.post("/start")
def start() -> Response:
    _require_control()
    name = json_body().get("profile")
    if not isinstance(name, str):
        raise ApiError(400, "profile: give the table's profile name, e.g. kitchen-table")
    if current_context().camera is None:
        raise ApiError(503, "no camera is connected to the companion")
    slot = _slot()
    with slot.lock:
        store = slot.store or ProfileStore()
        try:
            # A stored profile is updated step by step; steps not redone keep what they had.
            wizard = CalibrationWizard(store, name, players=table_players())
        except ProfileError as exc:
            raise ApiError(400, str(exc)) from None
        slot.store = store
        slot.wizard = wizard
    log.info("calibration of profile %s started", name)
    return _answer(wizard.state())


@calibration.post("/frame")
def feed_frame() -> Response:
    _require_control()
    wizard = _wizard()
    feeding = _slot().feeding
    if not feeding.acquire(blocking=False):
        return _answer(wizard.state())
    try:
        state = wizard.feed(_frame())
    except ValueError as exc:  # WizardError, or a frame too small to calibrate with
        log.error("the frame provider gave an unusable frame: %s", exc)
        raise ApiError(503, f"the camera gave an unusable frame: {exc}") from None
    finally:
        feeding.release()
    return _answer(state)


@calibration.get("/preview.jpg")
def preview() -> Response:
    _require_control()
    return Response(_wizard().preview(PREVIEW_QUALITY), mimetype="image/jpeg")


@calibration.post("/finish")
def finish() -> Response:
    _require_control()
    try:
        state = _wizard().finish()
    except (WizardError, CalibrationError) as exc:
        raise ApiError(409, str(exc)) from None
    except OSError as exc:  # the profile could not be written (disk full, permissions)
        log.exception("saving the calibration profile failed")
        raise ApiError(503, f"the profile could not be saved: {exc.strerror}") from None
    return _answer(state)


@calibration.post("/skip")
def skip() -> Response:
    _require_control()
    try:
        state = _wizard().skip()
    except WizardError as exc:
        raise ApiError(409, str(exc)) from None
    return _answer(state)


@calibration.post("/stop")
def stop() -> Response:
    _require_control()
    slot = _slot()
    with slot.lock:
        slot.wizard = None
    return jsonify({"active": False, "camera": current_context().camera is not None})
