"""Bot decisions and claims, computed in a pool of worker processes, never on the event loop.

A strong bot spends about a second of CPU on a decision, and a claim may run the solver: both
would stall every table of the server if they ran in its process. A worker receives the
table's record (it never leaves the server), rebuilds the game, and answers from one seat's
view only — a bot sees what its seat sees — or, for a claim, settles it with
:func:`backalley.analysis.claim`.

The workers are shared fairly (:class:`FairShare`): a job waits its turn in the pool, not in
the executor's first-come queue, and the next free worker goes to the table that has had the
least of the workers' time lately, so that twenty tables of expert bots do not hold up the
easy bots of another; bots' moves and claims go ahead of reviews. A worker is replaced after
``JOBS_PER_WORKER`` jobs, so that whatever one grows (caches, fragmentation) is given back.
"""

from __future__ import annotations

import asyncio
import logging
import math
import multiprocessing
import os
import random
import secrets
import signal
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from backalley.record import read_record, replay

log = logging.getLogger("backalley.server")

JOBS_PER_WORKER = 500  #: a worker process is replaced after this many jobs
HALF_LIFE = 30.0  #: seconds: the workers' time a table had counts half as much this much later
MOVE, REVIEW = 0, 1  #: the kinds of work, in the order they are served

_bots: dict[str, Any] = {}


def _decide(record: dict[str, Any], seat: int, level: str) -> str:
    """The action (its name) the ``level`` bot in ``seat`` chooses in the record's position."""
    from backalley.bots import make_bot
    from backalley.rules import action_name

    game = replay(read_record(record))
    bot = _bots.get(level)
    if bot is None:
        bot = _bots[level] = make_bot(level)
    action = bot.act(game.view(seat), random.Random(secrets.randbits(64)))
    return action_name(action)


def _claim(record: dict[str, Any], seat: int) -> tuple[bool, list[str]]:
    """Whether ``seat``'s claim to the rest holds, and if so the cards that play the deal out."""
    from backalley.analysis import claim

    game = replay(read_record(record))
    result = claim(game, seat)
    return result.accepted, [str(card) for card in result.played]


def _review(record: dict[str, Any], deal: int) -> dict[str, Any]:
    """The double-dummy review of one deal of the record (``backalley-review/1``'s entry)."""
    from backalley.analysis import review

    result = review(record, only=deal).to_json()
    entry: dict[str, Any] = result["deals"][deal]
    entry["players"] = result["players"]
    return entry


def _watch_parent(parent: int) -> None:
    """Leave when the server is gone: a worker outlives a killed server otherwise. Ctrl-C is
    the server's to handle: it stops the workers itself."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1)
        os._exit(0)

    threading.Thread(target=watch, daemon=True).start()


def _warm_up() -> None:
    """Load the solver (compiled once per machine, then cached) before the first claim."""
    from backalley.solver import compile_search

    compile_search()


def _processes(workers: int) -> Executor:
    # Spawned, not forked: the server's threads (the store's writer) stay behind.
    return ProcessPoolExecutor(
        max_workers=workers,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_watch_parent,
        initargs=(os.getpid(),),
        max_tasks_per_child=JOBS_PER_WORKER,
    )


class FairShare:
    """``slots`` workers shared between tables: a job waits for a free one; the next goes to
    the kind of work served first (moves before reviews), and within it to the table whose
    use of the workers, decayed by half every ``HALF_LIFE`` seconds, is the least."""

    def __init__(self, slots: int) -> None:
        self.slots = slots
        self.busy = 0
        self.waiting: dict[int, dict[str, deque[asyncio.Future[None]]]] = {MOVE: {}, REVIEW: {}}
        self.used: dict[str, tuple[float, float]] = {}  # table → (seconds, as of when)

    def usage(self, key: str, now: float) -> float:
        seconds, at = self.used.get(key, (0.0, now))
        return seconds * math.exp2(-(now - at) / HALF_LIFE)

    def charge(self, key: str, seconds: float) -> None:
        now = time.monotonic()
        self.used[key] = (self.usage(key, now) + seconds, now)
        if len(self.used) > 10_000:  # tables long gone, their use decayed away
            self.used = {k: v for k, v in self.used.items() if self.usage(k, now) > 0.01}

    async def turn(self, key: str, kind: int) -> None:
        """Wait for a worker of one's own (then :meth:`done` must follow)."""
        if self.busy < self.slots and not any(self.waiting.values()):
            self.busy += 1
            return
        ticket: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.waiting[kind].setdefault(key, deque()).append(ticket)
        try:
            await ticket
        except asyncio.CancelledError:
            if ticket.done() and not ticket.cancelled():  # given a worker as it was cancelled
                self.done()
            else:
                self._forget(kind, key, ticket)
            raise

    def done(self) -> None:
        """A worker is free: give it to the next job, if one waits."""
        now = time.monotonic()
        for kind in (MOVE, REVIEW):
            queues = self.waiting[kind]
            while queues:
                key = min(queues, key=lambda k: self.usage(k, now))
                ticket = queues[key].popleft()
                if not queues[key]:
                    del queues[key]
                if not ticket.done():
                    ticket.set_result(None)
                    return
        self.busy -= 1

    def _forget(self, kind: int, key: str, ticket: asyncio.Future[None]) -> None:
        queue = self.waiting[kind].get(key)
        if queue is not None and ticket in queue:
            queue.remove(ticket)
            if not queue:
                del self.waiting[kind][key]


class BotPool:
    """The worker processes that think for the server's bots and settle its claims. A worker
    that dies (killed, out of memory) breaks the whole process pool: it is then made anew,
    said in the log, and the work asked again once."""

    def __init__(self, workers: int | None = None, executor: Executor | None = None) -> None:
        self.workers = workers or max(2, (os.cpu_count() or 2) - 1)
        self.executor = executor or _processes(self.workers)
        self.share = FairShare(self.workers)

    async def _run(self, work: Callable[..., Any], *args: Any, key: str, kind: int) -> Any:
        """``work(*args)`` in a worker, when the fair share gives table ``key`` one."""
        await self.share.turn(key, kind)
        started = time.monotonic()
        try:
            return await self._in_worker(work, *args)
        finally:
            self.share.charge(key, time.monotonic() - started)
            self.share.done()

    async def _in_worker(self, work: Callable[..., Any], *args: Any) -> Any:
        loop = asyncio.get_running_loop()
        executor = self.executor
        try:
            return await loop.run_in_executor(executor, work, *args)
        except BrokenProcessPool:
            if self.executor is executor:  # the first to see it makes the new pool
                log.error("a bot worker died: its process pool is made anew")
                executor.shutdown(wait=False, cancel_futures=True)
                self.executor = _processes(self.workers)
            return await loop.run_in_executor(self.executor, work, *args)

    async def decide(self, record: dict[str, Any], seat: int, level: str, key: str = "") -> str:
        """The bot's action, computed in a worker, for table ``key``."""
        result: str = await self._run(_decide, record, seat, level, key=key, kind=MOVE)
        return result

    async def claim(
        self, record: dict[str, Any], seat: int, key: str = ""
    ) -> tuple[bool, list[str]]:
        """Settle ``seat``'s claim in a worker: ``(holds, the cards that finish the deal)``."""
        result: tuple[bool, list[str]] = await self._run(_claim, record, seat, key=key, kind=MOVE)
        return result

    async def review(self, record: dict[str, Any], deal: int, key: str = "") -> dict[str, Any]:
        """The review of deal ``deal`` of the record, computed in a worker when no bot's move
        or claim waits for one."""
        result: dict[str, Any] = await self._run(_review, record, deal, key=key, kind=REVIEW)
        return result

    async def warm_up(self) -> None:
        """Have a worker load the solver, so that the first claim is not slow."""
        await self._run(_warm_up, key="", kind=REVIEW)

    def close(self) -> None:
        """Stop the workers: a decision under way is dropped, and so is the solver's first
        compilation (a minute on a new machine, which a stopping server does not wait for:
        it is made again, or loaded from numba's cache, at the next start)."""
        running = getattr(self.executor, "_processes", None) or {}  # a process pool's workers
        processes = list(running.values())
        self.executor.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            process.terminate()
        for process in processes:
            process.join(5)


__all__ = ["JOBS_PER_WORKER", "BotPool", "FairShare"]
