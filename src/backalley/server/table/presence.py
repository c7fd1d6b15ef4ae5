"""Who is at a table now: the connections of each seat and the spectators', and for each
person not connected, since when — after the grace period a bot stands in for them. Nothing
of this is in the log: it is not the game, and a restart rebuilds it (each seat's person's
time of going is kept in their seat's row, so that the grace goes on where it had got to).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Iterable
from typing import Any, Protocol

from backalley.server.store import Store
from backalley.server.table.state import TableState, TableStatus

log = logging.getLogger("backalley.server")


class Client(Protocol):
    """A connection as a table sees it: where it sits and how to reach it."""

    seat: int | None
    catalog: Any  #: gettext translations in the client's language

    def send(self, message: dict[str, Any] | str) -> None: ...

    def close(self, code: int) -> None: ...


class Presence:
    """The connections at one table, and who is away since when."""

    def __init__(
        self,
        table_id: str,
        seats: int,
        grace: float,
        store: Store,
        state: Callable[[], TableState],
        wake: Callable[[], None],
        tell: Callable[[], None],
        later: Callable[[Any], None],
    ) -> None:
        """``state()`` is the table's state now; ``wake()`` is told when a stand-in starts or
        ends (the driver's cue), ``tell()`` when the table is to be told who is here (a
        stand-in began); ``later(coroutine)`` runs background work the table holds."""
        self.table_id, self.grace, self.store = table_id, grace, store
        self._state, self._wake, self._tell, self._later = state, wake, tell, later
        self.clients: list[set[Client]] = [set() for _ in range(seats)]
        self.watchers: set[Client] = set()
        self.away_since: list[float | None] = [None] * seats  #: the monotonic clock
        self.stand_in = [False] * seats
        self.away_at: list[float | None] = [None] * seats  #: as stored: the wall clock
        self.quiet = False  #: another node holds the table: nothing is stored from here

    def everyone(self) -> Iterable[Client]:
        for clients in self.clients:
            yield from clients
        yield from self.watchers

    def anyone(self) -> bool:
        return any(True for _ in self.everyone())

    def connected(self, seat: int) -> bool:
        return bool(self.clients[seat])

    def join(self, client: Client) -> None:
        """``client`` is here: a person who was away is back, their stand-in gone."""
        seat = client.seat
        if seat is None:
            self.watchers.add(client)
            return
        self.clients[seat].add(client)
        if self.away_since[seat] is not None or self.stand_in[seat]:
            self.away_since[seat] = None
            self.stand_in[seat] = False
            self._wake()
        if self.away_at[seat] is not None:
            self._note(seat, None)

    def leave(self, client: Client) -> None:
        """``client`` is gone: a person whose last connection closed, in a game, is away."""
        seat = client.seat
        if seat is None:
            self.watchers.discard(client)
            return
        self.clients[seat].discard(client)
        state = self._state()
        if not self.clients[seat] and state.seats[seat].bot is None and state.game is not None:
            self.away(seat)

    def away(self, seat: int, went: float | None = None) -> None:
        """``seat``'s person is not connected: a bot stands in after the grace period, timed
        on the monotonic clock (a wall clock stepped back once meant no bot ever stood in).
        The wall-clock time they went is stored, so that after a restart (``went``) the
        grace goes on from where it had got to."""
        elapsed = 0.0 if went is None else min(max(0.0, time.time() - went), self.grace)
        self.away_since[seat] = time.monotonic() - elapsed
        if went is None:
            self._note(seat, time.time())
        asyncio.get_running_loop().call_later(self.grace - elapsed, self._check, seat)

    def forget(self, seat: int) -> None:
        """``seat``'s person left for good: nobody there is away."""
        self.away_since[seat] = None
        self.stand_in[seat] = False

    def _check(self, seat: int) -> None:
        since = self.away_since[seat]
        gone = since is not None and time.monotonic() - since >= self.grace - 0.01
        if gone and not self.stand_in[seat] and self._state().status == TableStatus.PLAYING:
            self.stand_in[seat] = True
            self._tell()
            self._wake()

    def _note(self, seat: int, at: float | None) -> None:
        """Store when ``seat``'s person went (``None``: came back): presence, not the log, so
        outside any change; a write that fails costs only a full grace after a restart."""
        if self.quiet:
            return
        self.away_at[seat] = at

        async def store() -> None:
            try:
                await self.store.write(Store.away(self.table_id, seat, at))
            except Exception as error:  # the store failing: said, and nothing else depends on it
                log.warning("table %s: seat %d's presence not stored: %s", self.table_id, seat,
                            error)  # fmt: skip

        self._later(store())

    def seats(self, names: list[str | None]) -> list[dict[str, Any]]:
        """Each seat as the table object and ``presence`` messages show it (under the names
        shown, ``names``)."""
        state = self._state()
        return [
            {
                "seat": s,
                "name": names[s],
                "bot": seat.bot,
                "connected": bool(self.clients[s]) or seat.bot is not None,
                "stand_in": self.stand_in[s],
            }
            for s, seat in enumerate(state.seats)
        ]


__all__ = ["Client", "Presence"]
