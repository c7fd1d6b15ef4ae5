"""The server's ASGI middleware, around its routes: a node of several forwards what belongs to
a table another node holds (:class:`Forwarder`), and every HTTP answer carries the security
headers (:class:`SecurityHeaders`). (The guard of every change a session cookie authorises is
with the accounts' routes: :class:`~backalley.server.account_routes.CookieGuard`.)"""

from __future__ import annotations

import re
from typing import Any

from starlette.datastructures import Headers
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import Request

from backalley.server import protocol
from backalley.server.assets import accepts_gzip
from backalley.server.refusals import refused
from backalley.server.settings import TableError

#: Sent with every HTTP answer: the page loads nothing from elsewhere and is never framed,
#: and no address (an invite holds a secret) is passed on to another site.
SECURITY_HEADERS = {
    "content-security-policy": (
        "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
        "img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; "
        "form-action 'self'"
    ),
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
    "x-content-type-options": "nosniff",
}

_TABLE_PATH = re.compile(r"^/(?:api|ws)/tables/([^/]+)")


class Forwarder:
    """ASGI middleware of a node of several: a request or WebSocket for a table another node
    holds is served by that node, through Redis (:mod:`~backalley.server.relay`); everything
    else, and whatever another node forwarded here, is served here."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        cluster = getattr(scope["app"].state, "cluster", None) if "app" in scope else None
        found = _TABLE_PATH.match(scope.get("path", ""))
        if (
            cluster is None
            or found is None
            or scope["type"] not in ("http", "websocket")
            or "backalley.forwarded" in scope
        ):
            await self.app(scope, receive, send)
            return
        table_id = found.group(1)
        try:
            owner = await cluster.locate(table_id) if len(table_id) <= 16 else None
            if owner is not None and owner != cluster.node:
                if scope["type"] == "http":
                    await cluster.relay.forward_http(scope, receive, send, owner)
                else:
                    await cluster.relay.forward_websocket(scope, receive, send, owner, table_id)
                return
        except TableError as error:  # the table cannot be served just now, nor forwarded
            await _refuse(scope, receive, send, error)
            return
        await self.app(scope, receive, send)  # here, or no such table: said here


async def _refuse(scope: Any, receive: Any, send: Any, error: TableError) -> None:
    """Answer a request the Forwarder could not serve: an HTTP request as every refusal is
    (:func:`~backalley.server.refusals.refused`), a WebSocket closed with CLOSE_UNREACHABLE
    (try again later)."""
    if scope["type"] == "http":
        await (await refused(Request(scope), error))(scope, receive, send)
    elif (await receive())["type"] == "websocket.connect":
        await send({"type": "websocket.accept"})
        await send({"type": "websocket.close", "code": protocol.CLOSE_UNREACHABLE,
                    "reason": "the table cannot be served just now"})  # fmt: skip


class Compressed(GZipMiddleware):
    """ASGI middleware: an HTTP answer gzipped when the client takes gzip (not at ``q=0``,
    which Starlette's own reads as a yes) and it is long enough. The client's files come
    gzipped already (:mod:`~backalley.server.assets`), and are sent as they come."""

    def __init__(self, app: Any) -> None:
        super().__init__(app, minimum_size=1024, compresslevel=6)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and not accepts_gzip(
            Headers(scope=scope).get("accept-encoding", "")
        ):
            await self.app(scope, receive, send)
            return
        await super().__call__(scope, receive, send)


class SecurityHeaders:
    """ASGI middleware: :data:`SECURITY_HEADERS` on every HTTP answer."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.headers = [(k.encode(), v.encode()) for k, v in SECURITY_HEADERS.items()]

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def sending(message: Any) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *self.headers]}
            await send(message)

        await self.app(scope, receive, sending)


__all__ = ["SECURITY_HEADERS", "Compressed", "Forwarder", "SecurityHeaders"]
