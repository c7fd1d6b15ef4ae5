"""Team matches over the wire: two tables deal the same cards, the seats turned; each deal's
margin is counted once both tables have played it, and the total is the one this test works
out from the two records; the other table's game opens only once both are over."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator
from typing import Any

import pytest

from backalley.record import read_record, replay
from backalley.server import daily
from backalley.server.client import Seat, seat_bot, take_seat
from backalley.server.client import request as http
from backalley.server.matches import deal_by_deal, team_seats
from live_support import running
from server_support import database, finished_record, play_randomly, run

pytestmark = pytest.mark.server


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    with running(database("sqlite", tmp_path_factory.mktemp("matches"))) as held:
        yield held


def test_the_teams_sit_turned_and_each_holds_the_others_cards() -> None:
    assert team_seats("A", 1) == [0, 2] and team_seats("A", 2) == [1, 3]
    assert team_seats("B", 1) == [1, 3] and team_seats("B", 2) == [0, 2]


def test_two_tables_play_the_same_deals_and_the_total_is_the_sum_of_the_margins(
    server: Any,
) -> None:
    base = server.base
    status, match = http(base, "POST", "/api/matches", {"hand_sizes": [3, 2, 1], "pace": 0,
                                                         "level": "easy"})  # fmt: skip
    assert status == 201, match
    first, second = match["tables"]
    assert first["table"]["match"] == f"{match['id']}/1"
    assert second["table"]["match"] == f"{match['id']}/2"
    # a person of team A at each table (Ana at table 1's seat 0, Bo at table 2's seat 1),
    # bots everywhere else
    tokens = [take_seat(base, first, 0, "Ana"), take_seat(base, second, 1, "Bo")]
    for table, person in ((first, 0), (second, 1)):
        for seat in range(4):
            if seat != person:
                seat_bot(base, table, seat, "easy")
    status, shown = http(base, "GET", f"/api/matches/{match['id']}")
    assert status == 200 and shown["deals"] == [] and shown["total"] == 0

    async def both() -> None:
        async def one(table: dict[str, Any], token: str, seed: int) -> None:
            async with Seat.connect(base, table["id"], token=token) as seat:
                await seat.until(lambda s: s.view is not None)
                await play_randomly(seat, random.Random(seed))

        await asyncio.gather(one(first, tokens[0], 1), one(second, tokens[1], 2))

    run(both())
    records = [finished_record(base, first), finished_record(base, second)]
    games = [replay(read_record(r)) for r in records]
    cards = [{daily.deal_key(g.deals, i): d.hands for i, d in enumerate(g.deals)} for g in games]
    assert "0.0.0" in cards[0] and cards[0]["0.0.0"] == cards[1]["0.0.0"]
    for key in set(cards[0]) & set(cards[1]):
        assert cards[0][key] == cards[1][key]
    # team A: side 0 at table 1, side 1 at table 2; a deal counts when played at both with
    # the same dealer
    by_key = []
    for game in games:
        by_key.append({daily.result_key(game.deals, i): d.points
                       for i, d in enumerate(game.deals) if d.points is not None})  # fmt: skip
    expected = sum((by_key[0][k][0] - by_key[0][k][1]) + (by_key[1][k][1] - by_key[1][k][0])
                   for k in set(by_key[0]) & set(by_key[1]))  # fmt: skip
    status, shown = http(base, "GET", f"/api/matches/{match['id']}")
    assert status == 200 and shown["over"] and shown["total"] == expected
    assert len(shown["deals"]) == len(set(by_key[0]) & set(by_key[1])) >= 1
    assert shown["deals"] == deal_by_deal(*games)
    assert shown["teams"]["A"][0][0] == "Ana" and shown["teams"]["A"][1][0] == "Bo"
    # the other table's game, through one's own (both over); nothing without it
    other = second["id"]
    status, _ = http(base, "GET", f"/api/tables/{other}/replay")
    assert status == 404
    status, game = http(base, "GET", f"/api/tables/{other}/replay?via={first['id']}",
                        token=tokens[0])  # fmt: skip
    assert status == 200 and game["players"][1] == "Bo"
    status, refused = http(base, "GET", "/api/matches/nothing")
    assert status == 404 and refused["code"] == "no_match"
    status, refused = http(base, "POST", "/api/matches", {"rules": "classic3"})
    assert status == 400 and refused["code"] == "bad_rules"


def test_a_public_matchs_tables_wait_in_the_lobby_and_are_joined_from_it(server: Any) -> None:
    base = server.base
    status, match = http(base, "POST", "/api/matches", {"hand_sizes": [1], "public": True})
    assert status == 201
    ids = {t["id"]: n + 1 for n, t in enumerate(match["tables"])}
    status, lobby = http(base, "GET", "/api/lobby")
    waiting = {e["id"]: e for e in lobby["waiting"] if e["id"] in ids}
    assert {i: e["match"] for i, e in waiting.items()} == {
        i: f"{match['id']}/{n}" for i, n in ids.items()
    }
    second = match["tables"][1]["id"]
    status, taken = http(base, "POST", f"/api/tables/{second}/join", {"name": "Cleo"})
    assert status == 201 and taken["seat"] == 0  # table 2's seat 0: team B's there
    status, shown = http(base, "GET", f"/api/matches/{match['id']}")
    assert shown["teams"]["B"][1] == ["Cleo", None]
    first = match["tables"][0]
    for seat in range(4):
        http(base, "POST", f"/api/tables/{first['id']}/seats/{seat}/bot", {"level": "easy"},
             token=first["host"])  # fmt: skip
    status, lobby = http(base, "GET", "/api/lobby")
    assert first["id"] not in {e["id"] for e in lobby["waiting"] + lobby["playing"]}
