"""The server's connection plumbing on its own: what a slow reader costs the server."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from backalley.server.protocol import CLOSE_SLOW
from backalley.server.sockets import QUEUE, Connection

pytestmark = pytest.mark.server


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


def test_one_rule_hides_a_deals_cards_in_events_and_records_alike() -> None:
    """What a seat may see of a deal is decided in one place (events.seen_of_deal): the
    event broadcast to everyone holds no card, the event as a seat sees it only its own
    hand, and a record read by a seat mid-game the same."""
    from backalley.server.table.events import Dealt, Event, seen_of_deal

    dealt = {"deal": 0, "dealer": 1, "hands": ["AS KS", "2H 3H", "4C 5C", "6D 7D"],
             "stock": ["8S", "9S"]}  # fmt: skip
    event = Event(5, Dealt(0, 1, tuple(dealt["hands"]), tuple(dealt["stock"])))
    assert event.redact() == {"kind": "deal", "deal": 0, "dealer": 1}
    assert event.redact(2) == {"kind": "deal", "deal": 0, "dealer": 1, "hand": "4C 5C"}
    assert "AS" not in event.text() and "8S" not in event.text()
    seen = seen_of_deal(dealt, 2)
    assert seen == {"dealer": 1, "hands": [None, None, "4C 5C", None], "stock": None}
    assert seen_of_deal(dealt, None)["hands"] == [None] * 4
