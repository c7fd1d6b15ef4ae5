"""The daily deals: the same cards for everyone at each deal's place and attempt, however the
play went; each deal's share of the field beaten, ties counting half; and, over the wire,
tries by two accounts and a guest ranked as the test works them out from their records."""

from __future__ import annotations

import asyncio
import os
import random
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from backalley.engine import Game, Phase
from backalley.record import read_record, replay
from backalley.rules import PASS, Ruleset
from backalley.server import daily
from backalley.server.client import Member, Seat
from backalley.server.client import request as http
from live_support import running_daily
from server_support import database, finished_record, play_randomly, run


def played(seed: str, rules: Ruleset, rng: random.Random, passes: float = 0.0) -> Game:
    """A game dealt as a daily table deals it, every seat choosing at random (passing with
    probability ``passes`` where it may, so that deals get thrown in)."""
    game, deal = Game(rules), daily.dealer(seed)
    while not game.is_over:
        if game.phase == Phase.DEAL:
            deal(game)
            continue
        legal = game.legal_actions()
        if game.phase == Phase.BID and PASS in legal and rng.random() < passes:
            game.apply(PASS)
        else:
            game.apply(rng.choice(legal))
    return game


def hands_by_key(game: Game) -> dict[str, tuple[tuple[int, ...], tuple[int, ...]]]:
    """Each deal's cards as dealt, by its key (the dealer may differ after a throw-in)."""
    return {
        daily.deal_key(game.deals, i): (deal.hands, deal.stock) for i, deal in enumerate(game.deals)
    }


@pytest.mark.parametrize("preset", ["standard", "bab"])
def test_every_table_holds_the_same_cards_at_the_same_place_and_attempt(preset: str) -> None:
    rules = Ruleset.preset(preset, hand_sizes=[3, 2, 1])
    games = [played("a seed", rules, random.Random(n), passes=0.7) for n in range(12)]
    seen: dict[str, Any] = {}
    thrown = 0
    for game in games:
        thrown += sum(1 for d in game.deals if d.thrown_in is not None)
        for key, cards in hands_by_key(game).items():
            assert seen.setdefault(key, cards) == cards, key
    assert thrown > 0  # some deals were thrown in, and their next attempts still agree
    other = hands_by_key(played("another seed", rules, random.Random(0)))
    assert other["0.0.0"] != seen["0.0.0"]  # another day's seed: other cards
    # as the daily tables play them (D7's redeal_same): the dealers in step too
    rules = Ruleset.preset(preset, **daily.in_step(preset, {"hand_sizes": [3, 2, 1]}))
    dealers: dict[str, int] = {}
    for n in range(12):
        game = played("a seed", rules, random.Random(n), passes=0.7)
        for i, deal in enumerate(game.deals):
            assert dealers.setdefault(daily.deal_key(game.deals, i), deal.dealer) == deal.dealer


def test_a_deals_key_counts_the_deals_played_out_before_it_and_its_attempts() -> None:
    rules = Ruleset.preset("standard", hand_sizes=[3, 2, 1])
    game = played("keys", rules, random.Random(3), passes=0.8)
    keys = [daily.deal_key(game.deals, i) for i in range(len(game.deals))]
    places = [int(k.split(".")[0]) for k in keys]
    attempts = [int(k.split(".")[2]) for k in keys]
    assert places[-1] == sum(1 for d in game.deals[:-1] if d.thrown_in is None)
    for i, deal in enumerate(game.deals[1:], 1):
        before = game.deals[i - 1]
        assert attempts[i] == (attempts[i - 1] + 1 if before.thrown_in is not None else 0)
        assert deal.hand_size == rules.hand_sizes[places[i]]


@given(st.integers(-50, 50), st.lists(st.integers(-50, 50), max_size=30))
def test_the_share_beaten_counts_ties_half(points: int, field: list[int]) -> None:
    share = daily.share_beaten(points, sorted(field))
    if not field:
        assert share == daily.ALONE
        return
    beaten = sum(1 for p in field if p < points) + sum(0.5 for p in field if p == points)
    assert share == pytest.approx(beaten / len(field))
    alone = daily.share_beaten(points, sorted([*field, points]), itself=True)
    assert alone == pytest.approx(share)  # its own result left out of the field


def test_standings_rank_the_ranked_tries_and_place_the_others_against_them() -> None:
    entries = [
        daily.Entry("t1", "Ana", "a1", True, [("0.0.0", 10), ("1.0.0", -5)]),
        daily.Entry("t2", "Bo", "a2", True, [("0.0.0", 10), ("1.0.0", 20)]),
        daily.Entry("t3", "Cy", "a3", True, [("0.0.0", -20), ("1.0.0", 20)]),
        daily.Entry("t4", "Guest", None, False, [("0.0.0", 30), ("1.0.0", 30)]),
    ]
    ranking, fields = daily.standings(entries)
    assert [e.name for e in ranking] == ["Bo", "Ana", "Cy"]
    by = {e.name: e for e in entries}
    assert by["Bo"].shares == [0.75, 0.75]  # beats Cy, level with Ana; beats Ana, level with Cy
    assert by["Ana"].shares == [0.75, 0.0]
    assert by["Cy"].shares == [0.0, 0.75]
    assert by["Guest"].shares == [1.0, 1.0]  # the whole ranked field beaten, itself not in it
    assert fields == {"0.0.0": [-20, 10, 10], "1.0.0": [-5, 20, 20]}


def test_the_daily_seed_is_the_secrets_and_the_days() -> None:
    one = daily.day_seed(b"secret", "2026-12-06/standard")
    assert one == daily.day_seed(b"secret", "2026-12-06/standard")
    assert one != daily.day_seed(b"secret", "2026-12-07/standard")
    assert one != daily.day_seed(b"secret", "2026-12-06/bab")
    assert one != daily.day_seed(b"other", "2026-12-06/standard")
    assert daily.parse_day("2026-12-06") == "2026-12-06"
    assert daily.parse_day("2026-13-06") is None and daily.parse_day("today") is None


# ------------------------------------------------------------------ over the wire


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    url = database("sqlite", tmp_path_factory.mktemp("daily"))
    with running_daily(url, "the tests' daily secret", sign_ins_per_minute=1000) as held:
        yield held


def play_tries(base: str, tries: list[dict[str, Any]]) -> None:
    """Play each try's seat at random to the end, all at once."""

    async def go(started: dict[str, Any], seed: int) -> None:
        async with Seat.connect(base, started["id"], token=started["token"]) as seat:
            await seat.until(lambda s: s.view is not None)
            await play_randomly(seat, random.Random(seed))

    async def every() -> None:
        await asyncio.gather(*(go(t, seed) for seed, t in enumerate(tries)))

    run(every())


def record_of(base: str, table_id: str, token: str) -> dict[str, Any]:
    return finished_record(base, table_id, token)


@pytest.mark.server
def test_two_accounts_and_a_guest_play_the_same_deals_and_are_ranked_by_them(
    server: Any,
) -> None:
    base = server.base
    people = []
    for name in ("Dora", "Emil"):
        member = Member(base)
        assert member.sign_up(name, "correct horse battery")[0] == 201
        people.append(member)
    status, sets = people[0].request("GET", "/api/daily")
    assert status == 200 and [s["name"] for s in sets["sets"]] == list(daily.SETS)
    day = sets["day"]
    tries = {}
    for member in people:
        status, started = member.request("POST", "/api/daily/standard", {"pace": 0})
        assert status == 201 and started["ranked"] and started["seat"] == 0, started
        assert started["table"]["level"] == "hard" and started["table"]["public"] is False
        # results before finishing: the ranking, never the deals
        status, early = member.request("GET", f"/api/daily/{day}/standard")
        assert status == 200 and early["deals"] is None and early["you"]["finished"] is False
        # an unfinished ranked try is taken up again, not begun anew
        status, again = member.request("POST", "/api/daily/standard", {})
        assert status == 200 and again["resumed"] and again["id"] == started["id"]
        tries[member.account["name"]] = started
    status, guest = http(base, "POST", "/api/daily/standard", {"name": "Guest", "pace": 0})
    assert status == 201 and guest["ranked"] is False
    tries["Guest"] = guest
    status, wrong = http(base, "POST", "/api/daily/standard", {"name": "Guest", "pace": "fast"})
    assert status == 400 and "pace" in wrong["message"]
    status, wrong = http(base, "POST", "/api/daily/whist", {"name": "Guest"})
    assert status == 404 and "standard" in wrong["message"]
    play_tries(base, list(tries.values()))

    records = {n: record_of(base, t["id"], t["token"]) for n, t in tries.items()}
    games = {n: replay(read_record(r)) for n, r in records.items()}
    cards = [hands_by_key(g) for g in games.values()]
    for key in set(cards[0]) & set(cards[1]) & set(cards[2]):
        assert cards[0][key] == cards[1][key] == cards[2][key]
    assert "0.0.0" in cards[0] and "0.0.0" in cards[1]
    points = {n: daily.results(g) for n, g in games.items()}

    def share(mine: int, theirs: list[int]) -> float:
        if not theirs:
            return 0.5
        return sum(1.0 if mine > t else 0.5 if mine == t else 0.0 for t in theirs) / len(theirs)

    ranked = ["Dora", "Emil"]
    expected = {}
    for name, deals in points.items():
        shares = []
        for key, mine in deals:
            theirs = [p for other in ranked if other != name for k, p in points[other] if k == key]
            shares.append(share(mine, theirs))
        expected[name] = round(100 * sum(shares) / len(shares), 1)
    status, results = people[0].request("GET", f"/api/daily/{day}/standard")
    assert status == 200 and results["players"] == 2
    board = {row["name"]: row for row in results["ranking"]}
    assert set(board) == {"Dora", "Emil"}
    for name in ranked:
        assert board[name]["score"] == expected[name]
    assert [row["name"] for row in results["ranking"]] == sorted(
        ranked, key=lambda n: (-expected[n], n)
    )
    assert board["Dora"]["you"] and not board["Emil"]["you"]
    assert results["you"]["finished"] and results["you"]["score"] == expected["Dora"]
    assert [d["points"] for d in results["deals"]] == [p for _, p in points["Dora"]]
    for deal in results["deals"]:  # the field: every ranked try that played the deal
        field = [p for n in ranked for k, p in points[n] if k == deal["key"]]
        assert deal["field"] == sorted([p, field.count(p)] for p in set(field))

    # the guest sees where it would stand, unranked, with its own table named by its token
    status, seen = http(base, "GET", f"/api/daily/{day}/standard?table={guest['id']}",
                        token=guest["token"])  # fmt: skip
    assert status == 200 and seen["you"]["ranked"] is False
    assert seen["you"]["score"] == expected["Guest"]
    assert seen["you"]["rank"] == 1 + sum(1 for n in ranked if expected[n] > expected["Guest"])
    assert all(not row["you"] for row in seen["ranking"])

    # others' play: the guest, finished, reads Emil's game through its own try
    emil = tries["Emil"]["id"]
    status, _ = http(base, "GET", f"/api/tables/{emil}/replay")
    assert status == 404  # a private table to anyone else
    status, game = http(base, "GET", f"/api/tables/{emil}/replay?via={guest['id']}",
                        token=guest["token"])  # fmt: skip
    assert status == 200 and game["players"][0] == "Emil"

    # a second try of the day is unranked; its unfinished table opens nobody else's
    status, second = people[1].request("POST", "/api/daily/standard", {})
    assert status == 201 and second["ranked"] is False
    status, _ = http(base, "GET", f"/api/tables/{emil}/replay?via={second['id']}",
                     token=second["token"])  # fmt: skip
    assert status in (403, 404)


@given(st.lists(st.integers(-30, 30), max_size=80), st.integers(-30, 30))
def test_the_others_shown_are_the_nearest_in_points(points_list: list[int], mine: int) -> None:
    from backalley.server.daily_routes import OTHERS_SHOWN, _nearest

    played = sorted((p, f"n{i}", f"t{i}") for i, p in enumerate(points_list))
    played.append((mine, "me", "mine"))
    played.sort()
    found = _nearest(played, mine, "mine")
    assert all(t != "mine" for _, _, t in found)
    assert len(found) == min(OTHERS_SHOWN, len(points_list))
    distances = sorted(abs(p - mine) for p in points_list)[: len(found)]
    assert [abs(p - mine) for p, _, _ in found] == distances  # nearest first, none skipped


@pytest.mark.server
def test_the_ranking_benchmark_runs_and_says_its_figures() -> None:
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    done = subprocess.run(
        [sys.executable, "benchmarks/daily.py", "--results", "300", "--requests", "5"],
        cwd=root, capture_output=True, text=True, timeout=300, env={**os.environ, "COLUMNS": "120"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "300 finished tries on SQLite" in done.stdout
    assert done.stdout.count("│") >= 3 * 6 and "KiB of JSON" in done.stdout


@pytest.mark.server
def test_a_try_killed_mid_game_goes_on_with_the_days_cards_and_its_result_is_kept(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No secret in the environment: the first server makes one in the database; a server
    killed mid-game and started again deals the rest of the try from it, and a try begun
    after the restart holds the same cards at the same keys."""
    from server_support import Server

    monkeypatch.delenv("BACKALLEY_DAILY_SECRET", raising=False)
    url = database("sqlite", tmp_path)
    server = Server.start(url)
    try:
        begin = {"name": "Ines", "pace": 0}
        status, first = http(server.base, "POST", "/api/daily/standard", begin)
        assert status == 201

        async def two_actions() -> None:
            async with Seat.connect(server.base, first["id"], token=first["token"]) as seat:
                await play_randomly(seat, random.Random(1), stop=2)

        run(two_actions())
        server.kill()  # mid-game, no chance to tidy up
        server = Server.start(url)
        begin = {"name": "Jon", "pace": 0}
        status, second = http(server.base, "POST", "/api/daily/standard", begin)
        assert status == 201
        play_tries(server.base, [first, second])
        games = [replay(read_record(record_of(server.base, t["id"], t["token"])))
                 for t in (first, second)]  # fmt: skip
        cards = [hands_by_key(g) for g in games]
        shared = set(cards[0]) & set(cards[1])
        assert "0.0.0" in shared and all(cards[0][k] == cards[1][k] for k in shared)
        day = daily.today()
        status, seen = http(server.base, "GET", f"/api/daily/{day}/standard?table={first['id']}",
                            token=first["token"])  # fmt: skip
        assert status == 200 and seen["you"]["finished"] and seen["deals"] is not None
        assert [d["points"] for d in seen["deals"]] == [p for _, p in daily.results(games[0])]
    finally:
        server.stop()
