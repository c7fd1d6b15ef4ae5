"""A database written by the server before its tables became state machines (the release
before; scripts/write_old_database.py wrote it, with that release's code): it loads, and
its tables go on — seats open with their tokens (a seat left and taken again too), a game in
play is played to its end, a take-back and a departure are as they were, and a finished
game's record still verifies."""

from __future__ import annotations

import asyncio
import json
import random
import shutil
from pathlib import Path
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed

from backalley.record import verify
from backalley.server.client import Seat
from backalley.server.client import request as http
from live_support import live
from server_support import play_randomly, run

pytestmark = pytest.mark.server

DATA = Path(__file__).parent / "data"


def described(base: str, fact: dict[str, Any]) -> dict[str, Any]:
    table = fact["table"]
    status, answer = http(base, "GET", f"/api/tables/{table['id']}", token=table["host"])
    assert status == 200, answer
    return dict(answer)


def record(base: str, fact: dict[str, Any]) -> dict[str, Any]:
    table = fact["table"]
    return dict(http(base, "GET", f"/api/tables/{table['id']}/record", token=table["host"])[1])


async def seat_of(base: str, table_id: str, token: str) -> int | None:
    """The seat ``token`` opens (``None``: it opens nothing)."""
    try:
        async with Seat.connect(base, table_id, token=token) as seat:
            message = await seat.recv()
    except ConnectionClosed:
        return None
    return message["you"]["seat"] if message["type"] == "state" else None


def test_a_database_of_the_release_before_loads_and_its_tables_go_on(tmp_path: Path) -> None:
    shutil.copy(DATA / "before-the-table-rewrite.db", tmp_path / "server.db")
    facts = json.loads((DATA / "before-the-table-rewrite.json").read_text())
    with live(f"sqlite:///{tmp_path / 'server.db'}") as base:
        # An open table: Ana's seat, and Bea's (Ben left it, Bea took it again).
        opened = facts["open"]
        names = [s["name"] for s in described(base, opened)["seats"]]
        assert names[:2] == ["Ana", "Bea"] and names[2:] == [None, None]
        tokens = opened["tokens"]
        assert [run(seat_of(base, opened["table"]["id"], t)) for t in tokens] == [0, 1]
        # Four people in the middle of a game play it to its end (away longer than the
        # grace since the database was written, bots stand in for them until they are back).
        playing = facts["playing"]
        assert described(base, playing)["status"] in ("playing", "finished")

        async def finish() -> None:
            async def one(seat: int) -> None:
                table_id = playing["table"]["id"]
                async with Seat.connect(base, table_id, token=playing["tokens"][seat]) as me:
                    await play_randomly(me, random.Random(seat))

            await asyncio.gather(*(one(seat) for seat in range(4)))

        run(finish())
        done = record(base, playing)
        assert verify(done).output["finished"] and done["deals"][0]["bids"]
        # A take-back, and a player who left for a bot, as the log has them.
        assert record(base, facts["takeback"])["takebacks"] == 1
        left = facts["left"]
        assert record(base, left)["left"][0]["seat"] == 1
        assert described(base, left)["seats"][1]["bot"] == "easy"
        assert run(seat_of(base, left["table"]["id"], left["tokens"][1])) is None  # gone
        # A finished game, with the rematch that was offered.
        finished = facts["finished"]
        assert verify(record(base, finished)).output["finished"]
        assert described(base, finished)["rematch"]["by"] == 0
