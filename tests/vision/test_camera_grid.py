"""The camera view's grid: the registered hexes drawn where the homography puts them."""

import numpy as np

from companion.board import base_frame, hex_center
from vision.debug import draw_camera_grid


def test_the_grid_is_drawn_where_the_homography_maps_the_hex_outlines():
    # board plane -> pixels: 40 px per hex radius, centred in a 400x400 frame
    h = np.array([[40.0, 0, 200], [0, 40.0, 200], [0, 0, 1]])
    frame = np.zeros((400, 400, 3), np.uint8)
    out = draw_camera_grid(frame, h, base_frame())
    assert out.shape == frame.shape and out is not frame
    assert frame.sum() == 0  # the input is left alone
    cx, cy = hex_center((0, 0))
    top = (int(200 + 40 * cx), int(200 + 40 * (cy - 1)))  # the N corner of (0, 0)
    assert out[top[1], top[0]].any()  # a line passes through the corner
    assert not out[200, 200].any()  # the hex's centre stays clear
