"""The daily deals in the browser: two accounts each play the day's short set from the home
page (the same secret and repeatable bots, so the same cards), both at once, and each finds
both on the ranking with the scores this test works out from the two records; the results
page shows each deal once finished, and passes axe-core. ``BACKALLEY_SCREENSHOTS=1`` saves
the home page's panel and the results page."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from backalley.record import read_record, replay
from backalley.server import daily
from browser_support import (
    DESKTOP,
    PHONE,
    Watched,
    act_once,
    browser,
    member_of,
    needs_chromium,
    no_overflow,
    playwright_api,
    shots,
)
from live_support import running_daily
from server_support import database
from test_web_a11y import Audit, axe_source

pytestmark = [needs_chromium, pytest.mark.browser]
__all__ = ["axe_source", "browser", "shots"]  # fixtures


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    url = database("sqlite", tmp_path_factory.mktemp("daily"))
    with running_daily(url, "the browser tests' daily secret", sign_ins_per_minute=1000) as held:
        yield held


def sign_up(page: Any, base: str, name: str) -> None:
    page.goto(base + "/account")
    form = page.locator("form", has=page.get_by_role("heading", name="New account"))
    form.locator("input[name=name]").fill(name)
    form.locator("input[name=password]").fill("a long enough secret")
    form.locator("button[type=submit]").click()
    page.get_by_role("heading", name=f"Signed in as {name}").wait_for()


def act_last(page: Any) -> None:
    """Another player's way: bid 1 where it may, else pass; play its last legal card."""
    cards = page.locator(".hand button.card.legal:not([aria-disabled])")
    if page.locator(".bids button:not([aria-disabled])").count() or not cards.count():
        act_once(page)
        return
    with contextlib.suppress(playwright_api.TimeoutError):  # redrawn: not our turn any more
        cards.last.click(timeout=2000)


def expected_scores(records: dict[str, dict[str, Any]]) -> dict[str, float]:
    """Each player's score as the rules of the daily deals say, from the records alone: for
    each deal, the share of the others who held its cards with the same dealer that the
    player's side outscored, ties half; the mean over the player's deals, in per cent."""
    deals = {}
    for name, record in records.items():
        game = replay(read_record(record))
        keys = [daily.result_key(game.deals, i) for i in range(len(game.deals))]
        side = game.rules.side_of(daily.SEAT)
        deals[name] = [
            (k, d.points[side] if d.points else 0) for k, d in zip(keys, game.deals, strict=True)
        ]
    scores = {}
    for name, mine in deals.items():
        shares = []
        for key, points in mine:
            field = [p for other in deals if other != name for k, p in deals[other] if k == key]
            beaten = sum(1.0 if points > p else 0.5 if points == p else 0.0 for p in field)
            shares.append(beaten / len(field) if field else 0.5)
        scores[name] = round(100 * sum(shares) / len(shares), 1)
    return scores


def test_two_accounts_play_the_days_deals_and_see_each_other_ranked(
    server: Any, browser: Any, shots: Path, axe_source: str
) -> None:
    players = {"Dora": Watched(browser, DESKTOP), "Emil": Watched(browser, PHONE)}
    for name, watched in players.items():
        page = watched.page
        sign_up(page, server.base, name)
        page.goto(server.base + "/")
        panel = page.locator("section.daily")
        panel.locator("li[data-set=standard]").wait_for()
        if name == "Dora":
            no_overflow(page)
            panel.screenshot(path=shots / "daily-home-desktop.png")
        panel.locator("[data-daily=standard]").click()
        page.wait_for_url(re.compile(r"/t/[\w-]+$"))
    ways = {players["Dora"].page: act_once, players["Emil"].page: act_last}
    while not all(p.locator(".overlay.end").count() for p in ways):  # both games at once
        for page, act in ways.items():
            if not page.locator(".overlay.end").count():
                act(page)
        players["Dora"].page.wait_for_timeout(40)
    tables = {name: w.page.url.rsplit("/", 1)[-1] for name, w in players.items()}
    records = {}
    for name, watched in players.items():
        status, record = member_of(watched.context, server.base).request(
            "GET", f"/api/tables/{tables[name]}/record"
        )
        assert status == 200, record
        records[name] = record
    assert records["Dora"]["deals"][0]["hands"] == records["Emil"]["deals"][0]["hands"]
    scores = expected_scores(records)
    audit = Audit(axe_source, "the daily results")
    for name, watched in players.items():
        page = watched.page
        page.locator("[data-daily-results]").click()
        page.wait_for_selector("table.ranking tbody tr")
        rows = page.locator("table.ranking tbody tr").evaluate_all(
            "rows => rows.map(r => [...r.cells].map(c => c.textContent))"
        )
        assert sorted(row[1] for row in rows) == ["Dora", "Emil"]
        for _place, who, score in rows:
            assert score == f"{scores[who]:.1f} %", (who, score, scores)
        assert page.locator("table.ranking tr.you td").nth(1).text_content() == name
        deals = page.locator(".daily-deal")
        assert deals.count() == len(records[name]["deals"])
        other = "Emil" if name == "Dora" else "Dora"
        assert deals.first.locator(".others a", has_text=other).count() == 1
        no_overflow(page)
        audit(page, f"daily results, {name}")
        size = "desktop" if name == "Dora" else "phone"
        page.screenshot(path=shots / f"daily-results-{size}.png", full_page=True)
    # the other's play, read through one's own finished try
    page = players["Dora"].page
    page.locator(".daily-deal").first.locator(".others a").first.click()
    page.wait_for_selector(".replay .pod")
    assert page.locator(".replay .pod[data-seat='0'] .name").text_content() == "Emil"
    for watched in players.values():
        watched.close()
