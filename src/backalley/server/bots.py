"""Bot decisions and claims, computed in a pool of worker processes, never on the event loop.

A strong bot spends about a second of CPU on a decision, and a claim may run the solver: both
would stall every table of the server if they ran in its process. A worker receives the
table's record (it never leaves the server), rebuilds the game, and answers from one seat's
view only — a bot sees what its seat sees — or, for a claim, settles it with
:func:`backalley.analysis.claim`.

The workers are in two lanes: those of the solver (the ``hard`` and ``expert`` bots, claims
and reviews) and a light one for the bots that need no solver (``easy``, ``medium``: a few
milliseconds a move), which never wait behind a solver's second of thought. Within a lane the
workers are shared fairly (:class:`FairShare`): a job waits its turn in the lane, and the next
free worker goes to the table that has had the least of the lane's time lately, so that twenty
tables of expert bots do not hold up the hard bots of another; bots' moves and claims go ahead
of reviews. Each worker is a process of its own, given one job at a time, and replaced after
``JOBS_PER_WORKER`` jobs (:class:`Worker`), so that whatever one grows (caches, fragmentation)
is given back.
"""

from __future__ import annotations

import asyncio
import contextlib
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
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from backalley.record import read_record, replay

log = logging.getLogger("backalley.server")

JOBS_PER_WORKER = 500  #: a worker process is replaced after this many jobs
PROGRESS_EVERY = 10.0  #: seconds between two words of the solver's preparation
HALF_LIFE = 30.0  #: seconds: the workers' time a table had counts half as much this much later
MOVE, REVIEW = 0, 1  #: the kinds of work, in the order they are served

_bots: dict[str, Any] = {}


def _decide(record: dict[str, Any], seat: int, level: str, seed: str | None = None) -> str:
    """The action (its name) the ``level`` bot in ``seat`` chooses in the record's position;
    with a daily table's ``seed``, a repeatable bot's, its generator seeded by the position
    (:func:`backalley.server.daily.bot_seed`)."""
    from backalley.bots import make_bot
    from backalley.rules import action_name
    from backalley.server.daily import bot_seed

    game = replay(read_record(record))
    kept = f"{level}/repeatable" if seed is not None else level
    bot = _bots.get(kept)
    if bot is None:
        bot = _bots[kept] = make_bot(level, repeatable=seed is not None)
    rng = random.Random(secrets.randbits(64) if seed is None else bot_seed(seed, game, seat))
    action = bot.act(game.view(seat), rng)
    return action_name(action)


_answerers: dict[str, Any] = {}


def _answer(message: dict[str, Any], level: str) -> dict[str, Any]:
    """The ``level`` bot's answer to a program's message of a seat's knowledge
    (:mod:`backalley.bots.remote`): the action, or what is wrong with the message."""
    from backalley.bots.remote import Answerer

    answerer = _answerers.get(level)
    if answerer is None:
        answerer = _answerers[level] = Answerer(level)
    answer: dict[str, Any] = answerer.answer(message)
    return answer


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


def _process() -> Executor:
    """One worker process. Spawned, not forked: the server's threads (the store's writer)
    stay behind."""
    return ProcessPoolExecutor(
        max_workers=1,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_watch_parent,
        initargs=(os.getpid(),),
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


class Worker:
    """One worker process (an executor of its own), which takes one job at a time. After
    ``JOBS_PER_WORKER`` jobs its successor is started and made ready (its modules imported,
    the solver loaded) while it goes on working; the first job after that goes to the
    successor, and the old process ends. Nothing waits for a worker to be born.

    A pool of several processes sharing one queue is not used: with ``max_tasks_per_child``
    (how it replaced its workers), CPython 3.11's pool spawns no successor for a worker that
    ends while another is idle, and so shrank to one process, every job of the server queued
    behind whichever ran there first come, first served, whatever the fair share chose."""

    def __init__(
        self,
        executor: Executor,
        make: Callable[[], Executor] | None = None,
        ready: Callable[[], Any] | None = None,
    ) -> None:
        """A worker on ``executor``, replaced by ``make()`` made ready by ``ready()``; without
        ``make`` (tests: a thread), never replaced."""
        self.executor, self.make, self.ready = executor, make, ready or _nothing
        self.jobs = 0
        self.successor: tuple[Executor, Future[Any]] | None = None
        self.processes: list[Any] = []  #: its process (multiprocessing.Process), once started

    def submit(self, work: Callable[..., Any], *args: Any) -> Future[Any]:
        """Start ``work(*args)`` here (the worker is idle: the lane gave it out)."""
        if self.successor is not None and self.successor[1].done():
            old, (self.executor, _) = self.executor, self.successor
            self.successor, self.jobs = None, 0
            old.shutdown(wait=False)  # idle: its process ends now
        future = self.executor.submit(work, *args)
        self.processes = list(getattr(self.executor, "_processes", {}).values())
        self.jobs += 1
        if self.make is not None and self.jobs >= JOBS_PER_WORKER and self.successor is None:
            executor = self.make()
            self.successor = (executor, executor.submit(self.ready))
        return future

    def died(self) -> str:
        """The worker's process died (its executor broke): how, for the log; a new one is
        made at once."""
        said = []
        for process in self.processes:
            process.join(1)
            said.append(f"pid {process.pid}, {_exit_reason(process.exitcode)}")
        if self.make is not None:
            self.executor.shutdown(wait=False, cancel_futures=True)
            self.executor = self.make()
            self.jobs = 0
        return "; ".join(said) or "no process known"

    def pids(self) -> list[int]:
        """The ids of its processes now (its successor's included)."""
        executors = [self.executor] + ([self.successor[0]] if self.successor else [])
        return [pid for e in executors for pid in getattr(e, "_processes", {})]

    def close(self) -> None:
        """Stop at once: a job under way is dropped (see :meth:`BotPool.close`)."""
        executors = [self.executor] + ([self.successor[0]] if self.successor else [])
        processes = [p for e in executors for p in getattr(e, "_processes", {}).values()]
        for executor in executors:
            executor.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            process.terminate()
        for process in processes:
            process.join(5)


def _nothing() -> None:
    """A worker's readiness when it needs none."""


def _ready() -> None:
    """A light worker made ready: the bots that need no solver, loaded."""
    from backalley.bots import make_bot

    for level in ("easy", "medium"):
        _bots.setdefault(level, make_bot(level))


def _exit_reason(code: int | None) -> str:
    """How a process ended, from its exit code: ``killed by SIGKILL``, ``exit code 1``."""
    if code is None:
        return "still running"
    if code < 0:
        with contextlib.suppress(ValueError):
            return f"killed by {signal.Signals(-code).name}"
        return f"killed by signal {-code}"
    return f"exit code {code}"


class Lane:
    """Workers for one kind of job, shared fairly between tables (:class:`FairShare`)."""

    def __init__(self, name: str, workers: list[Worker]) -> None:
        self.name = name
        self.workers = workers
        self.idle = deque(workers)  #: the longest idle first
        self.share = FairShare(len(workers))

    async def run(self, work: Callable[..., Any], *args: Any, key: str, kind: int) -> Any:
        """``work(*args)`` in a worker of this lane, when the fair share gives table ``key``
        one. The worker is this table's, and charged to it, until its process is done with
        the job, even when the caller stops waiting (a decision no longer wanted still runs
        to its end there: the next job must not queue behind it)."""
        await self.share.turn(key, kind)
        worker = self.idle.popleft()
        loop = asyncio.get_running_loop()
        started = time.monotonic()

        def free(_: Any = None) -> None:
            self.share.charge(key, time.monotonic() - started)
            self.idle.append(worker)
            self.share.done()

        try:
            future = worker.submit(work, *args)
        except BrokenProcessPool:  # it died idle
            _said_dead(worker)
            free()
            return await self.run(work, *args, key=key, kind=kind)
        except BaseException:
            free()
            raise
        future.add_done_callback(lambda _: _call_soon(loop, free))
        try:
            return await asyncio.wrap_future(future)
        except BrokenProcessPool:  # it died at work
            _said_dead(worker)
            return await self.run(work, *args, key=key, kind=kind)


def _said_dead(worker: Worker) -> None:
    log.error("a bot worker died (%s): it is made anew, and its job asked again", worker.died())


def _call_soon(loop: asyncio.AbstractEventLoop, callback: Callable[[], None]) -> None:
    with contextlib.suppress(RuntimeError):  # the loop closed meanwhile: nobody waits
        loop.call_soon_threadsafe(callback)


class BotPool:
    """The worker processes that think for the server's bots and settle its claims, in two
    lanes: ``workers`` processes for the solver (the ``hard`` and ``expert`` bots, claims,
    reviews), and one light process for the bots that need none (``easy``, ``medium``), so
    that a table of those never waits behind a solver's second of thought. A worker that
    dies (killed, out of memory) is made anew, said in the log with how it ended, and its
    job asked again once. ``executor`` (tests) runs every job there instead."""

    def __init__(
        self,
        workers: int | None = None,
        executor: Executor | None = None,
        progress: Callable[[str, float], None] | None = None,
    ) -> None:
        """``progress(stage, seconds)`` is told how the solver's preparation goes (see
        :meth:`warm_up`)."""
        self.workers = workers or max(2, (os.cpu_count() or 2) - 1)
        self.progress = progress
        #: set while the solver is ready (cleared by :meth:`warm_up` until it is): until
        #: then a solver's bot plays as a medium one (:func:`backalley.bots.plays_as`), and
        #: claims and reviews wait
        self.solver_ready = asyncio.Event()
        self.solver_ready.set()
        if executor is not None:
            self.solver = Lane("solver", [Worker(executor) for _ in range(self.workers)])
            self.light = Lane("light", [Worker(executor)])
        else:
            solvers = [Worker(_process(), _process, _warm_up) for _ in range(self.workers)]
            self.solver = Lane("solver", solvers)
            self.light = Lane("light", [Worker(_process(), _process, _ready)])

    async def _run(
        self, work: Callable[..., Any], *args: Any, key: str, kind: int, lane: Lane | None = None
    ) -> Any:
        """``work(*args)`` in a worker of ``lane`` (the solver's by default), for table
        ``key``."""
        return await (lane or self.solver).run(work, *args, key=key, kind=kind)

    def lane_of(self, level: str) -> Lane:
        """The lane a bot of ``level`` thinks in."""
        from backalley.bots import needs_solver

        return self.solver if needs_solver(level) else self.light

    def plays_as(self, level: str) -> str:
        """The level a bot of ``level`` plays at now (:func:`backalley.bots.plays_as`)."""
        from backalley.bots import plays_as

        return plays_as(level, self.solver_ready.is_set())

    async def decide(
        self, record: dict[str, Any], seat: int, level: str, key: str = "", seed: str | None = None
    ) -> str:
        """The bot's action, computed in a worker, for table ``key`` (a solver's bot waits
        for the solver: :meth:`plays_as` says whether to ask for it now); ``seed``: a daily
        table's, for a repeatable bot."""
        lane = self.lane_of(level)
        result: str = await self._run(
            _decide, record, seat, level, seed, key=key, kind=MOVE, lane=lane
        )
        return result

    async def answer(self, message: dict[str, Any], level: str, key: str = "") -> dict[str, Any]:
        """A program's question answered by the ``level`` bot in a worker, shared fairly with
        the tables' bots under ``key`` (``POST /api/bot``)."""
        lane = self.lane_of(level)
        result: dict[str, Any] = await self._run(
            _answer, message, level, key=key, kind=MOVE, lane=lane
        )
        return result

    async def claim(
        self, record: dict[str, Any], seat: int, key: str = ""
    ) -> tuple[bool, list[str]]:
        """Settle ``seat``'s claim in a worker, once the solver is ready: ``(holds, the
        cards that finish the deal)``."""
        await self.solver_ready.wait()
        result: tuple[bool, list[str]] = await self._run(_claim, record, seat, key=key, kind=MOVE)
        return result

    async def review(self, record: dict[str, Any], deal: int, key: str = "") -> dict[str, Any]:
        """The review of deal ``deal`` of the record, computed in a worker when no bot's move
        or claim waits for one, once the solver is ready."""
        await self.solver_ready.wait()
        result: dict[str, Any] = await self._run(_review, record, deal, key=key, kind=REVIEW)
        return result

    async def warm_up(self) -> None:
        """Make every worker ready before its first job, so that no bot's first move and no
        first claim is slow: the light one loads its bots, then the solver's load the solver
        one after the other (the first compiling it, the first time on a machine: 20 s on an
        idle machine of two cores; the others from numba's cache in a second), so that they
        never take both cores from the tables at once. Until the first is ready, the
        solver's bots play as medium ones (:func:`backalley.bots.plays_as`) and claims and
        reviews wait; ``progress`` is told ``"preparing"`` at the start, ``"still"`` every
        ``PROGRESS_EVERY`` seconds and ``"ready"`` at the end, with the seconds since the
        start."""
        began = time.monotonic()
        self.solver_ready.clear()
        self._tell("preparing", began)
        telling = asyncio.ensure_future(self._tell_progress(began))
        try:
            await self._run(_ready, key="", kind=REVIEW, lane=self.light)
            await self._run(_warm_up, key="", kind=REVIEW)
        finally:  # ready or failed, the solver's jobs wait no more (a failure: each compiles)
            telling.cancel()
            self.solver_ready.set()
        self._tell("ready", began)
        for _ in self.solver.workers[1:]:  # one at a time: a server just started stays quick
            await self._run(_warm_up, key="", kind=REVIEW)

    async def _tell_progress(self, began: float) -> None:
        while True:
            await asyncio.sleep(PROGRESS_EVERY)
            self._tell("still", began)

    def _tell(self, stage: str, began: float) -> None:
        seconds = time.monotonic() - began
        log.info("the solver: %s, %.1f s", stage, seconds)
        if self.progress is not None:
            self.progress(stage, seconds)

    def pids(self) -> list[int]:
        """The ids of the worker processes now."""
        return [pid for lane in (self.solver, self.light) for w in lane.workers for pid in w.pids()]

    def close(self) -> None:
        """Stop the workers: a decision under way is dropped, and so is the solver's first
        compilation (a minute on a new machine, which a stopping server does not wait for:
        it is made again, or loaded from numba's cache, at the next start)."""
        for lane in (self.solver, self.light):
            for worker in lane.workers:
                worker.close()


__all__ = ["JOBS_PER_WORKER", "BotPool", "FairShare", "Lane", "Worker"]
