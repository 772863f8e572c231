"""Trade offers between players: proposed on one phone, accepted or declined on the other.

A domestic trade moves cards out of the partner's hand, so the partner agrees on their own
phone before the engine applies it (RULES.md 1.8.2: both players agree). Offers live in the web
layer only: nothing is journaled until the partner accepts, and then the trade is an ordinary
action. An offer lapses with the turn it was made in.

>>> offers = Offers()
>>> o = offers.add("red", "blue", {"wool": 1}, {"ore": 1}, turn=3)
>>> [x["id"] for x in offers.involving("blue", turn=3)], offers.involving("blue", turn=4)
([1], [])
"""

from __future__ import annotations

import threading
from typing import Any

#: Open offers kept at most (older ones are dropped first); a table has a handful.
MAX_OFFERS = 32


class Offers:
    """Open offers, with a version that changes whenever the set of offers changes."""

    def __init__(self) -> None:
        self._offers: dict[int, dict[str, Any]] = {}
        self._next_id = 1
        self._lock = threading.Lock()
        self.version = 0

    def add(
        self, proposer: str, partner: str, give: dict[str, int], get: dict[str, int], turn: int
    ) -> dict[str, Any]:
        """Open an offer: ``proposer`` gives ``give`` to ``partner`` for ``get``.

        A proposer has one open offer at a time: a new one replaces it.
        """
        with self._lock:
            for oid in [i for i, o in self._offers.items() if o["from"] == proposer]:
                del self._offers[oid]
            offer = {"id": self._next_id, "from": proposer, "to": partner,
                     "give": give, "get": get, "turn": turn}  # fmt: skip
            self._offers[self._next_id] = offer
            self._next_id += 1
            while len(self._offers) > MAX_OFFERS:
                del self._offers[min(self._offers)]
            self.version += 1
            return dict(offer)

    def get(self, offer_id: int, turn: int) -> dict[str, Any] | None:
        """The open offer ``offer_id`` if it was made this ``turn``."""
        with self._lock:
            offer = self._offers.get(offer_id)
            return dict(offer) if offer is not None and offer["turn"] == turn else None

    def remove(self, offer_id: int) -> bool:
        with self._lock:
            if self._offers.pop(offer_id, None) is None:
                return False
            self.version += 1
            return True

    def involving(self, player: str | None, turn: int) -> list[dict[str, Any]]:
        """This turn's offers made by or to ``player`` (none for a spectator)."""
        with self._lock:
            return [
                dict(o)
                for o in self._offers.values()
                if o["turn"] == turn and player in (o["from"], o["to"])
            ]
