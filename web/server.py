"""Serving the app: werkzeug's threaded server in a background thread.

One thread per connection suits a table (a handful of phones, each with one live stream);
the open streams are capped by :func:`web.app.create_app`'s ``max_streams``.
The default host is the loopback address: listening on the network is the caller's explicit
choice (``host="0.0.0.0"``), so a game is not exposed on a shared Wi-Fi by accident.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
from flask import Flask
from werkzeug.serving import make_server

from companion.table import Table
from web.app import create_app

if TYPE_CHECKING:
    from companion.host import TableHost

log = logging.getLogger(__name__)


class WebServer:
    """Serve ``app`` on ``host``:``port`` (0: a free port) until :meth:`close`.

    >>> from flask import Flask
    >>> server = WebServer(Flask("x"))
    >>> server.url.startswith("http://127.0.0.1:")
    True
    >>> server.close()
    """

    def __init__(self, app: Flask, host: str = "127.0.0.1", port: int = 0):
        try:
            self._server = make_server(host, port, app, threaded=True)
        except OSError as exc:
            raise OSError(f"cannot listen on {host}:{port} ({exc.strerror or exc})") from None
        except SystemExit:
            # werkzeug exits the process when the port is taken (after saying so on stderr):
            # a library must not, so this becomes the error the CLI reports.
            raise OSError(f"cannot listen on {host}:{port} (the port is in use)") from None
        self.host = host
        self.port = self._server.server_port
        #: the table code of the page served (set by :func:`serve_table`)
        self.table_code = ""
        shown = f"[{host}]" if ":" in host else host
        self.url = f"http://{shown}:{self.port}"
        self._thread = threading.Thread(
            target=self._server.serve_forever, name="web-server", daemon=True
        )
        self._thread.start()
        log.info("web page at %s", self.url)

    def close(self, timeout: float = 5.0) -> None:
        """Stop accepting requests; open live streams end when their table stops."""
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout)


def serve_table(
    table: Table,
    host: str = "127.0.0.1",
    port: int = 0,
    table_code: str | None = None,
    camera: Callable[[], np.ndarray | None] | None = None,
    camera_link: Any = None,
    camera_view: Callable[[], bytes | None] | None = None,
) -> WebServer:
    """The page of ``table`` served on ``host``:``port``; its table code is ``.table_code``.

    ``camera`` returns the camera's latest frame (BGR) for the calibration wizard, if any;
    ``camera_link`` (companion.camera_link.CameraLink) lets the page confirm what it saw.
    """
    app = create_app(
        table,
        table_code=table_code,
        camera=camera,
        camera_link=camera_link,
        camera_view=camera_view,
    )
    server = WebServer(app, host, port)
    server.table_code = app.extensions["catan"].table_code
    return server


def host_page(host: str = "127.0.0.1", port: int = 0) -> Callable[[TableHost], WebServer]:
    """What starts the page of a :class:`companion.host.TableHost` (its ``web``): the page of
    its table on ``host``:``port``, with its camera's frames, proposals and view."""

    def start(h: TableHost) -> WebServer:
        return serve_table(
            h.table,
            host,
            port,
            camera=h.latest_frame,
            camera_link=h.camera_link,
            camera_view=h.camera_view,
        )

    return start
