"""Bot decisions and claims, computed in a pool of worker processes, never on the event loop.

A strong bot spends about a second of CPU on a decision, and a claim may run the solver: both
would stall every table of the server if they ran in its process. A worker receives the
table's record (it never leaves the server), rebuilds the game, and answers from one seat's
view only — a bot sees what its seat sees — or, for a claim, settles it with
:func:`backalley.analysis.claim`.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import random
import secrets
import signal
import threading
import time
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from backalley.record import read_record, replay

log = logging.getLogger("backalley.server")

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


def _processes(workers: int | None) -> Executor:
    # Spawned, not forked: the server's threads (the store's writer) stay behind.
    return ProcessPoolExecutor(
        max_workers=workers or max(2, (os.cpu_count() or 2) - 1),
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_watch_parent,
        initargs=(os.getpid(),),
    )


class BotPool:
    """The worker processes that think for the server's bots and settle its claims. A worker
    that dies (killed, out of memory) breaks the whole process pool: it is then made anew,
    said in the log, and the work asked again once."""

    def __init__(self, workers: int | None = None, executor: Executor | None = None) -> None:
        self.workers = workers
        self.executor = executor or _processes(workers)

    async def _run(self, work: Callable[..., Any], *args: Any) -> Any:
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

    async def decide(self, record: dict[str, Any], seat: int, level: str) -> str:
        """The bot's action, computed in a worker."""
        result: str = await self._run(_decide, record, seat, level)
        return result

    async def claim(self, record: dict[str, Any], seat: int) -> tuple[bool, list[str]]:
        """Settle ``seat``'s claim in a worker: ``(holds, the cards that finish the deal)``."""
        result: tuple[bool, list[str]] = await self._run(_claim, record, seat)
        return result

    async def review(self, record: dict[str, Any], deal: int) -> dict[str, Any]:
        """The review of deal ``deal`` of the record, computed in a worker."""
        result: dict[str, Any] = await self._run(_review, record, deal)
        return result

    async def warm_up(self) -> None:
        """Have a worker load the solver, so that the first claim is not slow."""
        await self._run(_warm_up)

    def close(self) -> None:
        """Stop the workers (a decision under way is dropped)."""
        self.executor.shutdown(wait=True, cancel_futures=True)


__all__ = ["BotPool"]
