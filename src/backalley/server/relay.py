"""A table's clients served by whichever node they reach: their requests and WebSocket frames
carried through Redis to the node that holds the table, and its answers carried back.

The node a client reaches (the *edge*) holds the client's connection and nothing of the
table; the table's owner runs the request through its own app, exactly as if the client had
connected to it, so that every check, limit and message is the same on one node or several.
The edge is a pipe: an HTTP request goes over whole and its answer comes back whole; a
WebSocket's frames go over one by one, in order, each way (:class:`EdgeTunnel` at the edge,
:class:`OwnerTunnel` at the owner). Nodes never talk to each other but through Redis, so a node
needs no address the others can reach (docs/deploy.md says why we forward and do not
redirect).

A tunnel ends, and its client is closed with ``CLOSE_MOVED`` to reconnect with ``since``, when
the table moves (another node took it) or when the other end's node is gone (its heartbeat
stopped, or a message to it found nobody listening); with ``CLOSE_UNREACHABLE``, to try again
a little later, when Redis is lost or stops answering.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from backalley.cards import N_
from backalley.server import protocol
from backalley.server.requests import BODY_WAIT, too_slow
from backalley.server.settings import TableError

if TYPE_CHECKING:
    from backalley.server.cluster import Cluster

log = logging.getLogger("backalley.server")

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]

HTTP_WAIT = 60.0  #: seconds an edge waits for the owner's answer (a review may take a while)
CALL_WAIT = 15.0  #: seconds an edge waits for a table's method run by its owner
QUEUE = 2000  #: frames that may wait for a slow reader at the edge before it is dropped
UNREACHABLE = N_("the server holding this table cannot be reached just now: try again shortly")
NO_ANSWER = N_(
    "the server holding this table did not answer: the request may or may not have been "
    "carried out; look at the table before trying again"
)
#: The methods of a table another node may call (account routes that change several tables).
CALLS = ("leave_seat", "claim_seat")

#: The parts of an ASGI scope that cross to the owner (the rest is the edge's own).
_SCOPE = ("type", "http_version", "method", "scheme", "path", "query_string", "root_path",
          "client", "server", "subprotocols")  # fmt: skip


def pack_scope(scope: Scope) -> dict[str, Any]:
    """``scope`` as JSON can carry it (bytes as Latin-1 text)."""
    packed = {key: scope[key] for key in _SCOPE if key in scope}
    packed["query_string"] = scope.get("query_string", b"").decode("latin-1")
    packed["raw_path"] = (scope.get("raw_path") or scope["path"].encode()).decode("latin-1")
    packed["headers"] = [[k.decode("latin-1"), v.decode("latin-1")] for k, v in scope["headers"]]
    return packed


def unpack_scope(packed: dict[str, Any], edge: str) -> Scope:
    """The scope :func:`pack_scope` packed, marked as forwarded by node ``edge`` (so that
    this node serves it, and forwards it nowhere)."""
    scope: Scope = dict(packed)
    scope["query_string"] = packed["query_string"].encode("latin-1")
    scope["raw_path"] = packed["raw_path"].encode("latin-1")
    scope["headers"] = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in packed["headers"]]
    scope["client"] = tuple(packed["client"]) if packed.get("client") else None
    scope["server"] = tuple(packed["server"]) if packed.get("server") else None
    scope["asgi"] = {"version": "3.0"}
    scope["backalley.forwarded"] = edge
    return scope


class EdgeTunnel:
    """A client's WebSocket held here, for a table another node holds: what the owner sends
    waits in ``out`` for the client."""

    def __init__(self, cid: str, owner: str, table_id: str) -> None:
        self.cid, self.owner, self.table_id = cid, owner, table_id
        self.out: asyncio.Queue[str | tuple[int, str]] = asyncio.Queue()
        self.closing = False

    def deliver(self, frame: str) -> None:
        if self.closing:
            return
        if self.out.qsize() >= QUEUE:  # too slow a reader: dropped, and told why by the code
            self.close(protocol.CLOSE_SLOW, "")
            return
        self.out.put_nowait(frame)

    def close(self, code: int, reason: str) -> None:
        if not self.closing:
            self.closing = True
            self.out.put_nowait((code, reason))


class OwnerTunnel:
    """A client of another node, served here as a WebSocket of this node's app: its frames
    come in ``inbox``; what the app sends goes back to the edge."""

    def __init__(self, relay: Relay, cid: str, edge: str) -> None:
        self.relay, self.cid, self.edge = relay, cid, edge
        self.inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.inbox.put_nowait({"type": "websocket.connect"})
        self.closed = False
        self.task: asyncio.Task[None] | None = None

    async def receive(self) -> dict[str, Any]:
        return await self.inbox.get()

    async def send(self, message: dict[str, Any]) -> None:
        kind = message["type"]
        if self.closed or kind == "websocket.accept":  # the edge accepted it already
            return
        if kind == "websocket.send":
            if message.get("text") is not None:
                self.relay.to(self.edge, "ws_out", self.cid, message["text"].encode())
            return
        if kind == "websocket.close":
            self.closed = True
            closing = {"code": message.get("code", 1000), "reason": message.get("reason") or ""}
            self.relay.to(self.edge, "ws_close", self.cid, json.dumps(closing).encode())

    def gone(self, tell: bool = False) -> None:
        """The client, or its edge, is gone: the app sees a disconnect. ``tell``: the edge
        only seems gone (its heartbeat late, or a message that reached nobody), so it is
        told to close the client too, which reconnects."""
        if tell and not self.closed:
            closing = {"code": protocol.CLOSE_MOVED, "reason": "the table's server lost you"}
            self.relay.to(self.edge, "ws_close", self.cid, json.dumps(closing).encode())
        self.closed = True
        self.inbox.put_nowait({"type": "websocket.disconnect", "code": 1001})


class Relay:
    """The tunnels and forwarded requests of one node, both ways."""

    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster
        self.app: Any = None  #: this node's ASGI app, which serves what is forwarded here
        self.edges: dict[str, EdgeTunnel] = {}
        self.owned: dict[str, OwnerTunnel] = {}
        self.waiting: dict[str, tuple[str, asyncio.Future[dict[str, Any]]]] = {}
        self.served: dict[str, float] = {}  #: the requests run here, until they lapse
        self._pruned = 0.0  #: when those that lapsed were last forgotten
        #: the nodes found gone, and when: a client is not sent to one, whose leases lapse soon
        self.dead: dict[str, float] = {}

    def to(self, node: str, kind: str, cid: str, payload: bytes) -> None:
        self.cluster.send(node, kind, cid, payload)

    def peers(self) -> set[str]:
        """The nodes at the other end of a tunnel or a request now."""
        return (
            {t.owner for t in self.edges.values()}
            | {t.edge for t in self.owned.values()}
            | {node for node, _ in self.waiting.values()}
        )

    # ------------------------------------------------------------------ at the edge

    async def forward_http(self, scope: Scope, receive: Receive, send: Send, owner: str) -> None:
        """Serve an HTTP request for a table ``owner`` holds: its body read here, the request
        run there, the answer sent back whole.

        :raises TableError: ``too_slow`` (its body did not come), ``unreachable`` or
            ``no_answer`` (see :meth:`_ask`); nothing was sent to the client.
        """
        body, more = b"", True
        try:
            async with asyncio.timeout(BODY_WAIT):
                while more and len(body) <= protocol.MAX_FRAME:  # the owner refuses longer
                    message = await receive()
                    if message["type"] == "http.disconnect":
                        return
                    body += message.get("body", b"")
                    more = message.get("more_body", False)
        except TimeoutError:
            raise too_slow() from None
        packed = {"scope": pack_scope(scope), "body": base64.b64encode(body).decode()}
        answer = await self._ask(owner, "http", packed, HTTP_WAIT)
        headers = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in answer["headers"]]
        await send({"type": "http.response.start", "status": answer["status"], "headers": headers})
        await send({"type": "http.response.body", "body": base64.b64decode(answer["body"])})

    async def call(self, owner: str, table_id: str, method: str, *args: Any) -> Any:
        """``table.method(*args)`` run by ``owner``, the node that holds the table.

        :raises TableError: the table's refusal, or ``unreachable``.
        """
        packed = {"table": table_id, "method": method, "args": list(args)}
        answer = await self._ask(owner, "call", packed, CALL_WAIT)
        if "error" in answer:
            refusal = answer["error"]
            raise TableError(refusal["code"], refusal["template"], **refusal["params"])
        return answer["result"]

    async def _ask(
        self, owner: str, kind: str, packed: dict[str, Any], wait: float
    ) -> dict[str, Any]:
        """Send ``packed`` to ``owner`` and wait for its answer. The owner does not run it
        once ``wait`` seconds are past (by its clock: a request stuck in a queue meanwhile).

        :raises TableError: ``unreachable`` when Redis is away (nothing was sent), or
            ``no_answer`` when the owner went, or did not answer within ``wait`` seconds:
            the request may or may not have been carried out.
        """
        if not self.cluster.available:
            raise TableError("unreachable", UNREACHABLE)
        rid = secrets.token_hex(8)
        answer: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.waiting[rid] = (owner, answer)
        try:
            packed["until"] = time.time() + wait
            self.to(owner, kind, rid, json.dumps(packed).encode())
            async with asyncio.timeout(wait):
                return await answer
        except (TimeoutError, ConnectionError):
            raise TableError("no_answer", NO_ANSWER) from None
        finally:
            self.waiting.pop(rid, None)

    async def forward_websocket(
        self, scope: Scope, receive: Receive, send: Send, owner: str, table_id: str
    ) -> None:
        """Hold a client's WebSocket for a table ``owner`` holds: accepted here, its frames
        passed on in order, the owner's frames and close passed back.

        :raises TableError: ``unreachable`` when Redis is away (before anything is done).
        """
        if not self.cluster.available:
            raise TableError("unreachable", UNREACHABLE)
        if (await receive())["type"] != "websocket.connect":
            return
        await send({"type": "websocket.accept"})
        cid = secrets.token_hex(8)
        tunnel = self.edges[cid] = EdgeTunnel(cid, owner, table_id)
        self.to(owner, "ws_open", cid, json.dumps(pack_scope(scope)).encode())
        writer = asyncio.create_task(self._write(tunnel, send))
        try:
            while True:
                message = await receive()
                if message["type"] == "websocket.disconnect":
                    break
                if tunnel.closing:
                    continue  # the close is on its way; the client's last words go nowhere
                if message.get("text") is not None:
                    self.to(owner, "ws_in", cid, message["text"].encode())
                else:
                    self.to(owner, "ws_bin", cid, message.get("bytes") or b"")
        finally:  # the owner is told even when the close was this node's own (a slow
            # reader, the owner gone): a tunnel it does not know is nothing to it
            self.to(owner, "ws_gone", cid, b"")
            tunnel.close(1000, "")
            self.edges.pop(cid, None)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(writer, 5)

    @staticmethod
    async def _write(tunnel: EdgeTunnel, send: Send) -> None:
        """Send the client what the owner sent, then its close."""
        with contextlib.suppress(Exception):  # the client is gone: the reader sees it too
            while True:
                item = await tunnel.out.get()
                if isinstance(item, str):
                    await send({"type": "websocket.send", "text": item})
                    continue
                code, reason = item
                await send({"type": "websocket.close", "code": code, "reason": reason})
                return

    # ------------------------------------------------------------------ messages in

    def receive(self, kind: str, cid: str, sender: str, payload: bytes) -> None:
        """A message from node ``sender``, dispatched at once and in order (a tunnel's frames
        reach it in the order they were sent)."""
        if kind == "ws_out":
            edge = self.edges.get(cid)
            if edge is not None:
                edge.deliver(payload.decode())
        elif kind == "ws_in" or kind == "ws_bin":
            owned = self.owned.get(cid)
            if owned is not None and not owned.closed:
                frame = {"text": payload.decode()} if kind == "ws_in" else {"bytes": payload}
                owned.inbox.put_nowait({"type": "websocket.receive", **frame})
        elif kind == "ws_open":
            self._open(cid, sender, json.loads(payload))
        elif kind == "ws_gone":
            owned = self.owned.get(cid)
            if owned is not None:
                owned.gone()
        elif kind == "ws_close":
            edge = self.edges.get(cid)
            if edge is not None:
                closing = json.loads(payload)
                edge.close(closing["code"], closing["reason"])
        elif kind in ("http", "call"):
            packed = json.loads(payload)
            if self._first(cid, packed.get("until", time.time() + HTTP_WAIT)):
                self.cluster.hold(asyncio.ensure_future(self._serve(kind, cid, sender, packed)))
        elif kind == "reply":
            waiting = self.waiting.get(cid)
            if waiting is not None and not waiting[1].done():
                waiting[1].set_result(json.loads(payload))

    def _first(self, rid: str, until: float) -> bool:
        """Whether request ``rid`` comes here for the first time: one sent twice (Redis
        retried its publication) is run once. Each is remembered until it is too late to run
        (``until``, the edge's clock)."""
        now = time.time()
        if now > self._pruned + 1:
            self.served, self._pruned = {r: t for r, t in self.served.items() if t > now}, now
        if rid in self.served:
            log.warning("a request came twice: run once")
            return False
        self.served[rid] = until
        return True

    def _open(self, cid: str, edge: str, packed: dict[str, Any]) -> None:
        """A client of node ``edge`` connects here: served by this node's app."""
        tunnel = self.owned[cid] = OwnerTunnel(self, cid, edge)
        scope = unpack_scope(packed, edge)

        async def serve() -> None:
            try:
                await self.app(scope, tunnel.receive, tunnel.send)
            except Exception:
                log.exception("a WebSocket forwarded by node %s failed", edge)
                await tunnel.send({"type": "websocket.close", "code": 1011})
            finally:
                await tunnel.send({"type": "websocket.close", "code": 1000})
                self.owned.pop(cid, None)

        tunnel.task = asyncio.ensure_future(serve())

    async def _serve(self, kind: str, rid: str, edge: str, packed: dict[str, Any]) -> None:
        """Run a request node ``edge`` forwarded, and send it the answer (none when it came
        too late: the edge has answered its client already)."""
        if time.time() > packed.get("until", float("inf")):
            log.warning("a request forwarded by node %s came too late: not run", edge)
            return
        if kind == "http":
            answer = await self._run_http(unpack_scope(packed["scope"], edge), packed["body"])
        else:
            answer = await self._run_call(packed)
        self.to(edge, "reply", rid, json.dumps(answer).encode())

    async def _run_http(self, scope: Scope, body: str) -> dict[str, Any]:
        """Run a forwarded HTTP request through this node's app: its answer."""
        answer: dict[str, Any] = {"status": 500, "headers": [], "body": ""}
        chunks: list[bytes] = []
        sent = False

        async def receive() -> dict[str, Any]:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": base64.b64decode(body), "more_body": False}
            await asyncio.Event().wait()  # the request is whole; nothing more comes
            return {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                answer["status"] = message["status"]
                answer["headers"] = [
                    [k.decode("latin-1"), v.decode("latin-1")] for k, v in message["headers"]
                ]
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))

        with contextlib.suppress(Exception):  # answered with a 500 by the app, and logged
            await self.app(scope, receive, send)
        answer["body"] = base64.b64encode(b"".join(chunks)).decode()
        return answer

    async def _run_call(self, packed: dict[str, Any]) -> dict[str, Any]:
        """Run a table's method another node asked for: its result, or its refusal."""
        try:
            if packed["method"] not in CALLS:
                raise TableError("forbidden", N_("there is no such table"))
            table = await self.cluster.tables.get(packed["table"])
            if table is None:
                raise TableError("no_table", N_("there is no such table"))
            return {"result": await getattr(table, packed["method"])(*packed["args"])}
        except TableError as error:
            return {"error": {"code": error.code, "template": error.template,
                              "params": error.params}}  # fmt: skip
        except Exception:
            log.exception("table %s: %s for another node failed", packed["table"],
                          packed["method"])  # fmt: skip
            failed = N_("the server could not handle this request")
            return {"error": {"code": "server_error", "template": failed, "params": {}}}

    # ------------------------------------------------------------------ endings

    def moved(self, table_id: str, node: str) -> None:
        """``table_id`` is ``node``'s now: the clients held here for its old owner reconnect."""
        for tunnel in list(self.edges.values()):
            if tunnel.table_id == table_id and tunnel.owner != node:
                tunnel.close(protocol.CLOSE_MOVED, "the table moved to another server")

    def gone(self, node: str) -> None:
        """Node ``node`` is gone: its tunnels end both ways, its answers will not come."""
        if node not in self.dead:
            self.cluster.prepare(node)
        self.dead[node] = time.monotonic()
        for tunnel in list(self.edges.values()):
            if tunnel.owner == node:
                tunnel.close(protocol.CLOSE_MOVED, "the server holding the table is gone")
        for owned in list(self.owned.values()):
            if owned.edge == node:
                owned.gone(tell=True)
        for who, answer in list(self.waiting.values()):
            if who == node and not answer.done():
                answer.set_exception(ConnectionError(f"node {node} is gone"))

    def lost(self, node: str | None = None) -> None:
        """Redis is lost or does not answer (or, just back, it has not carried a message to
        ``node``): every tunnel ends (with ``node``, when given), as its messages may have
        been lost, its client told that the table's server cannot be reached just now
        (``CLOSE_UNREACHABLE``: the other nodes are not gone, and a client sent to reconnect
        at once would only be refused); the answers awaited will not come. No node is taken
        for gone: their leases, in the database, say who holds what."""
        for tunnel in list(self.edges.values()):
            if node in (None, tunnel.owner):
                tunnel.close(
                    protocol.CLOSE_UNREACHABLE, "the server holding this table cannot be reached"
                )
        for owned in list(self.owned.values()):
            if node in (None, owned.edge):
                owned.gone()
        for who, answer in list(self.waiting.values()):
            if node in (None, who) and not answer.done():
                answer.set_exception(ConnectionError("Redis is lost"))


__all__ = ["CALLS", "EdgeTunnel", "OwnerTunnel", "Relay", "pack_scope", "unpack_scope"]
