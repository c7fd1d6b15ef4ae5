"""A table's life beyond one game, as clients meet it on a real server: who won each trick,
bots' names, the lobby of public tables, leaving, a host ending a table, rematches and
take-backs."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed

from backalley.cards import trump_mask
from backalley.engine import trick_winner
from backalley.record import read_record, replay, verify
from backalley.server.client import Seat, create_table, seat_bot
from backalley.server.client import request as http
from backalley.server.protocol import CLOSE_LEFT, CLOSE_UNAUTHORIZED
from server_support import (
    Server,
    database,
    events_of,
    finished_record,
    new_table,
    play_randomly,
    run,
    server,
)

__all__ = ["server"]  # a fixture


def join(base: str, table_id: str, name: str) -> tuple[int, Any]:
    return http(base, "POST", f"/api/tables/{table_id}/join", {"name": name})


def trick_winners(record: dict[str, Any]) -> list[int]:
    """Every completed trick's winner, worked out from the record by the engine (P5)."""
    game = replay(read_record(record))
    winners = []
    for deal in game.deals:
        size = len(deal.seats)
        leader = deal.leader
        for start in range(0, len(deal.play) - size + 1, size):
            cards = deal.play[start : start + size]
            leader = trick_winner(leader, cards, deal.seats, trump_mask(deal.trump))[0]
            winners.append(leader)
    return winners


def test_each_card_that_completes_a_trick_names_its_winner(server: Server) -> None:
    table, tokens = new_table(server.base, names=1, bots="easy", level="easy")

    async def scenario() -> Seat:
        async with Seat.connect(server.base, table["id"], token=tokens[0]) as me:
            await play_randomly(me, random.Random(5))
            return me

    me = run(scenario())
    record = finished_record(server.base, table)
    cards = events_of(me, "card")
    winners = trick_winners(record)
    assert [c["won_by"] for c in cards if "won_by" in c] == winners
    # A card that does not complete its trick names nobody; the view keeps the last winner.
    assert sum("won_by" in c for c in cards) * 4 == len(cards)
    assert me.view["last_winner"] == winners[-1]


def test_bots_are_named_for_their_level_and_no_two_alike(server: Server) -> None:
    # P0 never comes: no stand-in for an hour, so that the hard bots think of nothing (they
    # once played on in the background of the module's server, beside its other tests)
    table, _ = new_table(server.base, names=1, bots="hard", grace=3600)
    _, described = http(
        server.base, "GET", f"/api/tables/{table['id']}", token=table["watch"]["code"]
    )
    names = [s["name"] for s in described["seats"]]
    assert names == ["P0", "Vera", "Hugo", "Iris"]
    _, about = http(server.base, "GET", "/api")
    assert names[1:] == about["bot_names"]["hard"][:3]


def test_a_public_table_waits_in_the_lobby_and_is_joined_from_it(server: Server) -> None:
    public = create_table(server.base, {"hand_sizes": [1], "public": True, "pace": 0})
    private = create_table(server.base, {"hand_sizes": [1], "pace": 0})
    _, lobby = http(server.base, "GET", "/api/lobby")
    waiting = {t["id"]: t for t in lobby["waiting"]}
    assert public["id"] in waiting and private["id"] not in waiting
    assert waiting[public["id"]]["rules"] == "standard"
    assert waiting[public["id"]]["hand_sizes"] == [1]
    # The first free seat, each time; a private table is joined by its invites only.
    seats = [join(server.base, public["id"], name) for name in ("Ana", "Bo")]
    assert [(status, answer["seat"]) for status, answer in seats] == [(201, 0), (201, 1)]
    status, refused = join(server.base, private["id"], "Cy")
    assert status == 403 and refused["code"] == "forbidden"
    _, lobby = http(server.base, "GET", "/api/lobby")
    entry = next(t for t in lobby["waiting"] if t["id"] == public["id"])
    assert [s["name"] for s in entry["seats"]] == ["Ana", "Bo", None, None]
    for seat in (2, 3):
        seat_bot(server.base, public, seat, "easy")
    _, lobby = http(server.base, "GET", "/api/lobby")
    assert public["id"] in [t["id"] for t in lobby["playing"]]
    assert public["id"] not in [t["id"] for t in lobby["waiting"]]
    status, full = join(server.base, public["id"], "Di")
    assert status == 409 and full["code"] == "seat_taken"

    async def watch(table_id: str) -> dict[str, Any]:
        async with Seat.connect(server.base, table_id, watch="") as spectator:
            return await spectator.recv()

    assert run(watch(public["id"]))["type"] == "state"  # anyone may watch a public table
    with pytest.raises(ConnectionClosed) as closed:
        run(watch(private["id"]))
    assert closed.value.rcvd.code == CLOSE_UNAUTHORIZED


def test_a_player_who_leaves_is_replaced_by_a_bot_and_the_record_says_when(
    server: Server,
) -> None:
    table, tokens = new_table(server.base, names=2, bots="easy", level="easy", hand_sizes=[2, 1])

    async def scenario() -> tuple[Seat, int]:
        async with (
            Seat.connect(server.base, table["id"], token=tokens[0]) as ana,
            Seat.connect(server.base, table["id"], token=tokens[1]) as bo,
        ):
            await bo.until(lambda s: s.view is not None)  # the game has started
            status, _ = await asyncio.to_thread(
                http, server.base, "POST", f"/api/tables/{table['id']}/leave", {}, tokens[1]
            )
            with pytest.raises(ConnectionClosed) as closed:
                await bo.until(lambda s: False)
            assert closed.value.rcvd.code == CLOSE_LEFT
            await play_randomly(ana, random.Random(2))
            return ana, status

    ana, status = run(scenario())
    assert status == 200
    left = events_of(ana, "left")
    assert len(left) == 1 and left[0]["seat"] == 1 and left[0]["name"] == "P1"
    assert ana.table["seats"][1]["bot"] == "easy"
    assert ana.table["seats"][1]["name"] == left[0]["bot"]
    record = finished_record(server.base, table)
    assert verify(record).exit_code == 0  # the extension member is ignored by verify
    [departure] = record["left"]
    assert departure["seat"] == 1 and departure["player"] == "P1"
    assert record["players"][1] == left[0]["bot"]
    # Bo's token no longer opens the table.
    status, _ = http(server.base, "GET", f"/api/tables/{table['id']}/record", token=tokens[1])
    assert status == 403


def test_leaving_before_the_game_frees_the_seat(server: Server) -> None:
    table, tokens = new_table(server.base, names=2)
    status, _ = http(server.base, "POST", f"/api/tables/{table['id']}/leave", {}, tokens[1])
    assert status == 200
    _, described = http(
        server.base, "GET", f"/api/tables/{table['id']}", token=table["watch"]["code"]
    )
    assert [s["name"] for s in described["seats"]] == ["P0", None, None, None]


def test_the_host_ends_a_table_whose_game_has_not_started(server: Server) -> None:
    table, tokens = new_table(server.base, names=1)
    path = f"/api/tables/{table['id']}/end"
    status, refused = http(server.base, "POST", path, {}, tokens[0])
    assert status == 403  # a seat's token is not the host's
    status, answer = http(server.base, "POST", path, {}, table["host"])
    assert status == 200 and answer["table"]["status"] == "ended"
    invite = table["invites"][1]["invite"]
    status, refused = http(
        server.base, "POST", f"/api/tables/{table['id']}/seats/1", {"invite": invite, "name": "X"}
    )
    assert status == 409 and refused["code"] == "ended"
    started, _ = new_table(server.base)
    status, refused = http(server.base, "POST", f"/api/tables/{started['id']}/end", {},
                           started["host"])  # fmt: skip
    assert status == 409 and refused["code"] == "started"


def finish_with_two_people(base: str, **settings: Any) -> tuple[dict[str, Any], list[str]]:
    """A one-deal game of two people (seats 0 and 1) and two bots, played to its end."""
    table, tokens = new_table(base, names=2, level="easy", hand_sizes=[1], **settings)
    for seat in (2, 3):
        seat_bot(base, table, seat, "easy")

    async def both() -> None:
        async def one(seat: int) -> None:
            async with Seat.connect(base, table["id"], token=tokens[seat]) as client:
                await play_randomly(client, random.Random(seat))

        await asyncio.gather(one(0), one(1))

    run(both())
    return table, tokens


async def rematch(seat: Seat, accept: bool = True) -> dict[str, Any]:
    """Offer or accept (or decline) a rematch: the rematch as the table then says, or the
    error."""
    id = seat._new_id()
    await seat.send({"type": "rematch", "id": id, "accept": accept})
    answer = await seat.reply(id)
    return answer if answer["type"] == "error" else dict(seat.table["rematch"])


def test_a_rematch_accepted_by_both_people_starts_a_new_game_in_the_same_seats(
    server: Server,
) -> None:
    table, tokens = finish_with_two_people(server.base)

    async def scenario() -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
        async with (
            Seat.connect(server.base, table["id"], token=tokens[0]) as ana,
            Seat.connect(server.base, table["id"], token=tokens[1]) as bo,
        ):
            await bo.until(lambda s: s.view is not None)
            offered = await rematch(ana)
            await bo.until(lambda s: s.table["rematch"] is not None)
            seen_by_bo = bo.table["rematch"]
            started = await rematch(bo)
            return offered, seen_by_bo, started

    offered, seen_by_bo, started = run(scenario())
    assert offered["status"] == "open" and offered["by"] == 0
    assert offered["accepted"] == [0, 2, 3]  # the bots accept at once
    assert seen_by_bo["status"] == "open"
    assert started["status"] == "started" and started["table"] != table["id"]
    _, new = http(
        server.base, "GET", f"/api/tables/{started['table']}", token=table["watch"]["code"]
    )
    _, old = http(server.base, "GET", f"/api/tables/{table['id']}", token=table["watch"]["code"])
    assert new["status"] == "playing"
    assert [(s["name"], s["bot"]) for s in new["seats"]] == [
        (s["name"], s["bot"]) for s in old["seats"]
    ]

    async def seat_of(token: str) -> int:
        async with Seat.connect(server.base, started["table"], token=token) as client:
            await client.until(lambda s: s.view is not None)
            return int(client.seat)

    assert [run(seat_of(t)) for t in tokens] == [0, 1]  # the same tokens, the same seats
    record = http(server.base, "GET", f"/api/tables/{started['table']}/record", token=tokens[0])[1]
    before = finished_record(server.base, table)
    assert record["players"] == before["players"]
    assert len(record["deals"]) == 1 and record["deals"][0]["play"] == []  # its own record


def test_a_rematch_declined_or_not_answered_in_time_starts_nothing(server: Server) -> None:
    table, tokens = finish_with_two_people(server.base, rematch_wait=1)

    async def scenario() -> tuple[dict[str, Any], ...]:
        async with (
            Seat.connect(server.base, table["id"], token=tokens[0]) as ana,
            Seat.connect(server.base, table["id"], token=tokens[1]) as bo,
        ):
            await bo.until(lambda s: s.view is not None)
            await rematch(ana)
            declined = await rematch(bo, accept=False)
            offered = await rematch(ana)  # offered again, and left unanswered
            await ana.until(lambda s: s.table["rematch"]["status"] != "open")
            nothing = await rematch(bo, accept=False)
            return declined, offered, ana.table["rematch"], nothing

    declined, offered, lapsed, nothing = run(scenario())
    assert declined["status"] == "declined" and declined["declined"] == 1
    assert offered["status"] == "open"
    assert lapsed["status"] == "expired" and lapsed["table"] is None
    assert nothing["type"] == "error" and nothing["code"] == "no_rematch"


# ---------------------------------------------------------------------- take-backs


def test_a_take_back_against_bots_undoes_the_last_own_action_and_the_replies(
    tmp_path: Path,
) -> None:
    server = Server.start(database("sqlite", tmp_path))
    try:
        table, tokens = new_table(
            server.base,
            names=1,
            bots="easy",
            level="easy",
            pace=1.5,
            hand_sizes=[3, 3],
        )
        rng = random.Random(7)

        def moves_after(seat: Seat, version: int) -> list[dict[str, Any]]:
            later = [m["event"] for m in seat.messages
                     if m["type"] == "event" and m["version"] > version]  # fmt: skip
            return [event for event in later if event["kind"] in ("bid", "card")]

        async def take_back() -> tuple[dict[str, Any], int, dict[str, Any], dict[str, Any]]:
            async with Seat.connect(server.base, table["id"], token=tokens[0]) as me:
                while True:  # until a bot has replied to one of our actions, still in its trick
                    await me.until(lambda s: s.my_turn or s.over)
                    assert not me.over, "no action of ours was ever answered within its trick"
                    before = me.view
                    answer = await me.reply(await me.act(rng.choice(before["legal"])))
                    mine = answer["version"]
                    # a bot replies, or our card won the trick and we lead again
                    await me.until(
                        lambda s, mine=mine: bool(moves_after(s, mine)) or s.my_turn or s.over
                    )
                    assert not me.over, "no action of ours was ever answered within its trick"
                    if not moves_after(me, mine) or not me.view["undo"]:
                        continue
                    answer = await me.reply(await me.undo())
                    if answer["type"] == "ack":
                        break
                    # a bot completed the trick between the view and the take-back
                    assert answer["code"] == "no_undo", answer
                events = [m for m in me.messages if m["type"] == "event"]
                [message] = [m for m in events if m["event"]["kind"] == "takeback"]
                await me.until(lambda s: s.version >= answer["version"])
                return before, mine, message, me.view

        before, mine, message, after = run(take_back())
        event = message["event"]
        assert event["seat"] == 0
        # our action and every reply to it, up to the take-back's own version
        assert event["versions"] == list(range(mine, message["version"]))
        assert len(event["versions"]) >= 2
        for field in ("hand", "legal", "bids", "trick", "to_move", "tricks_won"):
            assert after[field] == before[field], field
        server.stop()
        server = Server.start(server.url)  # the take-back survives a restart

        async def again() -> dict[str, Any]:
            async with Seat.connect(server.base, table["id"], token=tokens[0]) as seat:
                await seat.until(lambda s: s.view is not None)
                assert seat.view is not None
                return seat.view

        resumed = run(again())
        assert resumed["hand"] == after["hand"] or resumed["to_move"] != 0
        path = f"/api/tables/{table['id']}/record"
        assert http(server.base, "GET", path, token=tokens[0])[1]["takebacks"] == 1
        # (a game with a take-back is never rated: tests/test_server_table.py)
    finally:
        server.stop()


def test_nothing_can_be_taken_back_at_a_table_with_another_person(server: Server) -> None:
    table, tokens = new_table(server.base, names=2, bots="easy", level="easy", pace=2)

    async def scenario() -> tuple[bool, dict[str, Any]]:
        async with (
            Seat.connect(server.base, table["id"], token=tokens[0]) as ana,
            Seat.connect(server.base, table["id"], token=tokens[1]) as bo,
        ):
            rng = random.Random(3)
            await asyncio.gather(play_randomly(ana, rng, stop=1), play_randomly(bo, rng, stop=1))
            offered = bool(ana.view["undo"])
            return offered, await ana.reply(await ana.undo())

    offered, refused = run(scenario())
    assert not offered
    assert refused["type"] == "error" and refused["code"] == "no_undo"


def test_a_rematch_goes_on_without_a_player_who_left_a_bot_in_their_seat(server: Server) -> None:
    table, tokens = finish_with_two_people(server.base)
    status, _ = http(server.base, "POST", f"/api/tables/{table['id']}/leave", {}, tokens[1])
    assert status == 200

    async def scenario() -> tuple[dict[str, Any], dict[str, Any]]:
        async with Seat.connect(server.base, table["id"], token=tokens[0]) as ana:
            await ana.until(lambda s: s.view is not None)
            id = ana._new_id()
            await ana.send({"type": "rematch", "id": id, "accept": True})
            first = await ana.reply(id)
            await ana.send({"type": "rematch", "id": id, "accept": True})  # the same, again
            return first, await ana.reply(id)

    first, again = run(scenario())
    assert first["type"] == "ack" and again.get("repeated") is True
    _, old = http(server.base, "GET", f"/api/tables/{table['id']}", token=table["watch"]["code"])
    assert old["rematch"]["status"] == "started"  # nobody else to wait for
    _, new = http(
        server.base, "GET", f"/api/tables/{old['rematch']['table']}", token=table["watch"]["code"]
    )
    assert new["seats"][0]["name"] == "P0" and new["seats"][0]["bot"] is None
    assert new["seats"][1]["bot"] == "easy"
