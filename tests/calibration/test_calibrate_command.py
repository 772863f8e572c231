"""The ``catan-companion calibrate`` command, end to end through the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.light import camera_gains_bgr
from calibration.pattern import Pattern
from calibration.profiles import DATA_ENV
from calibration.synthetic import (
    SELF_CHECK_CAMERA,
    random_poses,
    render_view,
    with_setup_pieces,
)
from companion.cli import main
from companion.layouts import random_board
from vision.synth.render import Conditions, render_board

PLAYERS = "red,blue,orange,white"


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(DATA_ENV, str(tmp_path / "data"))
    return tmp_path / "data" / "profiles"


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    assert main(["calibrate", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def fails(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(["calibrate", *argv]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return err


@pytest.fixture(scope="module")
def board_photos(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("photos")
    board = with_setup_pieces(random_board(4, seed=11), PLAYERS.split(","), 11)
    out = {}
    for name, light in (("neutral", {}), ("warm", {"white_balance": camera_gains_bgr(2700)})):
        cond = Conditions(tilt_deg=10.0, rotation_deg=20.0, noise_sigma=1.5, **light)
        render = render_board(board, width=1200, height=900, rng=11, conditions=cond)
        out[name] = folder / f"{name}.png"
        cv2.imwrite(str(out[name]), render.image)
    return out


def test_pattern_writes_pdf_and_png(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["calibrate", "pattern", "--out", str(tmp_path / "p.pdf")]) == 0
    assert (tmp_path / "p.pdf").read_bytes().startswith(b"%PDF-1.4")
    png = tmp_path / "p.png"
    argv = ["pattern", "--pattern", "charuco", "--squares", "7x5", "--square-mm", "30"]
    assert main(["calibrate", *argv, "--px-per-mm", "4", "--out", str(png)]) == 0
    image = cv2.imread(str(png), cv2.IMREAD_GRAYSCALE)
    assert image.shape == ((5 * 30 + 20) * 4, (7 * 30 + 20) * 4)
    assert Pattern("charuco", 7, 5, 30.0, 22.5).detect(image) is not None
    assert "must end in .pdf or .png" in fails(capsys, "pattern", "--out", str(tmp_path / "p.txt"))
    assert "symmetric" in fails(capsys, "pattern", "--squares", "10x8", "--out", str(png))
    assert "10x7" in fails(capsys, "pattern", "--squares", "ten", "--out", str(png))


def test_camera_from_photos_is_stored_in_the_profile(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], data_dir: Path
) -> None:
    pattern = Pattern()
    for i, pose in enumerate(random_poses(pattern, SELF_CHECK_CAMERA, 6, rng=21)):
        cv2.imwrite(
            str(tmp_path / f"view{i}.png"), render_view(pattern, SELF_CHECK_CAMERA, pose, rng=i)
        )
    (tmp_path / "notes.txt").write_text("not a photo")
    data = run_json(capsys, "camera", "--profile", "desk", "--images", str(tmp_path))
    assert data["rms_px"] < 0.5
    assert data["frames"] == {"accepted": 6}
    assert data["camera"]["matrix"][0][0] == pytest.approx(SELF_CHECK_CAMERA.fx, rel=0.02)
    assert any("only 6 views" in w for w in data["warnings"])
    assert (data_dir / "desk.json").is_file()
    shown = run_json(capsys, "show", "desk")
    assert shown["camera"]["image_size"] == [800, 600]


def test_camera_arguments_are_checked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert "saves nothing" in fails(capsys, "camera", "--synthetic", "5", "--profile", "x")
    assert "3..200" in fails(capsys, "camera", "--synthetic", "2")
    assert "--profile NAME" in fails(capsys, "camera", "--images", str(tmp_path))
    for bad in (["--views", "2"], ["--interval", "-1"], ["--max-seconds", "0"]):
        assert "--views >= 3" in fails(capsys, "camera", "--profile", "x", "--camera", "0", *bad)
    assert "no images found" in fails(capsys, "camera", "--profile", "x", "--images", str(tmp_path))
    assert "no such image" in fails(capsys, "camera", "--profile", "x", "--images", "nowhere.png")
    broken = tmp_path / "broken.png"
    broken.write_bytes(b"\x89PNG garbage")
    assert "cannot read image" in fails(capsys, "camera", "--profile", "x", "--images", str(broken))


def test_colors_board_and_check_on_a_photo(
    board_photos: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    neutral, warm = str(board_photos["neutral"]), str(board_photos["warm"])
    colors = run_json(capsys, "colors", "--profile", "t", neutral, "--players", PLAYERS)
    assert colors["kind"] == "base"
    assert colors["players"] == sorted(PLAYERS.split(","))
    assert {"forest", "pasture", "fields", "hills", "mountains", "desert"} <= set(
        colors["terrains"]
    )
    locked = run_json(capsys, "board", "--profile", "t", neutral)
    assert locked["kind"] == "base"
    same = run_json(capsys, "check", "--profile", "t", neutral)
    assert same["board"]["state"] == "locked"
    assert same["light"]["ok"] is True
    changed = run_json(capsys, "check", "--profile", "t", warm)
    assert changed["board"]["state"] == "locked"
    assert changed["light"]["ok"] is False
    listing = run_json(capsys, "list")
    assert listing["profiles"][0]["name"] == "t"
    assert listing["profiles"][0]["sections"] == ["colors", "board_lock"]


def test_frame_commands_refuse_bad_input(
    board_photos: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    neutral = str(board_photos["neutral"])
    assert "--profile NAME" in fails(capsys, "colors", neutral)
    assert "either an IMAGE or --camera" in fails(capsys, "colors", "--profile", "t")
    assert "either an IMAGE or --camera" in fails(
        capsys, "board", "--profile", "t", neutral, "--camera", "0"
    )
    assert "cannot read image" in fails(capsys, "board", "--profile", "t", str(tmp_path / "x.jpg"))
    assert "unknown player colour 'pink'" in fails(
        capsys, "colors", "--profile", "t", neutral, "--players", "red,pink"
    )
    assert "no calibration profile named 't'" in fails(capsys, "check", "--profile", "t", neutral)
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((600, 800, 3), 120, np.uint8))
    assert "no board found" in fails(capsys, "board", "--profile", "t", str(blank))
    assert main(["calibrate", "board", "--profile", "t", neutral]) == 0
    capsys.readouterr()
    assert "self-check on its own" in fails(capsys, "board", "--synthetic", "2", "--profile", "t")
    assert "1..100" in fails(capsys, "colors", "--synthetic", "0")


def test_list_shows_damage_and_delete_removes(
    capsys: pytest.CaptureFixture[str], data_dir: Path
) -> None:
    assert "no profiles yet" in (main(["calibrate", "list"]) == 0 and capsys.readouterr().out)
    data_dir.mkdir(parents=True)
    (data_dir / "old.json").write_text("{ not json")
    assert main(["calibrate", "list"]) == 0
    assert "DAMAGED" in capsys.readouterr().out
    assert "not JSON at line 1" in fails(capsys, "show", "old")
    assert main(["calibrate", "delete", "old"]) == 0
    assert not (data_dir / "old.json").exists()
    assert "to delete" in fails(capsys, "delete", "old")
    assert "bad profile name" in fails(capsys, "show", "../etc")


def test_refit_on_chips_pulls_an_off_registration_back() -> None:
    from calibration.registration import refit_on_chips
    from companion.board import base_frame, hex_center

    hexes = base_frame()
    plane = np.array([hex_center(h) for h in hexes]).reshape(-1, 1, 2)
    truth = np.array([[60.0, 8.0, 600.0], [-5.0, 58.0, 450.0], [0.00002, 0.00004, 1.0]])
    chips = cv2.perspectiveTransform(plane, truth).reshape(-1, 2)
    chips += np.random.default_rng(0).normal(0, 0.5, chips.shape)
    # 6 % too large about the board's centre: the outer hexes ~15 px (a quarter hex) off.
    grow = np.array([[1.06, 0.0, -0.06 * 600.0], [0.0, 1.06, -0.06 * 450.0], [0.0, 0.0, 1.0]])
    off = grow @ truth
    off_err = np.abs(cv2.perspectiveTransform(plane, off) - cv2.perspectiveTransform(plane, truth))
    assert off_err.max() > 12
    # A stray bright blob (a card, glare) is not a chip of the lattice.
    with_noise = np.vstack([chips, [[5.0, 5.0]]])
    refit = refit_on_chips(off, hexes, with_noise)
    err = np.abs(cv2.perspectiveTransform(plane, refit) - cv2.perspectiveTransform(plane, truth))
    assert err.max() < 1.5
    assert refit_on_chips(off, hexes, chips[:5]) is off
    assert refit_on_chips(off, hexes, np.zeros((0, 2))) is off


def test_dataset_check_scores_labelled_photos(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from companion.board import base_frame

    board = random_board(4, seed=12)
    by_row: dict[int, list] = {}
    for h in base_frame():
        by_row.setdefault(h[1], []).append(h)
    rows = [
        [[board.tiles[h].terrain.value, board.tiles[h].number] for h in sorted(by_row[r])]
        for r in sorted(by_row)
    ]
    files = []
    for i, turn in enumerate((0.0, 130.0)):
        cond = Conditions(tilt_deg=12.0, rotation_deg=turn, noise_sigma=1.5)
        render = render_board(board, width=1200, height=900, rng=12, conditions=cond)
        files.append(f"photo{i}.png")
        cv2.imwrite(str(tmp_path / files[-1]), render.image)
    cv2.imwrite(str(tmp_path / "blank.png"), np.full((600, 800, 3), 100, np.uint8))
    entries = [{"id": "b12", "rows": rows, "files": [*files, "blank.png"]}]
    (tmp_path / "groundtruth.json").write_text(json.dumps({"entries": entries}))
    data = run_json(capsys, "colors", "--dataset", str(tmp_path))
    result = data["boards"]["b12"]
    assert result["registered"] == 2 and result["readings"] == 4
    assert result["terrain_accuracy"] == 1.0
    assert result["terrain_accuracy_with_counts"] == 1.0
    assert len(data["failures"]) == 1 and data["failures"][0].startswith("blank.png")
    assert "groundtruth.json" in fails(capsys, "colors", "--dataset", str(tmp_path / "nowhere"))
    assert "on its own" in fails(capsys, "colors", "--dataset", str(tmp_path), "--profile", "x")


def test_self_checks_report_their_figures(capsys: pytest.CaptureFixture[str]) -> None:
    colours = run_json(capsys, "colors", "--synthetic", "1")
    for light in ("neutral", "warm 2700 K", "cold 6500 K", "dim (40 %)"):
        assert colours[light] == {
            "terrain_accuracy": 1.0,
            "piece_accuracy": 1.0,
            "empty_sites_read_as_pieces": 0,
        }
    lock = run_json(capsys, "board", "--synthetic", "1")
    assert set(lock["right"].values()) == {1}
    assert lock["worst_refound_error_px"] < 1.0


class FakeCamera:
    """Stands in for cv2.VideoCapture: plays a list of frames, then stops."""

    frames: list[np.ndarray] = []

    def __init__(self, index: int) -> None:
        self.opened = index == 0
        self.queue = list(FakeCamera.frames)

    def isOpened(self) -> bool:  # noqa: N802 (OpenCV's name)
        return self.opened

    def read(self) -> tuple[bool, np.ndarray | None]:
        return (True, self.queue.pop(0)) if self.queue else (False, None)

    def release(self) -> None:
        self.queue = []


def test_live_camera_calibration_and_grab(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], board_photos
) -> None:
    monkeypatch.setattr(cv2, "VideoCapture", FakeCamera)
    pattern = Pattern()
    poses = random_poses(pattern, SELF_CHECK_CAMERA, 5, rng=31)
    views = [
        cv2.cvtColor(render_view(pattern, SELF_CHECK_CAMERA, p, rng=i), cv2.COLOR_GRAY2BGR)
        for i, p in enumerate(poses)
    ]
    # The camera shows a blank table first, then the pattern, then stops.
    FakeCamera.frames = [np.full((600, 800, 3), 90, np.uint8), *views]
    data = run_json(capsys, "camera", "--profile", "live", "--camera", "0", "--interval", "0")
    assert data["frames"] == {"pattern not found": 1, "accepted": 5}
    assert data["rms_px"] < 0.5
    assert "camera 1: cannot be opened" in fails(
        capsys, "camera", "--profile", "x", "--camera", "1"
    )
    # One frame is grabbed for the colour step, after the exposure settles.
    board = cv2.imread(str(board_photos["neutral"]))
    FakeCamera.frames = [np.zeros_like(board)] * 14 + [board]
    data = run_json(capsys, "colors", "--profile", "live", "--camera", "0", "--players", PLAYERS)
    assert data["players"] == sorted(PLAYERS.split(","))
    FakeCamera.frames = []
    assert "gave no frame" in fails(capsys, "board", "--profile", "live", "--camera", "0")
