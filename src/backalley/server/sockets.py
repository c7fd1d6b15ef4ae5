"""A table's WebSocket: ``hello`` first, then the seat's actions, claims, take-backs,
rematch answers, chat and pings, each answered, with a queue of frames per connection so
that a slow reader never holds up its table (docs/protocol.md)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Awaitable
from typing import Any

from starlette.websockets import WebSocket, WebSocketDisconnect

from backalley.cards import N_
from backalley.i18n import explain_in, translator
from backalley.server import protocol
from backalley.server.account_routes import same_origin
from backalley.server.accounts import COOKIE
from backalley.server.limits import Bucket, may_guess, wrong_guess
from backalley.server.protocol import ProtocolError
from backalley.server.registry import Tables
from backalley.server.settings import TableError
from backalley.server.store import StoreError
from backalley.server.table import Table, messages

log = logging.getLogger("backalley.server")

HELLO_WAIT = 10.0  #: seconds a new connection has to say hello
RATE = 50.0  #: messages a second a connection may send, on average …
BURST = 100  #: … with bursts of this many
FLOOD = 100  #: messages refused for the rate within FLOOD_WINDOW seconds close the connection
FLOOD_WINDOW = 10.0
CHAT_RATE, CHAT_BURST = 0.5, 5  #: chat messages a second, and their burst
QUEUE = 2000  #: messages that may wait for a slow reader before it is dropped
NOT_STORED = N_("the server could not store this just now: send it again, with the same id")


class Connection:
    """One WebSocket at a table: its seat (``None``: a spectator), its language, and a queue
    of frames so that a slow reader never holds up the table."""

    def __init__(self, socket: WebSocket, seat: int | None, lang: str | None) -> None:
        self.socket = socket
        self.seat = seat
        self.catalog = translator(lang)
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()  # held to QUEUE by send()
        self.closing: int | None = None
        self.sender = asyncio.create_task(self._send_loop())

    def send(self, message: dict[str, Any] | str) -> None:
        if self.closing is not None:
            return
        if self.queue.qsize() >= QUEUE:  # too slow a reader: dropped, and told why by the code
            self.closing = protocol.CLOSE_SLOW
            self.sender.cancel()
            self._closer = asyncio.ensure_future(self._close_now(protocol.CLOSE_SLOW))
            return
        self.queue.put_nowait(message if isinstance(message, str) else protocol.dumps(message))

    def close(self, code: int) -> None:
        """Close with ``code`` once the frames already queued are sent."""
        if self.closing is None:
            self.closing = code
            self.queue.put_nowait(None)

    async def _close_now(self, code: int) -> None:
        with contextlib.suppress(Exception):
            await self.socket.close(code)

    async def _send_loop(self) -> None:
        try:
            while True:
                frame = await self.queue.get()
                if frame is None:
                    await self.socket.close(self.closing or 1000)
                    return
                await self.socket.send_text(frame)
        except Exception:  # the socket is gone: the reader sees it too
            return


def _error(error: ProtocolError, catalog: Any) -> dict[str, Any]:
    return protocol.error(error.code, explain_in(error, catalog), error=error)


async def table_socket(socket: WebSocket) -> None:
    """A table's WebSocket: ``hello`` first, then actions, claims and chat (docs/protocol.md)."""
    await socket.accept()
    tables: Tables = socket.app.state.tables
    try:
        table = await tables.get(socket.path_params["table_id"])
    except TableError:  # another node holds it now (it moved as the client came)
        await socket.close(protocol.CLOSE_MOVED, "the table moved to another server")
        return
    if table is None:
        await socket.close(protocol.CLOSE_NO_TABLE, "no such table")
        return
    try:
        frame = await asyncio.wait_for(socket.receive_text(), HELLO_WAIT)
        refusal = protocol.too_large(frame)
        if refusal is not None:
            raise refusal
        hello = protocol.parse(frame)
    except (TimeoutError, ProtocolError, WebSocketDisconnect, KeyError, RuntimeError):
        with contextlib.suppress(Exception):
            await socket.close(protocol.CLOSE_POLICY, "say hello first")
        return
    if not isinstance(hello, protocol.Hello):
        await socket.close(protocol.CLOSE_POLICY, "say hello first")
        return
    try:
        may_guess(socket)
    except TableError:
        await socket.close(protocol.CLOSE_GUESSING, "too many wrong tokens: wait a minute")
        return
    seat = table.seat_of(hello.token) if hello.token is not None else None
    if hello.token is None and hello.watch is None:  # a signed-in player's own seat, maybe
        session = await socket.app.state.accounts.session(socket.cookies.get(COOKIE))
        if session is not None and same_origin(socket, required=True):
            seat = table.seat_of(None, session.account.id)
    if (hello.token is not None and seat is None) or (
        seat is None and not table.may_watch(hello.watch)
    ):
        wrong_guess(socket)
        await socket.close(protocol.CLOSE_UNAUTHORIZED, "this token does not open this table")
        return
    connection = Connection(socket, seat, hello.lang)
    await messages.join(table, connection, hello.since)
    try:
        await _serve(socket, table, connection)
    finally:
        messages.leave(table, connection)
        connection.close(1000)
        with contextlib.suppress(Exception):  # let the last frames and the close code out
            await asyncio.wait_for(connection.sender, 5)


async def _serve(socket: WebSocket, table: Table, connection: Connection) -> None:
    bucket, chat = Bucket(RATE, BURST), Bucket(CHAT_RATE, CHAT_BURST)
    refused: deque[float] = deque()  # when frames were dropped for the rate, lately
    while connection.closing is None:
        received = await socket.receive()
        if received["type"] == "websocket.disconnect":
            return
        frame = received.get("text")
        if frame is None:
            frame = received.get("bytes") or b""
        error = protocol.too_large(frame)
        if error is not None:
            connection.send(_error(error, connection.catalog))
            connection.close(protocol.CLOSE_TOO_BIG)
            return
        if not bucket.take():
            now = time.monotonic()
            refused.append(now)
            while refused[0] < now - FLOOD_WINDOW:
                refused.popleft()
            if len(refused) >= FLOOD:
                connection.close(protocol.CLOSE_POLICY)
                return
            if len(refused) == 1 or len(refused) % 10 == 0:
                error = ProtocolError(
                    "rate_limited",
                    N_("too many messages: at most {rate} a second; this one was dropped"),
                    rate=int(RATE),
                )
                connection.send(_error(error, connection.catalog))
            continue
        try:
            message = protocol.parse(frame)
            if isinstance(message, protocol.Act):
                await messages.act(table, connection, message)
            elif isinstance(message, protocol.Claim):  # settled aside: the seat goes on
                table.later(_answered(table, connection, frame, messages.claim(
                    table, connection, message)))  # fmt: skip
            elif isinstance(message, protocol.Undo):
                await messages.undo(table, connection, message)
            elif isinstance(message, protocol.Rematch):
                await messages.offer_rematch(table, connection, message)
            elif isinstance(message, protocol.Chat):
                if not chat.take():
                    raise ProtocolError("rate_limited", N_("too many chat messages: wait a moment"))
                await messages.say(table, connection, message.text)
            elif isinstance(message, protocol.Ping):
                connection.send(protocol.pong(table.version))
            else:
                raise ProtocolError("hello_again", N_("hello is only the first message"))
        except Exception as failure:
            connection.send(_answer_failure(table, frame, failure, connection.catalog))


async def _answered(
    table: Table, connection: Connection, frame: str | bytes, work: Awaitable[None]
) -> None:
    """``work`` done, its failure answered as a message's would be."""
    try:
        await work
    except Exception as failure:
        connection.send(_answer_failure(table, frame, failure, connection.catalog))


def _answer_failure(table: Table, frame: str | bytes, error: Exception, catalog: Any) -> Any:
    """The error answering a message that failed, with the message's id when it had one (so
    that the client knows which one to send again): a refusal as it is; a write the store
    did not take as ``not_stored``, logged in a line; anything else logged in full."""
    if isinstance(error, StoreError):
        log.warning("table %s: a message was not stored: %s", table.id, error)
        error = ProtocolError("not_stored", NOT_STORED)
    if isinstance(error, ProtocolError):  # a TableError too
        reply = _error(error, catalog)
    else:
        log.exception("table %s: a message failed", table.id, exc_info=error)
        text = catalog.gettext(N_("the server could not handle this message"))
        reply = protocol.error("server_error", text)
    if isinstance(message_id := _id_of(frame), str):
        reply["id"] = message_id
    return reply


def _id_of(frame: str | bytes) -> str | None:
    """The client id a refused message carried, if it is one the server could have taken (an
    id it cannot send back, a lone surrogate, is not echoed)."""
    with contextlib.suppress(Exception):
        value = protocol.loads(frame).get("id")
        if isinstance(value, int) or (isinstance(value, str) and protocol.is_text(value)):
            return str(value)[:40]
    return None


__all__ = ["QUEUE", "Connection", "table_socket"]
