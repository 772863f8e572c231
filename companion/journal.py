"""The journal: every accepted action, in SQLite, written before anyone is told about it.

A journal file holds the game's set-up (board, players, rules) and then one row per accepted
action, each with a CRC chained to the row before it. Reopening replays the rows through the
engine and rebuilds exactly the same state; damage (a torn file, flipped bytes, a row the engine
refuses) is reported with its position, and everything before it is recovered.

>>> import tempfile, os
>>> from companion.layouts import random_board
>>> path = os.path.join(tempfile.mkdtemp(), "game.sqlite")
>>> jg = JournaledGame.create(path, random_board(4, seed=1), ["red", "blue", "white"], seed=5)
>>> _ = jg.apply(jg.game.legal_actions()[0])
>>> jg.close()
>>> again = JournaledGame.open(path)
>>> again.game.snapshot() == jg.game.snapshot(), again.damage
(True, None)
"""

from __future__ import annotations

import json
import logging
import sqlite3
import time
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.actions import Action, ActionError, action_from_json, action_to_json
from companion.board import Board, BoardError
from companion.game import Event, Game, IllegalAction, RandomSource, Rules

log = logging.getLogger(__name__)

FORMAT = "catan-companion-journal/1"
#: The journal's tables, as created (and checked on opening, whitespace aside).
TABLES = {
    "meta": "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "actions": (
        "CREATE TABLE actions (seq INTEGER PRIMARY KEY, body TEXT NOT NULL, "
        "crc INTEGER NOT NULL, at REAL NOT NULL)"
    ),
}
UNDO = {"type": "undo"}


class JournalError(ValueError):
    """The journal cannot be used at all (no such file, not a journal, header destroyed)."""


@dataclass(frozen=True)
class Damage:
    """Where a journal stops being readable: row ``seq`` (1-based) and why."""

    seq: int
    reason: str

    def __str__(self) -> str:
        return f"journal damaged at action {self.seq}: {self.reason}"


def _squeezed(sql: str | None) -> str:
    return "".join((sql or "").split())


def _crc(seq: int, body: str, previous: int) -> int:
    return zlib.crc32(f"{seq}:{body}".encode(), previous)


class Journal:
    """An append-only SQLite journal (WAL mode, synchronous commits)."""

    def __init__(self, path: str | Path, connection: sqlite3.Connection):
        self.path = Path(path)
        self._db = connection
        self._last_seq = 0
        self._last_crc = 0

    @staticmethod
    def _connect(path: Path) -> sqlite3.Connection:
        db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        # A torn file's header claims more pages than the file holds, and SQLite then refuses
        # all of it; with writable_schema it reads the pages that are left, so the actions on
        # them can be recovered. The journal itself never writes the schema table.
        db.execute("PRAGMA writable_schema=ON")
        db.execute("PRAGMA journal_mode=WAL")
        # FULL: a commit is on disk before append() returns, so a power cut loses nothing
        # that was acknowledged.
        db.execute("PRAGMA synchronous=FULL")
        return db

    @classmethod
    def create(cls, path: str | Path, config: dict[str, Any]) -> Journal:
        p = Path(path)
        if p.exists() and p.stat().st_size > 0:
            raise JournalError(f"{p}: already exists; open it to resume, or choose a new file")
        db = cls._connect(p)
        db.executescript("".join(f"{sql};\n" for sql in TABLES.values()))
        body = json.dumps(config, sort_keys=True)
        with db:
            db.execute("INSERT INTO meta VALUES ('format', ?)", (FORMAT,))
            db.execute("INSERT INTO meta VALUES ('config', ?)", (body,))
            db.execute(
                "INSERT INTO meta VALUES ('config_crc', ?)", (str(zlib.crc32(body.encode())),)
            )
        return cls(p, db)

    @classmethod
    def open_raw(cls, path: str | Path) -> tuple[Journal, dict[str, Any]]:
        """Open an existing journal; return it and its game set-up."""
        p = Path(path)
        if not p.is_file():
            raise JournalError(f"{p}: no such journal file")
        try:
            db = cls._connect(p)
            meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
            tables = dict(db.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table'"))
        except sqlite3.DatabaseError as exc:
            raise JournalError(f"{p}: not a readable journal ({exc})") from None
        if meta.get("format") != FORMAT:
            raise JournalError(
                f"{p}: not a Catan Companion journal (format {meta.get('format')!r})"
            )
        # A scrambled table definition (say, seq no longer the row key) reads as an empty
        # journal rather than failing: refuse it instead of losing the game in silence.
        if any(_squeezed(tables.get(name)) != _squeezed(sql) for name, sql in TABLES.items()):
            raise JournalError(f"{p}: the journal's table definitions are damaged")
        body = meta.get("config", "")
        if str(zlib.crc32(body.encode())) != meta.get("config_crc"):
            raise JournalError(f"{p}: the game set-up record is damaged")
        return cls(p, db), json.loads(body)

    def rows(self) -> Iterator[tuple[int, dict[str, Any] | None, str | None]]:
        """Yield ``(seq, record, error)`` in order; stop after the first damaged row."""
        expected, previous = 1, 0
        while True:
            try:
                row = self._db.execute(
                    "SELECT seq, body, crc FROM actions WHERE seq >= ? ORDER BY seq LIMIT 1",
                    (expected,),
                ).fetchone()
            except sqlite3.DatabaseError as exc:
                yield expected, None, f"the file is damaged ({exc})"
                return
            if row is None:
                # A torn or scrambled page can hide its rows instead of failing the query, so
                # the end of the rows is only the end of the journal if the file is sound.
                problem = self._file_problem()
                if problem is not None:
                    yield expected, None, f"the file is damaged ({problem})"
                return
            seq, body, crc = row
            if seq != expected:
                yield expected, None, f"action {expected} is missing"
                return
            if not isinstance(body, str) or _crc(seq, body, previous) != crc:
                yield seq, None, "checksum mismatch"
                return
            try:
                record = json.loads(body)
            except json.JSONDecodeError:
                yield seq, None, "unreadable record"
                return
            self._last_seq, self._last_crc = seq, crc
            yield seq, record, None
            expected, previous = seq + 1, crc

    def _file_problem(self) -> str | None:
        """None if SQLite finds the file sound, else the first thing it found wrong."""
        try:
            (report,) = self._db.execute("PRAGMA quick_check(1)").fetchone()
        except sqlite3.DatabaseError as exc:
            return str(exc)
        if report == "ok":
            return None
        lines = [line for line in str(report).splitlines() if not line.startswith("***")]
        return lines[0] if lines else str(report)

    def append(self, record: dict[str, Any]) -> int:
        """Write one record and commit it to disk; return its sequence number."""
        body = json.dumps(record, sort_keys=True)
        seq = self._last_seq + 1
        crc = _crc(seq, body, self._last_crc)
        with self._db:
            self._db.execute(
                "INSERT INTO actions (seq, body, crc, at) VALUES (?, ?, ?, ?)",
                (seq, body, crc, time.time()),
            )
        self._last_seq, self._last_crc = seq, crc
        return seq

    def rewrite(self, config: dict[str, Any], keep: int) -> tuple[Journal, Path]:
        """Start this file afresh with its first ``keep`` rows; set the old file aside.

        A damaged SQLite file cannot be trusted with more writes (a torn page can swallow new
        rows), so the good rows are copied, one by one, into a new file that takes this one's
        place. The old file, damage and all, is kept as ``<name>.damaged[-n]``: nothing is
        deleted. Returns the new journal, positioned after its last row, and where the old
        file went. This journal is closed.
        """
        rows = []
        for seq in range(1, keep + 1):
            row = self._db.execute(
                "SELECT seq, body, crc, at FROM actions WHERE seq = ?", (seq,)
            ).fetchone()
            assert row is not None, f"row {seq} was read before the damage but is gone now"
            rows.append(row)
        fresh_path = self.path.with_name(self.path.name + ".recovering")
        for leftover in _sqlite_files(fresh_path):
            leftover.unlink()  # an earlier rewrite cut short; the original is untouched
        fresh = Journal.create(fresh_path, config)
        with fresh._db:
            fresh._db.executemany("INSERT INTO actions VALUES (?, ?, ?, ?)", rows)
        fresh.close()
        self.close()
        aside = self.path.with_name(self.path.name + ".damaged")
        n = 1
        while aside.exists():
            n += 1
            aside = self.path.with_name(f"{self.path.name}.damaged-{n}")
        for old in _sqlite_files(self.path):
            old.replace(aside.with_name(aside.name + old.name[len(self.path.name) :]))
        fresh_path.replace(self.path)
        journal, _ = Journal.open_raw(self.path)
        for _ in journal.rows():
            pass
        return journal, aside

    @property
    def length(self) -> int:
        return self._last_seq

    def close(self) -> None:
        self._db.close()


def game_config(board: Board, players: Sequence[str], rules: Rules, seed: int | None) -> dict:
    return {
        "board": board.to_json(),
        "players": list(players),
        "rules": rules.to_json(),
        "seed": seed,
    }


class JournaledGame:
    """A :class:`Game` whose every accepted action is journaled before it takes effect."""

    def __init__(self, game: Game, journal: Journal, config: dict[str, Any]):
        self.game = game
        self.journal = journal
        self.config = config
        #: the accepted actions in effect (after undos), resolved
        self.history: list[Action] = []
        self.damage: Damage | None = None

    @classmethod
    def create(
        cls,
        path: str | Path,
        board: Board,
        players: Sequence[str],
        rules: Rules | None = None,
        seed: int | None = None,
    ) -> JournaledGame:
        rules = rules or Rules.for_players(len(players))
        config = game_config(board, players, rules, seed)
        game = game_from_config(config)
        return cls(game, Journal.create(path, config), config)

    @classmethod
    def open(cls, path: str | Path) -> JournaledGame:
        """Reopen a journal and replay it. Damage is not an error: see :attr:`damage`.

        After damage, the rows from the damage on are left in the file until
        :meth:`continue_after_damage` drops them, so nothing is destroyed by merely reading.
        """
        journal, config = Journal.open_raw(path)
        if config.get("game") == "dice":  # companion.dice_table's journal
            journal.close()
            raise JournalError(
                f"{path}: this journal holds a dice game: catan-companion dice-game --journal FILE"
            )
        jg = cls(game_from_config(config), journal, config)
        records: list[tuple[int, dict[str, Any]]] = []
        for seq, record, error in journal.rows():
            if error is not None:
                jg.damage = Damage(seq, error)
                break
            assert record is not None
            records.append((seq, record))
        jg._rebuild(records)
        if jg.damage:
            log.warning("%s: %s; %d actions recovered", path, jg.damage, len(jg.history))
        return jg

    def _rebuild(self, records: list[tuple[int, dict[str, Any]]]) -> None:
        """Replay journal rows from the start; the first bad row is reported as damage."""
        actions: list[tuple[int, Action]] = []
        for seq, record in records:
            try:
                if record.get("type") == "undo":
                    if not actions:
                        raise ActionError("undo with nothing to undo")
                    actions.pop()
                else:
                    actions.append((seq, action_from_json(record)))
            except ActionError as exc:
                self.damage = Damage(seq, f"invalid record ({exc})")
                break
        game = game_from_config(self.config, salt=len(records))
        applied: list[Action] = []
        for seq, action in actions:
            try:
                game.apply(action)
            except IllegalAction as exc:
                # A row the engine refuses was not written by this engine: damage.
                self.damage = Damage(seq, f"refused by the rules ({exc})")
                break
            applied.append(action)
        self.game = game
        self.history = applied

    def apply(self, action: Action) -> list[Event]:
        """Apply ``action``; it is on disk before the state changes and before this returns."""
        events = self.game.apply(action, journal=self._write)
        return events

    def _write(self, resolved: Action) -> None:
        if self.damage is not None:
            raise JournalError(f"{self.journal.path}: {self.damage}; continue_after_damage() first")
        self.journal.append(action_to_json(resolved))
        self.history.append(resolved)

    def undo(self) -> Action:
        """Take back the last action: journaled as an undo record, never erased."""
        if not self.history:
            raise IllegalAction("1.5", "there is nothing to undo")
        if self.damage is not None:
            raise JournalError(f"{self.journal.path}: {self.damage}")
        undone = self.history[-1]
        self.journal.append(UNDO)
        game = game_from_config(self.config, salt=self.journal.length)
        for action in self.history[:-1]:
            game.apply(action)
        self.game = game
        self.history.pop()
        return undone

    def continue_after_damage(self) -> Path | None:
        """Set the damaged rows and everything after them aside, so play can go on.

        The journal file is rewritten with the rows before the damage; the damaged file is
        kept beside it (see :meth:`Journal.rewrite`), and its new name is returned.
        """
        if self.damage is None:
            return None
        self.journal, aside = self.journal.rewrite(self.config, self.damage.seq - 1)
        log.warning("%s: damaged journal kept as %s", self.journal.path, aside)
        self.damage = None
        return aside

    def close(self) -> None:
        self.journal.close()


def _sqlite_files(path: Path) -> list[Path]:
    """The database file ``path`` and its WAL and shared-memory files, those that exist."""
    names = (path.name, path.name + "-wal", path.name + "-shm")
    return [p for p in (path.with_name(n) for n in names) if p.exists()]


def game_from_config(config: dict[str, Any], salt: int = 0) -> Game:
    """The game of a journal's set-up, before any action.

    ``salt`` (the number of journal rows) varies a seeded generator after a reopen, so a resumed
    game does not roll the dice of its first turns again.
    """
    seed = config.get("seed")
    try:
        board = Board.from_json(config["board"])
        rules = Rules.from_json(config.get("rules", {}))
        rng = RandomSource(None if seed is None else seed * 1_000_003 + salt)
        return Game(board, config["players"], rules, rng)
    except (KeyError, TypeError, BoardError) as exc:
        raise JournalError(f"the game set-up in the journal is invalid ({exc})") from None
