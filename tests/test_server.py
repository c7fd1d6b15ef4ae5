"""The game server, tested as its clients meet it: ``backalley serve`` in a subprocess on
loopback, real WebSocket clients, real databases (SQLite; PostgreSQL when scripts/test.sh
could start one)."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import random
import re
import sqlite3
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from backalley.analysis import claim_holds
from backalley.cards import card_name, parse_card
from backalley.record import read_record, replay, verify
from backalley.rules import next_seat
from backalley.server.client import Seat, create_table, seat_bot
from backalley.server.client import request as http
from backalley.server.protocol import MAX_FRAME
from server_support import (
    Server,
    assert_verified_finished,
    database,
    finished_record,
    new_table,
    play_randomly,
    run,
    server,
)

pytestmark = pytest.mark.server

__all__ = ["server"]  # a fixture

BACKENDS = ["sqlite", "postgres"]


async def play_game(base: str, table: dict[str, Any], tokens: list[str], seed: int) -> list[Seat]:
    async def one(seat: int) -> Seat:
        async with Seat.connect(base, table["id"], token=tokens[seat]) as client:
            await play_randomly(client, random.Random(seed * 10 + seat))
            return client

    return list(await asyncio.gather(*(one(s) for s in range(len(tokens)))))


# ---------------------------------------------------------------------- whole games


@pytest.mark.parametrize("backend", BACKENDS)
def test_four_clients_play_a_whole_game_and_its_record_verifies(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    server = Server.start(database(backend, tmp_path, request))
    try:
        table, tokens = new_table(server.base)
        seats = run(play_game(server.base, table, tokens, seed=1))
        record = finished_record(server.base, table)
        verdict = verify(record)
        assert verdict.exit_code == 0, verdict
        assert all(s.over for s in seats)
        # Every seat saw the same end, and it is the record's.
        game = replay(read_record(record))
        for seat in seats:
            assert seat.view["scores"] == list(game.scores)
            assert seat.view["winner"] == game.winner
        assert record["players"] == ["P0", "P1", "P2", "P3"]
        _, games = http(server.base, "GET", "/api/games")  # a private table's: not listed
        assert table["id"] not in [g["id"] for g in games["games"]]
    finally:
        server.stop()


def test_a_table_with_bots_plays_to_the_end(server: Server) -> None:
    table, tokens = new_table(server.base, names=1, level="easy")
    seat_bot(server.base, table, 1, "easy")
    seat_bot(server.base, table, 2, "medium")
    seat_bot(server.base, table, 3, "easy")

    async def person() -> Seat:
        async with Seat.connect(server.base, table["id"], token=tokens[0]) as client:
            await play_randomly(client, random.Random(3))
            return client

    client = run(person())
    played_by = {e["event"]["seat"] for e in client.messages if e["type"] == "event"
                 and e["event"]["kind"] == "card"}  # fmt: skip
    assert played_by == {0, 1, 2, 3}
    assert client.table["seats"][2] == {
        "seat": 2, "name": "Max", "bot": "medium", "connected": True, "stand_in": False,
    }  # fmt: skip
    assert verify(finished_record(server.base, table)).exit_code == 0


# ---------------------------------------------------------------------- refusals


async def _version(seat: Seat) -> int:
    await seat.send({"type": "ping"})
    while True:
        message = await seat.recv()
        if message["type"] == "pong":
            return int(message["version"])


async def _next_error(seat: Seat) -> dict[str, Any]:
    while True:
        message = await seat.recv()
        if message["type"] == "error":
            return message


def test_refusals_name_the_problem_and_change_nothing(server: Server) -> None:
    table, tokens = new_table(server.base)

    async def scenario() -> list[dict[str, Any]]:
        async with (
            Seat.connect(server.base, table["id"], token=tokens[0]) as a,
            Seat.connect(server.base, table["id"], token=tokens[1]) as b,
        ):
            await a.until(lambda s: s.view is not None)
            await b.until(lambda s: s.view is not None)
            on_turn, waiting = (a, b) if a.view["to_move"] == 0 else (b, a)
            if a.view["to_move"] not in (0, 1):
                on_turn = None
            before = await _version(a)
            errors = []
            for frame in [
                "not json",
                "[1, 2]",
                json.dumps({"type": "dance"}),
                json.dumps({"type": "act", "action": "pass"}),  # no id
                json.dumps({"type": "act", "id": 1, "action": "pass", "seat": 3}),
                json.dumps({"type": "chat", "text": ""}),
                json.dumps({"type": "hello"}),
            ]:
                await waiting.socket.send(frame)
                errors.append(await _next_error(waiting))
            errors.append(await waiting.reply(await waiting.act("pass")))  # not its turn
            if on_turn is not None:
                errors.append(await on_turn.reply(await on_turn.act("QZ")))  # no such card
                errors.append(await on_turn.reply(await on_turn.act("9S")))  # a card in bidding
            assert await _version(a) == before
            return errors

    errors = run(scenario())
    codes = [e["code"] for e in errors]
    assert codes[:7] == [
        "bad_json", "bad_json", "unknown_type", "bad_field", "not_your_seat", "bad_field",
        "hello_again",
    ]  # fmt: skip
    assert "dance" in errors[2]["message"]
    turn = errors[7]
    assert turn["code"] == "illegal" and turn["rule"] == "B1"
    assert "turn" in turn["message"] and turn["template"]
    if len(errors) > 8:
        assert errors[8]["rule"] == "B1"  # bids are due: no card, spelt right or not
        assert errors[9]["rule"] == "B1"
    assert all(e["type"] == "error" for e in errors)
    assert not any("Traceback" in json.dumps(e) for e in errors)


def test_a_refusal_comes_in_the_clients_language(server: Server) -> None:
    table, tokens = new_table(server.base)

    async def scenario() -> tuple[dict[str, Any], dict[str, Any]]:
        async with Seat.connect(server.base, table["id"], token=tokens[0], lang="es") as a:
            await a.until(lambda s: s.view is not None)
            refused = await a.reply(await a.act("QZ" if a.my_turn else "pass"))
            await a.send({"type": "dance"})
            return refused, await _next_error(a)

    refused, unknown = run(scenario())
    assert refused["code"] == "illegal"
    assert refused["message"] != refused["template"]  # translated, the template kept for clients
    assert unknown["code"] == "unknown_type"
    assert unknown["message"].startswith("tipo de mensaje desconocido")


def test_oversized_frames_floods_and_bad_tokens_close_with_documented_codes(
    server: Server,
) -> None:
    table, tokens = new_table(server.base)

    async def closed_by(frames: list[str], **hello: Any) -> tuple[int | None, list[Any]]:
        async with Seat.connect(server.base, table["id"], **hello) as client:
            try:
                for frame in frames:
                    await client.socket.send(frame)
                while True:
                    await client.recv()
            except ConnectionClosed as closed:
                return (closed.rcvd.code if closed.rcvd else None), client.messages
        return None, []

    big = json.dumps({"type": "chat", "text": "x" * (MAX_FRAME + 10)})
    code, messages = run(closed_by([big], token=tokens[0]))
    assert code == 1009
    assert messages[-1]["code"] == "too_large"
    flood = [json.dumps({"type": "ping"})] * 300
    code, messages = run(closed_by(flood, token=tokens[0]))
    assert code == 1008
    assert any(m.get("code") == "rate_limited" for m in messages)
    assert run(closed_by([], token="not-a-token"))[0] == 4401
    assert run(closed_by([], watch="not-the-code"))[0] == 4401

    async def no_table() -> int | None:
        try:
            async with Seat.connect(server.base, "nosuchtable", watch="x") as client:
                await client.recv()
        except ConnectionClosed as closed:
            return closed.rcvd.code if closed.rcvd else None
        return None

    assert run(no_table()) == 4404


def test_actions_after_the_end_are_refused_with_E1(server: Server) -> None:
    table, tokens = new_table(server.base, hand_sizes=[1])
    seats = run(play_game(server.base, table, tokens, seed=5))
    assert all(s.over for s in seats)

    async def late() -> dict[str, Any]:
        async with Seat.connect(server.base, table["id"], token=tokens[0]) as client:
            await client.until(lambda s: s.view is not None)
            # Client ids are the seat's, across connections: a fresh one.
            return await client.reply(await client.act("pass", id="after-the-end"))

    assert run(late())["rule"] == "E1"


def test_http_refusals(server: Server) -> None:
    base = server.base
    status, answer = http(base, "POST", "/api/tables", {"rules": "bridge"})
    assert status == 400 and answer["code"] == "bad_rules" and "bridge" in answer["message"]
    status, answer = http(base, "POST", "/api/tables", {"level": "godlike"})
    assert status == 400 and "godlike" in answer["message"]
    status, answer = http(base, "POST", "/api/tables", {"pace": "fast"})
    assert status == 400 and answer["code"] == "bad_field"
    table, _ = new_table(base, names=1)
    path = f"/api/tables/{table['id']}/seats"
    status, answer = http(base, "POST", f"{path}/1", {"invite": "wrong", "name": "X"})
    assert status == 403
    invite = table["invites"][0]["invite"]
    status, answer = http(base, "POST", f"{path}/0", {"invite": invite, "name": "X"})
    assert status == 409 and answer["code"] == "seat_taken"
    status, answer = http(base, "POST", f"{path}/1", {"invite": table["invites"][1]["invite"],
                                                         "name": "\x07"})  # fmt: skip
    assert status == 400 and answer["code"] == "bad_name"
    status, answer = http(base, "POST", f"{path}/1/bot", {"level": "easy"}, token="nobody")
    assert status == 403
    status, answer = http(base, "POST", f"{path}/9/bot", {"level": "easy"}, token=table["host"])
    assert status == 404
    status, answer = http(base, "GET", "/api/tables/nosuchtable")
    assert status == 404 and answer["code"] == "no_table"
    status, answer = http(base, "POST", "/api/tables", "x" * (MAX_FRAME + 1))
    assert status == 413


def test_an_address_may_create_only_so_many_tables_a_minute(tmp_path: Path) -> None:
    url = database("sqlite", tmp_path)
    server = Server.start(url, tables_per_minute=3)
    try:
        made = [create_table(server.base, {"hand_sizes": [1]}) for _ in range(3)]
        status, answer = http(server.base, "POST", "/api/tables", {"hand_sizes": [1]})
        assert status == 429 and answer["code"] == "too_many"
        assert "(3 a minute at most)" in answer["message"]
        wait = int(re.search(r"try again in (\d+) s", answer["message"]).group(1))
        assert 1 <= wait <= 20  # one table comes back every 20 s at 3 a minute
        asked = urllib.request.Request(server.base + "/api/tables", b"{}", method="POST",
                                       headers={"accept-language": "es"})  # fmt: skip
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(asked, timeout=10)
        assert refused.value.code == 429 and 1 <= int(refused.value.headers["retry-after"]) <= 20
        assert "mesas" in json.loads(refused.value.read())["message"]  # in the asker's language
        status, _ = http(server.base, "GET", f"/api/tables/{made[0]['id']}", token=made[0]["host"])
        assert status == 200  # what was made is still there, and nothing more was made
        with sqlite3.connect(url.removeprefix("sqlite:///")) as db:
            assert db.execute("select count(*) from tables").fetchone()[0] == 3
    finally:
        server.stop()


def test_the_view_keeps_the_last_trick_after_the_deal_it_ended(server: Server) -> None:
    table, tokens = new_table(server.base, hand_sizes=[3, 2, 1])
    seats = run(play_game(server.base, table, tokens, seed=4))
    record = finished_record(server.base, table)
    # Each deal's last trick, from the engine replaying the record to that deal's end.
    last, expected = None, []
    for number, deal in enumerate(record["deals"]):
        cut = {**record, "deals": record["deals"][: number + 1]}
        game = replay(read_record(cut))
        if game.completed_tricks and deal["play"]:
            leader, cards = game.completed_tricks[-1]
            last, seat = [], leader
            for card in cards:
                last.append([seat, card_name(card)])
                seat = next_seat(seat, game.current_deal.seats)
        expected.append(last)
    views = [m["view"] for m in seats[0].messages if m.get("view")]
    checked = 0
    for before, after in itertools.pairwise(views):
        if after["deal"] > before["deal"]:  # the first view of a new deal
            assert after["tricks"] == [] and after["last_trick"] == expected[after["deal"] - 1]
            checked += 1
    assert checked >= 2 and views[-1]["last_trick"] == expected[-1]


# ---------------------------------------------------------------------- versions


def test_a_client_that_comes_back_gets_exactly_the_events_it_missed(server: Server) -> None:
    table, tokens = new_table(server.base, hand_sizes=[4, 3])

    async def scenario() -> tuple[list[dict[str, Any]], list[dict[str, Any]], int]:
        async with Seat.connect(server.base, table["id"], watch=table["watch"]["code"]) as watcher:
            async with Seat.connect(server.base, table["id"], token=tokens[0]) as first:
                await first.until(lambda s: s.view is not None)
                left_at = first.version
            # Seat 0 is away; the others play until it is seat 0's turn again.
            others = []
            for seat in (1, 2, 3):
                others.append(Seat.connect(server.base, table["id"], token=tokens[seat]))
            clients = [await c.__aenter__() for c in others]
            rngs = [random.Random(s) for s in range(3)]
            moved = 0
            while moved < 6:
                for client, rng in zip(clients, rngs, strict=True):
                    await client.until(
                        lambda s: s.view is not None and s.version >= watcher.version
                    )
                    if client.my_turn:
                        await client.reply(await client.act(rng.choice(client.view["legal"])))
                        moved += 1
                await watcher.until(lambda s: all(c.version <= s.version for c in clients))
                if clients[0].view["to_move"] == 0:
                    break
            for text in ("back soon?", "let's wait"):  # chat is part of the log too
                await clients[0].send({"type": "chat", "text": text})
            await watcher.until(lambda s: s.version >= left_at + 2 and s.messages[-1].get(
                "event", {}).get("text") == "let's wait")  # fmt: skip
            async with Seat.connect(
                server.base, table["id"], token=tokens[0], since=left_at
            ) as back:
                resync = await back.recv()
            for c in others:
                await c.__aexit__(None, None, None)
            seen = [m for m in watcher.messages if m["type"] == "event"]
            return resync, seen, left_at

    resync, seen, left_at = run(scenario())
    assert resync["type"] == "resync"
    missed = [m for m in seen if m["version"] > left_at]
    assert [e["version"] for e in resync["events"]] == [m["version"] for m in missed]
    assert [{k: v for k, v in e.items() if k != "version"} for e in resync["events"]] == [
        m["event"] for m in missed
    ]
    assert len(missed) >= 2
    assert resync["view"]["seat"] == 0 and resync["view"]["hand"]


def test_a_client_too_far_behind_gets_the_whole_state(server: Server) -> None:
    table, tokens = new_table(server.base)

    async def scenario() -> dict[str, Any]:
        async with Seat.connect(server.base, table["id"], token=tokens[0], since=10**6) as client:
            return await client.recv()

    assert run(scenario())["type"] == "state"


def test_a_repeated_action_is_applied_once(server: Server) -> None:
    table, tokens = new_table(server.base)

    async def scenario() -> tuple[dict[str, Any], dict[str, Any], int, int]:
        clients = [Seat.connect(server.base, table["id"], token=t) for t in tokens]
        seats = [await c.__aenter__() for c in clients]
        for s in seats:
            await s.until(lambda s: s.view is not None)
        mover = next(s for s in seats if s.my_turn)
        before = await _version(mover)
        action = mover.view["legal"][0]
        first = await mover.reply(await mover.act(action, id=77))
        again = await mover.reply(await mover.act(action, id=77))
        after = await _version(mover)
        for c in clients:
            await c.__aexit__(None, None, None)
        return first, again, before, after

    first, again, before, after = run(scenario())
    assert first["type"] == "ack" and again["type"] == "ack"
    assert again["repeated"] is True and again["version"] == first["version"]
    assert after == before + 1
    record = http(server.base, "GET", f"/api/tables/{table['id']}/record", token=tokens[0])[1]
    assert len(record["deals"][0]["bids"]) == 1


# ---------------------------------------------------------------------- who sees what


def test_a_spectator_sees_the_table_and_no_hand(server: Server) -> None:
    table, tokens = new_table(server.base)

    async def scenario() -> Seat:
        async with Seat.connect(server.base, table["id"], watch=table["watch"]["code"]) as watcher:
            await play_game(server.base, table, tokens, seed=9)
            await watcher.until(lambda s: s.over)
            refused = await watcher.reply(await watcher.act("pass"))
            assert refused["code"] == "spectator"
            return watcher

    watcher = run(scenario())
    views = [m["view"] for m in watcher.messages if m.get("view")]
    assert views and all(v["hand"] is None and v["seat"] is None and not v["legal"] for v in views)
    assert watcher.view["phase"] == "over"


def test_the_record_of_a_running_game_hides_what_the_reader_may_not_see(server: Server) -> None:
    table, tokens = new_table(server.base)
    path = f"/api/tables/{table['id']}/record"
    public = http(server.base, "GET", path, token=table["watch"]["code"])[1]  # a spectator's
    mine = http(server.base, "GET", path, token=tokens[2])[1]
    assert public["deals"][0]["hands"] == [None] * 4 and public["deals"][0]["stock"] is None
    hands = mine["deals"][0]["hands"]
    assert hands[2] is not None and len(hands[2]) == 3
    assert [h for s, h in enumerate(hands) if s != 2] == [None] * 3


CARD = re.compile(r"^(?:[2-9TJQKA][SHDC]|LJ|BJ)$")


def cards_in(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        if CARD.match(value):
            yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from cards_in(item)
    elif isinstance(value, list):
        for item in value:
            yield from cards_in(item)


def allowed_cards(record: dict[str, Any], log: dict[int, dict[str, Any]]) -> Any:
    """For a version and a seat (``None``: a spectator), the cards the receiver may know:
    its own hands, the turn-ups and shown jokers, and the cards played so far."""
    game = replay(read_record(record))
    position: dict[int, tuple[int, int]] = {}
    deal, played = -1, 0
    assert sorted(log) == list(range(1, len(log) + 1))  # gap-free
    for version in sorted(log):
        event = log[version]
        if event["kind"] == "deal":
            deal, played = event["deal"], 0
        elif event["kind"] == "card":
            played += 1
        position[version] = (deal, played)

    def allowed(seat: int | None, version: int) -> set[int]:
        at = max((v for v in position if v <= version), default=None)
        current, count = position[at] if at is not None else (-1, 0)
        known: set[int] = set()
        for number in range(current + 1):
            d = game.deals[number]
            cards = d.play if number < current else d.play[:count]
            known |= set(cards) | set(d.turned)
            if d.exchange is not None:
                known.add(d.exchange[1])
            if seat is not None:
                known |= {c for c in range(54) if d.hands[seat] >> c & 1}
                if d.exchange is not None and d.exchange[0] == seat:
                    known.add(d.exchange[2])
        return known

    return allowed


def leak_test(
    maker: str, player: str, games: int, seed: int, most_deals: int = 3, first: int = 0
) -> int:
    """Play ``games`` random games (numbered from ``first``) made on the server at ``maker``
    through the one at ``player`` (every preset, random hand sizes), a spectator watching
    each, and check that no message any of them was sent holds a card its receiver may not
    see at its version: the card mentions checked."""
    rng = random.Random(seed * 1000 + first)

    async def one_game(number: int) -> tuple[dict[str, Any], list[Seat], Seat]:
        preset = ("standard", "classic", "classic3")[number % 3]
        sizes = [rng.randint(1, 13) for _ in range(rng.randint(1, most_deals))]
        table, tokens = new_table(maker, rules=preset, hand_sizes=sizes)
        watch = table["watch"]["code"]
        async with Seat.connect(player, table["id"], watch=watch, since=0) as watcher:
            seats = await play_game(player, table, tokens, seed=number)
            await watcher.until(lambda s: s.over)
        return table, seats, watcher

    checked = 0
    for number in range(first, first + games):
        table, seats, watcher = run(one_game(number))
        record = finished_record(player, table)
        # The whole public log: what the spectator was sent on joining, then live.
        log = {e["version"]: e for e in watcher.messages[0]["events"]}
        log |= {m["version"]: m["event"] for m in watcher.messages if m["type"] == "event"}
        allowed = allowed_cards(record, log)
        for receiver, seat in [(watcher, None), *((s, s.seat) for s in seats)]:
            for message in receiver.messages:
                shown = {parse_card(c) for c in cards_in(message)}
                assert shown <= allowed(seat, message["version"]), (number, seat, message)
                checked += len(shown)
        own = {c for m in seats[0].messages for c in cards_in(m.get("view", {}).get("hand"))}
        assert own  # the test sees cards at all: each seat's own hand reaches it
    return checked


@pytest.mark.parametrize("part", range(5))
def test_no_message_holds_a_card_its_receiver_may_not_see_over_50_games(
    server: Server, part: int
) -> None:
    # Fifty games in five parts of ten, so that the test processes share them.
    checked = leak_test(server.base, server.base, 10, seed=2026, first=10 * part)
    assert checked > 2_000
    print(f"leak test: {checked} card mentions in every message of 10 games checked")


# ---------------------------------------------------------------------- leaving, timers, claims


def test_a_bot_stands_in_for_a_player_gone_past_the_grace_period(server: Server) -> None:
    table, tokens = new_table(server.base, names=1, bots="easy", grace=0.5, hand_sizes=[2, 1])

    async def scenario() -> tuple[dict[str, Any], Seat]:
        async with Seat.connect(server.base, table["id"], watch=table["watch"]["code"]) as watcher:
            await watcher.until(lambda s: s.over)  # nobody ever connected to seat 0
            stood_in = [m for m in watcher.messages if m["type"] == "presence"
                        and m["seats"][0]["stand_in"]]  # fmt: skip
            assert stood_in
            async with Seat.connect(server.base, table["id"], token=tokens[0]) as back:
                await back.recv()  # the state
                presence = await back.recv()
            return presence, watcher

    presence, watcher = run(scenario())
    by = {m["event"].get("by") for m in watcher.messages if m["type"] == "event"
          and m["event"].get("seat") == 0 and m["event"]["kind"] in ("bid", "card")}  # fmt: skip
    assert by == {"stand_in"}
    assert presence["seats"][0]["stand_in"] is False and presence["seats"][0]["connected"]


def test_the_turn_timer_acts_once_for_a_player_who_does_not(server: Server) -> None:
    table, tokens = new_table(server.base, turn_timer=1, hand_sizes=[1])

    async def scenario() -> list[dict[str, Any]]:
        clients = [Seat.connect(server.base, table["id"], token=t) for t in tokens]
        seats = [await c.__aenter__() for c in clients]
        await seats[0].until(lambda s: (s.view is not None and s.view["phase"] != "bid")
                             or any(m["type"] == "event" and m["event"].get("by") == "timer"
                                    for m in s.messages))  # fmt: skip
        for c in clients:
            await c.__aexit__(None, None, None)
        return [m["event"] for m in seats[0].messages if m["type"] == "event"]

    events = run(scenario())
    timed = [e for e in events if e.get("by") == "timer"]
    assert timed and timed[0]["kind"] == "bid"


def test_claims_are_settled_by_the_solver(server: Server) -> None:
    outcomes: set[bool] = set()
    for number in range(40):
        table, tokens = new_table(server.base, hand_sizes=[2])
        claimed: dict[str, Any] = {}
        run(_claim_at_the_first_card(server.base, table, tokens, number, claimed))
        record = finished_record(server.base, table)
        assert verify(record).exit_code == 0
        # Replay to the claim and ask the solver here.
        position = replay(read_record(_before_the_play(record)))
        holds = claim_holds(position)
        if holds:
            assert claimed["reply"]["type"] == "ack"
            assert claimed["again"]["type"] == "ack" and claimed["again"]["repeated"]
        else:
            assert claimed["reply"]["code"] == "claim_refused"
            assert claimed["after"] == claimed["at"]
        outcomes.add(holds)
        if outcomes == {True, False} and number >= 5:
            break
    assert outcomes == {True, False}


async def _claim_at_the_first_card(
    base: str, table: dict[str, Any], tokens: list[str], number: int, claimed: dict[str, Any]
) -> None:
    """Random play, but the seat to lead the first card claims the rest first."""

    async def one(seat: int) -> None:
        rng = random.Random(number * 4 + seat)
        async with Seat.connect(base, table["id"], token=tokens[seat]) as c:
            while True:
                await c.until(lambda s: s.view is not None and (s.my_turn or s.over))
                if c.over:
                    return
                if c.view["phase"] == "play" and not claimed:
                    claimed["at"] = await _version(c)
                    claim_id = await c.claim()
                    claimed["reply"] = await c.reply(claim_id)
                    claimed["after"] = await _version(c)
                    if claimed["reply"]["type"] == "ack":  # the same claim again: applied once
                        await c.send({"type": "claim", "id": claim_id})
                        claimed["again"] = await c.reply(claim_id)
                    continue
                await c.reply(await c.act(rng.choice(c.view["legal"])))

    await asyncio.gather(*(one(s) for s in range(4)))


def _before_the_play(record: dict[str, Any]) -> dict[str, Any]:
    """The record as it stood when the first card was due (where the claim was made)."""
    cut = json.loads(json.dumps(record))
    cut["deals"][0]["play"] = []
    return cut


# ---------------------------------------------------------------------- crash


async def _act_until(base: str, table: dict[str, Any], tokens: list[str], actions: int,
                     seed: int) -> int:  # fmt: skip
    """The people at ``table`` play ``actions`` random actions between them; the version."""
    clients = [Seat.connect(base, table["id"], token=t) for t in tokens]
    seats = [await c.__aenter__() for c in clients]
    rng = random.Random(seed)
    for _ in range(actions):
        for s in seats:
            await s.until(lambda s: s.view is not None)
        while not any(s.my_turn for s in seats):
            await asyncio.wait([asyncio.ensure_future(s.recv()) for s in seats[:1]])
        mover = next(s for s in seats if s.my_turn)
        answer = await mover.reply(await mover.act(rng.choice(mover.view["legal"])))
        assert answer["type"] == "ack"
        for s in seats:
            await s.until(lambda s, v=answer["version"]: s.version >= v)
    version = await _version(seats[0])
    for c in clients:
        await c.__aexit__(None, None, None)
    return version


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_killed_server_comes_back_with_every_table_where_it_was(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    url = database(backend, tmp_path, request)
    server = Server.start(url)
    people, people_tokens = new_table(server.base, hand_sizes=[5, 4])
    bots, bot_tokens = new_table(server.base, names=1, bots="easy", hand_sizes=[5, 4], level="easy")
    people_version = run(_act_until(server.base, people, people_tokens, 7, seed=1))
    run(_act_until(server.base, bots, bot_tokens, 2, seed=2))
    before = {t["id"]: http(server.base, "GET", f"/api/tables/{t['id']}/record", token=tok)[1]
              for t, tok in ((people, people_tokens[0]), (bots, bot_tokens[0]))}  # fmt: skip
    assert before[people["id"]]["deals"][0]["play"]  # in the middle of a deal
    server.kill()

    server = Server.start(url)
    try:
        assert "2 unfinished tables resumed" in "".join(server.output)
        after = {t["id"]: http(server.base, "GET", f"/api/tables/{t['id']}/record",
                                  token=tok)[1]
                 for t, tok in ((people, people_tokens[0]), (bots, bot_tokens[0]))}  # fmt: skip
        # The people's table stands exactly where it was: the same deal, bids and cards.
        assert after[people["id"]] == before[people["id"]]
        # At the bots' table a bot may have acted between the look and the kill: more, not less.
        was, now = before[bots["id"]]["deals"], after[bots["id"]]["deals"]
        assert len(now) >= len(was)
        for old, new in zip(was, now, strict=False):
            assert new["hands"] == old["hands"]
            assert new["bids"][: len(old["bids"])] == old["bids"]
            assert new["play"][: len(old["play"])] == old["play"]

        async def back() -> dict[str, Any]:
            async with Seat.connect(server.base, people["id"], token=people_tokens[0],
                                    since=people_version) as client:  # fmt: skip
                return await client.recv()

        resync = run(back())
        assert resync["type"] == "resync" and resync["events"] == []
        assert resync["version"] == people_version
        run(play_game(server.base, people, people_tokens, seed=3))

        async def finish_bots() -> None:
            async with Seat.connect(server.base, bots["id"], token=bot_tokens[0]) as client:
                await play_randomly(client, random.Random(4))

        run(finish_bots())
        for table in (people, bots):
            record = finished_record(server.base, table)
            assert_verified_finished(record)
            first = before[table["id"]]["deals"][0]
            assert record["deals"][0]["play"][: len(first["play"])] == first["play"]
            assert record["deals"][0]["bids"][: len(first["bids"])] == first["bids"]
    finally:
        server.stop()


# ---------------------------------------------------------------------- spellings and limits


def test_actions_are_logged_in_the_records_spelling(server: Server) -> None:
    table, tokens = new_table(server.base, hand_sizes=[3])

    async def scenario() -> list[dict[str, Any]]:
        clients = [Seat.connect(server.base, table["id"], token=t) for t in tokens]
        seats = [await c.__aenter__() for c in clients]
        for s in seats:
            await s.until(lambda s: s.view is not None)
        while True:
            mover = next((s for s in seats if s.my_turn), None)
            if mover is None:
                break
            if mover.view["phase"] == "bid":
                # The first bid a pass written "0", the others one trick written "01".
                answer = await mover.reply(await mover.act("01" if mover.view["bids"] else "0"))
            else:
                answer = await mover.reply(await mover.act(mover.view["legal"][0].lower()))
            assert answer["type"] == "ack", answer
            for s in seats:
                await s.until(lambda s, v=answer["version"]: s.version >= v)
            if mover.view["phase"] != "bid":
                break
        for c in clients:
            await c.__aexit__(None, None, None)
        return [m["event"] for m in seats[0].messages if m["type"] == "event"]

    events = run(scenario())
    bids = [e["action"] for e in events if e["kind"] == "bid"]
    cards = [e["action"] for e in events if e["kind"] == "card"]
    assert (bids and set(bids) == {"pass"}) or "pass" in bids
    assert all(c == c.upper() for c in cards)


def test_chat_holds_up_to_300_characters(server: Server) -> None:
    table, tokens = new_table(server.base)

    async def scenario() -> tuple[dict[str, Any], dict[str, Any]]:
        async with Seat.connect(server.base, table["id"], token=tokens[0]) as client:
            await client.until(lambda s: s.view is not None)
            await client.send({"type": "chat", "text": "x" * 300})
            said = await client.recv()
            while said["type"] != "event":
                said = await client.recv()
            await client.send({"type": "chat", "text": "x" * 301})
            return said, await _next_error(client)

    said, refused = run(scenario())
    assert said["event"]["text"] == "x" * 300 and said["event"]["name"] == "P0"
    assert refused["code"] == "bad_field" and "300" in refused["message"]


def test_options_that_are_not_an_object_are_refused(server: Server) -> None:
    status, answer = http(server.base, "POST", "/api/tables", {"options": [1]})
    assert status == 400 and answer["code"] == "bad_field" and "options" in answer["message"]


def test_text_that_cannot_be_sent_is_refused_and_the_table_goes_on(server: Server) -> None:
    """A lone surrogate written as a JSON escape is a str in Python but no UTF-8 text: it once
    left every connection at the table mute, for good. It is refused at the edge, in a chat's
    text and in an id alike; chat is cleaned of control and format characters, as names are;
    JSON nested too deep is not JSON."""
    table, tokens = new_table(server.base, names=2)

    async def scenario() -> tuple[list[dict[str, Any]], dict[str, Any], dict[str, Any]]:
        async with (
            Seat.connect(server.base, table["id"], token=tokens[0]) as a,
            Seat.connect(server.base, table["id"], token=tokens[1]) as b,
        ):
            await a.until(lambda s: s.table is not None)
            await b.until(lambda s: s.table is not None)
            refusals = []
            for frame in (
                '{"type": "chat", "text": "x\\ud800y"}',
                '{"type": "act", "id": "\\udfff", "action": "pass"}',
                '{"type": "act", "id": 1, "action": "\\ud800"}',
                "[" * 4000 + "]" * 4000,
            ):
                await a.socket.send(frame)
                refusals.append(await _next_error(a))
            await a.send({"type": "chat", "text": "hi\x1b[31m\x07 there\u202e\ufeff"})
            await b.until(lambda s: any(m.get("event", {}).get("kind") == "chat"
                                        for m in s.messages))  # fmt: skip
            chat = next(m for m in b.messages if m.get("event", {}).get("kind") == "chat")
            # The table still answers, and a newcomer gets its state.
            async with Seat.connect(server.base, table["id"], token=tokens[1]) as again:
                state = await again.recv()
            return refusals, chat, state

    refusals, chat, state = run(scenario())
    assert [r["code"] for r in refusals] == ["bad_field", "bad_field", "bad_field", "bad_json"]
    assert "id" not in refusals[1]  # an id that cannot be sent back is not echoed
    assert chat["event"]["text"] == "hi[31m there"
    assert state["type"] == "state"
    deep = urllib.request.Request(
        server.base + "/api/tables", data=b"[" * 4000 + b"]" * 4000, method="POST"
    )
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(deep, timeout=30)
    assert refused.value.code == 400 and json.loads(refused.value.read())["code"] == "bad_json"


def test_every_page_is_sent_with_security_headers(server: Server) -> None:
    for path in ("/", "/api", "/static/app.js"):
        with urllib.request.urlopen(server.base + path, timeout=30) as answer:
            headers = answer.headers
        assert "frame-ancestors 'none'" in headers["content-security-policy"]
        assert "script-src 'self'" in headers["content-security-policy"]
        assert headers["x-frame-options"] == "DENY"
        assert headers["referrer-policy"] == "no-referrer"  # an invite's address holds a secret


def test_slow_request_heads_are_closed_and_connections_capped_per_address(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """500 slow request heads stayed open for a minute, held by one address. Now a request
    head that has not come within ``HEAD_WAIT`` seconds (10) is closed, and an address
    holding ``--connections-per-address`` connections (HTTP or WebSocket) is answered 429
    for the next one, until one of them closes. (In this process, the wait made short.)"""
    import socket

    from backalley.server import connections
    from live_support import live

    monkeypatch.setattr(connections, "HEAD_WAIT", 0.5)
    with live(database("sqlite", tmp_path), connections_per_address=4) as base:
        host, port = base.removeprefix("http://").split(":")
        table = create_table(base, {"hand_sizes": [1]})

        async def scenario() -> tuple[bytes, bytes, dict[str, Any]]:
            uri = "ws" + base.removeprefix("http") + f"/ws/tables/{table['id']}"
            async with connect(uri), connect(uri):  # two WebSockets held open
                slow = [socket.create_connection((host, int(port))) for _ in range(2)]
                for connection in slow:  # a request head begun, never finished
                    connection.sendall(b"GET /api HTTP/1.1\r\nHost: x\r\n")
                one_more = socket.create_connection((host, int(port)))
                refused = await asyncio.to_thread(one_more.recv, 200)
                slow[0].settimeout(30)
                closed = await asyncio.to_thread(slow[0].recv, 200)  # b"": closed by the server
                for connection in (*slow, one_more):
                    connection.close()
                status, about = await asyncio.to_thread(http, base, "GET", "/api")
                assert status == 200
                return refused, closed, about

        refused, closed, about = run(scenario())
    assert refused.startswith(b"HTTP/1.1 429"), refused
    assert closed == b""
    assert about["server"] == "backalley"


def test_a_bad_bid_is_refused_as_one_and_a_game_holds_at_most_60_deals(server: Server) -> None:
    """A bad bid text while bids are due ("14", "board2") was refused as B1 with the message
    "no card can be played while bids are still due"; a game of 1,000 deals was accepted."""
    status, refused = http(server.base, "POST", "/api/tables", {"hand_sizes": [1] * 61})
    assert status == 400 and refused["code"] == "bad_field" and "60" in refused["message"]
    table, tokens = new_table(server.base, hand_sizes=[2])

    async def scenario() -> list[dict[str, Any]]:
        answers = []
        async with contextlib.AsyncExitStack() as stack:
            seats = [
                await stack.enter_async_context(Seat.connect(server.base, table["id"], token=t))
                for t in tokens
            ]
            for seat in seats:
                await seat.until(lambda s: s.view is not None)
            [me] = [s for s in seats if s.my_turn]
            for text in ("14", "board2", "AS"):
                answers.append(await me.reply(await me.act(text)))
        return answers

    bad_number, bad_board, card = run(scenario())
    for answer in (bad_number, bad_board):
        assert answer["code"] == "illegal" and answer["rule"] == "B1", answer
        assert "card" not in answer["message"], answer["message"]
    assert card["rule"] == "B1" and "no card can be played" in card["message"]


def test_a_restart_goes_on_with_the_grace_and_the_turn_timer_where_they_had_got_to(
    tmp_path: Path,
) -> None:
    """A player gone 4 s of a 6 s grace, or 4 s into a 6 s turn timer, when the server is
    killed: once it is back, the stand-in or the timer acts about 2 s later, not 6 (both
    were started afresh at every restart)."""
    url = database("sqlite", tmp_path)
    server = Server.start(url)
    try:
        away, away_tokens = new_table(server.base, names=1, bots="easy", grace=6, hand_sizes=[2, 1])
        slow, slow_tokens = new_table(server.base, turn_timer=6, hand_sizes=[1])

        async def go_away() -> None:
            async with Seat.connect(server.base, away["id"], token=away_tokens[0]) as me:
                await me.until(lambda s: s.my_turn)
            async with contextlib.AsyncExitStack() as stack:
                for token in slow_tokens:
                    seat = await stack.enter_async_context(
                        Seat.connect(server.base, slow["id"], token=token)
                    )
                    await seat.until(lambda s: s.view is not None)

        run(go_away())
        time.sleep(4)
        server.kill()
        server = Server.start(url)
        back = time.monotonic()

        async def until_done_for(table: dict[str, Any], tokens: list[str], by: str) -> float:
            async with contextlib.AsyncExitStack() as stack:
                if by == "timer":  # everyone is back at once: no stand-in, only the timer
                    for token in tokens:
                        await stack.enter_async_context(
                            Seat.connect(server.base, table["id"], token=token)
                        )
                watcher = await stack.enter_async_context(
                    Seat.connect(server.base, table["id"], watch=table["watch"]["code"])
                )
                await watcher.until(
                    lambda s: any(
                        m["type"] == "event" and m["event"].get("by") == by for m in s.messages
                    )
                )
            return time.monotonic() - back

        async def both() -> tuple[float, float]:
            return await asyncio.gather(  # type: ignore[return-value]
                until_done_for(away, away_tokens, "stand_in"),
                until_done_for(slow, slow_tokens, "timer"),
            )

        stood_in, timed = run(both())
        assert stood_in < 4.5, stood_in  # about 2 s: the 6 s grace had 2 s to go
        assert timed < 4.5, timed
    finally:
        server.stop()
