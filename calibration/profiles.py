"""Calibration profiles: one versioned JSON file per table, in the user's data directory.

A profile holds what calibration learned about one table: the camera's intrinsics, the colour
profile, and the board lock; each part is optional (a table may skip camera calibration).
Files live in ``<user data dir>/catan-companion/profiles/<name>.json`` (platformdirs: on Linux
``$XDG_DATA_HOME`` or ``~/.local/share``); ``$CATAN_COMPANION_DATA`` overrides the data
directory, e.g. for tests or a portable install.

Saving never loses the previous profile: the new content is written to a temporary file in
the same directory, flushed to disk, then renamed over the old file (a rename within one
file system is atomic), and the directory entry is flushed too. A crash leaves either the old
or the new file, never half of one.

File format (version 1)::

    {"format": "catan-companion/calibration-profile", "version": 1, "name": "kitchen",
     "created": "2026-11-22T05:30:00+00:00", "updated": "...",
     "camera": {...} | null, "colors": {...} | null, "board_lock": {...} | null}
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import platformdirs

from calibration.board_lock import BoardLock
from calibration.camera import CameraModel
from calibration.colors import ColorProfile

FORMAT = "catan-companion/calibration-profile"
VERSION = 1
#: Environment variable that replaces the user data directory.
DATA_ENV = "CATAN_COMPANION_DATA"
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
# Larger files are not profiles (a reference picture is ~100 kB).
_MAX_BYTES = 20 * 1024 * 1024


class ProfileError(ValueError):
    """A profile that cannot be found, read or saved; the message says what to do."""


def data_dir() -> Path:
    """The directory holding the profiles (not created here)."""
    override = os.environ.get(DATA_ENV)
    base = Path(override) if override else platformdirs.user_data_path("catan-companion")
    return base / "profiles"


def check_name(name: str) -> str:
    """A profile name is 1-64 letters, digits, ``_``, ``-`` or ``.``, not starting with a dot."""
    if not isinstance(name, str) or not _NAME_RE.match(name) or name.endswith(".tmp"):
        raise ProfileError(
            f"bad profile name {name!r}: use 1-64 letters, digits, '_', '-' or '.' "
            "(e.g. kitchen-table)"
        )
    return name


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


@dataclass
class Profile:
    """What calibration knows about one table."""

    name: str
    camera: CameraModel | None = None
    colors: ColorProfile | None = None
    board_lock: BoardLock | None = None
    created: str = ""
    updated: str = ""

    def sections(self) -> list[str]:
        """Names of the parts this profile has."""
        return [
            n
            for n, v in (
                ("camera", self.camera),
                ("colors", self.colors),
                ("board_lock", self.board_lock),
            )
            if v is not None
        ]

    def to_json(self) -> dict[str, Any]:
        """The file's content."""
        return {
            "format": FORMAT,
            "version": VERSION,
            "name": self.name,
            "created": self.created,
            "updated": self.updated,
            "camera": None if self.camera is None else self.camera.to_json(),
            "colors": None if self.colors is None else self.colors.to_json(),
            "board_lock": None if self.board_lock is None else self.board_lock.to_json(),
        }

    @classmethod
    def from_json(cls, data: Any) -> Profile:
        """Validate and read a profile file's content.

        Raises:
            ProfileError: the first problem found, naming the field.
        """
        if not isinstance(data, dict):
            raise ProfileError("expected a JSON object")
        if data.get("format") != FORMAT:
            raise ProfileError(f"not a calibration profile (format is {data.get('format')!r})")
        version = data.get("version")
        if not isinstance(version, int) or isinstance(version, bool):
            raise ProfileError("version: expected an integer")
        if version > VERSION:
            raise ProfileError(
                f"version {version} was written by a newer Catan Companion (this one reads "
                f"up to {VERSION}): update, or calibrate again"
            )
        if version < 1:
            raise ProfileError(f"version: {version} is not a valid version")
        name = data.get("name")
        if not isinstance(name, str):
            raise ProfileError("name: expected a string")
        for key in ("created", "updated"):
            if not isinstance(data.get(key, ""), str):
                raise ProfileError(f"{key}: expected a date string")
        try:
            camera = None if data.get("camera") is None else CameraModel.from_json(data["camera"])
            colors = None if data.get("colors") is None else ColorProfile.from_json(data["colors"])
            lock_in = data.get("board_lock")
            lock = None if lock_in is None else BoardLock.from_json(lock_in)
        except ValueError as exc:
            raise ProfileError(str(exc)) from None
        return cls(
            check_name(name), camera, colors, lock, data.get("created", ""), data.get("updated", "")
        )


@dataclass(frozen=True)
class ProfileInfo:
    """One line of :meth:`ProfileStore.list`: ``error`` is set for a damaged file."""

    name: str
    updated: str
    sections: tuple[str, ...]
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "updated": self.updated,
            "sections": list(self.sections),
            "error": self.error,
        }


class ProfileStore:
    """The profiles of this user (or of ``directory``)."""

    def __init__(self, directory: Path | str | None = None) -> None:
        self.directory = Path(directory) if directory is not None else data_dir()

    def path(self, name: str) -> Path:
        """Where profile ``name`` lives."""
        return self.directory / f"{check_name(name)}.json"

    def names(self) -> list[str]:
        """Names of the stored profiles, sorted."""
        if not self.directory.is_dir():
            return []
        return sorted(
            p.stem for p in self.directory.glob("*.json") if _NAME_RE.match(p.stem) and p.is_file()
        )

    def list(self) -> list[ProfileInfo]:
        """Every stored profile; a damaged one is listed with its error instead of failing."""
        out = []
        for name in self.names():
            try:
                p = self.load(name)
            except ProfileError as exc:
                out.append(ProfileInfo(name, "", (), str(exc)))
            else:
                out.append(ProfileInfo(name, p.updated, tuple(p.sections())))
        return out

    def exists(self, name: str) -> bool:
        """True when profile ``name`` is stored."""
        return self.path(name).is_file()

    def load(self, name: str) -> Profile:
        """Read and validate profile ``name``.

        Raises:
            ProfileError: missing (the message lists the stored ones), unreadable, not JSON,
                or invalid (the message names the field and says how to repair).
        """
        path = self.path(name)
        if not path.is_file():
            known = ", ".join(self.names()) or "none yet"
            raise ProfileError(
                f"no calibration profile named {name!r} in {self.directory} (stored: {known}); "
                "create it with: catan-companion calibrate ... --profile " + name
            )
        try:
            if path.stat().st_size > _MAX_BYTES:
                raise ProfileError(f"profile {name!r} ({path}) is too large to be a profile")
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise ProfileError(f"cannot read profile {name!r} ({path}): {exc}") from None
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ProfileError(
                f"profile {name!r} ({path}) is damaged: not JSON at line {exc.lineno} column "
                f"{exc.colno}; delete it and calibrate again"
            ) from None
        try:
            profile = Profile.from_json(data)
        except ProfileError as exc:
            raise ProfileError(
                f"profile {name!r} ({path}) is damaged: {exc}; delete it and calibrate again"
            ) from None
        if profile.name != name:
            raise ProfileError(
                f"profile file {path} holds profile {profile.name!r}: rename the file back "
                f"to {profile.name}.json"
            )
        return profile

    def load_or_new(self, name: str) -> Profile:
        """Profile ``name`` if stored, else a new empty one (a damaged file still raises)."""
        if self.exists(name):
            return self.load(name)
        return Profile(check_name(name))

    def save(self, profile: Profile) -> Path:
        """Write a profile atomically (see the module docstring); returns its path."""
        path = self.path(profile.name)
        stamp = _now()
        profile.created = profile.created or stamp
        profile.updated = stamp
        text = json.dumps(profile.to_json(), indent=1, allow_nan=False) + "\n"
        self.directory.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{profile.name}.", suffix=".tmp", dir=self.directory)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        _fsync_dir(self.directory)
        return path

    def delete(self, name: str) -> None:
        """Remove profile ``name``; a missing one is an error (a typo should not pass)."""
        path = self.path(name)
        if not path.is_file():
            raise ProfileError(f"no calibration profile named {name!r} to delete")
        path.unlink()


def _fsync_dir(directory: Path) -> None:
    """Flush a directory entry (the rename) to disk where the platform allows it."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some file systems (and Windows) cannot fsync a directory; the rename stands
    finally:
        os.close(fd)
