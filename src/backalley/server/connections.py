"""The server's guard on its raw connections, below the app: how many one client address may
hold open at once, and how long a request's head may take to come.

A client that opens connections and never finishes a request head (a slow-loris), or opens
hundreds, held them all for as long as it liked: the app never sees a request that has not
begun. Both are answered here, in uvicorn's own HTTP and WebSocket protocols: a connection
over the address's cap is answered ``429`` and closed at once; one whose next request head
has not come ``HEAD_WAIT`` seconds after it opened (or after its last answer) is closed. A
request's body has a limit of its own, in the app (``too_slow``); a request answered before
its body has all come (that refusal, or any other) is closed with its answer.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

log = logging.getLogger("backalley.server")

HEAD_WAIT = 10.0  #: seconds a request's head may take, from the connection or the last answer
CONNECTIONS_PER_ADDRESS = 200  #: open connections (HTTP and WebSocket) one address may hold

_TOO_MANY = (
    b"HTTP/1.1 429 Too Many Requests\r\ncontent-type: text/plain\r\ncontent-length: 39\r\n"
    b"connection: close\r\n\r\ntoo many connections from this address\n"
)


class Guard:
    """The open connections of each address, against the cap."""

    def __init__(self, per_address: int = CONNECTIONS_PER_ADDRESS) -> None:
        self.per_address = per_address
        self.open: Counter[str] = Counter()

    def enter(self, address: str) -> bool:
        """Count a new connection from ``address``: whether it is within the cap (if not, it
        is not counted)."""
        if self.open[address] >= self.per_address:
            return False
        self.open[address] += 1
        return True

    def leave(self, address: str) -> None:
        self.open[address] -= 1
        if self.open[address] <= 0:
            del self.open[address]


class GuardedHTTP(H11Protocol):
    """uvicorn's HTTP protocol, with the cap and the head's time limit."""

    guard: Guard = Guard()  #: the server's (each server's protocols have their own)
    _address: str | None = None
    _head: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        address = self.client[0] if self.client else ""
        if not self.guard.enter(address):
            log.debug("%s: over %d connections: refused", address, self.guard.per_address)
            transport.write(_TOO_MANY)
            transport.close()
            return
        self._address = address
        self._wait_for_head()

    def _wait_for_head(self) -> None:
        if self._head is not None:
            self._head.cancel()
        self._head = self.loop.call_later(HEAD_WAIT, self._head_late)

    def _head_late(self) -> None:
        """No request under way ``HEAD_WAIT`` seconds on: close (a request that has begun has
        the body's own limit)."""
        self._head = None
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            log.debug("%s: no request head within %g s: closed", self._address, HEAD_WAIT)
            self.transport.close()

    def on_response_complete(self) -> None:
        if self.conn.their_state is h11.SEND_BODY:
            # Answered before its body came (a refusal: too large, too slow, no such table):
            # the rest is never read, so the connection ends with the answer. Kept open, a
            # client sending a byte now and then held it for as long as it liked.
            log.debug("%s: answered before its body came: closed", self._address)
            self.transport.close()
        else:
            self._wait_for_head()
        super().on_response_complete()

    def handle_websocket_upgrade(self, event: h11.Request) -> None:
        if self._head is not None:
            self._head.cancel()
            self._head = None
        super().handle_websocket_upgrade(event)
        upgraded = self.transport.get_protocol()
        if isinstance(upgraded, GuardedWebSocket):  # it counts the connection from now on
            upgraded.address, self._address = self._address, None

    def connection_lost(self, exc: Exception | None) -> None:
        if self._head is not None:
            self._head.cancel()
        if self._address is not None:
            self.guard.leave(self._address)
            self._address = None
        super().connection_lost(exc)


class GuardedWebSocket(WebSocketsSansIOProtocol):
    """uvicorn's WebSocket protocol, counted against the cap until it closes."""

    guard: Guard = Guard()  #: its HTTP protocol's (which counted the connection first)
    address: str | None = None

    def connection_lost(self, exc: Exception | None) -> None:
        if self.address is not None:
            self.guard.leave(self.address)
            self.address = None
        super().connection_lost(exc)


def protocols(per_address: int) -> dict[str, Any]:
    """uvicorn's ``http`` and ``ws`` settings for a server whose addresses may each hold
    ``per_address`` connections: its own guard, which its two protocols share."""
    guard = Guard(per_address)
    http = type("GuardedHTTP", (GuardedHTTP,), {"guard": guard})
    ws = type("GuardedWebSocket", (GuardedWebSocket,), {"guard": guard})
    return {"http": http, "ws": ws}


__all__ = ["CONNECTIONS_PER_ADDRESS", "HEAD_WAIT", "Guard", "protocols"]
