"""Accounts against a real server: a game found from a second client, the CSRF and origin
guard, one account kept out of another's seats, sign-in limits and its sameness for wrong
passwords and unknown names, look-alike names, password changes, sign-out everywhere,
deleting an account, guest seats claimed, and ratings rebuilt exactly."""

from __future__ import annotations

import asyncio
import json
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, text

from backalley.server.client import Member, Seat, create_table, exchange, seat_bot
from backalley.server.client import request as http
from backalley.server.standings import anchors_mark
from live_support import running
from server_support import Server, database, finished_record, play_randomly, run, stored_log

pytestmark = pytest.mark.server

PASSWORD = "correct horse battery"


def member(base: str, name: str) -> Member:
    someone = Member(base)
    status, answer = someone.sign_up(name, PASSWORD)
    assert status == 201, answer
    return someone


def sit(someone: Member, table: dict[str, Any], seat: int = 0) -> str:
    """Take ``seat`` while signed in: the seat is the account's (a token comes too)."""
    invite = table["invites"][seat]["invite"]
    status, answer = someone.request(
        "POST", f"/api/tables/{table['id']}/seats/{seat}", {"invite": invite, "name": "me"}
    )
    assert status == 201, answer
    return str(answer["token"])


def short_game(
    base: str, someone: Member, bots: str = "easy", public: bool = False
) -> dict[str, Any]:
    """A one-deal table: ``someone`` at seat 0, bots elsewhere."""
    table = create_table(base, {"hand_sizes": [1], "pace": 0, "level": bots, "public": public})
    sit(someone, table)
    for seat in (1, 2, 3):
        seat_bot(base, table, seat, bots)
    return table


async def play_as(base: str, someone: Member, table_id: str, seed: int = 1) -> dict[str, Any]:
    """Play ``someone``'s seat to the end, authorised by the session alone (no token)."""
    async with Seat.connect(base, table_id, member=someone) as seat:
        await seat.until(lambda s: s.view is not None)
        await play_randomly(seat, random.Random(seed))
        assert seat.view is not None
        return seat.view


def wait_for(check: Any, seconds: float = 20, server: Server | None = None) -> Any:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.1)
    said = "" if server is None else ": the server said " + "".join(server.output[-40:])
    raise AssertionError("never happened" + said)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    folder = tmp_path_factory.mktemp("accounts")
    with running(database("sqlite", folder), sign_ins_per_minute=1000) as held:
        yield held


def test_a_game_played_signed_in_is_found_and_played_from_a_second_client(server: Server) -> None:
    first = member(server.base, "Marta")
    table = short_game(server.base, first)
    second = Member(server.base)
    assert second.sign_in("marta", PASSWORD)[0] == 200  # the name as typed, any case
    status, seats = second.request("GET", "/api/account/seats")
    assert (
        status == 200 and {"table": table["id"], "seat": 0, "status": "playing"} in seats["seats"]
    )
    assert "token" not in json.dumps(seats)
    view = run(play_as(server.base, second, table["id"]))
    assert view["seat"] == 0 and view["phase"] == "over"
    record = finished_record(server.base, table)
    assert record["players"][0] == "Marta"  # the account's name, not the one the seat gave
    profile = wait_for(lambda: first.request("GET", f"/api/players/{first.account['id']}")[1])
    [game] = profile["games"]
    assert game["table"] == table["id"] and game["seat"] == 0 and game["rated"]
    assert profile["figures"]["games"] == 1 and profile["figures"]["deals"] == 1
    rated = wait_for(lambda: first.request("GET", f"/api/players/{first.account['id']}")[1]
                     ["rating"]["games"] == 1)  # fmt: skip
    assert rated
    reviewed = wait_for(lambda: first.request("GET", f"/api/players/{first.account['id']}")[1]
                        ["figures"]["reviewed"] == 1, seconds=240, server=server)  # fmt: skip
    assert reviewed  # its deal reviewed double dummy (a cold solver compiles first: minutes)


def test_a_change_authorised_by_the_cookie_needs_the_csrf_token_and_the_page_origin(
    server: Server,
) -> None:
    someone = member(server.base, "Olek")
    table = create_table(server.base, {"hand_sizes": [1], "pace": 0})
    sit(someone, table, seat=1)
    leave = f"/api/tables/{table['id']}/leave"
    status, answer = someone.request("POST", leave, {}, csrf=False)
    assert (status, answer["code"]) == (403, "bad_csrf")
    forged = dict(someone.headers(), origin="http://evil.example")
    status, answer = http(server.base, "POST", leave, {}, headers=forged)
    assert (status, answer["code"]) == (403, "bad_csrf")
    wrong = dict(someone.headers(), **{"x-csrf-token": "not-it"})
    assert http(server.base, "POST", leave, {}, headers=wrong)[0] == 403
    status, described = http(
        server.base, "GET", f"/api/tables/{table['id']}", token=table["watch"]["code"]
    )
    assert described["seats"][1]["name"] == "Olek"  # nothing changed
    assert someone.request("POST", leave, {})[0] == 200  # with the token it goes through
    assert (
        http(server.base, "GET", f"/api/tables/{table['id']}", token=table["watch"]["code"])[1][
            "seats"
        ][1]["name"]
        is None
    )


def test_one_account_cannot_see_or_act_in_another_accounts_seats(server: Server) -> None:
    owner, other = member(server.base, "Ines"), member(server.base, "Piotr")
    table = create_table(server.base, {"hand_sizes": [2], "pace": 0})
    sit(owner, table, seat=0)
    assert table["id"] not in json.dumps(other.request("GET", "/api/account/seats")[1])
    status, answer = other.request("POST", f"/api/tables/{table['id']}/leave", {})
    assert (status, answer["code"]) == (403, "forbidden")
    status, answer = other.request("POST", f"/api/tables/{table['id']}/seats/2/bot", {})
    assert (status, answer["code"]) == (403, "forbidden")

    async def connect_as_other() -> int | None:
        async with Seat.connect(server.base, table["id"], member=other) as seat:
            try:
                await seat.recv()
            except Exception:
                return seat.socket.close_code
            return None

    assert run(connect_as_other()) == 4401  # a private table: no seat, no watch code


def test_sign_in_gives_the_same_answer_and_time_for_a_wrong_password_and_an_unknown_name(
    server: Server,
) -> None:
    member(server.base, "Lidia")
    wrong, unknown = [], []
    answers = set()
    for attempt in range(6):
        for name, times in (("Lidia", wrong), (f"Nobody{attempt}", unknown)):
            someone = Member(server.base)
            start = time.perf_counter()
            status, answer = someone.sign_in(name, "not the password")
            times.append(time.perf_counter() - start)
            answers.add((status, answer["code"], answer["message"]))
            assert someone.cookie is None
    assert len(answers) == 1 and next(iter(answers))[:2] == (401, "bad_sign_in")
    # The quickest of each: the work itself, whatever else the machine was doing meanwhile (an
    # unknown name that skipped the hash would take a few ms against the hash's tens).
    ratio = min(wrong) / min(unknown)
    assert 0.67 < ratio < 1.5, (wrong, unknown)


def test_wrong_passwords_for_one_name_are_limited(server: Server) -> None:
    member(server.base, "Tomas")
    codes = [Member(server.base).sign_in("Tomas", f"wrong {i}")[0] for i in range(12)]
    assert codes[:10] == [401] * 10 and codes[10:] == [429, 429]
    status, answer = Member(server.base).sign_in("Tomas", PASSWORD)
    assert status == 429 and "s" in answer["message"]  # the name waits, even right
    assert Member(server.base).sign_in("Nobody else", "wrong")[0] == 401  # others do not


def test_sign_ins_and_sign_ups_from_one_address_are_limited(tmp_path: Path) -> None:
    server = Server.start(database("sqlite", tmp_path), sign_ins=3, sign_ups=2)
    try:
        codes = [Member(server.base).sign_in(f"N{i}", "whatever pw")[0] for i in range(5)]
        assert codes == [401, 401, 401, 429, 429]
        status, _, headers = exchange(
            server.base, "POST", "/api/account/signin", {"name": "x", "password": "y"}
        )
        assert status == 429 and int(headers["retry-after"]) >= 1
        codes = [Member(server.base).sign_up(f"Newcomer {i}", PASSWORD)[0] for i in range(3)]
        assert codes == [201, 201, 429]
    finally:
        server.stop()


def test_names_that_look_like_another_or_a_bot_are_refused(server: Server) -> None:
    member(server.base, "Ana Lee")
    for look_alike in ("АNA LEE", "ana  lee", "Ána Lee", "AnaLee"):  # Cyrillic А in the first
        status, answer = Member(server.base).sign_up(look_alike, PASSWORD)
        assert (status, answer["code"]) == (409, "name_taken"), look_alike
    status, answer = Member(server.base).sign_up("Ada", PASSWORD)  # an expert bot's name
    assert (status, answer["code"]) == (400, "bad_name")
    status, answer = Member(server.base).sign_up("Short pw", "1234")
    assert (status, answer["code"]) == (400, "bad_password")


def test_a_new_password_and_sign_out_everywhere_end_the_other_sessions(server: Server) -> None:
    here = member(server.base, "Greta")
    there = Member(server.base)
    there.sign_in("Greta", PASSWORD)
    status, answer = here.request(
        "POST", "/api/account/password", {"password": "wrong one", "new_password": "x" * 12}
    )
    assert (status, answer["code"]) == (401, "bad_sign_in")
    status, _ = here.request(
        "POST", "/api/account/password", {"password": PASSWORD, "new_password": "x" * 12}
    )
    assert status == 200
    assert there.request("GET", "/api/account")[1]["account"] is None  # signed out there
    assert here.request("GET", "/api/account")[1]["account"]["name"] == "Greta"
    assert Member(server.base).sign_in("Greta", PASSWORD)[0] == 401
    again = Member(server.base)
    assert again.sign_in("Greta", "x" * 12)[0] == 200
    assert here.request("POST", "/api/account/signout-everywhere", {})[0] == 200
    for session in (here, again):
        assert session.request("GET", "/api/account")[1]["account"] is None


def test_a_deleted_account_leaves_its_games_under_a_neutral_name(server: Server) -> None:
    someone = member(server.base, "Hedda")
    table = short_game(server.base, someone, public=True)  # listed to all in finished games
    run(play_as(server.base, someone, table["id"]))
    account = someone.account["id"]
    wait_for(lambda: http(server.base, "GET", f"/api/players/{account}")[1]["rating"]["games"])
    assert someone.request("POST", "/api/account/delete", {"password": "not it"})[0] == 401
    assert someone.request("POST", "/api/account/delete", {"password": PASSWORD})[0] == 200
    assert http(server.base, "GET", f"/api/players/{account}")[0] == 404
    assert Member(server.base).sign_in("Hedda", PASSWORD)[0] == 401
    record = finished_record(server.base, table)
    assert record["players"][0] == "Former player"
    # shown so, and stored as it was: no event of the log is rewritten
    seated = [json.loads(row.data) for row in stored_log(server.url, table["id"])
              if row.kind == "seat"]  # fmt: skip
    assert seated[0]["name"] == "Hedda"
    create_table(server.base, {"hand_sizes": [1]})  # a new table lets finished ones go …
    assert finished_record(server.base, table)["players"][0] == "Former player"  # … reloaded
    games = http(server.base, "GET", "/api/games")[1]["games"]
    assert next(g for g in games if g["id"] == table["id"])["players"][0] == "Former player"
    names = [e["name"] for e in http(server.base, "GET", "/api/leaderboard")[1]["provisional"]]
    assert "Hedda" not in names
    assert member(server.base, "Hedda").account["id"] != account  # the name is free again


def test_a_guest_claims_the_seats_held_before_signing_up(server: Server) -> None:
    table = create_table(server.base, {"hand_sizes": [1], "pace": 0, "level": "easy"})
    status, taken = http(
        server.base, "POST", f"/api/tables/{table['id']}/seats/0",
        {"invite": table["invites"][0]["invite"], "name": "Guest"},
    )  # fmt: skip
    for seat in (1, 2, 3):
        seat_bot(server.base, table, seat, "easy")

    async def play() -> None:
        async with Seat.connect(server.base, table["id"], token=taken["token"]) as seat:
            await play_randomly(seat, random.Random(3))

    run(play())
    someone = member(server.base, "Wanda")
    claims = {"seats": [{"table": table["id"], "token": taken["token"]},
                        {"table": table["id"], "token": "wrong"}]}  # fmt: skip
    status, answer = someone.request("POST", "/api/account/claim", claims)
    assert status == 200 and answer["claimed"] == [{"table": table["id"], "seat": 0}]
    assert answer["refused"] == [table["id"]]
    profile = someone.request("GET", f"/api/players/{someone.account['id']}")[1]
    assert [g["table"] for g in profile["games"]] == [table["id"]]
    assert profile["rating"]["games"] == 0  # played as a guest: rated as one
    other = member(server.base, "Xenia")
    status, answer = other.request("POST", "/api/account/claim", claims)
    assert answer["claimed"] == []  # the seat is another account's now


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_the_ratings_rebuilt_from_the_stored_games_are_the_live_ones(
    kind: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    url = database(kind, tmp_path, request)
    server = Server.start(url)
    try:
        people = [member(server.base, name) for name in ("Ruth", "Sven")]
        for game in range(6):
            table = create_table(server.base, {"hand_sizes": [2, 1], "pace": 0, "level": "medium"})
            sit(people[0], table, seat=0)
            if game % 2:
                sit(people[1], table, seat=1)
            for seat in range(1 + game % 2, 4):
                seat_bot(server.base, table, seat, "medium")

            plays = [play_as(server.base, people[0], table["id"], seed=game)]
            if game % 2:
                plays.append(play_as(server.base, people[1], table["id"], seed=game + 50))
            run(_together(plays))
        # hard bots play at their level (and the game is rated) once the solver is ready
        wait_for(lambda: http(server.base, "GET", "/api")[1]["solver"]["ready"])
        three = create_table(server.base, {"rules": "classic3", "hand_sizes": [2], "pace": 0})
        sit(people[1], three, seat=2)
        for seat in (0, 1):
            seat_bot(server.base, three, seat, "hard")
        run(play_as(server.base, people[1], three["id"], seed=99))  # three sides of one
        ids = [p.account["id"] for p in people]
        wait_for(lambda: http(server.base, "GET", f"/api/players/{ids[1]}")[1]["rating"]["games"]
                 == 4)  # fmt: skip
    finally:
        server.stop()
    live = _ratings(url)
    assert [r[0] for r in live["ratings"]] == sorted(ids) and len(live["history"]) == 10
    done = subprocess.run(
        [sys.executable, "-m", "backalley", "ratings", "--rebuild", "--db", url],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert "7 games rated" in done.stdout and "Ruth" in done.stdout
    assert _ratings(url) == live  # exactly: the same games in the same order
    # A release whose bots were calibrated anew: the ratings computed with the old anchors
    # are rebuilt as the server starts, without a word from anyone.
    _set(url, "UPDATE ratings SET mu = 0", "UPDATE facts SET value = 'older anchors'")
    server = Server.start(url)
    try:
        wait_for(lambda: _ratings(url) == live)
    finally:
        server.stop()
    assert _fact(url, "anchors") == anchors_mark()


async def _together(plays: list[Any]) -> None:
    await asyncio.gather(*plays)


def _set(url: str, *statements: str) -> None:
    engine = create_engine(url)
    with engine.begin() as connection:
        for statement in statements:
            connection.execute(text(statement))
    engine.dispose()


def _fact(url: str, name: str) -> str:
    engine = create_engine(url)
    with engine.connect() as connection:
        value = connection.execute(
            text("SELECT value FROM facts WHERE name = :name"), {"name": name}
        ).scalar_one()
    engine.dispose()
    return str(value)


def _ratings(url: str) -> dict[str, list[Any]]:
    engine = create_engine(url)
    with engine.connect() as connection:
        found = {
            "ratings": list(connection.execute(text("SELECT * FROM ratings ORDER BY account_id"))),
            "history": list(
                connection.execute(text("SELECT * FROM rating_history ORDER BY at, account_id"))
            ),
        }
    engine.dispose()
    return found


def test_a_game_left_for_good_is_not_rated_and_counts_on_the_leavers_profile(
    server: Server,
) -> None:
    leaver, stayer = member(server.base, "Uma"), member(server.base, "Vito")
    table = create_table(server.base, {"hand_sizes": [2, 1], "pace": 0, "level": "easy"})
    sit(leaver, table, seat=0)
    sit(stayer, table, seat=1)
    for seat in (2, 3):
        seat_bot(server.base, table, seat, "easy")

    async def leave_then_finish() -> None:
        async with Seat.connect(server.base, table["id"], member=leaver) as seat:
            await seat.until(lambda s: s.view is not None)
        assert leaver.request("POST", f"/api/tables/{table['id']}/leave", {})[0] == 200
        await play_as(server.base, stayer, table["id"])

    run(leave_then_finish())
    gone = wait_for(lambda: leaver.request("GET", f"/api/players/{leaver.account['id']}")[1])
    assert gone["figures"]["left"] == 1 and gone["figures"]["games"] == 1
    [game] = gone["games"]
    assert game["left"] and not game["rated"] and not game["won"]
    stayed = stayer.request("GET", f"/api/players/{stayer.account['id']}")[1]
    assert not stayed["games"][0]["rated"]
    rated = f"SELECT rating FROM tables WHERE id = '{table['id']}'"
    wait_for(lambda: _ask(server.url, rated) is not None)  # the ratings took it in: not rated
    assert _ask(server.url, rated) == 0
    for someone in (leaver, stayer):
        profile = someone.request("GET", f"/api/players/{someone.account['id']}")[1]
        assert profile["rating"]["games"] == 0 and profile["history"] == []


def test_the_websocket_takes_the_session_only_from_the_servers_own_pages(server: Server) -> None:
    someone = member(server.base, "Yara")
    table = create_table(server.base, {"hand_sizes": [1], "pace": 0, "public": True})
    sit(someone, table, seat=3)
    for seat in (0, 1, 2):
        seat_bot(server.base, table, seat, "easy")
    forged = Member(server.base)
    forged.cookie = someone.cookie
    forged.base = "http://evil.example"  # the Origin a page of another site would send

    async def seat_of(who: Member) -> int | None:
        async with Seat.connect(server.base, table["id"], member=who) as seat:
            await seat.until(lambda s: s.view is not None)
            return seat.seat

    assert run(seat_of(someone)) == 3
    assert run(seat_of(forged)) is None  # a spectator at this public table, not seat 3


def _ask(url: str, query: str) -> Any:
    """One value, read straight from the server's database."""
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            return connection.execute(text(query)).scalar()
    finally:
        engine.dispose()
