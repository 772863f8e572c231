"""The pages: one live page for every device, built on the JSON API.

The same page serves the big screen, the players' phones and spectators: what it shows and
which controls it offers follow from ``/api/session`` (who this device is bound to).
"""

from __future__ import annotations

from flask import Blueprint, render_template

pages = Blueprint("pages", __name__, template_folder="templates", static_folder="static",
                  static_url_path="/static")  # fmt: skip


@pages.get("/")
def index() -> str:
    return render_template("index.html")
