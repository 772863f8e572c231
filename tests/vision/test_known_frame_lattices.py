"""A known map registered on the lattice of the wider closing when the first lattice leaves
it refused or in doubt (``vision.known_frame.register_frame``, ``vision.register``).

The renders are the scenario bench's own (``vision.bench.scenario_maps``, seed 0): each is
made as that loop makes render ``i``, and read with the map known and its chips not
(as ``read_board`` registers it).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from companion.board import hex_center
from companion.scenario import load_scenario, scenario_map
from vision.known_frame import KnownFrame, register_frame
from vision.register import find_lattice, project
from vision.synth.render import Conditions, Render, render_board


def bench_render(name: str, players: int, i: int, seed: int = 0) -> Render:
    """Render ``i`` of ``vision.bench.scenario_maps`` (map ``name`` for ``players``)."""
    rng = np.random.default_rng((seed, i))
    truth = load_scenario(name, players, seed=int(rng.integers(1 << 31))).board
    conditions = Conditions.random(rng)
    return render_board(truth, rng=rng, conditions=conditions)


def spacing_errors(h: np.ndarray, render: Render) -> np.ndarray:
    """Distances (hex spacings) of every hex centre under ``h`` from where it was drawn."""
    centres = np.array([hex_center(x) for x in render.board.tiles])
    truth = render.homography
    step = float(np.linalg.norm(np.diff(project(truth, np.array([[0, 0], [3**0.5, 0]])), axis=0)))
    return np.linalg.norm(project(h, centres) - project(truth, centres), axis=1) / step


def frame_of(name: str, players: int) -> KnownFrame:
    """The map's frame as read_board has it: its hexes and sea, not which hex holds a chip."""
    return replace(KnownFrame.of_board(scenario_map(name, players)), chips=None)


def test_a_board_whose_chips_the_first_closing_cuts_apart_still_has_a_lattice():
    # New York & Erie (6), bench render 49: a bright table and bold numerals cut the chips
    # into shapes the first closing leaves 4 of on a lattice; the wider one finds them.
    render = bench_render("new-york-erie", 6, 49)
    assert len(find_lattice(render.image).chip_cells) >= 20
    reg = register_frame(render.image, frame_of("new-york-erie", 6))
    assert spacing_errors(reg.homography, render).max() < 0.25
    assert not reg.ambiguous
