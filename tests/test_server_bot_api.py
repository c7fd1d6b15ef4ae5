"""``POST /api/bot`` (docs/bots.md): our bots answering programs that play elsewhere, off
unless asked for, limited per address, thinking in the tables' own fair pool."""

from __future__ import annotations

import random
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from backalley.bots import make_bot
from backalley.engine import Game
from backalley.knowledge import Knowledge
from backalley.rules import Ruleset
from backalley.server.bots import BotPool
from backalley.server.client import exchange
from backalley.server.client import request as http
from live_support import live

pytestmark = pytest.mark.server


def test_the_bot_api_is_off_unless_the_server_is_started_with_it(tmp_path: Path) -> None:
    with live(f"sqlite:///{tmp_path / 'db.sqlite'}") as base:
        asked = urllib.request.Request(f"{base}/api/bot", data=b'{"seat": 0}', method="POST")
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(asked, timeout=10)
    assert refused.value.code in (404, 405)


def test_a_game_whose_seats_ask_the_server_plays_to_its_end(tmp_path: Path) -> None:
    """Seats 1 and 3 are asked over HTTP, each question the seat's knowledge only: every
    answer is a legal action, bid or card, until the game ends; the decisions were the fair
    pool's, charged to the asking address."""
    rules = Ruleset.preset("standard", hand_sizes=[4, 3, 2, 1])
    game = Game(rules, seed=9)
    local = make_bot("medium")
    asked = 0
    threads = ThreadPoolExecutor(2)
    pool = BotPool(2, executor=threads)
    with live(f"sqlite:///{tmp_path / 'db.sqlite'}", bot_api=1000, pool=pool) as base:
        while not game.is_over:
            seat = game.to_move
            view = game.view(seat)
            if seat % 2:
                level = "hard" if asked % 2 else "medium"
                message = Knowledge.of(view).to_json() | {"level": level, "id": asked}
                status, answer = http(base, "POST", "/api/bot", message)
                assert status == 200, answer
                assert answer["id"] == asked and answer["level"] == level
                assert answer["action"] in {str(a) for a in view.legal_actions}
                game.apply(answer["action"])
                asked += 1
            else:
                game.apply(local.act(view, random.Random(asked)))
    threads.shutdown()
    assert asked >= 10
    assert set(pool.light.share.used) == set(pool.solver.share.used) == {"api:127.0.0.1"}


def test_a_bad_question_is_answered_400_with_its_rule_and_changes_nothing(tmp_path: Path):
    with live(f"sqlite:///{tmp_path / 'db.sqlite'}", bot_api=1000) as base:
        question = {"options": {"hand_sizes": [2]}, "seat": 0, "dealer": 3,
                    "hand": ["AS", "AS"], "turn_up": "2H"}  # fmt: skip
        status, answer = http(base, "POST", "/api/bot", question)
        assert status == 400 and answer["code"] == "bad_knowledge" and answer["rule"] == "D3"
        assert "id" not in answer
        for level in ("grandmaster", ["x"], {"a": 1}):
            status, answer = http(base, "POST", "/api/bot", question | {"level": level})
            assert status == 400 and answer["code"] == "bad_field", level
        status, answer = http(base, "POST", "/api/bot", question | {"hand": ["AS"], "id": 4})
        assert status == 400 and answer["rule"] == "D2" and answer["id"] == 4
        nan = urllib.request.Request(
            f"{base}/api/bot", data=b'{"id": NaN, "seat": 0}', method="POST"
        )
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(nan, timeout=10)
        assert refused.value.code == 400 and b"bad_json" in refused.value.read()
        status, answer = http(base, "POST", "/api/bot", question | {"hand": ["AS", "KS"]})
        assert status == 200 and answer["action"] in ("pass", "1", "board")


def test_decisions_are_limited_per_address(tmp_path: Path) -> None:
    """With ``--bot-api 5``, five questions at once are answered and the sixth refused
    with 429 and the seconds to wait."""
    question = {"options": {"hand_sizes": [1]}, "seat": 0, "dealer": 3, "hand": ["AS"],
                "turn_up": "2H"}  # fmt: skip
    with live(f"sqlite:///{tmp_path / 'db.sqlite'}", bot_api=5) as base:
        began = time.monotonic()
        answers = [exchange(base, "POST", "/api/bot", question) for _ in range(6)]
    assert time.monotonic() - began < 12  # within one token's refill
    assert [status for status, _, _ in answers] == [200] * 5 + [429]
    _, answer, headers = answers[-1]
    assert answer["code"] == "too_many" and int(headers["retry-after"]) >= 1
