"""The bots' workers (server/bots.py): which queued job a free worker takes, the light lane
that the bots needing no solver think in, a worker kept busy by a job nobody waits for any
more, and workers that die or are replaced."""

from __future__ import annotations

import asyncio
import os
import signal
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from backalley.engine import Game
from backalley.record import write_record
from backalley.rules import Ruleset
from backalley.server import bots
from backalley.server.bots import MOVE, REVIEW, BotPool, FairShare, Lane, Worker

pytestmark = pytest.mark.server


def light_lane(workers: int) -> Lane:
    """A lane of ``workers`` processes made ready as the light lane's are (the solver's load
    the solver, a minute the first time on a machine)."""
    return Lane(
        "test", [Worker(bots._process(), bots._process, bots._ready) for _ in range(workers)]
    )


def a_record() -> tuple[dict[str, Any], int, set[str]]:
    """A short game's record at its first bid: the seat to bid, and its legal bids."""
    game = Game(Ruleset.preset("standard", hand_sizes=[3]), seed=3)
    seat = game.to_move
    assert seat is not None
    legal = {str(action) for action in game.view(seat).legal_actions}
    return write_record(game), seat, legal


def test_a_free_worker_goes_to_the_least_served_table_and_moves_before_reviews() -> None:
    """The order in which queued jobs get the one worker: moves before reviews, and among
    moves the table that had the least of the worker's time lately first, its own jobs in
    the order they came. (Twenty tables of expert bots once held another table's bots up
    for seconds a move: the jobs were served first come, first served.)"""

    async def scenario() -> list[str]:
        share = FairShare(1)
        share.charge("busy expert", 30.0)
        share.charge("expert", 10.0)
        share.charge("medium", 0.05)
        await share.turn("busy expert", MOVE)  # the worker is taken
        order: list[str] = []

        async def job(name: str, key: str, kind: int) -> None:
            await share.turn(key, kind)
            order.append(name)
            share.done()

        names = [
            ("review", "never served", REVIEW), ("expert 1", "expert", MOVE),
            ("busy 1", "busy expert", MOVE), ("medium 1", "medium", MOVE),
            ("expert 2", "expert", MOVE), ("medium 2", "medium", MOVE),
        ]  # fmt: skip
        waiting = []
        for name, key, kind in names:
            waiting.append(asyncio.ensure_future(job(name, key, kind)))
            await asyncio.sleep(0)  # queued in this order
        share.done()  # the running job ends: the queue is served from here
        await asyncio.gather(*waiting)
        return order

    # Nothing more is charged meanwhile, so each table keeps its place until its queue is
    # empty: medium's two, expert's two, the busy table's, then the review.
    assert asyncio.run(scenario()) == [
        "medium 1", "medium 2", "expert 1", "expert 2", "busy 1", "review",
    ]  # fmt: skip


def test_a_tables_use_counts_half_as_much_after_each_half_life(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    now = [1000.0]
    monkeypatch.setattr(bots.time, "monotonic", lambda: now[0])
    share = FairShare(1)
    share.charge("t", 8.0)
    now[0] += 2 * bots.HALF_LIFE
    assert share.usage("t", now[0]) == pytest.approx(2.0)
    share.charge("t", 1.0)
    assert share.usage("t", now[0]) == pytest.approx(3.0)


def test_a_decision_nobody_waits_for_keeps_its_worker_until_it_ends() -> None:
    """A decision cancelled by its table (the game moved on) still runs in its process: the
    worker it holds is given to no other job before it ends, which would queue there
    behind it, out of the fair share's sight."""
    release = threading.Event()
    spans: dict[str, list[float]] = {}

    def work(name: str, wait: bool) -> str:
        spans[name] = [time.monotonic()]
        if wait:
            release.wait(10)
        spans[name].append(time.monotonic())
        return name

    async def scenario() -> list[str]:
        threads = ThreadPoolExecutor(4)
        lane = Lane("test", [Worker(threads), Worker(threads)])
        cancelled = asyncio.ensure_future(lane.run(work, "cancelled", True, key="a", kind=MOVE))
        await asyncio.sleep(0.05)
        cancelled.cancel()
        other = asyncio.ensure_future(lane.run(work, "other", True, key="b", kind=MOVE))
        await asyncio.sleep(0.05)
        late = asyncio.ensure_future(lane.run(work, "late", False, key="c", kind=MOVE))
        await asyncio.sleep(0.1)
        started_before_release = "late" in spans
        release.set()
        done = [await other, await late]
        threads.shutdown()
        assert not started_before_release  # both workers were busy: it waited its turn
        return done

    assert asyncio.run(scenario()) == ["other", "late"]
    freed = min(spans["cancelled"][1], spans["other"][1])
    assert spans["late"][0] >= freed  # it began only once a worker's job had ended


def test_the_bots_that_need_no_solver_never_wait_behind_it() -> None:
    """Every solver worker busy (a long decision each): a medium bot's move is made all the
    same, in the light lane, before any of them ends."""
    record, seat, legal = a_record()
    release = threading.Event()

    async def scenario() -> tuple[str, bool]:
        pool = BotPool(workers=2, executor=ThreadPoolExecutor(4))
        busy = [
            asyncio.ensure_future(pool._run(release.wait, 10, key=f"expert {i}", kind=MOVE))
            for i in range(2)
        ]
        await asyncio.sleep(0.05)
        medium = await pool.decide(record, seat, "medium", key="medium table")
        still_busy = not any(job.done() for job in busy)
        release.set()
        await asyncio.gather(*busy)
        return medium, still_busy

    medium, still_busy = asyncio.run(scenario())
    assert medium in legal and still_busy


def test_a_dead_bot_worker_is_replaced_said_with_how_it_died_and_its_decision_made(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A worker killed (by the kernel, say) is replaced and its job asked again; the log says
    which process died and how (it once said only that one had)."""
    record, seat, legal = a_record()

    async def scenario() -> tuple[str, str, list[int]]:
        pool = BotPool(workers=1)
        try:
            first = await pool.decide(record, seat, "easy")
            killed = pool.pids()
            for pid in killed:
                os.kill(pid, signal.SIGKILL)
            await asyncio.sleep(0.5)
            return first, await pool.decide(record, seat, "easy"), killed
        finally:
            pool.close()

    with caplog.at_level("ERROR", logger="backalley.server"):
        first, after, killed = asyncio.run(scenario())
    assert first in legal and after in legal
    assert "a bot worker died" in caplog.text and "killed by SIGKILL" in caplog.text
    assert any(f"pid {pid}" in caplog.text for pid in killed)


def test_a_worker_is_replaced_after_its_share_of_jobs_and_nothing_waits_for_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A worker grew to 926 MB in an hour of mixed use: each is replaced after
    JOBS_PER_WORKER jobs. Its successor is made ready while it goes on working, so no job
    waits for a process to start; then the old process ends."""
    monkeypatch.setattr(bots, "JOBS_PER_WORKER", 3)

    async def scenario() -> tuple[list[int], bool]:
        lane = light_lane(1)
        try:
            pids = [await lane.run(os.getpid, key="t", kind=MOVE) for _ in range(3)]
            while len(pids) < 400 and pids[-1] == pids[0]:
                pids.append(await lane.run(os.getpid, key="t", kind=MOVE))
                await asyncio.sleep(0.05)
            await asyncio.sleep(1)
            return pids, pids[0] in lane.workers[0].pids() or _alive(pids[0])
        finally:
            lane.workers[0].close()

    pids, old_alive = asyncio.run(scenario())
    assert len(set(pids)) == 2 and pids[-1] != pids[0], pids
    assert not old_alive


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return open(f"/proc/{pid}/stat").read().split(")")[1].split()[0] != "Z"


def meet(folder: str, pair: int, me: int) -> tuple[int, bool]:
    """A job, in a worker, that waits (30 s at most) for the other job of its pair to be
    running too: its process, and whether they met (two jobs queued one behind the other in
    one process never do)."""
    Path(folder, f"{pair}-{me}").touch()
    other = Path(folder, f"{pair}-{1 - me}")
    deadline = time.monotonic() + 30
    while not other.exists() and time.monotonic() < deadline:
        time.sleep(0.005)
    return os.getpid(), other.exists()


def test_the_solver_workers_stay_as_many_through_their_replacements(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """With CPython 3.11's pool of processes replacing its workers, two workers became one
    after the first replacement, and every second job queued behind another. Each pair of
    jobs started together here runs at once, in two processes, replacements and all."""
    monkeypatch.setattr(bots, "JOBS_PER_WORKER", 2)

    async def scenario() -> list[list[tuple[int, bool]]]:
        lane = light_lane(2)
        try:
            rounds: list[list[tuple[int, bool]]] = []
            pids: set[int] = set()
            while len(rounds) < 400 and (len(rounds) < 8 or len(pids) < 4):  # replaced twice
                n = len(rounds)
                pair = [lane.run(meet, str(tmp_path), n, i, key=f"t{n}{i}", kind=MOVE)
                        for i in range(2)]  # fmt: skip
                rounds.append(list(await asyncio.gather(*pair)))
                pids |= {pid for pid, _ in rounds[-1]}
                await asyncio.sleep(0.05)  # the successors get ready meanwhile
            return rounds
        finally:
            for worker in lane.workers:
                worker.close()

    rounds = asyncio.run(scenario())
    for (pid_a, met_a), (pid_b, met_b) in rounds:
        assert pid_a != pid_b and met_a and met_b  # together, not one after the other
    assert len({pid for pair in rounds for pid, _ in pair}) >= 4  # both were replaced
