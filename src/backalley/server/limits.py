"""What one client address may do so often: token buckets per address, for new tables,
wrong credentials and new reviews (docs/protocol.md, limits)."""

from __future__ import annotations

import math
import time
from collections.abc import Callable

from starlette.requests import Request
from starlette.websockets import WebSocket

from backalley.cards import N_
from backalley.server.settings import TableError

TABLES_PER_MINUTE = 20  #: tables one address may create at once, and then as many a minute
#: wrong invites, tokens and watch codes one address may send at once, then as many a minute
GUESSES_PER_MINUTE = 30
#: new deal reviews (solver jobs) one address may start at once, and then as many a minute
REVIEWS_PER_MINUTE = 60
#: decisions one address may ask of ``POST /api/bot`` at once, and then as many a minute
BOT_DECISIONS_PER_MINUTE = 60


class Bucket:
    """A token bucket: ``rate`` a second on average, ``burst`` at once."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate, self.burst = rate, burst
        self.tokens = float(burst)
        self.at = time.monotonic()

    def level(self, now: float) -> float:
        """The tokens in the bucket at ``now``, refilled since it was last taken from."""
        return min(self.burst, self.tokens + (now - self.at) * self.rate)

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens, self.at = self.level(now), now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False

    def wait(self) -> float:
        """The seconds until one may be taken (0: now)."""
        tokens = self.level(time.monotonic())
        return 0.0 if tokens >= 1 else (1 - tokens) / self.rate


class Quota:
    """A token bucket per client address, for the requests that cost something: a bucket
    full again is forgotten, so the map holds only the addresses now busy.

    On a node of several, the quota is the cluster's: each one taken is told to the other
    nodes (:attr:`shared`), which take it from their own bucket (:meth:`spent`), so that an
    address spreading its requests over the nodes gets no more than from one."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate, self.burst = rate, burst
        self.buckets: dict[str, Bucket] = {}
        #: tells the other nodes that one was taken here for an address
        self.shared: Callable[[str], None] | None = None

    def _bucket(self, address: str) -> Bucket:
        bucket = self.buckets.get(address)
        if bucket is None:
            if len(self.buckets) >= 1000:
                self._forget_full()
            bucket = self.buckets[address] = Bucket(self.rate, self.burst)
        return bucket

    def take(self, address: str) -> float:
        """Take one for ``address``: 0 if it may go ahead, else the seconds until it may."""
        bucket = self._bucket(address)
        if bucket.take():
            if self.shared is not None:
                self.shared(address)
            return 0.0
        return bucket.wait()

    def spent(self, address: str) -> None:
        """One was taken for ``address`` on another node: it is gone from here too."""
        bucket = self._bucket(address)
        now = time.monotonic()
        bucket.tokens, bucket.at = max(0.0, bucket.level(now) - 1), now

    def wait(self, address: str) -> float:
        """The seconds until ``address`` may take one (0: now), without taking it."""
        bucket = self.buckets.get(address)
        return 0.0 if bucket is None else bucket.wait()

    def refuse(self, address: str, code: str, template: str, **params: object) -> None:
        """Take one for ``address``, or refuse the request.

        :raises TableError: ``code`` with ``template``, told in how many ``seconds`` to try
            again (which the HTTP answer's ``Retry-After`` gives too).
        """
        wait = self.take(address)
        if wait:
            raise TableError(code, template, seconds=math.ceil(wait), **params)

    def _forget_full(self) -> None:
        now = time.monotonic()
        for address, bucket in list(self.buckets.items()):
            if bucket.level(now) >= bucket.burst:
                del self.buckets[address]


def address_of(connection: Request | WebSocket) -> str:
    return connection.client.host if connection.client else ""


def may_guess(connection: Request | WebSocket) -> None:
    """Refuse a credential from an address that has sent too many wrong ones lately (each
    wrong one is counted by :func:`wrong_guess`): the check comes before the credential's,
    so that a right guess is not let through by a limit that is checked after it.

    :raises TableError: ``too_many_guesses``.
    """
    wait = connection.app.state.guesses.wait(address_of(connection))
    if wait:
        raise TableError(
            "too_many_guesses",
            N_(
                "too many wrong invites, tokens or codes from this address: "
                "try again in {seconds} s"
            ),
            seconds=math.ceil(wait),
        )


def wrong_guess(connection: Request | WebSocket) -> None:
    connection.app.state.guesses.take(address_of(connection))


def may_make_tables(request: Request, count: int = 1) -> None:
    """Refuse ``count`` new tables from an address over its limit (``POST /api/tables``, a
    daily try, a team match's two).

    :raises TableError: ``too_many``.
    """
    quota: Quota = request.app.state.quota
    for _ in range(count):
        quota.refuse(
            address_of(request), "too_many",
            N_("too many new tables from this address ({limit} a minute at most): "
               "try again in {seconds} s"),
            limit=quota.burst,
        )  # fmt: skip


__all__ = [
    "BOT_DECISIONS_PER_MINUTE",
    "GUESSES_PER_MINUTE",
    "REVIEWS_PER_MINUTE",
    "TABLES_PER_MINUTE",
    "Bucket",
    "Quota",
    "address_of",
    "may_guess",
    "may_make_tables",
    "wrong_guess",
]
