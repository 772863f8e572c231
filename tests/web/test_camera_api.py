"""The camera's proposals on the page: listed, confirmed with a choice, dismissed."""

from __future__ import annotations

import pytest
from web_helpers import CODE, bind, coast_question, make_sea_table, make_table

from web.app import create_app


class FakeLink:
    """What the page needs of a camera link, with one proposal and one discrepancy."""

    def __init__(self) -> None:
        self.items = {
            1: {"id": 1, "text": "the robber moved to (0, 1)", "choices": ["blue", "white"]},
            2: {"id": 2, "text": "a road appeared that red cannot pay for", "fix": "take it back"},
        }
        self.confirmed: list[tuple[int, str | None]] = []

    def pending(self) -> dict:
        return {
            "proposals": [v for v in self.items.values() if "choices" in v],
            "discrepancies": [v for v in self.items.values() if "choices" not in v],
        }

    def confirm(self, item_id: int, choice: str | None = None) -> list:
        item = self.items.get(item_id)
        if item is None or "choices" not in item:
            raise ValueError(f"no camera proposal {item_id} is waiting")
        if choice not in item["choices"]:
            raise ValueError(f"choose one of: {', '.join(item['choices'])} (not {choice!r})")
        self.confirmed.append((item_id, choice))
        del self.items[item_id]
        return []

    def dismiss(self, item_id: int) -> None:
        if self.items.pop(item_id, None) is None:
            raise ValueError(f"nothing with id {item_id} is waiting from the camera")


@pytest.fixture
def camera_app(tmp_path):
    table = make_table(tmp_path / "t.sqlite")
    link = FakeLink()
    app = create_app(table, table_code="CAM123", camera_link=link)
    yield app, link
    table.stop()


def test_proposals_and_discrepancies_are_listed(camera_app):
    app, _ = camera_app
    data = app.test_client().get("/api/proposals").get_json()
    assert [p["id"] for p in data["proposals"]] == [1]
    assert [d["id"] for d in data["discrepancies"]] == [2]


def test_a_bound_player_confirms_with_a_choice_and_dismisses(camera_app):
    app, link = camera_app
    client = app.test_client()
    h = bind(client, "red", "CAM123")
    bad = client.post("/api/proposals/1/confirm", json={"choice": "orange"}, headers=h)
    assert bad.status_code == 400 and "choose one of" in bad.get_json()["error"]
    assert client.post("/api/proposals/9/confirm", json={}, headers=h).status_code == 404
    ok = client.post("/api/proposals/1/confirm", json={"choice": "white"}, headers=h)
    assert ok.status_code == 200 and link.confirmed == [(1, "white")]
    assert client.post("/api/proposals/2/dismiss", json={}, headers=h).status_code == 200
    assert client.post("/api/proposals/2/dismiss", json={}, headers=h).status_code == 404
    assert link.items == {}


def test_spectators_cannot_confirm_and_no_camera_is_said_plainly(camera_app, tmp_path):
    app, link = camera_app
    spectator = app.test_client()
    token = spectator.get("/api/session").get_json()["csrf"]
    r = spectator.post(
        "/api/proposals/1/confirm", json={"choice": "blue"}, headers={"X-CSRF-Token": token}
    )
    assert r.status_code in (401, 403) and link.confirmed == []
    table = make_table(tmp_path / "other.sqlite")
    plain = create_app(table, table_code="CAM124").test_client()
    r = plain.post("/api/proposals/1/dismiss", json={}, headers=bind(plain, "red", "CAM124"))
    assert r.status_code == 409 and "no camera" in r.get_json()["error"]
    table.stop()


def test_the_camera_view_is_shown_on_request_to_players_only(tmp_path):
    import cv2
    import numpy as np

    table = make_table(tmp_path / "v.sqlite")
    frame = np.full((60, 80, 3), 120, np.uint8)
    jpeg = cv2.imencode(".jpg", frame)[1].tobytes()
    app = create_app(table, table_code="CAM125", camera_view=lambda: jpeg)
    client = app.test_client()
    # the test client is not on the loopback of a real socket: an unbound page is refused
    assert (
        client.get("/api/camera.jpg", environ_base={"REMOTE_ADDR": "10.1.2.3"}).status_code == 403
    )
    bind(client, "blue", "CAM125")
    r = client.get("/api/camera.jpg")
    assert r.status_code == 200 and r.mimetype == "image/jpeg" and r.data == jpeg
    none = create_app(table, table_code="CAM126", camera_view=lambda: None).test_client()
    bind(none, "blue", "CAM126")
    assert none.get("/api/camera.jpg").status_code == 404
    table.stop()


def test_a_road_or_ship_question_round_trip(tmp_path) -> None:  # noqa: ANN001
    table = make_sea_table(tmp_path / "sea.sqlite", ["red", "blue"])
    try:
        link, road = coast_question(table)
        client = create_app(table, table_code=CODE, camera_link=link).test_client()
        h = bind(client, "red", CODE)
        (p,) = client.get("/api/proposals").get_json()["proposals"]
        assert p["asks"] == "kind" and p["choices"] == ["road", "ship"] and p["confirm"]
        assert p["action"]["type"] == "build_road"
        bad = client.post(f"/api/proposals/{p['id']}/confirm", json={"choice": "boat"}, headers=h)
        assert bad.status_code == 400 and "choose one of: road, ship" in bad.get_json()["error"]
        assert table.state()["ships"] == []
        ok = client.post(f"/api/proposals/{p['id']}/confirm", json={"choice": "ship"}, headers=h)
        assert ok.status_code == 200
        assert table.state()["ships"] == [{"edge": list(road.edge), "color": "red"}]
        assert client.get("/api/proposals").get_json()["proposals"] == []
    finally:
        table.stop()
