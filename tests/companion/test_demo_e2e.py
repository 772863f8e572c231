"""The demo end to end: a subprocess plays a whole game; the page's score is the journal's."""

import json
import signal
import subprocess
import urllib.request
from pathlib import Path

from demo_process import start_demo

from companion.journal import JournaledGame


def start(tmp_path: Path, *extra: str) -> tuple[subprocess.Popen[str], str]:
    return start_demo(tmp_path / "demo.sqlite", "--seed", "4", *extra)


def state(url: str) -> dict:
    with urllib.request.urlopen(url + "api/state", timeout=10) as response:
        return json.load(response)


def test_the_demo_plays_a_whole_game_and_the_page_agrees_with_the_journal(tmp_path):
    proc, url = start(tmp_path, "--speed", "400")
    try:
        stream = urllib.request.urlopen(url + "api/events", timeout=30)
        # Follow the live stream (no polling sleeps) until the game is over.
        for raw in stream:
            line = raw.decode().strip()
            if line.startswith("data:") and '"won"' in line:
                break
        final = state(url)
        assert final["winner"] is not None
        assert final["turn"] >= 30
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=20) == 0
    replayed = JournaledGame.open(tmp_path / "demo.sqlite")
    game = replayed.game
    assert replayed.damage is None
    assert len(replayed.history) == final["action_count"]
    page_score = {p["color"]: p["victory_points"] for p in final["players"]}
    assert page_score == {c: game.public_victory_points(i) for i, c in enumerate(game.players)}
    assert game.winner_color == final["winner"]
    replayed.close()


def test_a_restarted_demo_continues_the_same_game(tmp_path):
    proc, url = start(tmp_path, "--speed", "50")
    try:
        stream = urllib.request.urlopen(url + "api/events", timeout=30)
        for raw in stream:  # wait for some progress, then stop
            if raw.startswith(b"data:") and b'"turn"' in raw:
                break
        before = state(url)["action_count"]
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=20) == 0
    saved = JournaledGame.open(tmp_path / "demo.sqlite")
    count = len(saved.history)
    snapshot = saved.game.snapshot()
    saved.close()
    assert count >= before
    proc, url = start(tmp_path, "--speed", "0.001")  # resume, and hold still
    try:
        resumed = state(url)
        assert resumed["action_count"] == count
        assert resumed["turn"] == snapshot["turn"] and resumed["current"] == snapshot["current"]
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=20) == 0
