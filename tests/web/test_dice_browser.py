"""The dice game's page in Debian's chromium, driven by Playwright.

A phone bound to ann plays a whole turn by tapping: roll, hold five dice, roll the free one,
exchange two gold, build a knight and a road, end the turn; a phone bound to ben enters real
dice he threw and ends a turn without building (the -2). The big screen, a spectator, follows
both. The rolls come from a stand-in tower that throws known faces, so what the page must show
is known. Ann's second turn uses a joker for a city.
Screenshots at 360 px and 1920 px go to artifacts/web/ (gitignored).
"""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import pytest
from web_helpers import (
    CODE,
    NEEDS_CHROMIUM,
    PHONE,
    SCREEN,
    BrowserDevice,
    browser_fixture,  # noqa: F401  (a fixture, used by name)
    finish,
)

from companion.dice_table import JournaledDiceGame, RollFree
from companion.dicegame import BASIC_SHEET, PENALTY, Build, EndTurn
from companion.table import ApplyAction, Table
from web.dice_api import create_dice_app
from web.server import WebServer

pytestmark = NEEDS_CHROMIUM

#: What the stand-in tower throws, in order (six faces a throw, by die position).
THROWS = [
    ["gold", "gold", "ore", "wool", "grain", "brick"],
    ["ore", "ore", "ore", "ore", "ore", "lumber"],  # only die 6 is free
    ["ore", "ore", "wool", "grain", "grain", "lumber"],  # ann's second turn
]


class StandInTower:
    """Throws the faces of THROWS in turn for whoever rolls (the page's roll button)."""

    def __init__(self, table: Table):
        self.table = table
        self.throws = [tuple(t) for t in THROWS]

    def __call__(self, player: str, source: str) -> Future[Any]:
        return self.table.post(ApplyAction(RollFree(player, "tower", self.throws.pop(0)), source))


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Table, WebServer]]:
    table = Table(JournaledDiceGame.create(tmp_path / "dice.sqlite", ["ann", "ben"]))
    table.start()
    server = WebServer(create_dice_app(table, StandInTower(table), table_code=CODE))
    yield table, server
    server.close()
    table.stop()


class Device(BrowserDevice):
    """The dice game's page on a phone or the big screen."""

    def __init__(self, browser: Any, url: str, viewport: dict[str, int]):
        super().__init__(browser, url, viewport, ".sheet")

    def wait_version(self, version: int) -> None:
        """Until the page shows the Table's update ``version`` and its controls follow it."""
        self.page.wait_for_function(
            """v => Number(document.body.dataset.version) >= v
                 && Number(document.getElementById('controls').dataset.version) >= v""",
            arg=version,
        )

    def click(self, name: str) -> None:
        self.page.get_by_role("button", name=name).click()

    def die(self, i: int) -> Any:
        return self.page.locator(f'#dice button[data-die="{i}"]')


def tap(device: Device, table: Table, name: str) -> None:
    """Tap the button ``name`` and wait until the page shows what it did (one update)."""
    before = table.state()["version"]
    device.click(name)
    device.wait_version(before + 1)


def test_a_turn_played_by_tapping_and_followed_on_the_big_screen(browser: Any, served) -> None:
    table, server = served
    screen = Device(browser, server.url, SCREEN)
    ann = Device(browser, server.url, PHONE)
    ann.bind("ann")
    ann.wait_version(0)

    tap(ann, table, "Roll dice")
    faces = [ann.die(i).locator("b").inner_text().lower() for i in range(6)]
    assert faces == THROWS[0]

    for i in (0, 1, 2, 3, 4):  # hold everything but the brick
        before = table.state()["version"]
        ann.die(i).click()
        ann.wait_version(before + 1)
        assert ann.page.locator("#dice .die.held").count() == i + 1
    assert table.state()["dice"]["held"] == [0, 1, 2, 3, 4]
    tap(ann, table, "Roll the free die")
    faces = [ann.die(i).locator("b").inner_text().lower() for i in range(6)]
    assert faces == [*THROWS[0][:5], "lumber"]  # the held dice kept their faces

    ann.page.select_option("#gold-resource", "brick")
    tap(ann, table, "Exchange")
    tap(ann, table, "Build knight 1")
    tap(ann, table, "Build road 1")
    assert "spent" in ann.die(0).get_attribute("class").split()
    assert "void" in ann.die(1).get_attribute("class").split()
    tap(ann, table, "End turn")
    ann.shot("dice-phone")

    ben = Device(browser, server.url, PHONE)
    ben.bind("ben")
    ben.page.get_by_text("Rolled real dice? Enter them").click()
    for i in range(6):
        ben.page.select_option(f'select[data-manual="{i}"]', "gold")
    tap(ben, table, "Enter these dice")
    assert [ben.die(i).locator("b").inner_text().lower() for i in range(6)] == ["gold"] * 6
    assert table.jgame.history[-1]["source"] == "manual"
    tap(ben, table, "End turn (scores −2)")

    screen.wait_version(table.state()["version"])
    first = BASIC_SHEET.knight_values[0] + BASIC_SHEET.road_value  # what ann built
    sheets = screen.page.locator(".sheet")
    ann_sheet, ben_sheet = sheets.nth(0), sheets.nth(1)
    assert ann_sheet.locator(".score").inner_text().split()[0] == str(first)
    assert ann_sheet.locator(".track li").first.inner_text() == str(first)
    assert ann_sheet.locator(".knight.built").count() == 1
    assert ann_sheet.locator("line.road.built").count() == 2  # the start road and road 1
    assert ben_sheet.locator(".track li.minus").first.inner_text() == str(PENALTY)
    assert screen.page.locator("#turn-line").inner_text() == "Round 2 of 15: Ann rolls 6 dice"

    # Knight 1's ore joker turns the lumber into the third ore of a city.
    tap(ann, table, "Roll dice")
    ann.page.select_option("#joker-pick", "0")
    ann.page.select_option("#joker-die", "5")
    tap(ann, table, "Use joker")
    assert ann.die(5).locator("b").inner_text().lower() == "ore"
    tap(ann, table, "Build city 7")
    tap(ann, table, "End turn")
    screen.wait_version(table.state()["version"])
    second = BASIC_SHEET.city_values[0]
    assert ann_sheet.locator(".score").inner_text().split()[0] == str(first + second)
    assert ann_sheet.locator(".track li").nth(1).inner_text() == str(second)
    assert ann_sheet.locator(".joker.used").count() == 1
    assert screen.page.locator("#table-code").inner_text() == CODE
    screen.shot("dice-big-screen")
    finish(screen, ann, ben)


def test_the_big_screen_shows_the_plus_ramp_and_bonuses(browser: Any, tmp_path: Path) -> None:
    table = Table(JournaledDiceGame.create(tmp_path / "plus.sqlite", ["ann", "ben"], "plus"))
    table.start()
    server = WebServer(create_dice_app(table, table_code=CODE))
    try:
        screen = Device(browser, server.url, SCREEN)
        assert screen.page.locator("#ramp li.now").inner_text() == "turn 1: 3 dice"
        turns = [  # the ramp's first turns, moved forward from Python; ben's 3 knights
            ("ann", ("brick", "lumber", "gold"), [("road", 1)]),
            ("ben", ("ore", "wool", "grain", "gold"), [("knight", 0)]),
            ("ann", ("brick", "lumber", "wool", "grain", "gold"), [("settlement", 0)]),
            ("ben", ("ore", "wool", "grain") * 2, [("knight", 1), ("knight", 2)]),
        ]
        for who, faces, builds in turns:
            table.call(ApplyAction(RollFree(who, "manual", faces)))
            for piece, index in builds:
                table.call(ApplyAction(Build(who, piece, index)))
            table.call(ApplyAction(EndTurn(who)))
        screen.wait_version(table.state()["version"])
        assert screen.page.locator("#ramp li.now").inner_text() == "turn 4+: 6 dice"
        ben_sheet = screen.page.locator('.sheet[data-player="ben"]')
        assert ben_sheet.locator(".badge").inner_text() == "Largest Army +2"
        assert ben_sheet.locator(".score").inner_text().split()[:3] == ["2", "of", "10"]
        screen.shot("dice-plus-big-screen")
        assert screen.errors == []
        screen.close()
    finally:
        server.close()
        table.stop()
