"""Profile files: listing, loading by name, validation, atomic saves."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from calibration import profiles
from calibration.camera import CameraModel
from calibration.colors import ColorProfile, Gaussian
from calibration.profiles import DATA_ENV, Profile, ProfileError, ProfileStore, data_dir
from companion.board import Terrain


def _colors() -> ColorProfile:
    g = Gaussian(np.array([-0.5, -0.2, 0.1]), np.eye(3) * 0.01)
    return ColorProfile(
        {Terrain.FOREST: g, Terrain.HILLS: g}, {"red": g}, g, np.array([190.0, 225, 240])
    )


@pytest.fixture
def store(tmp_path: Path) -> ProfileStore:
    return ProfileStore(tmp_path / "profiles")


def test_data_dir_follows_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(DATA_ENV, str(tmp_path))
    assert data_dir() == tmp_path / "profiles"
    assert ProfileStore().directory == tmp_path / "profiles"
    monkeypatch.delenv(DATA_ENV)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert data_dir() == tmp_path / "xdg" / "catan-companion" / "profiles"


def test_save_load_round_trip_and_listing(store: ProfileStore) -> None:
    assert store.list() == []
    p = Profile("kitchen", camera=CameraModel.default(1280, 720), colors=_colors())
    path = store.save(p)
    assert path == store.directory / "kitchen.json"
    back = store.load("kitchen")
    assert back.sections() == ["camera", "colors"]
    assert np.array_equal(back.camera.matrix, p.camera.matrix)
    assert back.colors.to_json() == p.colors.to_json()
    assert back.created and back.updated == back.created
    store.save(Profile("attic"))
    listing = store.list()
    assert [i.name for i in listing] == ["attic", "kitchen"]
    assert listing[1].sections == ("camera", "colors") and listing[1].error is None
    # Saving again keeps the creation date.
    again = store.load("kitchen")
    store.save(again)
    assert store.load("kitchen").created == back.created


def test_missing_profile_names_the_stored_ones(store: ProfileStore) -> None:
    store.save(Profile("attic"))
    with pytest.raises(ProfileError, match=r"no calibration profile named 'garden'.*stored: attic"):
        store.load("garden")
    assert store.load_or_new("garden").sections() == []
    with pytest.raises(ProfileError, match="to delete"):
        store.delete("garden")
    store.delete("attic")
    assert store.names() == []


@pytest.mark.parametrize("name", ["", ".hidden", "a/b", "x" * 65, "with space", "a.tmp", "../up"])
def test_bad_names_are_refused(store: ProfileStore, name: str) -> None:
    with pytest.raises(ProfileError, match="bad profile name"):
        store.path(name)


def _write(store: ProfileStore, name: str, text: str) -> None:
    store.directory.mkdir(parents=True, exist_ok=True)
    (store.directory / f"{name}.json").write_text(text, encoding="utf-8")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"format": "catan-companion/calibration-profile", "vers', "not JSON at line 1"),
        ("[]", "expected a JSON object"),
        ('{"format": "something-else"}', "not a calibration profile"),
        (None, "newer Catan Companion"),
        (None, "camera.matrix"),
        (None, "colors.version"),
        (None, "board_lock: expected an object"),
        (None, "holds profile 'other'"),
    ],
)
def test_damaged_files_are_reported_with_the_field(
    store: ProfileStore, content: str | None, message: str, request: pytest.FixtureRequest
) -> None:
    good = Profile("t", camera=CameraModel.default(640, 480), colors=_colors()).to_json()
    if content is None:
        data = json.loads(json.dumps(good))
        if "newer" in message:
            data["version"] = profiles.VERSION + 1
        elif "camera" in message:
            data["camera"]["matrix"] = [[1, 2, 3]]
        elif "colors" in message:
            data["colors"]["version"] = 0
        elif "board_lock" in message:
            data["board_lock"] = "here"
        else:
            data["name"] = "other"
        content = json.dumps(data)
    _write(store, "t", content)
    with pytest.raises(ProfileError, match=message):
        store.load("t")
    # Listing still works and shows the damage.
    (info,) = store.list()
    assert info.name == "t" and info.error is not None


def test_a_failed_save_leaves_the_old_file_whole(
    store: ProfileStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    store.save(Profile("kitchen", camera=CameraModel.default(640, 480)))
    before = (store.directory / "kitchen.json").read_bytes()

    def crash(*args: object) -> None:
        raise OSError("disk pulled out")

    monkeypatch.setattr(profiles.os, "replace", crash)
    with pytest.raises(OSError, match="disk pulled out"):
        store.save(Profile("kitchen", colors=_colors()))
    assert (store.directory / "kitchen.json").read_bytes() == before
    assert sorted(os.listdir(store.directory)) == ["kitchen.json"]  # no temporary left


def test_unserialisable_content_does_not_touch_the_file(store: ProfileStore) -> None:
    store.save(Profile("kitchen"))
    before = (store.directory / "kitchen.json").read_bytes()
    bad = Profile("kitchen", camera=CameraModel.default(640, 480))
    bad.camera.rms_px = float("nan")
    with pytest.raises(ValueError, match="Out of range float"):
        store.save(bad)
    assert (store.directory / "kitchen.json").read_bytes() == before
