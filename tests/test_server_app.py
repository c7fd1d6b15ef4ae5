"""The server's connection plumbing on its own: what a slow reader costs the server."""

from __future__ import annotations

import asyncio
from typing import Any

from backalley.server.protocol import CLOSE_SLOW
from backalley.server.sockets import QUEUE, Connection


class StuckSocket:
    """A WebSocket whose reader never reads: every send waits forever."""

    def __init__(self) -> None:
        self.closed_with: int | None = None

    async def send_text(self, text: str) -> None:
        await asyncio.Event().wait()

    async def close(self, code: int = 1000) -> None:
        self.closed_with = code


def test_a_reader_too_slow_is_closed_with_4408_and_costs_no_more_memory() -> None:
    async def scenario() -> tuple[Any, Connection]:
        socket = StuckSocket()
        connection = Connection(socket, seat=0, lang=None)  # type: ignore[arg-type]
        for number in range(QUEUE + 50):
            connection.send({"type": "pong", "version": number})
        await asyncio.sleep(0.05)
        return socket, connection

    socket, connection = asyncio.run(scenario())
    assert socket.closed_with == CLOSE_SLOW
    assert connection.closing == CLOSE_SLOW
    assert connection.queue.qsize() <= QUEUE
