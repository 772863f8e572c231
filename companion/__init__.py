"""Catan Companion: the game (board model, rules engine, journal) and the Table that wires it.

The rules engine (everything here but the Table and the CLI) imports no OpenCV, Flask or
pyserial, so it can be used on its own, like python-chess.
"""

__version__ = "0.1.0"
