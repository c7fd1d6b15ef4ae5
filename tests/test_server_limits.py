"""What one client address may do so often (server/limits.py), on a server in this process:
wrong credentials refused once too many came, the right one too, until time gives some
back — the clock moved on here rather than waited for."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from backalley.server import limits
from backalley.server.client import create_table
from backalley.server.client import request as http
from backalley.server.protocol import CLOSE_GUESSING
from live_support import live
from server_support import run

pytestmark = pytest.mark.server


class Clock:
    """The limits' clock, moved on by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        return self.now


def test_wrong_invites_and_tokens_are_limited_per_address(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Invites could be tried at ~23 a second over HTTP and tokens at ~1,000 a second over
    the WebSocket. Now an address that has sent ``--guesses-per-minute`` wrong ones is
    refused (429 over HTTP, close 4429 over the WebSocket) before its credential is even
    looked at — the right one too, else the limit would tell a guesser when it guessed
    right — until the minute has given it some back."""
    clock = Clock()
    monkeypatch.setattr(limits, "time", clock)
    with live(f"sqlite:///{tmp_path / 'server.db'}", guesses_per_minute=5) as base:
        table = create_table(base, {"hand_sizes": [1]})
        path = f"/api/tables/{table['id']}/seats/0"
        wrong = [http(base, "POST", path, {"invite": f"x{i}", "name": "A"}) for i in range(5)]
        assert [status for status, _ in wrong] == [403] * 5
        right = {"invite": table["invites"][0]["invite"], "name": "A"}
        status, refused = http(base, "POST", path, right)
        assert status == 429 and refused["code"] == "too_many_guesses", refused
        assert refused["params"]["seconds"] == 12  # 5 a minute: one back every 12 s

        async def hello(token: str) -> Any:
            uri = "ws" + base.removeprefix("http") + f"/ws/tables/{table['id']}"
            async with connect(uri) as socket:
                await socket.send(json.dumps({"type": "hello", "token": token}))
                with contextlib.suppress(ConnectionClosed):
                    while True:
                        await socket.recv()
                return socket.close_code

        assert run(hello("a wrong token")) == CLOSE_GUESSING
        clock.now += 11.9
        assert http(base, "POST", path, right)[0] == 429  # not yet
        clock.now += 0.2
        status, taken = http(base, "POST", path, right)
        assert status == 201, taken
    assert "too_many_guesses" not in caplog.text  # refusals are not logged


def test_a_bucket_gives_back_at_its_rate_and_holds_its_burst(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clock = Clock()
    monkeypatch.setattr(limits, "time", clock)
    quota = limits.Quota(rate=0.5, burst=3)
    assert [quota.take("a") for _ in range(4)] == [0.0, 0.0, 0.0, 2.0]
    assert quota.take("b") == 0.0  # each address its own
    clock.now += 1.0
    assert quota.wait("a") == pytest.approx(1.0)
    clock.now += 100.0  # full again, and no more than full
    assert [quota.take("a") for _ in range(4)][3] > 0
