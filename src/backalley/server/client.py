"""A small client of the server's protocol (docs/protocol.md), for programs: tests, the
benchmark, a bot that plays on a server.

An example, against a running server::

    table = create_table("http://localhost:8000", {"hand_sizes": [3, 2, 1]})
    token = take_seat("http://localhost:8000", table, 0, "Ana")
    async with Seat.connect("http://localhost:8000", table["id"], token=token) as seat:
        await seat.until(lambda s: s.my_turn)
        await seat.reply(await seat.act(seat.view["legal"][0]))
"""

from __future__ import annotations

import json
import re
import secrets
import urllib.error
import urllib.request
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from email.message import Message
from typing import Any

from websockets.asyncio.client import ClientConnection, connect


def request(
    base: str,
    method: str,
    path: str,
    body: Any = None,
    token: str | None = None,
    headers: dict[str, str] | None = None,
) -> tuple[int, Any]:
    """An HTTP request to the server: its status and JSON answer."""
    status, answer, _ = exchange(base, method, path, body, token, headers)
    return status, answer


def exchange(
    base: str,
    method: str,
    path: str,
    body: Any = None,
    token: str | None = None,
    headers: dict[str, str] | None = None,
) -> tuple[int, Any, Message]:
    """An HTTP request to the server: its status, JSON answer and the answer's headers."""
    data = None if body is None else json.dumps(body).encode()
    sent = {"content-type": "application/json", **(headers or {})}
    if token is not None:
        sent["authorization"] = f"Bearer {token}"
    req = urllib.request.Request(base + path, data=data, method=method, headers=sent)
    try:
        with urllib.request.urlopen(req, timeout=30) as response:
            return response.status, json.loads(response.read()), response.headers
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null"), error.headers


class Member:
    """A client signed in to an account, as a browser is: it sends the session cookie, the
    page's origin and, with every change, the session's CSRF token; and to sign in, the
    device cookie its sign-ins were given (a device the account knows)."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.cookie: str | None = None
        self.csrf: str | None = None
        self.account: dict[str, Any] | None = None
        self.device: str | None = None

    def sign_up(self, name: str, password: str) -> tuple[int, Any]:
        return self._sign("/api/account/signup", name, password)

    def sign_in(self, name: str, password: str) -> tuple[int, Any]:
        return self._sign("/api/account/signin", name, password)

    def _sign(self, path: str, name: str, password: str) -> tuple[int, Any]:
        status, answer, headers = exchange(
            self.base, "POST", path, {"name": name, "password": password}, headers=self.headers()
        )
        for cookie in headers.get_all("set-cookie") or []:
            if found := re.match(r"backalley_session=([^;]+)", cookie):
                self.cookie = found.group(1)
                self.csrf, self.account = answer["csrf"], answer["account"]
            elif found := re.match(r"backalley_device=([^;]+)", cookie):
                self.device = found.group(1)
        return status, answer

    def headers(self, csrf: bool = True) -> dict[str, str]:
        """What a browser sends from this server's page: the origin, the cookies, the token."""
        sent = {"origin": self.base}
        cookies = {"backalley_session": self.cookie, "backalley_device": self.device}
        if any(cookies.values()):
            sent["cookie"] = "; ".join(f"{k}={v}" for k, v in cookies.items() if v is not None)
        if csrf and self.csrf is not None:
            sent["x-csrf-token"] = self.csrf
        return sent

    def request(
        self, method: str, path: str, body: Any = None, token: str | None = None, csrf: bool = True
    ) -> tuple[int, Any]:
        return request(self.base, method, path, body, token, self.headers(csrf))


def create_table(base: str, settings: dict[str, Any]) -> dict[str, Any]:
    """A new table: its id, the host token, each seat's invite and the watch code."""
    status, answer = request(base, "POST", "/api/tables", settings)
    if status != 201:
        raise RuntimeError(answer)
    return dict(answer)


def take_seat(base: str, table: dict[str, Any], seat: int, name: str) -> str:
    """Take ``seat`` of ``table`` (as :func:`create_table` gave it) under ``name``: the token."""
    invite = table["invites"][seat]["invite"]
    status, answer = request(
        base, "POST", f"/api/tables/{table['id']}/seats/{seat}", {"invite": invite, "name": name}
    )
    if status != 201:
        raise RuntimeError(answer)
    return str(answer["token"])


def seat_bot(base: str, table: dict[str, Any], seat: int, level: str) -> None:
    """Give ``seat`` to a bot of ``level``, as the table's host."""
    status, answer = request(
        base,
        "POST",
        f"/api/tables/{table['id']}/seats/{seat}/bot",
        {"level": level},
        token=table["host"],
    )
    if status != 200:
        raise RuntimeError(answer)


class Seat:
    """A WebSocket at a table, keeping what the server told it: the latest ``view``, the
    ``version`` seen, the ``table``, and every message in ``messages``."""

    def __init__(self, socket: ClientConnection) -> None:
        self.socket = socket
        self.messages: list[dict[str, Any]] = []
        self.view: dict[str, Any] | None = None
        self.table: dict[str, Any] | None = None
        self.version = 0
        # Client ids are the seat's across its connections: a fresh prefix for each.
        self._prefix = secrets.token_hex(4)
        self._next_id = 0

    @classmethod
    @asynccontextmanager
    async def connect(
        cls,
        base: str,
        table_id: str,
        *,
        token: str | None = None,
        watch: str | None = None,
        since: int | None = None,
        lang: str | None = None,
        member: Member | None = None,
    ) -> AsyncIterator[Seat]:
        """Connect and say hello (as a seat with ``token``, a spectator with ``watch``, or as
        ``member``'s seat, signed in, with neither)."""
        uri = "ws" + base.removeprefix("http") + f"/ws/tables/{table_id}"
        headers = None if member is None else member.headers(csrf=False)
        async with connect(
            uri, max_size=2**22, open_timeout=30, additional_headers=headers
        ) as socket:
            seat = cls(socket)
            hello: dict[str, Any] = {"type": "hello"}
            given = {"token": token, "watch": watch, "since": since, "lang": lang}
            hello.update({key: value for key, value in given.items() if value is not None})
            await seat.send(hello)
            yield seat

    @property
    def seat(self) -> int | None:
        return None if self.view is None else self.view["seat"]

    @property
    def my_turn(self) -> bool:
        """This seat is to act (its legal actions are in ``view["legal"]``)."""
        return bool(self.view and self.view["legal"])

    @property
    def over(self) -> bool:
        return bool(self.view and self.view["phase"] == "over")

    async def send(self, message: dict[str, Any]) -> None:
        await self.socket.send(json.dumps(message))

    def _new_id(self) -> str:
        self._next_id += 1
        return f"{self._prefix}-{self._next_id}"

    async def act(self, action: str, id: int | str | None = None) -> str:
        """Send a bid or a card; returns the client id it was sent with (a fresh one unless
        ``id`` is given: the same id again is applied once)."""
        id = self._new_id() if id is None else id
        await self.send({"type": "act", "id": id, "action": action})
        return str(id)

    async def claim(self) -> str:
        """Claim every remaining trick; returns the client id it was sent with."""
        id = self._new_id()
        await self.send({"type": "claim", "id": id})
        return id

    async def undo(self) -> str:
        """Ask to take back our last bid or card; returns the client id it was sent with."""
        id = self._new_id()
        await self.send({"type": "undo", "id": id})
        return id

    async def recv(self) -> dict[str, Any]:
        """The next message, with ``view``, ``table`` and ``version`` brought up to date."""
        message = json.loads(await self.socket.recv())
        self.messages.append(message)
        if message.get("view") is not None:
            self.view = message["view"]
        if message.get("table") is not None:
            self.table = message["table"]
        if "version" in message and message["type"] in ("state", "resync", "event"):
            self.version = message["version"]
        return dict(message)

    async def reply(self, id: int | str) -> dict[str, Any]:
        """Read until the server answers the message sent with client id ``id``: its ``ack``
        (the events it made came before it) or its ``error``."""
        while True:
            message = await self.recv()
            if message["type"] in ("ack", "error") and message.get("id") == str(id):
                return message

    async def until(self, done: Callable[[Seat], bool]) -> None:
        """Read messages until ``done(self)``."""
        while not done(self):
            await self.recv()


__all__ = ["Member", "Seat", "create_table", "exchange", "request", "seat_bot", "take_seat"]
