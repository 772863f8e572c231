"""The Table: one owner thread, journal first, fan-out that never blocks."""

import threading

import pytest

from companion.actions import BuildRoad, BuildSettlement, EndTurn
from companion.board import Edge, Vertex
from companion.game import IllegalAction
from companion.journal import JournaledGame
from companion.layouts import random_board
from companion.table import ApplyAction, Inspect, ReportPart, Table, Undo


@pytest.fixture
def table(tmp_path):
    jg = JournaledGame.create(
        tmp_path / "t.sqlite", random_board(4, seed=2), ["red", "blue"], seed=1
    )
    t = Table(jg, subscriber_queue=4)
    t.start()
    yield t
    t.stop()


def test_an_applied_action_is_journaled_published_and_in_the_state(table, tmp_path):
    sub = table.subscribe()
    events = table.call(ApplyAction(BuildSettlement("red", Vertex(0, 0, "N"))))
    assert events[0]["type"] == "built"
    update = sub.get(timeout=5)
    assert update["events"] == events and update["source"] == "web"
    assert table.state()["action_count"] == 1
    assert table.state()["version"] == update["version"]
    # on disk already: a second reader sees it
    again = JournaledGame.open(tmp_path / "t.sqlite")
    assert len(again.history) == 1
    again.close()


def test_a_refusal_reaches_the_caller_and_changes_nothing(table):
    sub = table.subscribe()
    before = table.state()
    with pytest.raises(IllegalAction) as err:
        table.call(ApplyAction(EndTurn("red")))
    assert err.value.rule == "1.4.1"
    assert table.state() is before
    assert sub.get(timeout=0.05) is None


def test_undo_is_published_and_restores_the_state(table):
    table.call(ApplyAction(BuildSettlement("red", Vertex(0, 0, "N"))))
    table.call(ApplyAction(BuildRoad("red", Edge(0, 0, "NE"))))
    table.call(Undo())
    state = table.state()
    assert state["action_count"] == 1 and state["roads"] == []
    assert state["journal_length"] == 3  # two actions and the undo record


def test_commands_from_many_threads_are_serialised(table):
    # Both players race to claim corners in the founding phase; exactly the legal ones win.
    results: list[object] = []

    def claim(v: Vertex) -> None:
        try:
            results.append(table.call(ApplyAction(BuildSettlement("red", v))))
        except IllegalAction as exc:
            results.append(exc)

    threads = [threading.Thread(target=claim, args=(Vertex(0, 0, "N"),)) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sum(isinstance(r, list) for r in results) == 1
    assert table.call(Inspect(lambda g: g.actions_applied)) == 1


def test_a_slow_subscriber_lags_but_never_blocks_the_owner(table):
    slow = table.subscribe()
    for i in range(10):
        table.call(ReportPart("camera", up=bool(i % 2), detail=f"frame {i}"))
    assert slow.lagged
    kept = [slow.get(timeout=1) for _ in range(4)]
    assert [k["parts"]["camera"]["detail"] for k in kept] == [f"frame {i}" for i in range(6, 10)]
    assert table.state()["parts"]["camera"] == {"up": True, "detail": "frame 9"}


def test_a_closed_subscription_stops_receiving(table):
    sub = table.subscribe()
    sub.close()
    table.call(ReportPart("tower", up=False, detail="unplugged"))
    assert sub.get(timeout=0.01) is None
