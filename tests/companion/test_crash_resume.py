"""kill -9 at random moments: nothing the page was told is lost, nothing is applied twice."""

import json
import random
import signal
import urllib.request

from demo_process import DEADLINE, start_demo

from companion.actions import action_to_json
from companion.journal import JournaledGame

KILLS = 50


def test_fifty_kill_9_and_restart_cycles_lose_and_repeat_nothing(tmp_path):
    rng = random.Random(50)
    games = 1
    journal = tmp_path / f"game{games}.sqlite"
    known: list[dict] = []  # the journal's actions at the last restart
    kills = total = 0
    while kills < KILLS:
        cycle = kills
        # Without the demo camera: the kills test the journal, and 50 starts stay quick.
        proc, url = start_demo(journal, "--seed", "7", "--speed", "400", "--no-camera")
        try:
            with urllib.request.urlopen(url + "api/state", timeout=DEADLINE) as r:
                state = json.load(r)
            # The restarted table starts from the journal (its players may already have moved).
            assert state["action_count"] >= len(known), f"cycle {cycle}"
            if state["winner"] is not None:  # that game is over: go on with a new one
                games += 1
                journal, known = tmp_path / f"game{games}.sqlite", []
                continue
            told = len(known)  # the highest action count the page has been shown
            updates, wanted = 0, rng.randint(1, 25)
            stream = urllib.request.urlopen(url + "api/events", timeout=DEADLINE)
            for raw in stream:
                if raw.startswith(b"data:"):
                    shown = json.loads(raw[5:]).get("state", {})
                    told = max(told, shown.get("action_count", 0))
                    updates += 1
                    if updates >= wanted or shown.get("winner"):
                        break
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=DEADLINE)
        kills += 1
        jg = JournaledGame.open(journal)
        assert jg.damage is None, f"cycle {cycle}: {jg.damage}"
        history = [action_to_json(a) for a in jg.history]
        jg.close()
        # Every action the page was shown had been journaled before it was sent...
        assert len(history) >= told, f"cycle {cycle}: the page saw {told}, journal {len(history)}"
        # ...and the game went on from exactly where it was: nothing lost, nothing repeated.
        assert history[: len(known)] == known, f"cycle {cycle}: the journal's past changed"
        total += len(history) - len(known)
        known = history
    assert total > 300  # the kills fell throughout real games
