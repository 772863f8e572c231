"""Browser tests: the page in Debian's chromium, driven by Playwright.

Two phones (browser contexts bound to red and blue) and a spectator on a big screen play a short
game through the page: the founding phase by tapping the board (and once by keyboard), a 7
with the robber and a steal, a production roll, a refused trade, an undo. Screenshots at
360 px and 1920 px go to artifacts/web/ (gitignored). A second test measures the latency from
the Table publishing an update to the page showing it.
"""

from __future__ import annotations

import json
import os
import statistics
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from web_helpers import CODE, inspect, make_table

from companion.actions import BuildSettlement
from companion.game import Game
from companion.table import ApplyAction, Table, Undo
from web.app import create_app
from web.server import WebServer

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts" / "web"
PHONE = {"width": 360, "height": 740}
SCREEN = {"width": 1920, "height": 1080}
#: Generous bound for the page to catch up with the table (a sanity bound, not a benchmark).
WAIT_MS = 10_000

sync_api = pytest.importorskip(
    "playwright.sync_api", reason="playwright is not installed (pip install playwright)"
)
pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason="Debian's chromium is not installed at /usr/bin/chromium"
)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Table, WebServer]]:
    table = make_table(tmp_path / "game.sqlite", players=["red", "blue"])
    server = WebServer(create_app(table, table_code=CODE, heartbeat=5.0))
    yield table, server
    server.close()
    table.stop()


class Device:
    """One browser context: a phone or the big screen, with its page's errors collected."""

    def __init__(self, browser: Any, url: str, viewport: dict[str, int], scheme: str = "light"):
        self.context = browser.new_context(viewport=viewport, color_scheme=scheme)
        self.page = self.context.new_page()
        self.page.set_default_timeout(WAIT_MS)
        self.errors: list[str] = []
        #: requests the API refused (the browser logs them; the page shows their message)
        self.refusals: list[str] = []
        self.page.on("pageerror", lambda exc: self.errors.append(str(exc)))
        self.page.on("console", self._console)
        self.page.goto(url + "/")
        self.page.wait_for_selector(".player")

    def _console(self, message: Any) -> None:
        if message.type != "error":
            return
        if "server responded with a status of 4" in message.text:
            self.refusals.append(message.text)
        else:
            self.errors.append(message.text)

    def bind(self, player: str) -> None:
        self.page.fill("#bind-code", CODE.lower())
        self.page.select_option("#bind-player", player)
        self.page.get_by_role("button", name="Join as this player", exact=True).click()
        self.page.wait_for_selector("#bound:not([hidden])")

    def wait_version(self, version: int) -> None:
        self.page.wait_for_function("v => Number(document.body.dataset.version) >= v", arg=version)

    def shot(self, name: str) -> Path:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        path = ARTIFACTS / f"{name}.png"
        self.page.screenshot(path=str(path), full_page=True)
        return path

    def close(self) -> None:
        self.context.close()


def _version(table: Table) -> int:
    return table.state()["version"]


def _best_corner(game: Game) -> str:
    """The legal founding corner with the most production (so both players get cards)."""
    t = game.topology

    def pips(v: Any) -> int:
        hexes = t.vertex_hexes[t.vertex_index[v]]
        numbers = [game.board.tiles[t.hexes[h]].number for h in hexes]
        return sum(6 - abs(7 - n) for n in numbers if n)

    best = max((a.vertex for a in game.legal_actions()), key=pips)
    return ",".join(map(str, best))


def _producing_dice(game: Game) -> tuple[int, int]:
    """Dice whose total produces for somebody (a numbered hex next to a building, no robber)."""
    t = game.topology
    for v, owner in enumerate(game.vertex_owner):
        if owner < 0:
            continue
        for h in t.vertex_hexes[v]:
            number = game.board.tiles[t.hexes[h]].number
            if number and number != 7 and h != game.robber:
                return (min(6, number - 1), number - min(6, number - 1))
    raise AssertionError("no building touches a numbered hex")


def test_a_short_game_on_two_phones_and_a_big_screen(
    browser: Any, served: tuple[Table, WebServer]
) -> None:
    table, server = served
    screen = Device(browser, server.url, SCREEN, scheme="dark")
    phones = {c: Device(browser, server.url, PHONE) for c in ("red", "blue")}
    for color, phone in phones.items():
        phone.bind(color)
    screen.page.wait_for_selector("#code-banner:not([hidden])")
    assert screen.page.text_content("#table-code") == CODE
    screen.shot("screen-1920-before")

    # Founding: the current player's phone taps a highlighted corner (the richest), then a
    # side. The very first settlement is placed from the keyboard (focus a spot, Enter).
    first = True
    while (state := table.state())["phase"].startswith("founding"):
        phone = phones[state["current"]]
        if state["phase"] == "founding_settlement":
            spot = f'circle.spot[data-key="{inspect(table, _best_corner)}"]'
        else:
            spot = "line.spot-edge >> nth=0"
        phone.page.wait_for_selector(f"#board-spots {spot}")
        if first:
            phone.page.focus(f"#board-spots {spot}")
            phone.page.keyboard.press("Enter")
            first = False
        else:
            phone.page.click(f"#board-spots {spot}")
        screen.wait_version(state["version"] + 1)
    assert table.state()["action_count"] == 8
    assert screen.page.locator("#board-dynamic path.building").count() == 4
    assert screen.page.locator("#board-dynamic line.road").count() == 4
    phones["red"].shot("phone-360-red-founded")

    # A 7 entered from the table's dice: red moves the robber onto blue and robs them.
    red, blue = phones["red"].page, phones["blue"].page
    red.select_option("#die-1", "3")
    red.select_option("#die-2", "4")
    red.get_by_role("button", name="Enter roll", exact=True).click()
    red.wait_for_selector("#robber-hex")
    target = inspect(
        table,
        lambda g: next(
            list(a.hex) for a in g.legal_actions() if getattr(a, "victim", None) == "blue"
        ),
    )
    before = {p["color"]: p["resource_count"] for p in table.state()["players"]}
    version = _version(table)
    red.select_option("#robber-hex", ",".join(map(str, target)))
    red.select_option("#robber-victim", "blue")
    red.get_by_role("button", name="Move the robber", exact=True).click()
    screen.wait_version(version + 1)
    after = {p["color"]: p["resource_count"] for p in table.state()["players"]}
    assert after == {"red": before["red"] + 1, "blue": before["blue"] - 1}
    blue_card = screen.page.locator('.player[data-color="blue"] .facts b').first
    assert blue_card.text_content() == str(after["blue"])
    # The stolen card is known to the thief and the victim, not to the screen.
    phones["red"].wait_version(version + 1)
    phones["blue"].wait_version(version + 1)
    assert "robbed Blue (1 " in red.text_content("#log")
    assert "robbed Blue (1 " in blue.text_content("#log")
    assert "robbed Blue" in screen.page.text_content("#log")
    assert "robbed Blue (1 " not in screen.page.text_content("#log")

    version = _version(table)
    red.get_by_role("button", name="End turn", exact=True).click()
    screen.wait_version(version + 1)

    # Blue enters a roll that produces: the screen highlights the producing hexes and says who
    # got what.
    dice = inspect(table, _producing_dice)
    blue.wait_for_selector("#die-1")
    blue.select_option("#die-1", str(dice[0]))
    blue.select_option("#die-2", str(dice[1]))
    version = _version(table)
    blue.get_by_role("button", name="Enter roll", exact=True).click()
    screen.wait_version(version + 1)
    assert screen.page.locator("#board-dynamic .hex-glow").count() >= 1
    assert " got " in screen.page.text_content("#last-roll")
    assert screen.page.locator("#histogram-bars rect.bar").count() == 11

    # A trade the engine refuses is reported on the phone and changes nothing.
    blue.wait_for_selector("details.control summary")
    blue.click("details.control summary")
    blue.fill("#trade-give-ore", "9")
    blue.fill("#trade-get-wool", "1")
    count = table.state()["action_count"]
    blue.get_by_role("button", name="Trade (both agreed)", exact=True).click()
    blue.wait_for_function("document.getElementById('message').textContent.includes('rule')")
    assert "does not hold" in blue.text_content("#message")
    assert table.state()["action_count"] == count

    # Undo takes the roll back (journaled); the screen follows.
    version = _version(table)
    blue.get_by_role("button", name="Undo last action", exact=True).click()
    screen.wait_version(version + 1)
    assert table.state()["phase"] == "roll" and table.state()["action_count"] == count - 1
    assert "Blue to roll" in screen.page.text_content("#turn-line")
    assert "Undone" in screen.page.text_content("#log")

    # The spectator sees no controls and no cards.
    assert screen.page.is_visible("#bind-form")
    assert not screen.page.is_visible("#bound")
    assert not screen.page.is_visible("#you-panel")
    assert screen.page.locator("#board-spots *").count() == 0

    phones["blue"].shot("phone-360-blue")
    screen.shot("screen-1920")
    light = Device(browser, server.url, SCREEN, scheme="light")
    light.shot("screen-1920-light")
    assert phones["blue"].refusals == [
        "Failed to load resource: the server responded with a status of 409 (CONFLICT)"
    ]
    for device in (screen, light, *phones.values()):
        assert device.errors == []
        device.close()


def test_event_to_dom_latency(browser: Any, served: tuple[Table, WebServer]) -> None:
    """Median time from the Table publishing an update to the page's DOM showing it."""
    table, server = served
    screen = Device(browser, server.url, SCREEN)
    phone = Device(browser, server.url, PHONE)
    phone.bind("red")
    record = """() => {
        window.rendered = {};
        new MutationObserver(() => {
            window.rendered[document.body.dataset.version] = Date.now();
        }).observe(document.body, {attributes: true, attributeFilter: ["data-version"]});
    }"""
    for device in (screen, phone):
        device.page.evaluate(record)
    sub = table.subscribe()
    published: dict[int, float] = {}
    spot = inspect(table, lambda g: g.legal_actions()[0])
    assert isinstance(spot, BuildSettlement)
    for i in range(40):
        table.call(ApplyAction(spot, source="bench") if i % 2 == 0 else Undo(source="bench"))
        update = sub.get(timeout=5)
        assert update is not None
        published[update["version"]] = update["at"] * 1000.0
        for device in (screen, phone):
            device.wait_version(update["version"])
    sub.close()
    result = {}
    for name, device in (("spectator", screen), ("player", phone)):
        rendered = device.page.evaluate("() => window.rendered")
        latencies = [rendered[str(v)] - at for v, at in published.items() if str(v) in rendered]
        assert len(latencies) >= 30  # a few updates may be merged into one render
        result[name] = {
            "updates": len(latencies),
            "median_ms": round(statistics.median(latencies), 1),
            "max_ms": round(max(latencies), 1),
        }
        assert result[name]["median_ms"] < WAIT_MS  # sanity only: speed is in the docs
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / "latency.json").write_text(json.dumps(result, indent=2) + "\n")
    print(f"\nevent-to-DOM latency (cpus={os.cpu_count()}): {json.dumps(result)}")
    for device in (screen, phone):
        assert device.errors == []
        device.close()
