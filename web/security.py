"""The page's protections for a shared Wi-Fi: table code, CSRF token, rate limits.

* Control needs the table code: a device posts it once to ``/api/bind`` with the player it
  belongs to, and its (signed, HttpOnly, SameSite=Strict) session cookie carries that binding.
* Every state-changing request must carry the session's CSRF token in ``X-CSRF-Token``: a
  header another site cannot set without a CORS preflight, which this app never grants.
* Rate limits are token buckets per client address, on a clock that tests can drive.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

#: Letters and digits that cannot be mistaken for one another when read off a screen.
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 6


def new_table_code() -> str:
    """A random table code of CODE_LENGTH unambiguous characters (about 30 bits)."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def normalise_code(code: str) -> str:
    """The form codes are compared in: upper case, no spaces or dashes.

    >>> normalise_code(" ab-c2 ")
    'ABC2'
    """
    return code.strip().replace("-", "").replace(" ", "").upper()


def check_table_code(code: str) -> str:
    """Validate a table code chosen by the operator; return its normalised form."""
    norm = normalise_code(code)
    if len(norm) < 4 or not norm.isalnum() or not norm.isascii():
        raise ValueError("table code: use at least 4 letters or digits")
    return norm


def codes_match(given: str, expected: str) -> bool:
    """Compare in constant time, so response timing does not leak the code."""
    return secrets.compare_digest(normalise_code(given).encode(), expected.encode())


@dataclass
class _Bucket:
    tokens: float
    stamp: float


@dataclass
class RateLimiter:
    """A token bucket per key: ``capacity`` requests at once, refilled at ``rate`` per second.

    >>> now = [0.0]
    >>> lim = RateLimiter(capacity=2, rate=1.0, clock=lambda: now[0])
    >>> [lim.allow("a") for _ in range(3)]
    [True, True, False]
    >>> now[0] = 1.0
    >>> lim.allow("a"), lim.allow("b")
    (True, True)
    """

    capacity: float
    rate: float
    clock: Callable[[], float] = time.monotonic
    #: beyond this many clients, the fullest buckets are forgotten (they would allow anyway)
    max_keys: int = 4096
    _buckets: dict[str, _Bucket] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def allow(self, key: str) -> bool:
        now = self.clock()
        with self._lock:
            b = self._buckets.get(key)
            if b is None:
                if len(self._buckets) >= self.max_keys:
                    self._forget_full(now)
                b = self._buckets[key] = _Bucket(self.capacity, now)
            b.tokens = min(self.capacity, b.tokens + (now - b.stamp) * self.rate)
            b.stamp = now
            if b.tokens < 1.0:
                return False
            b.tokens -= 1.0
            return True

    def retry_after(self, key: str) -> int:
        """Whole seconds until ``key`` has a token again (for the Retry-After header)."""
        with self._lock:
            b = self._buckets.get(key)
            if b is None or b.tokens >= 1.0:
                return 0
            return max(1, int((1.0 - b.tokens) / self.rate + 0.999))

    def _forget_full(self, now: float) -> None:
        for key in [
            k for k, b in self._buckets.items()
            if b.tokens + (now - b.stamp) * self.rate >= self.capacity
        ]:  # fmt: skip
            del self._buckets[key]
