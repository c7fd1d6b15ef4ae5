"""While the server's solver is still being prepared (compiled, the first time on a
machine), nobody waits for it: the strong bots play as medium ones (their moves marked, the
game not rated, the record saying so), a claim is answered ``pending`` at once and settled
once the solver is ready, a claim the game moved past is stale at once, and a review is
``202`` pending until it can be given. The preparation is the pool's own (``warm_up``), held
back here by a gate until the test opens it."""

from __future__ import annotations

import asyncio
import json
import random
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from backalley.bots import STAND_IN_LEVEL
from backalley.record import verify
from backalley.rules import Phase
from backalley.server import bots
from backalley.server.bots import BotPool
from backalley.server.client import Seat, create_table, request, seat_bot, take_seat
from backalley.server.protocol import Act, Claim, ProtocolError
from backalley.server.registry import Tables
from backalley.server.settings import Settings
from backalley.server.store import Store
from backalley.server.store.writes import Status
from backalley.server.table import messages
from backalley.server.table.persist import finished_rows
from backalley.server.table.service import Table
from live_support import live
from test_server_faults import Person

pytestmark = pytest.mark.server


class GatedPool(BotPool):
    """A pool (threads) whose solver's preparation waits for ``gate``, and which keeps the
    level each bot's decision was asked at."""

    def __init__(self) -> None:
        super().__init__(2, executor=ThreadPoolExecutor(4))
        self.gate = threading.Event()
        self.levels: list[str] = []
        self.stages: list[str] = []
        self.progress = lambda stage, seconds: self.stages.append(stage)

    async def _run(self, work: Any, *args: Any, **options: Any) -> Any:
        if work is bots._warm_up:
            await asyncio.to_thread(self.gate.wait, 30)
        return await super()._run(work, *args, **options)

    async def decide(
        self, record: dict[str, Any], seat: int, level: str, key: str = "", seed: str | None = None
    ) -> str:
        self.levels.append(level)
        return await super().decide(record, seat, level, key, seed)


async def until(condition: Any, seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "the condition was not met in time"
        await asyncio.sleep(0.01)


async def a_table(tmp_path: Path, pool: GatedPool, people: int) -> tuple[Table, list[Person]]:
    """A table of ``people`` persons (joined) and ``hard`` bots in the other seats."""
    store = Store(f"sqlite:///{tmp_path / 'db.sqlite'}")
    tables = Tables(store, pool)
    table, secrets = await tables.create(
        Settings(options={"hand_sizes": [3, 2]}, pace=0, level="hard")
    )
    persons = [Person(seat) for seat in range(people)]
    for seat, person in enumerate(persons):
        await table.take(seat, secrets["invites"][seat], f"P{seat}")
        await messages.join(table, person, None)
    for seat in range(people, 4):
        await table.give_to_bot(seat, "hard", secrets["host"])
    return table, persons


def test_a_strong_bot_plays_as_the_stand_in_until_the_solver_is_ready_and_the_game_is_unrated(
    tmp_path: Path,
) -> None:
    async def scenario() -> tuple[Table, GatedPool, list[dict[str, Any]]]:
        pool = GatedPool()
        warming = asyncio.ensure_future(pool.warm_up())
        table, _ = await a_table(tmp_path, pool, people=0)  # four hard bots, pace 0
        await until(lambda: table.state.status.over)  # the whole game, solver never ready
        events = [json.loads(text) for text in table.log]
        pool.gate.set()
        await warming
        table.stop()
        table.store.close()
        return table, pool, events

    table, pool, events = asyncio.run(scenario())
    moves = [e for e in events if e["kind"] in ("bid", "card")]
    assert moves and all(move["below_level"] is True for move in moves)
    assert set(pool.levels) == {STAND_IN_LEVEL}  # never the solver's hard bot
    assert sum(table.state.below_level) == len(moves)
    [status] = [row for row in finished_rows(table.state) if isinstance(row, Status)]
    assert status.summary is not None and status.summary["rated"] is False
    record = table.records.record(table.state, None, table.names)
    assert record["below_level"] == list(table.state.below_level)
    assert verify(record).exit_code == 0  # a member of the server's own: verify reads past it
    assert pool.stages[0] == "preparing" and pool.stages[-1] == "ready"


def test_once_the_solver_is_ready_the_strong_bots_play_at_their_own_level(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bots, "_decide", _any_legal)  # the hard bot's thought, made quick

    async def scenario() -> tuple[Table, GatedPool]:
        pool = GatedPool()
        warming = asyncio.ensure_future(pool.warm_up())
        await until(lambda: pool.stages == ["preparing"])
        pool.gate.set()
        await warming
        table, _ = await a_table(tmp_path, pool, people=0)
        await until(lambda: table.state.status.over)
        table.stop()
        table.store.close()
        return table, pool

    table, pool = asyncio.run(scenario())
    assert set(pool.levels) == {"hard"}
    assert not any(table.state.below_level)
    assert all('"below_level"' not in text for text in table.log)


def _any_legal(record: dict[str, Any], seat: int, level: str, seed: str | None = None) -> str:
    from backalley.record import read_record, replay
    from backalley.rules import action_name

    return action_name(random.choice(replay(read_record(record)).legal_actions()))


async def to_play(table: Table, persons: list[Person], seat: int, rng: random.Random) -> None:
    """Act for the people until ``seat`` is to play a card (the bots act by themselves)."""
    n = 0
    while True:
        game = table.state.game
        assert game is not None and game.phase != Phase.OVER
        if game.phase == Phase.PLAY and game.to_move == seat:
            return
        if game.to_move is not None and game.to_move < len(persons):
            mover = game.to_move
            action = str(rng.choice(game.view(mover).legal_actions))
            await messages.act(table, persons[mover], Act(f"m{n}", action, None))
            n += 1
        else:
            await asyncio.sleep(0.01)


def test_a_claim_while_the_solver_is_prepared_is_pending_at_once_then_settled_once_ready(
    tmp_path: Path,
) -> None:
    async def scenario() -> tuple[list[dict[str, Any]], list[dict[str, Any]], float]:
        pool = GatedPool()
        warming = asyncio.ensure_future(pool.warm_up())
        table, persons = await a_table(tmp_path, pool, people=1)
        await to_play(table, persons, 0, random.Random(3))
        claimer = persons[0]
        claimer.sent.clear()
        settling = asyncio.ensure_future(messages.claim(table, claimer, Claim("c1")))
        answered = list(claimer.sent)  # at once, before anything was awaited
        await asyncio.sleep(0.5)
        meanwhile = list(claimer.sent)
        await messages.say(table, claimer, "still here")  # the seat's messages go on
        ready = time.monotonic()
        pool.gate.set()
        await settling
        settled = time.monotonic() - ready
        await warming
        table.stop()
        table.store.close()
        return answered, meanwhile + claimer.sent[len(meanwhile) :], settled

    answered, sent, settled = asyncio.run(scenario())
    assert answered == [{"type": "pending", "id": "c1", "version": answered[0]["version"],
                         "solver_ready": False}]  # fmt: skip
    answers = [m for m in sent if m.get("id") == "c1" and m["type"] in ("ack", "error")]
    assert len(answers) == 1  # settled once, after the solver became ready
    assert answers[0]["type"] == "ack" or answers[0]["code"] == "claim_refused"
    assert settled < 5


def test_a_pending_claim_is_stale_at_once_when_the_claimer_plays_on(tmp_path: Path) -> None:
    async def scenario() -> tuple[str, int, float]:
        pool = GatedPool()
        warming = asyncio.ensure_future(pool.warm_up())
        table, persons = await a_table(tmp_path, pool, people=1)
        await to_play(table, persons, 0, random.Random(5))
        claimer = persons[0]
        settling = asyncio.ensure_future(messages.claim(table, claimer, Claim("c1")))
        with pytest.raises(ProtocolError) as second:  # one claim at a time
            messages.claim(table, claimer, Claim("c2"))
        assert table.state.game is not None
        card = str(table.state.game.view(0).legal_actions[0])
        played = time.monotonic()
        await messages.act(table, claimer, Act("card", card, None))
        with pytest.raises(ProtocolError) as stale:
            await settling
        seconds = time.monotonic() - played
        claims_run = pool.solver.share.busy
        pool.gate.set()
        await warming
        table.stop()
        table.store.close()
        assert second.value.code == "claim_running"
        return stale.value.code, claims_run, seconds

    code, claims_run, seconds = asyncio.run(scenario())
    assert code == "stale" and seconds < 1  # not held until the solver is ready
    assert claims_run == 0  # the solver was never asked


def test_a_review_while_the_solver_is_prepared_is_202_pending_then_given(tmp_path: Path) -> None:
    pool = GatedPool()
    with live(f"sqlite:///{tmp_path / 'live.db'}", pool=pool, warm_up=True) as base:
        assert request(base, "GET", "/api")[1]["solver"] == {"ready": False}
        info = create_table(base, {"options": {"hand_sizes": [2, 1]}, "pace": 0})
        token = take_seat(base, info, 0, "Ana")
        for seat in (1, 2, 3):
            seat_bot(base, info, seat, "hard")

        async def first_deal() -> None:  # played by the person, the bots as medium ones
            async with Seat.connect(base, info["id"], token=token) as seat:
                rng = random.Random(2)
                while seat.view is None or (seat.view["deal"] == 0 and not seat.over):
                    if seat.my_turn:
                        await seat.reply(await seat.act(rng.choice(seat.view["legal"])))
                    else:
                        await seat.recv()

        asyncio.run(first_deal())
        path = f"/api/tables/{info['id']}/review/0"
        status, answer = request(base, "GET", path, token=token)
        assert (status, answer["pending"], answer["solver_ready"]) == (202, True, False)
        pool.gate.set()
        deadline = time.monotonic() + 30
        while status == 202:
            assert time.monotonic() < deadline
            time.sleep(0.1)
            status, answer = request(base, "GET", path, token=token)
        assert status == 200 and answer["players"] == ["Ana", *answer["players"][1:]]
        assert request(base, "GET", "/api")[1]["solver"] == {"ready": True}


def test_at_the_daily_deals_a_strong_bot_waits_for_the_solver_and_plays_at_its_own_level(
    tmp_path: Path,
) -> None:
    """The daily deals are compared with everyone's: no bot of theirs ever plays below its
    level, so while the solver is being prepared its bots think as themselves (in a worker
    not busy preparing it, or after it), never as the stand-in."""
    from backalley.server import daily

    async def scenario() -> tuple[Table, GatedPool]:
        pool = GatedPool()
        warming = asyncio.ensure_future(pool.warm_up())
        store = Store(f"sqlite:///{tmp_path / 'db.sqlite'}")
        tables = Tables(store, pool)
        tables.daily_secret = b"a secret"
        chosen = daily.SETS["standard"]
        settings = Settings(**{**chosen.settings(daily.today()), "pace": 0})
        table, secrets = await tables.create(settings)
        for seat in range(4):
            await table.give_to_bot(seat, chosen.level, secrets["host"])
        await asyncio.sleep(1.0)  # the solver not ready meanwhile
        assert not pool.solver_ready.is_set()
        pool.gate.set()
        await warming
        await until(lambda: table.state.status.over, seconds=60)
        table.stop()
        store.close()
        return table, pool

    table, pool = asyncio.run(scenario())
    assert set(pool.levels) == {"hard"} and not any(table.state.below_level)
    assert STAND_IN_LEVEL not in pool.levels
