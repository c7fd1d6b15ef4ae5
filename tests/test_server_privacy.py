"""What an outside client found, each fixed at its root (issue: private games stay private,
and six server faults): a private table's game seen only by who holds its secrets or played
it; a player not locked out of their account by a stranger's guesses; a request answered
before its body came closing its connection; no account under a bot's name, numbered ones
included; no seat by the cookie without this host's Origin. On a server in this process."""

from __future__ import annotations

import asyncio
import random
import socket
from pathlib import Path
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed

from backalley.bots import BOT_NAMES, bot_name
from backalley.server import requests
from backalley.server.accounts import looks_like_a_bot
from backalley.server.client import Member, Seat, create_table, seat_bot, take_seat
from backalley.server.client import request as http
from backalley.server.protocol import CLOSE_UNAUTHORIZED
from live_support import live
from server_support import play_randomly, run

pytestmark = pytest.mark.server

PASSWORD = "correct horse battery"


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Any:
    folder = tmp_path_factory.mktemp("privacy")
    with live(f"sqlite:///{folder / 'server.db'}", sign_ins_per_minute=1000) as running:
        yield running


def member(base: str, name: str) -> Member:
    someone = Member(base)
    status, answer = someone.sign_up(name, PASSWORD)
    assert status == 201, answer
    return someone


def a_game(base: str, player: Member | None, public: bool) -> tuple[dict[str, Any], str]:
    """A one-deal game of ``player`` (a guest when ``None``) at seat 0 and three easy bots,
    played to its end: the table (with its secrets) and the player's seat token."""
    table = create_table(base, {"hand_sizes": [1], "pace": 0, "level": "easy", "public": public})
    invite = {"invite": table["invites"][0]["invite"], "name": "Rosa"}
    path = f"/api/tables/{table['id']}/seats/0"
    status, taken = (player.request if player else lambda *a: http(base, *a))("POST", path, invite)
    assert status == 201, taken
    for seat in (1, 2, 3):
        seat_bot(base, table, seat, "easy")

    async def play() -> None:
        async with Seat.connect(base, table["id"], token=taken["token"]) as seat:
            await play_randomly(seat, random.Random(1))

    run(play())
    return table, str(taken["token"])


READS = ("", "/record", "/replay", "/review/0")


def readable(
    base: str, table_id: str, token: str | None = None, who: Member | None = None
) -> list[int]:
    """The status of each route that shows a table's game, for a reader holding ``token``
    (or signed in as ``who``)."""
    statuses = []
    for route in READS:
        path = f"/api/tables/{table_id}{route}"
        if who is not None:
            statuses.append(who.request("GET", path, token=token)[0])
        else:
            statuses.append(http(base, "GET", path, token=token)[0])
    return statuses


def listed(base: str, who: Member | None = None) -> set[str]:
    answer = who.request("GET", "/api/games")[1] if who else http(base, "GET", "/api/games")[1]
    return {game["id"] for game in answer["games"]}


def test_a_private_game_is_seen_only_by_who_holds_its_secrets_or_played_it(base: str) -> None:
    rosa = member(base, "Rosa Private")
    private, token = a_game(base, rosa, public=False)
    public, _ = a_game(base, None, public=True)
    pid = private["id"]
    # Nobody else: the game is not listed, and its routes answer as for no table at all.
    assert pid not in listed(base) and public["id"] in listed(base)
    assert readable(base, pid) == [404] * 4
    assert readable(base, "nosuchtable") == [404] * 4
    assert (
        http(base, "GET", f"/api/tables/{pid}")[1]["message"]
        == (http(base, "GET", "/api/tables/nosuchtable")[1]["message"])
    )
    stranger = member(base, "Sam Stranger")
    assert readable(base, pid, who=stranger) == [404] * 4 and pid not in listed(base, stranger)
    # A secret that opens nothing is a wrong guess, refused as such.
    assert readable(base, pid, token="not-a-secret") == [403] * 4
    # Each of its secrets opens it, and so does the account that played it.
    secrets = [token, private["host"], private["watch"]["code"], private["invites"][2]["invite"]]
    for secret in secrets:
        assert readable(base, pid, token=secret) == [200] * 4, secret
    assert readable(base, pid, who=rosa) == [200] * 4
    assert pid in listed(base, rosa)
    # The public table's game is anyone's to read.
    assert readable(base, public["id"]) == [200] * 4


def test_a_profile_shows_others_only_its_public_games(base: str) -> None:
    rosa = member(base, "Rosa Profile")
    private, _ = a_game(base, rosa, public=False)
    public, _ = a_game(base, rosa, public=True)
    waiting = create_table(base, {"hand_sizes": [1], "pace": 0})  # a private table to come
    invite = {"invite": waiting["invites"][0]["invite"], "name": "Rosa"}
    assert rosa.request("POST", f"/api/tables/{waiting['id']}/seats/0", invite)[0] == 201
    path = f"/api/players/{rosa.account['id']}"  # type: ignore[index]

    def tables_in(profile: dict[str, Any]) -> set[str]:
        found = {g["table"] for g in profile["games"]} | {p["table"] for p in profile["playing"]}
        return found | {h["table"] for h in profile["history"]}

    own = rosa.request("GET", path)[1]
    assert {private["id"], public["id"], waiting["id"]} <= tables_in(own)
    for viewer in (None, member(base, "Sam Profile")):
        seen = viewer.request("GET", path)[1] if viewer else http(base, "GET", path)[1]
        assert public["id"] in tables_in(seen)
        assert private["id"] not in tables_in(seen) and waiting["id"] not in tables_in(seen)
        assert seen["figures"]["games"] == own["figures"]["games"] == 2  # they name no game


def test_an_account_that_left_a_private_game_still_reads_it(base: str) -> None:
    rosa = member(base, "Rosa Leaves")
    table = create_table(base, {"hand_sizes": [2, 1], "pace": 0, "level": "easy"})
    invite = {"invite": table["invites"][0]["invite"], "name": "Rosa"}
    assert rosa.request("POST", f"/api/tables/{table['id']}/seats/0", invite)[0] == 201
    token = take_seat(base, table, 1, "Guest")
    for seat in (2, 3):
        seat_bot(base, table, seat, "easy")
    assert rosa.request("POST", f"/api/tables/{table['id']}/leave", {})[0] == 200
    assert readable(base, table["id"], who=rosa)[:2] == [200, 200]
    assert readable(base, table["id"], token=token)[:2] == [200, 200]
    assert readable(base, table["id"])[:2] == [404, 404]


def test_a_stranger_guessing_a_name_from_many_addresses_never_locks_its_owners_device_out(
    base: str,
) -> None:
    owner = member(base, "Olga Owner")  # signed up here: this device is known to the account
    forwarded = [{"x-forwarded-for": f"203.0.113.{n}", "origin": base} for n in range(30)]
    codes = [
        http(base, "POST", "/api/account/signin", {"name": "olga owner", "password": f"guess {n}"},
             headers=headers)[0]
        for n, headers in enumerate(forwarded)
    ]  # fmt: skip
    # At most 20 tries an hour from devices the account does not know: 10 at once here.
    assert codes[:10] == [401] * 10 and set(codes[10:]) == {429}
    assert Member(base).sign_in("Olga Owner", PASSWORD)[0] == 429  # a new device waits too
    assert owner.sign_in("Olga Owner", PASSWORD)[0] == 200  # the owner's own device does not
    # A known device's own wrong tries are counted for it alone, and only then does it wait.
    # (10 tries at once, right or wrong: the sign-in above was one of them.)
    again = [owner.sign_in("Olga Owner", "wrong")[0] for _ in range(10)]
    assert again[:9] == [401] * 9 and again[9] == 429


def test_tries_sent_at_once_are_counted_before_the_password_is_checked(base: str) -> None:
    member(base, "Petra Parallel")

    async def at_once() -> list[int]:
        body = {"name": "Petra Parallel", "password": "a wrong one"}
        tries = [
            asyncio.to_thread(
                http, base, "POST", "/api/account/signin", body, None, {"origin": base}
            )
            for _ in range(25)
        ]
        return [status for status, _ in await asyncio.gather(*tries)]

    codes = run(at_once())
    assert codes.count(401) == 10 and codes.count(429) == 15


def raw(base: str, request: bytes, then: bytes = b"") -> tuple[bytes, bool]:
    """Send ``request`` (and ``then``) over a socket of its own: the answer, and whether
    the server closed the connection after it."""
    host, port = base.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as connection:
        connection.sendall(request)
        if then:
            connection.sendall(then)
        answer = b""
        while b"\r\n\r\n" not in answer:
            answer += connection.recv(65536)
        head, _, rest = answer.partition(b"\r\n\r\n")
        length = int(next(line.split(b":")[1] for line in head.split(b"\r\n")
                          if line.lower().startswith(b"content-length")))  # fmt: skip
        while len(rest) < length:
            rest += connection.recv(65536)
        connection.settimeout(1)  # a keep-alive connection idles for 5 s before it is closed
        try:
            closed = connection.recv(1) == b""
        except TimeoutError:
            closed = False
        return head, closed


def test_a_request_answered_before_its_body_came_closes_its_connection(
    base: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A POST that announced 8000 bytes and sent a byte every 2 s was told 408 too_slow and
    kept its connection for as long as it liked; so did every refusal sent before the body."""
    monkeypatch.setattr(requests, "BODY_WAIT", 0.5)
    head = b"POST /api/tables HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n"
    answer, closed = raw(base, head % 8000, b"{")
    assert answer.startswith(b"HTTP/1.1 408") and closed
    answer, closed = raw(base, head % 100_000)  # too large: refused before it is read
    assert answer.startswith(b"HTTP/1.1 413") and closed
    seat = b"POST /api/tables/nosuchtable/seats/0 HTTP/1.1\r\nHost: x\r\nContent-Length: 50\r\n\r\n"
    answer, closed = raw(base, seat, b'{"invite":')  # no such table: refused before its body
    assert answer.startswith(b"HTTP/1.1 404") and closed
    # A request whose body came whole keeps its connection, as keep-alive has it.
    whole = b"POST /api/tables HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}"
    answer, closed = raw(base, whole)
    assert answer.startswith(b"HTTP/1.1 201") and not closed


def test_every_name_a_bot_may_carry_is_refused_as_an_account_name(base: str) -> None:
    taken: list[str | None] = []
    for level in BOT_NAMES:
        taken = []
        for _ in range(12):  # the level's four names, then numbered ones
            taken.append(bot_name(level, taken))
        assert all(looks_like_a_bot(name) for name in taken if name), taken
    for name in ("Max 2", "max 12", "Мax 3", "Ada2", "Vera  9", "Former player"):  # Cyrillic М
        status, answer = Member(base).sign_up(name, PASSWORD)
        assert (status, answer["code"]) == (400, "bad_name"), name
    for name in ("Maxine", "Adam 2", "Bo Lee"):
        assert Member(base).sign_up(name, PASSWORD)[0] == 201, name


def test_the_cookie_opens_a_seat_only_with_this_hosts_origin(base: str) -> None:
    """A hello with the session cookie and no Origin opened the account's seat; only a page
    of this host sends its Origin, so without one the cookie opens nothing."""
    yara = member(base, "Yara Origin")
    table = create_table(base, {"hand_sizes": [1], "pace": 0})
    invite = {"invite": table["invites"][3]["invite"], "name": "Yara"}
    assert yara.request("POST", f"/api/tables/{table['id']}/seats/3", invite)[0] == 201
    no_origin = Member(base)
    no_origin.cookie = yara.cookie

    async def hello(who: Member, origin: bool) -> Any:
        headers = who.headers(csrf=False)
        if not origin:
            del headers["origin"]
        from websockets.asyncio.client import connect

        uri = "ws" + base.removeprefix("http") + f"/ws/tables/{table['id']}"
        async with connect(uri, additional_headers=headers) as ws:
            await ws.send('{"type": "hello"}')
            try:
                return (await ws.recv())[:40]
            except ConnectionClosed as closed:
                return closed.rcvd.code if closed.rcvd else None

    assert run(hello(yara, origin=True)).startswith('{"type":"state"')
    assert run(hello(yara, origin=False)) == CLOSE_UNAUTHORIZED  # a private table: no seat


def test_the_finished_games_of_a_database_before_the_public_column_are_sorted_out(
    tmp_path: Path,
) -> None:
    """A database written before private tables were kept apart: the new column is filled
    from each table's settings when the server opens it."""
    from sqlalchemy import create_engine, text

    from backalley.server.store import open_engine

    url = f"sqlite:///{tmp_path / 'old.db'}"
    open_engine(url).dispose()
    engine = create_engine(url)
    with engine.begin() as connection:
        connection.execute(text("ALTER TABLE tables DROP COLUMN public"))
        for table_id, public in (("pub", "true"), ("priv", "false")):
            config = f'{{"rules": "standard", "public": {public}}}'
            connection.execute(text(
                "INSERT INTO tables (id, created, config, host_hash, watch_hash, status) "
                "VALUES (:id, 0, :config, x'00', x'00', 'open')"
            ), {"id": table_id, "config": config})  # fmt: skip
    engine.dispose()
    engine = open_engine(url)
    with engine.connect() as connection:
        rows = dict(connection.execute(text("SELECT id, public FROM tables")).all())
    engine.dispose()
    assert rows == {"pub": 1, "priv": 0}
