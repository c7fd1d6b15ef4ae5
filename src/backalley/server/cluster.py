"""One node of several: ``backalley serve --db postgresql://… --redis redis://…``.

PostgreSQL holds the truth: the tables' logs, and which node holds which table
(:mod:`~backalley.server.leases`). Redis carries what passes between the nodes: a channel a
node for the requests and frames forwarded to it (:mod:`~backalley.server.relay`), one
channel all nodes hear (a table taken, a name changed), and short-lived keys (each node's
heartbeat, and its public tables for the lobby). Nothing in Redis is needed to rebuild
anything: losing it costs the cross-node features until it is back, never a game.

A node renews its leases every :data:`~backalley.server.leases.RENEW` seconds and looks for
tables nobody holds every :data:`~backalley.server.leases.SCAN` seconds, taking its share:
that is how the tables of a node that died go on elsewhere, rebuilt from their logs. A node
told to stop (SIGTERM) lets go of its tables one by one, each after the change under way is
stored, tells the others, and exits once they are all taken.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import os
import secrets
import socket
import time
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, cast

from sqlalchemy import create_engine

from backalley.server.heartbeat import ALIVE, Heartbeat
from backalley.server.leases import LEASE, RENEW, SCAN, LeaseBusy, Leases, share
from backalley.server.relay import UNREACHABLE, Relay
from backalley.server.settings import TableError
from backalley.server.table import Table, making

if TYPE_CHECKING:
    from redis.asyncio import Redis

    from backalley.server.limits import Quota
    from backalley.server.registry import Tables

log = logging.getLogger("backalley.server")

SWEEP = 120  #: renewals between two sweeps of the finished tables nobody is at (a minute)
ADOPTING = 8  #: tables rebuilt at once when a node takes many (their logs read meanwhile)
HEAR_WAIT = 3.0  #: seconds a starting node waits to hear the others before it takes requests


def default_node_id() -> str:
    """This machine's name and this process's id: unique among the nodes running now."""
    return f"{socket.gethostname()}-{os.getpid()}"


def commands(redis_url: str) -> Redis:
    """A client for short commands to Redis, which fail within seconds when it is away.

    A command sent on a connection Redis had closed (it restarted since) is sent again
    once, on a new connection: it never reached Redis. (The first message after a restart
    was lost so: a forwarded request's answer among them, its client waiting a minute.)
    Never after a timeout: a stalled Redis runs what it was sent once it wakes up."""
    from redis.asyncio import Redis
    from redis.asyncio.retry import Retry
    from redis.backoff import NoBackoff
    from redis.exceptions import ConnectionError as ConnectionLost

    once = Retry(NoBackoff(), 1, supported_errors=(ConnectionLost,))
    return Redis.from_url(redis_url, socket_connect_timeout=1, socket_timeout=2, retry=once)


class Cluster:
    """This node's part in the cluster: its leases, its link to Redis, its relay."""

    def __init__(self, node: str, redis_url: str, tables: Tables) -> None:
        from redis.asyncio import Redis

        self.node = node
        # The nodes of one database are one cluster: its channels and keys are named after
        # it, so that clusters sharing one Redis never hear each other.
        self.prefix = f"backalley:{tables.store.engine.url.database}"
        self.broadcast = f"{self.prefix}:all"  #: the channel every node hears
        self.tables = tables
        self.leases = Leases(tables.store.engine, node)
        # The renewals have a thread and a connection of their own: a storm of look-ups (a
        # node's clients all coming back at once) never holds them up past their lease.
        renewing = create_engine(tables.store.engine.url, pool_size=1, pool_pre_ping=True)
        self._renewals = Leases(renewing, node)
        self._renewer = ThreadPoolExecutor(1, thread_name_prefix="leases")
        self.token = secrets.token_hex(8)  #: this process's, in its heartbeat key
        self.relay = Relay(self)
        # Commands (publish, keys) fail fast when Redis is away; the subscriber, which waits
        # on its socket for minutes at a time, has a client of its own.
        self.redis: Redis = commands(redis_url)
        self._listener: Redis = Redis.from_url(redis_url, socket_connect_timeout=1)
        self.subscribed = False  #: the listener hears this node's channel and the common one
        #: Redis answers commands: false from the first that failed (down, or stalled past
        #: its timeout) until the next heartbeat it takes
        self.reachable = True
        #: when Redis last came back (the monotonic clock): a command answered after one
        #: failed, or the listener linked again after it lost Redis (a restart may be seen
        #: only so, by a node that sent no command meanwhile)
        self.back_at = 0.0
        self._heard = asyncio.Event()  #: set once the listener first subscribed
        self.draining = False
        self._outbox: asyncio.Queue[tuple[str, bytes, str | None]] = asyncio.Queue()
        self._tasks: set[asyncio.Future[Any]] = set()
        self._looking: dict[str, asyncio.Future[str | None]] = {}  #: look-ups under way
        #: the tables of nodes gone, read ahead while their leases lapse: each as rebuilt,
        #: what the store held of it then, and when
        self._ready: dict[str, tuple[Table, tuple[Any, ...], float]] = {}
        self._wake = asyncio.Event()  #: a table was let go somewhere: look for it now
        self.quotas: dict[str, Quota] = {}  #: the limits shared with the other nodes
        self._renewed = time.monotonic()
        self.heartbeat = Heartbeat(self)

    @property
    def available(self) -> bool:
        """Whether the cross-node features work now: Redis heard, and answering."""
        return self.subscribed and self.reachable

    def unreachable(self, error: BaseException) -> None:
        """A command to Redis failed: until one succeeds again, nothing is forwarded (each
        client is told at once to try again later), and the tunnels under way end."""
        if self.reachable:
            log.warning("node %s: Redis does not answer (%s): cross-node features wait",
                        self.node, error)  # fmt: skip
            self.reachable = False
            self.relay.lost()

    def answered(self) -> None:
        """A command to Redis succeeded."""
        if not self.reachable:
            log.info("node %s: Redis answers again", self.node)
            self.reachable = True
            self.back_at = time.monotonic()

    def settling(self) -> bool:
        """Whether Redis came back too lately for the other nodes to be heard again yet
        (their heartbeats set again, their listeners linked): none is taken for gone."""
        return time.monotonic() - self.back_at <= ALIVE

    def key(self, kind: str, node: str | None = None) -> str:
        """This cluster's key of ``kind`` for ``node`` (this one's by default)."""
        return f"{self.prefix}:{kind}:{node or self.node}"

    def inbox(self, node: str) -> str:
        """The channel node ``node`` reads."""
        return f"{self.prefix}:node:{node}"

    # ------------------------------------------------------------------ life

    async def start(self) -> int:
        """Join the cluster: the tables this node held before a restart under the same id,
        and its share of those nobody holds, taken; how many. The renewals and the link to
        the others run first: taking many tables may take longer than a lease lasts.

        :raises RuntimeError: another node runs under this node's id.
        """
        await self._claim_id()
        held = await self._renew()
        for work in (self._listen(), self._publish(), self._keep(), self.heartbeat.run()):
            self.hold(asyncio.ensure_future(work))
        # Hear the others before taking requests: what they say meanwhile (a limit's spend,
        # a table taken) would be lost to this node. Redis away: the node starts all the same.
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._heard.wait(), HEAR_WAIT)
        with self.tables.taking(*held):
            for table_id in held:
                await self.tables.adopt(table_id)
        taken = await self._scan()
        self.hold(asyncio.ensure_future(self._look()))
        return len(held) + taken

    async def _claim_id(self) -> None:
        """Make sure no other live process runs under this node's id (two would both pass
        the fence of every table the id holds): its heartbeat key, taken if free; one left by
        this id's last process lapses within seconds.

        :raises RuntimeError: the id is another live process's.
        """
        key, deadline = self.key("alive"), time.monotonic() + ALIVE + 1
        while True:
            try:
                if await self.redis.set(key, self.token, nx=True, ex=ALIVE):
                    return
            except Exception as error:  # no Redis now: nobody to ask
                log.warning("node %s: its id could not be checked in Redis: %s", self.node, error)
                return
            if time.monotonic() > deadline:
                raise RuntimeError(
                    f"another node runs as {self.node}: give each node its own --node-id"
                )
            await asyncio.sleep(0.25)

    async def _renew(self) -> set[str]:
        """Renew this node's leases, on the renewals' own thread and connection."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._renewer, self._renewals.renew)

    def hold(self, task: asyncio.Future[Any]) -> None:
        """Keep ``task`` until it is done."""
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def drain(self) -> None:
        """Let go of every table, each after the change under way is stored: another node
        takes it from its log, and its clients reconnect there."""
        self.draining = True
        while self.tables.tables or self.tables.loading():
            for table_id in list(self.tables.tables):
                await self.tables.let_go(table_id)
            await asyncio.sleep(0.05)  # a table being taken is let go once it is held
        self.heartbeat.stopped = True
        with contextlib.suppress(Exception):
            await self.redis.delete(self.key("alive"), self.key("lobby"))

    async def stop(self) -> None:
        """Leave the cluster, once this node writes no more (its store closed): the leases
        it still holds (it was not drained: a SIGINT) are let go, for the others to take
        at once rather than when they lapse."""
        for task in list(self._tasks):
            task.cancel()
        try:
            loop = asyncio.get_running_loop()
            await loop.run_in_executor(self._renewer, self._renewals.release_all)
        except Exception as error:  # they lapse by themselves
            log.warning("node %s: leases not let go at its stop: %s", self.node, error)
        for client in (self.redis, self._listener):
            with contextlib.suppress(Exception):
                await client.aclose()
        self._renewer.shutdown(wait=False)
        self._renewals.engine.dispose()

    # ------------------------------------------------------------------ leases

    async def locate(self, table_id: str) -> str | None:
        """The node that holds ``table_id`` (this one's id when it is here), taking it when
        nobody does; ``None`` when there is no such table. A draining node takes nothing:
        it waits a moment for another to take the table.

        :raises TableError: ``unreachable`` when the table cannot be served just now (its
            log cannot be read, or no node takes it while this one stops).
        """
        if table_id in self.tables.tables:
            return self.node
        if self.draining:
            for _ in range(60):
                try:
                    owner = await asyncio.to_thread(self.leases.owner, table_id)
                except Exception:
                    raise TableError("unreachable", UNREACHABLE) from None
                if owner is not None and owner != self.node:
                    return owner
                await asyncio.sleep(0.05)
            raise TableError("unreachable", UNREACHABLE)
        looking = self._looking.get(table_id)
        if looking is None:  # the clients of one table coming back at once ask once
            looking = self._looking[table_id] = asyncio.ensure_future(self._find(table_id))
            looking.add_done_callback(lambda _: self._looking.pop(table_id, None))
        return await asyncio.shield(looking)

    async def _find(self, table_id: str) -> str | None:
        """:meth:`locate`'s look-up: the owner; when it is a node known to be gone, wait for
        its lease to lapse (and take the table) rather than send the client to it."""
        deadline = time.monotonic() + LEASE + 1
        while True:
            with self.tables.taking(table_id):
                try:
                    owner = await asyncio.to_thread(self.leases.acquire, table_id)
                except Exception as error:  # in flux, or the database out of reach
                    if not isinstance(error, LeaseBusy):
                        log.warning("node %s: table %s not looked up: %s", self.node,
                                    table_id, str(error).splitlines()[0])  # fmt: skip
                    raise TableError("unreachable", UNREACHABLE) from None
                if owner == self.node:
                    if await self.tables.adopt(table_id) is None:  # its log, not read now
                        raise TableError("unreachable", UNREACHABLE)
                    return self.node
            if owner not in self.relay.dead or time.monotonic() > deadline:
                return owner
            # Its owner is gone: back when its lease has lapsed, to take it.
            left = await asyncio.to_thread(self.leases.lapses_in, table_id)
            await asyncio.sleep(min(left, LEASE) + 0.05)

    async def _keep(self) -> None:
        """Renew this node's leases; a table whose lease another node took is let go at once,
        and every table once the leases may have lapsed (the database out of reach)."""
        rounds = 0
        while True:
            started = time.monotonic()
            try:
                held = await asyncio.wait_for(self._renew(), LEASE - RENEW)
            except Exception as error:
                log.warning("node %s: leases not renewed: %r", self.node, error)
                if time.monotonic() - self._renewed > LEASE - RENEW:
                    for table_id in list(self.tables.tables):
                        self.tables.lose(table_id)
            else:
                self._renewed = started
                try:
                    rounds += 1
                    if rounds % SWEEP == 0:  # finished tables nobody is at: leases go too
                        self.tables.sweep()
                    self.tables.check_held(held, started)
                except Exception:
                    log.exception("node %s: its tables could not be checked", self.node)
            await asyncio.sleep(max(0.0, RENEW - (time.monotonic() - started)))

    async def _look(self) -> None:
        """Take this node's share of the tables nobody holds, every SCAN seconds, or at once
        when another node says it let one go."""
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), SCAN)
            self._wake.clear()
            if self.draining:
                continue
            try:
                await self._scan()
            except Exception as error:
                log.warning("node %s: could not look for tables to take: %s", self.node, error)

    async def _scan(self) -> int:
        """Take this node's share of the tables nobody holds, their leases in one go, and
        rebuild them a few at a time: how many were taken."""
        orphans = await asyncio.to_thread(self.leases.orphans)
        if not orphans:
            return 0
        nodes = await self.heartbeat.nodes()
        wanted = share(orphans, len(nodes))
        with self.tables.taking(*wanted):
            mine = await asyncio.to_thread(self.leases.acquire_many, wanted)
            at_once = asyncio.Semaphore(ADOPTING)

            async def adopt(table_id: str) -> bool:
                async with at_once:
                    return await self.tables.adopt(table_id) is not None

            started = time.monotonic()
            adopted = sum(await asyncio.gather(*(adopt(table_id) for table_id in sorted(mine))))
        if adopted:
            log.warning("node %s: took %d tables nobody held, in %.2f s", self.node, adopted,
                        time.monotonic() - started)  # fmt: skip
        return adopted

    def forget(self, table_id: str, finished: bool = False) -> None:
        """Let go of ``table_id``'s lease in the background (see :meth:`Leases.release`)."""
        self.hold(asyncio.ensure_future(asyncio.to_thread(self.leases.release, table_id, finished)))

    def taken(self, table_id: str) -> None:
        """This node took ``table_id``: the others' clients of it reconnect here."""
        self._broadcast("taken", table_id, b"")

    def let_go(self, table_id: str) -> None:
        """This node let ``table_id`` go: the others look for it at once."""
        self._broadcast("free", table_id, b"")

    def renamed(self, account: str, name: str) -> None:
        self._broadcast("rename", account, name.encode())

    def share_quotas(self, quotas: dict[str, Quota]) -> None:
        """Make ``quotas`` (by name) the cluster's: one taken here is taken on every node.
        While Redis is away each node keeps its own count."""
        self.quotas = quotas
        for name, quota in quotas.items():
            quota.shared = functools.partial(self._spent, name)

    def _spent(self, quota: str, key: str) -> None:
        self._broadcast("spend", quota, key.encode())

    # ------------------------------------------------------------------ Redis

    def send(self, node: str, kind: str, cid: str, payload: bytes) -> None:
        """Send a message to node ``node``, after those sent before it (one sender: Redis
        keeps their order)."""
        self._outbox.put_nowait((self.inbox(node), self._frame(kind, cid, payload), node))

    def _broadcast(self, kind: str, cid: str, payload: bytes) -> None:
        self._outbox.put_nowait((self.broadcast, self._frame(kind, cid, payload), None))

    def _frame(self, kind: str, cid: str, payload: bytes) -> bytes:
        """A message as it crosses Redis: its kind, its id, its sender, then its payload."""
        return f"{kind}\n{cid}\n{self.node}\n".encode() + payload

    async def _publish(self) -> None:
        """Send what waits, in order, many messages a round trip. A message that reached
        nobody, or that Redis did not take, means its node is gone (or Redis is)."""
        while True:
            batch = [await self._outbox.get()]
            while not self._outbox.empty() and len(batch) < 1000:
                batch.append(self._outbox.get_nowait())
            try:
                async with self.redis.pipeline(transaction=False) as pipe:
                    for channel, frame, _ in batch:
                        pipe.publish(channel, frame)
                    heard = await pipe.execute()
            except Exception as error:  # Redis is away, not the nodes: said as such
                log.warning("node %s: %d messages not sent: %s", self.node, len(batch), error)
                self.unreachable(error)
                continue
            for (_, _, node), count in zip(batch, heard, strict=True):
                if node is not None and not count:
                    try:
                        if self.settling():  # it may not be listening again yet
                            self.relay.lost(node)
                        else:
                            self.relay.gone(node)
                    except Exception:
                        log.exception("node %s: node %s's tunnels not ended", self.node, node)

    async def _listen(self) -> None:
        """Read this node's channel and the common one, dispatching each message at once;
        when Redis is lost, every tunnel ends, and the link is made again when it is back."""
        delay, lost = 0.1, False
        while True:
            pubsub = self._listener.pubsub()
            try:
                await pubsub.subscribe(self.inbox(self.node), self.broadcast)
                self.subscribed, delay = True, 0.1
                if lost:
                    self.back_at, lost = time.monotonic(), False
                self._heard.set()
                log.info("node %s: linked to the other nodes through Redis", self.node)
                while True:
                    message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=1)
                    if message is None:
                        continue
                    try:
                        self._dispatch(message["data"])
                    except Exception:  # one message's failure: said, and the link goes on
                        log.exception("node %s: a message could not be handled", self.node)
            except asyncio.CancelledError:
                raise
            except Exception as error:
                if self.subscribed:
                    log.warning("node %s: Redis lost (%s): cross-node features wait", self.node,
                                error)  # fmt: skip
                self.subscribed, lost = False, True
                self.relay.lost()
                await asyncio.sleep(delay)
                delay = min(delay * 2, 2.0)
            finally:
                with contextlib.suppress(Exception):
                    # (typed in some releases of redis-py, untyped in others)
                    await cast(Any, pubsub).aclose()

    def _dispatch(self, frame: bytes) -> None:
        kind_b, cid_b, sender_b, payload = frame.split(b"\n", 3)
        kind, cid, sender = kind_b.decode(), cid_b.decode(), sender_b.decode()
        if sender in self.relay.dead:  # back (a node restarted under its old id)
            del self.relay.dead[sender]
        if kind == "taken":
            if sender != self.node:
                self.relay.moved(cid, sender)
                if cid in self.tables.tables:  # taken from under us? (a lapsed lease)
                    self.hold(asyncio.ensure_future(self._check_taken(cid)))
        elif kind == "free":
            if sender != self.node:
                self._wake.set()
        elif kind == "spend":
            if sender != self.node and cid in self.quotas:
                self.quotas[cid].spent(payload.decode())
        elif kind == "rename":
            if sender != self.node:
                self.tables.rename_here(cid, payload.decode())
        else:
            self.relay.receive(kind, cid, sender, payload)

    def prepare(self, node: str) -> None:
        """Node ``node`` is gone: read and rebuild its tables while their leases lapse, so
        that taking one is only a check that it did not change meanwhile (:meth:`ready`)."""
        self.hold(asyncio.ensure_future(self._prepare(node)))

    async def _prepare(self, node: str) -> None:
        try:
            table_ids = await asyncio.to_thread(self.leases.held_by, node)
            for table_id in table_ids:
                if node not in self.relay.dead or self.draining:
                    return  # back after all
                stored = await asyncio.to_thread(self.tables.store.load, table_id)
                if stored is not None and table_id not in self.tables.tables:
                    table = making.load(stored, self.tables.store, self.tables.pool)
                    self._ready[table_id] = (table, stored.fingerprint(), time.monotonic())
                await asyncio.sleep(0)  # the others' turn: this is only ahead of time
        except Exception as error:
            log.warning("node %s: node %s's tables not read ahead: %s", self.node, node, error)

    async def ready(self, table_id: str) -> Table | None:
        """``table_id`` as read ahead and rebuilt (:meth:`prepare`), if it has not changed
        in the store since (else ``None``: it is read again)."""
        found = self._ready.pop(table_id, None)
        if found is None or time.monotonic() - found[2] > 60:
            return None
        table, then, _ = found
        now = await asyncio.to_thread(self.tables.store.fingerprint, table_id)
        return table if now == then else None

    async def _check_taken(self, table_id: str) -> None:
        """Another node said it took ``table_id``, which is held here: let it go if the
        lease says so (the message may be an old one, sent before this node took it)."""
        owner = await asyncio.to_thread(self.leases.owner, table_id)
        if owner != self.node:
            self.tables.lose(table_id)


__all__ = ["Cluster", "commands", "default_node_id"]
