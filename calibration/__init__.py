"""Calibration of one table: camera intrinsics, colour profile and board lock, kept in profiles.

Modules: :mod:`calibration.pattern` (printed patterns), :mod:`calibration.camera` (views,
solver, undistortion), :mod:`calibration.colors` (colour profile), :mod:`calibration.board_lock`
(fixed-camera registration), :mod:`calibration.profiles` (the profile files),
:mod:`calibration.wizard` (the web wizard's server side), :mod:`calibration.commands`
(``catan-companion calibrate``). See docs/calibration.md.
"""
