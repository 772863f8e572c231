"""What every JSON blueprint of the companion's apps relies on: the refusal they answer with
(:class:`ApiError`), the guard run before each request (rate limits, same site, CSRF token),
who is asking (the device's bound player), and calls to the Table whose refusals become
answers that say what to fix.

The board game's API (:mod:`web.api`), the dice game's (:mod:`web.dice_api`) and the
calibration wizard's (:mod:`web.calibration`) are each made by :func:`api_blueprint`.

>>> ApiError(409, "not your turn", rule="1.2").extra
{'rule': '1.2'}
>>> api_blueprint("example", __name__, url_prefix="/api/example").url_prefix
'/api/example'
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from flask import Blueprint, Response, current_app, jsonify, request, session

from companion.actions import ActionError
from companion.game import IllegalAction
from companion.journal import JournalError
from companion.table import Command, Table
from web.app import WebContext, error_response

#: Methods that change something: they need the CSRF token and count against the post limit.
UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})


class ApiError(Exception):
    """A request the API refuses: ``status`` and a message that says what to fix."""

    def __init__(self, status: int, message: str, **extra: Any):
        super().__init__(message)
        self.status = status
        self.message = message
        self.extra = extra


def api_blueprint(name: str, import_name: str, **options: Any) -> Blueprint:
    """A blueprint of JSON endpoints (``options`` are Flask's): each request passes
    :func:`guard` first, and an :class:`ApiError` it raises is answered as JSON."""
    blueprint = Blueprint(name, import_name, **options)
    blueprint.before_request(guard)
    blueprint.register_error_handler(ApiError, api_error)
    return blueprint


def api_error(exc: ApiError) -> Response:
    """The JSON answer of a refused request (a blueprint's handler of :class:`ApiError`)."""
    return error_response(exc.status, exc.message, **exc.extra)


def current_context() -> WebContext:
    """The board game's context of the app serving this request."""
    return current_app.extensions["catan"]


def client_address() -> str:
    """The address the rate limits count this request against."""
    return request.remote_addr or "unknown"


def too_many(limiter_name: str) -> ApiError:
    """The refusal of a client over the limit of the context's limiter ``limiter_name``."""
    limiter = getattr(current_context(), limiter_name)
    wait = limiter.retry_after(client_address())
    return ApiError(429, f"too many requests; try again in {wait} s", retry_after=wait)


def guard() -> None:
    """Before each request: the rate limits, and for a change, the same site and its CSRF
    token (the one ``GET /api/session`` gave this session)."""
    ctx = current_context()
    if not ctx.api_limiter.allow(client_address()):
        raise too_many("api_limiter")
    if request.method not in UNSAFE_METHODS:
        return
    origin = request.headers.get("Origin")
    if origin is not None and origin != f"{request.scheme}://{request.host}":
        raise ApiError(403, "requests from another site are refused")
    token = session.get("csrf")
    sent = request.headers.get("X-CSRF-Token", "")
    if not token or not secrets.compare_digest(sent.encode(), token.encode()):
        raise ApiError(
            403, "missing or wrong X-CSRF-Token header: GET /api/session and send its csrf"
        )
    if not ctx.post_limiter.allow(client_address()):
        raise too_many("post_limiter")


# -- who is asking ---------------------------------------------------------------------------


def fingerprint(code: str) -> str:
    """Ties a session to this table code: a binding does not outlive a new code.

    Keyed with the app's secret: the session cookie is signed, not encrypted, and a bare hash
    of a 6-character code could be reversed by trying every code.
    """
    key = current_app.secret_key
    assert isinstance(key, bytes)  # create_app sets SECRET_KEY to bytes
    return hmac.new(key, code.encode(), hashlib.sha256).hexdigest()[:32]


def table_players() -> list[str]:
    """The colours of the players at this table, in seat order."""
    return [p["color"] for p in current_context().table.state()["players"]]


def viewer() -> str | None:
    """The colour this device is bound to, or None for a spectator."""
    player = session.get("player")
    if player is None or session.get("table") != fingerprint(current_context().table_code):
        return None
    return player if player in table_players() else None


def require_player() -> str:
    """The colour this device is bound to; a spectator is refused."""
    player = viewer()
    if player is None:
        raise ApiError(403, "this device is a spectator: bind it to a player with the table code")
    return player


def is_loopback() -> bool:
    """Whether the request comes from the companion's own machine (its big screen)."""
    # Behind a proxy every request would look local: a forwarded request never is.
    if "X-Forwarded-For" in request.headers or "Forwarded" in request.headers:
        return False
    try:
        return ipaddress.ip_address(request.remote_addr or "").is_loopback
    except ValueError:
        return False


def json_body() -> dict[str, Any]:
    """The request's JSON object; anything else is refused."""
    data = request.get_json(silent=True)
    if not isinstance(data, dict):
        raise ApiError(400, "send a JSON object with Content-Type: application/json")
    return data


# -- the table -------------------------------------------------------------------------------


@contextmanager
def table_refusals(timeout: str, malformed: type[ValueError] = ActionError) -> Iterator[None]:
    """Turns the Table's refusals raised in the block into :class:`ApiError` s: a rule (409),
    a ``malformed`` action (400), a journal that cannot be written (503), and a Table that did
    not answer in time (503, ``timeout`` says what to check)."""
    try:
        yield
    except IllegalAction as exc:
        raise ApiError(409, str(exc), rule=exc.rule) from None
    except JournalError as exc:
        raise ApiError(503, str(exc)) from None
    except malformed as exc:
        raise ApiError(400, str(exc)) from None
    except TimeoutError:
        raise ApiError(503, timeout) from None


def call(command: Command, table: Table | None = None) -> Any:
    """Send ``command`` to the Table (this app's, unless given: a live stream runs outside the
    request); its refusals become answers that say what to fix."""
    with table_refusals("the table is not answering; is the companion running?"):
        return (table or current_context().table).call(command)


def applied(events: list[dict[str, Any]]) -> Response:
    """The answer to an action the Table applied: its events and the state's new version."""
    state = current_context().table.state()
    return jsonify(
        {"events": events, "version": state["version"], "action_count": state["action_count"]}
    )
