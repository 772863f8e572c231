"""The Flask app factory: the JSON API, the live updates and the pages of one table.

>>> import tempfile, os
>>> from companion.layouts import random_board
>>> from companion.journal import JournaledGame
>>> from companion.table import Table
>>> path = os.path.join(tempfile.mkdtemp(), "t.sqlite")
>>> table = Table(JournaledGame.create(path, random_board(4, seed=2), ["red", "blue"]))
>>> table.start()
>>> app = create_app(table, table_code="ABCD42")
>>> app.test_client().get("/api/state").get_json()["action_count"]
0
>>> table.stop()
"""

from __future__ import annotations

import ipaddress
import logging
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from flask import Flask, Response, current_app, jsonify, request
from werkzeug.exceptions import HTTPException

from companion.table import Subscription, Table
from web.offers import Offers
from web.security import RateLimiter, check_table_code, new_table_code

log = logging.getLogger(__name__)

#: Largest request body accepted (an action's JSON is a few hundred bytes).
MAX_CONTENT_LENGTH = 16 * 1024
#: How many recent updates the page's log is sent on load.
RECENT_UPDATES = 30


class Feed:
    """The recent updates of the table, for the log a page shows when it loads.

    It holds its own subscription and drains it whenever it is read, so it needs no thread:
    when nobody reads for long, the subscription's bounded queue drops the oldest updates,
    which are the ones the log would drop anyway.
    """

    def __init__(self, subscription: Subscription, size: int = RECENT_UPDATES):
        self._sub = subscription
        self._recent: deque[dict[str, Any]] = deque(maxlen=size)
        self._lock = threading.Lock()

    def recent(self) -> list[dict[str, Any]]:
        with self._lock:
            while (update := self._sub.get(timeout=0)) is not None:
                self._recent.append(update)
            self._sub.lagged = False  # dropped updates are older than what is kept
            return list(self._recent)


@dataclass
class WebContext:
    """Everything the blueprints share, kept in ``app.extensions["catan"]``."""

    table: Table
    table_code: str
    feed: Feed
    heartbeat: float
    max_streams: int
    show_code_to_loopback: bool
    allowed_hosts: frozenset[str]
    api_limiter: RateLimiter
    post_limiter: RateLimiter
    bind_limiter: RateLimiter
    streams: int = 0
    streams_lock: threading.Lock = field(default_factory=threading.Lock)
    offers: Offers = field(default_factory=Offers)
    #: returns the table camera's latest BGR uint8 frame (H, W, 3), or None before the first;
    #: None when no camera is connected (the calibration wizard then cannot run)
    camera: Callable[[], np.ndarray | None] | None = None
    #: the camera link (companion.camera_link.CameraLink): its pending proposals and
    #: discrepancies, confirmed or dismissed from the page; None without a camera
    camera_link: Any = None
    #: returns the camera's view as a JPEG with the detected grid drawn on it, or None
    camera_view: Callable[[], bytes | None] | None = None


def create_app(
    table: Table,
    *,
    table_code: str | None = None,
    secret_key: bytes | None = None,
    heartbeat: float = 15.0,
    max_streams: int = 32,
    show_code_to_loopback: bool = True,
    allowed_hosts: Iterable[str] = (),
    api_rate: tuple[float, float] = (120.0, 40.0),
    post_rate: tuple[float, float] = (20.0, 5.0),
    bind_rate: tuple[float, float] = (5.0, 0.1),
    clock: Callable[[], float] = time.monotonic,
    camera: Callable[[], np.ndarray | None] | None = None,
    camera_link: Any = None,
    camera_view: Callable[[], bytes | None] | None = None,
) -> Flask:
    """The web app of ``table`` (which the caller starts and stops).

    ``table_code`` is what a phone must enter to control (a random 6-character code if None;
    the caller shows it on the big screen and in its log). ``heartbeat`` is the seconds between
    keep-alive comments on the live stream; ``max_streams`` caps the open streams.
    ``show_code_to_loopback`` lets a browser on this machine (the big screen) read the code.
    Requests must name the server by an IP address, ``localhost`` or one of ``allowed_hosts``
    (e.g. ``"catan.local"``): this defeats DNS rebinding, by which a web site could otherwise
    reach the companion from a browser at the table.
    The rates are (burst, per second) per client address: every API request, state-changing
    requests, and bind attempts (which guess the code: slow by design).
    ``camera`` returns the camera's latest BGR frame (or None while it has none) for the
    calibration wizard; without it the page says that no camera is connected.
    The factory binds nothing: where it listens is the caller's choice (the CLI: localhost).
    """
    code = check_table_code(table_code) if table_code is not None else new_table_code()
    if heartbeat <= 0:
        raise ValueError("heartbeat: must be a positive number of seconds")
    app = Flask(__name__)
    app.config.update(
        SECRET_KEY=secret_key or secrets.token_bytes(32),
        MAX_CONTENT_LENGTH=MAX_CONTENT_LENGTH,
        SESSION_COOKIE_NAME="catan_companion",
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Strict",
        JSON_SORT_KEYS=False,
    )
    app.json.sort_keys = False  # type: ignore[attr-defined]
    app.extensions["catan"] = WebContext(
        table=table,
        table_code=code,
        feed=Feed(table.subscribe()),
        heartbeat=heartbeat,
        max_streams=max_streams,
        show_code_to_loopback=show_code_to_loopback,
        allowed_hosts=frozenset(h.lower() for h in allowed_hosts),
        api_limiter=RateLimiter(*api_rate, clock=clock),
        post_limiter=RateLimiter(*post_rate, clock=clock),
        bind_limiter=RateLimiter(*bind_rate, clock=clock),
        camera=camera,
        camera_link=camera_link,
        camera_view=camera_view,
    )

    from web.api import api
    from web.calibration import calibration
    from web.pages import pages

    app.register_blueprint(api)
    app.register_blueprint(calibration)
    app.register_blueprint(pages)
    app.before_request(_check_host)
    app.after_request(_security_headers)
    app.register_error_handler(HTTPException, _http_error)
    app.register_error_handler(Exception, _internal_error)
    return app


def host_name(host: str) -> str:
    """The name in a Host header, without the port.

    >>> host_name("[::1]:8000"), host_name("Catan.local:80"), host_name("10.0.0.2")
    ('::1', 'catan.local', '10.0.0.2')
    """
    host = host.lower()
    if host.startswith("["):
        return host[1 : host.find("]")]
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def _check_host() -> Response | None:
    name = host_name(request.host)
    ctx: WebContext = current_app.extensions["catan"]
    if name == "localhost" or name in ctx.allowed_hosts:
        return None
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return error_response(
            400, f"unknown host name {name!r}: open the page by the companion's IP address"
        )
    return None


def _security_headers(response: Response) -> Response:
    response.headers.setdefault(
        "Content-Security-Policy",
        "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
        "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
    )
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("Referrer-Policy", "no-referrer")
    response.headers.setdefault("X-Frame-Options", "DENY")
    if request.path.startswith("/api/"):
        response.headers.setdefault("Cache-Control", "no-store")
    return response


def error_response(status: int, message: str, **extra: Any) -> Response:
    """A JSON error body: ``{"error": message, ...}`` with ``status``."""
    response = jsonify({"error": message, **extra})
    response.status_code = status
    return response


#: Messages for HTTP errors, written for whoever reads them on a phone.
_HTTP_MESSAGES = {
    404: "no such page or endpoint; see docs/api.md",
    405: "this endpoint does not accept that method; see docs/api.md",
    413: f"the request is too large (at most {MAX_CONTENT_LENGTH} bytes)",
}


def _http_error(exc: HTTPException) -> Response:
    status = exc.code or 500
    message = _HTTP_MESSAGES.get(status) or exc.description or exc.name
    response = error_response(status, message)
    if status == 405 and exc.valid_methods:  # type: ignore[attr-defined]
        response.headers["Allow"] = ", ".join(exc.valid_methods)  # type: ignore[attr-defined]
    return response


def _internal_error(exc: Exception) -> Response:
    # The details go to the log, never to the browser.
    log.exception("request %s %s failed", request.method, request.path)
    return error_response(500, "the companion failed to answer; the log has the details")
