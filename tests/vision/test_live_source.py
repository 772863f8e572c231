"""The live synthetic camera: it films a simulated table while someone changes it."""

from __future__ import annotations

import threading
from dataclasses import replace

import numpy as np
import pytest

from companion.board import Piece, Vertex, vertex_position
from companion.layouts import random_board
from vision.capture import LiveTableSource, TableScene, _lamp
from vision.synth.render import render_board

BOARD = random_board(3, seed=4)
SPOT = Vertex(0, 0, "N")
BUILT = replace(BOARD, pieces=[Piece("settlement", "red", vertex=SPOT)])
SIZE = {"width": 160, "height": 120}


def still_camera(scene: TableScene, **options: object) -> LiveTableSource:
    """A camera with a steady lamp, no glare, and a clock far faster than the wall's (the
    test waits for frames, never for time)."""
    return LiveTableSource(
        scene,
        **SIZE,  # type: ignore[arg-type]
        fps=10.0,
        speed=1000.0,
        max_rate=1e6,
        drift=0.0,
        glare_every_s=0.0,
        **options,  # type: ignore[arg-type]
    )


def rendered(board):
    return render_board(
        board, **SIZE, rng=0, conditions=still_camera(TableScene(board))._conditions
    )


def test_frames_follow_the_table_with_a_hand_while_a_piece_is_put_down() -> None:
    scene = TableScene(BOARD)
    camera = still_camera(scene, reach_s=0.4)
    before, after = rendered(BOARD).image, rendered(BUILT).image
    frames = iter(camera)
    t, first = next(frames)
    assert t == 0.0 and first.shape == (120, 160, 3)
    assert np.array_equal(first, before)
    scene.show(BUILT, reach=vertex_position(SPOT))
    shots = [next(frames) for _ in range(6)]  # 0.1 s apart: the hand is in for 0.4 s
    assert [round(t, 1) for t, _ in shots] == [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]
    # The hand reaches in from beyond the border (the frame is neither board), the piece
    # appears halfway, under the hand, and once the hand is gone the frame is the new board.
    assert np.array_equal(shots[0][1], before)  # the hand starts outside the picture
    for _, frame in shots[1:4]:
        assert not np.array_equal(frame, before) and not np.array_equal(frame, after)
    assert np.any(shots[1][1] != before, axis=2).mean() > 0.01
    assert np.array_equal(shots[-1][1], after)
    assert camera.clock == pytest.approx(0.6)
    camera.close()
    assert next(frames, None) is None


def test_each_state_of_the_table_is_rendered_once() -> None:
    scene = TableScene(BOARD)
    camera = still_camera(scene, reach_s=0.2)
    frames = iter(camera)
    for _ in range(5):
        next(frames)
    assert camera.renders == 1
    scene.show(BUILT, reach=vertex_position(SPOT))
    for _ in range(5):
        next(frames)
    scene.show(BOARD, reach=vertex_position(SPOT))  # taken back: its render is cached
    for _ in range(5):
        next(frames)
    assert camera.renders == 2
    camera.close()


def test_the_lamp_drifts_and_a_glare_spot_comes_and_goes() -> None:
    scene = TableScene(BOARD)
    camera = LiveTableSource(
        scene, **SIZE, fps=10, speed=1000, max_rate=1e6, drift=0.2, glare_every_s=2.0, glare_s=1.0
    )
    shots = [shot for _, shot in zip(range(40), camera, strict=False)]
    brightness = [float(frame.mean()) for _, frame in shots]
    camera.close()
    glare = [camera._glare_spell(i / 10) is not None for i in range(40)]
    # Without glare, a frame is the render under the lamp of its time.
    plain = rendered(BOARD).image.astype(np.float32)
    for i in (3, 17, 31):
        if not glare[i]:
            lit = np.clip(plain * _lamp(i / 10, 0.2), 0, 255).astype(np.uint8)
            assert np.array_equal(shots[i][1], lit)
    # One spell of 1 s in every 2 s: about half of the time.
    assert abs(sum(glare) - 20) <= 2
    calm = [b for b, g in zip(brightness, glare, strict=True) if not g]
    assert max(calm) - min(calm) > 1.0  # the lamp's drift
    lit = [b for b, g in zip(brightness, glare, strict=True) if g]
    assert min(lit) > min(calm)


def test_another_thread_waits_for_the_frames_it_needs() -> None:
    camera = still_camera(TableScene(BOARD))
    taken: list[int] = []

    def watch() -> None:
        taken.append(camera.wait_frames(2, timeout=30))

    watcher = threading.Thread(target=watch)
    watcher.start()
    frames = iter(camera)
    for _ in range(4):  # the third frame is done once the fourth is asked for
        next(frames)
    watcher.join(30)
    assert taken == [3]
    camera.close()
    assert camera.wait_frames(100, timeout=30) == 3  # closing wakes every waiter


def test_bad_options() -> None:
    with pytest.raises(ValueError, match="must be > 0"):
        LiveTableSource(TableScene(BOARD), fps=0)
    with pytest.raises(ValueError, match="drift"):
        LiveTableSource(TableScene(BOARD), drift=0.7)
