"""The journal: reopening, undo, and recovery from every kind of damage up to the damage."""

import json
import random
import shutil
import sqlite3
from pathlib import Path

import pytest
from conftest import PLAYERS, fixed_board, play_random

from companion.actions import Action, BuildSettlement, EndTurn, action_to_json
from companion.board import Vertex
from companion.game import Game, IllegalAction
from companion.journal import Journal, JournaledGame, JournalError, game_from_config

STEPS = 160


def _replay(config: dict, actions: list[Action]) -> Game:
    """A fresh game of ``config`` with ``actions`` applied: what a recovery must give."""
    g = game_from_config(config)
    for a in actions:
        g.apply(a)
    return g


def _rows(path: Path) -> list[tuple[int, str]]:
    db = sqlite3.connect(path)
    try:
        return db.execute("SELECT seq, body FROM actions ORDER BY seq").fetchall()
    finally:
        db.close()


@pytest.fixture(scope="module")
def original(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, JournaledGame]:
    """A closed journal of a random game of STEPS actions, and the game that wrote it."""
    path = tmp_path_factory.mktemp("journal") / "game.sqlite"
    jg = JournaledGame.create(path, fixed_board(), PLAYERS, seed=11)
    assert len(play_random(jg, STEPS, seed=4)) == STEPS
    jg.close()
    # the last connection checkpointed the WAL into the main file, which alone now holds it all
    wal = path.with_name(path.name + "-wal")
    assert not wal.exists() or wal.stat().st_size == 0
    return path, jg


@pytest.fixture
def played(original: tuple[Path, JournaledGame], tmp_path: Path) -> tuple[Path, JournaledGame]:
    """A fresh copy of the original journal for one test to damage, and the writing game."""
    path = tmp_path / "game.sqlite"
    shutil.copyfile(original[0], path)
    return path, original[1]


def test_reopening_rebuilds_exactly_the_same_state(played: tuple[Path, JournaledGame]) -> None:
    path, jg = played
    again = JournaledGame.open(path)
    assert again.damage is None
    assert again.history == jg.history
    assert again.game.snapshot() == jg.game.snapshot()


def test_a_reopened_game_plays_on_and_reopens_again(played: tuple[Path, JournaledGame]) -> None:
    path, _ = played
    jg = JournaledGame.open(path)
    play_random(jg, 40, seed=9)
    jg.close()
    again = JournaledGame.open(path)
    assert again.damage is None and len(again.history) == STEPS + 40
    assert again.game.snapshot() == jg.game.snapshot()


def test_every_accepted_action_is_on_disk_before_apply_returns(tmp_path: Path) -> None:
    path = tmp_path / "game.sqlite"
    jg = JournaledGame.create(path, fixed_board(), PLAYERS, seed=2)
    for n in range(1, 30):
        play_random(jg, 1, seed=n)
        # another connection, as after a crash, sees every action already
        assert len(_rows(path)) == n
    before = jg.game.snapshot()
    with pytest.raises(IllegalAction):
        jg.apply(EndTurn("nobody"))
    assert len(_rows(path)) == 29 and jg.game.snapshot() == before
    jg.close()


def test_a_crash_image_taken_while_playing_reopens_complete(tmp_path: Path) -> None:
    # what a pulled plug leaves: the database and its WAL as they are, the writer never closed
    path = tmp_path / "live.sqlite"
    jg = JournaledGame.create(path, fixed_board(), PLAYERS, seed=6)
    play_random(jg, 60, seed=2)
    crash = tmp_path / "crash"
    crash.mkdir()
    for f in tmp_path.glob("live.sqlite*"):
        shutil.copyfile(f, crash / f.name)
    again = JournaledGame.open(crash / "live.sqlite")
    assert again.damage is None and again.history == jg.history
    assert again.game.snapshot() == jg.game.snapshot()
    again.close()
    jg.close()


def test_recorded_outcomes_replay_without_randomness(played: tuple[Path, JournaledGame]) -> None:
    # dice, drawn cards and stolen cards are journaled resolved: the rows carry them
    path, _ = played
    bodies = [json.loads(b) for _, b in _rows(path)]
    rolls = [b for b in bodies if b["type"] == "roll_dice"]
    assert rolls and all(isinstance(b["dice"], list) for b in rolls)
    buys = [b for b in bodies if b["type"] == "buy_development_card"]
    assert all(b["card"] is not None for b in buys)


def test_undo_is_journaled_not_erased(played: tuple[Path, JournaledGame]) -> None:
    path, _ = played
    jg = JournaledGame.open(path)
    before_last = _replay(jg.config, jg.history[:-1]).snapshot()
    last = jg.history[-1]
    assert jg.undo() == last
    assert jg.game.snapshot() == before_last
    rows = _rows(path)
    assert len(rows) == STEPS + 1  # the undone action is still there, plus the undo record
    assert json.loads(rows[-1][1]) == {"type": "undo"}
    assert json.loads(rows[-2][1]) == action_to_json(last)
    jg.close()
    again = JournaledGame.open(path)
    assert again.damage is None
    assert again.game.snapshot() == before_last and len(again.history) == STEPS - 1


def test_undo_then_play_then_reopen(played: tuple[Path, JournaledGame]) -> None:
    path, _ = played
    jg = JournaledGame.open(path)
    jg.undo()
    jg.undo()
    play_random(jg, 10, seed=77)
    jg.close()
    again = JournaledGame.open(path)
    assert again.history == jg.history and again.game.snapshot() == jg.game.snapshot()


def test_nothing_to_undo_is_refused(tmp_path: Path) -> None:
    jg = JournaledGame.create(tmp_path / "g.sqlite", fixed_board(), PLAYERS, seed=1)
    with pytest.raises(IllegalAction):
        jg.undo()
    assert _rows(tmp_path / "g.sqlite") == []
    jg.close()


def _check_recovered(jg: JournaledGame, full: list[Action]) -> None:
    """Everything before the damage is recovered, and the damage is where the history stops."""
    n = len(jg.history)
    assert jg.history == full[:n]
    assert jg.game.snapshot() == _replay(jg.config, full[:n]).snapshot()
    if jg.damage is None:
        assert n == len(full)
    else:
        assert jg.damage.seq == n + 1
        assert f"action {n + 1}" in str(jg.damage)


def test_a_journal_truncated_anywhere_recovers_up_to_the_damage(
    played: tuple[Path, JournaledGame], tmp_path: Path
) -> None:
    path, jg = played
    data = path.read_bytes()
    cuts = sorted(set(range(0, len(data), 997)) | {len(data) - 1, len(data) // 2, 100, 4096})
    partial = 0
    for cut in cuts:
        torn = tmp_path / f"torn-{cut}.sqlite"
        torn.write_bytes(data[:cut])
        try:
            again = JournaledGame.open(torn)
        except JournalError as exc:
            assert str(torn) in str(exc)  # the set-up itself is gone: a clear error
            continue
        _check_recovered(again, jg.history)
        partial += again.damage is not None and len(again.history) > 0
        again.close()
    assert partial > 0  # some cuts do keep a prefix of the game


@pytest.mark.parametrize("fraction", [0.3, 0.55, 0.8, 0.9, 0.97])
def test_play_goes_on_after_a_torn_journal(
    played: tuple[Path, JournaledGame], fraction: float
) -> None:
    path, jg = played
    data = path.read_bytes()
    path.write_bytes(data[: int(len(data) * fraction)])
    torn = JournaledGame.open(path)
    assert torn.damage is not None
    kept = list(torn.history)
    aside = torn.continue_after_damage()
    assert aside is not None and aside.read_bytes() == data[: int(len(data) * fraction)]
    more = play_random(torn, 20, seed=5)
    torn.close()
    again = JournaledGame.open(path)
    assert again.damage is None
    assert again.history[: len(kept)] == kept == jg.history[: len(kept)]
    assert len(again.history) == len(kept) + len(more)
    assert again.game.snapshot() == torn.game.snapshot()


def _flip_in_row(path: Path, seq: int, body: str) -> None:
    """Flip one bit of a character in the middle of row ``seq``'s body, in the file's bytes."""
    data = bytearray(path.read_bytes())
    at = data.find(body.encode())
    assert at >= 0 and data.find(body.encode(), at + 1) < 0, "the row body is not unique"
    i = at + len(body) // 2
    data[i] ^= 0x01
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("seq", [1, 2, 57, STEPS // 2, STEPS])
def test_a_flipped_byte_in_a_row_is_found_at_that_row(
    played: tuple[Path, JournaledGame], seq: int
) -> None:
    path, jg = played
    rows = dict(_rows(path))
    # a body that occurs once in the file (end_turn rows repeat: take the nearest unique one)
    target = next(
        s for s in range(seq, STEPS + 1) if path.read_bytes().count(rows[s].encode()) == 1
    )
    _flip_in_row(path, target, rows[target])
    again = JournaledGame.open(path)
    assert again.damage is not None and again.damage.seq == target
    _check_recovered(again, jg.history)


def test_a_flipped_byte_anywhere_loses_nothing_before_the_damage(
    played: tuple[Path, JournaledGame], tmp_path: Path
) -> None:
    # page headers, cell pointers, keys, checksums, times: wherever the flip lands, the game is
    # either refused as a whole (set-up unreadable) or recovered exactly up to the damage
    path, jg = played
    data = path.read_bytes()
    chooser = random.Random(8)
    for i, at in enumerate(sorted(chooser.sample(range(100, len(data)), 80))):
        flipped = bytearray(data)
        flipped[at] ^= 1 << chooser.randrange(8)
        copy = tmp_path / f"flip-{i}.sqlite"
        copy.write_bytes(bytes(flipped))
        try:
            again = JournaledGame.open(copy)
        except JournalError:
            continue
        _check_recovered(again, jg.history)
        again.close()


def test_a_deleted_row_is_reported_missing(played: tuple[Path, JournaledGame]) -> None:
    path, jg = played
    db = sqlite3.connect(path)
    with db:
        db.execute("DELETE FROM actions WHERE seq = 42")
    db.close()
    again = JournaledGame.open(path)
    assert again.damage is not None and again.damage.seq == 42
    assert "missing" in again.damage.reason
    _check_recovered(again, jg.history)


def test_a_row_the_engine_refuses_is_damage_at_that_row(
    played: tuple[Path, JournaledGame],
) -> None:
    path, jg = played
    raw, _ = Journal.open_raw(path)
    for _ in raw.rows():  # position the writer after the last row
        pass
    # a settlement on a corner off the island, with a valid checksum: not written by the engine
    raw.append(action_to_json(BuildSettlement("red", Vertex(9, 9, "N"))))
    raw.append(action_to_json(EndTurn("red")))
    raw.close()
    again = JournaledGame.open(path)
    assert again.damage is not None and again.damage.seq == STEPS + 1
    assert "refused by the rules" in again.damage.reason
    _check_recovered(again, jg.history)


@pytest.mark.parametrize(
    "record",
    [{"type": "fly", "player": "red"}, {"type": "end_turn"}, {"no type": 1}],
    ids=["unknown type", "missing field", "no type"],
)
def test_an_unreadable_record_is_damage_at_that_row(
    played: tuple[Path, JournaledGame], record: dict
) -> None:
    path, jg = played
    raw, _ = Journal.open_raw(path)
    for _ in raw.rows():
        pass
    raw.append(record)
    raw.close()
    again = JournaledGame.open(path)
    assert again.damage is not None and again.damage.seq == STEPS + 1
    assert "invalid record" in again.damage.reason
    _check_recovered(again, jg.history)


def test_an_undo_of_nothing_is_damage(tmp_path: Path) -> None:
    path = tmp_path / "g.sqlite"
    JournaledGame.create(path, fixed_board(), PLAYERS, seed=1).close()
    raw, _ = Journal.open_raw(path)
    raw.append({"type": "undo"})
    raw.close()
    again = JournaledGame.open(path)
    assert again.damage is not None and again.damage.seq == 1 and again.history == []


def test_after_damage_play_waits_until_the_damaged_rows_are_dropped(
    played: tuple[Path, JournaledGame],
) -> None:
    path, jg = played
    db = sqlite3.connect(path)
    with db:
        db.execute("DELETE FROM actions WHERE seq = 100")
    db.close()
    again = JournaledGame.open(path)
    assert again.damage is not None
    before = again.game.snapshot()
    legal = again.game.legal_actions()[0]
    with pytest.raises(JournalError):
        again.apply(legal)
    assert again.game.snapshot() == before
    assert len(_rows(path)) == STEPS - 1  # reading alone destroyed nothing
    aside = again.continue_after_damage()
    assert len(_rows(path)) == 99
    assert aside is not None and len(_rows(aside)) == STEPS - 1  # set aside, not destroyed
    play_random(again, 5, seed=3)
    again.close()
    final = JournaledGame.open(path)
    assert final.damage is None and len(final.history) == 99 + 5
    assert final.history[:99] == jg.history[:99]
    assert final.game.snapshot() == again.game.snapshot()


def test_a_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(JournalError, match="no such journal"):
        JournaledGame.open(tmp_path / "nothing.sqlite")
    with pytest.raises(JournalError, match="no such journal"):
        JournaledGame.open(tmp_path)  # a directory


@pytest.mark.parametrize(
    "content",
    [b"", b"hello, I am a text file\n" * 50, bytes(range(256)) * 20],
    ids=["empty", "text", "binary"],
)
def test_a_file_that_is_not_a_journal_is_a_clear_error(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "x.sqlite"
    path.write_bytes(content)
    with pytest.raises(JournalError, match=r"x\.sqlite"):
        JournaledGame.open(path)


def test_another_sqlite_database_is_not_a_journal(tmp_path: Path) -> None:
    path = tmp_path / "other.sqlite"
    db = sqlite3.connect(path)
    with db:
        db.execute("CREATE TABLE meta (key TEXT, value TEXT)")
        db.execute("INSERT INTO meta VALUES ('format', 'something-else/3')")
    db.close()
    with pytest.raises(JournalError, match="not a Catan Companion journal"):
        JournaledGame.open(path)
    plain = tmp_path / "plain.sqlite"
    db = sqlite3.connect(plain)
    with db:
        db.execute("CREATE TABLE t (x)")
    db.close()
    with pytest.raises(JournalError):
        JournaledGame.open(plain)


def test_a_damaged_set_up_record_is_a_clear_error(played: tuple[Path, JournaledGame]) -> None:
    path, _ = played
    db = sqlite3.connect(path)
    with db:
        body = db.execute("SELECT value FROM meta WHERE key = 'config'").fetchone()[0]
        db.execute(
            "UPDATE meta SET value = ? WHERE key = 'config'", (body.replace('"red"', '"rex"'),)
        )
    db.close()
    with pytest.raises(JournalError, match="set-up record is damaged"):
        JournaledGame.open(path)


def test_a_scrambled_table_definition_is_a_clear_error_not_an_empty_game(
    played: tuple[Path, JournaledGame],
) -> None:
    # with seq no longer the row key, every row would read as having no seq at all
    path, _ = played
    db = sqlite3.connect(path)
    db.execute("PRAGMA writable_schema=ON")
    with db:
        db.execute(
            "UPDATE sqlite_master SET sql = replace(sql, 'seq INTEGER PRIMARY KEY', 'seq INTEGER')"
            " WHERE name = 'actions'"
        )
    db.close()
    with pytest.raises(JournalError, match="table definitions are damaged"):
        JournaledGame.open(path)


def test_creating_over_an_existing_journal_is_refused(
    played: tuple[Path, JournaledGame],
) -> None:
    path, jg = played
    with pytest.raises(JournalError, match="already exists"):
        JournaledGame.create(path, fixed_board(), PLAYERS, seed=1)
    assert JournaledGame.open(path).history == jg.history
