"""A team match in the browser: Ana makes it from the home page's form, gives every seat
but one to bots from the match's page, and Bo takes the last one (table 2, her team's) from
its invite link in a second browser; both play at once, and the match's page ends with the
total this test works out from the two tables' records. ``BACKALLEY_SCREENSHOTS=1`` saves
the match's page."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from backalley.record import read_record, replay
from backalley.server import daily
from backalley.server.client import request as http
from browser_support import (
    DESKTOP,
    PHONE,
    Watched,
    act_once,
    browser,
    needs_chromium,
    no_overflow,
    secret_of,
    shots,
)
from server_support import server
from test_web_a11y import Audit, axe_source

pytestmark = [needs_chromium, pytest.mark.browser]
__all__ = ["axe_source", "browser", "server", "shots"]  # fixtures


def team_a_total(records: list[dict[str, Any]]) -> int:
    """Team A (side 0 at table 1, side 1 at table 2): over the deals both tables played to
    their end with the same cards and dealer, its points less team B's at each table."""
    points = []
    for record in records:
        game = replay(read_record(record))
        points.append({daily.result_key(game.deals, i): d.points
                       for i, d in enumerate(game.deals) if d.points is not None})  # fmt: skip
    both = set(points[0]) & set(points[1])
    assert both, "no deal was played at both tables"
    return sum(points[0][k][0] - points[0][k][1] + points[1][k][1] - points[1][k][0] for k in both)


def test_a_team_match_of_people_and_bots_ends_with_the_total_of_both_tables(
    server: Any, browser: Any, shots: Path, axe_source: str
) -> None:
    ana, bo = Watched(browser, DESKTOP), Watched(browser, PHONE)
    page = ana.page
    page.goto(server.base + "/?new")
    page.fill("input[name=name]", "Ana")
    page.select_option("select[name=bots]", "none")
    page.select_option("select[name=level]", "easy")
    page.select_option("select[name=pace]", "0.3")
    page.check("input[name=match]")
    page.click("form button[type=submit]")
    page.wait_for_url(re.compile(r"/m/[\w-]+$"))
    match_id = page.url.rsplit("/", 1)[-1]
    page.wait_for_selector(".match-teams .seat-invite")
    audit = Audit(axe_source, "the team match")
    audit(page, "a match's page, its seats free")
    # seat 2 of table 2 (index 1) is team A's there: Bo's; bots for the others
    teams = page.locator(".match-teams table tbody tr")
    bo_invite = teams.nth(0).locator("td").nth(1).locator("button.copy").first
    invite = bo_invite.get_attribute("data-url")
    assert invite and "seat=1" in invite
    while (count := page.locator(".seat-invite").count()) > 1:
        spans = page.locator(".seat-invite").all()
        urls = [span.locator("button.copy").get_attribute("data-url") for span in spans]
        spans[next(i for i, url in enumerate(urls) if url != invite)].locator(
            "button.quiet-button"
        ).click()
        page.wait_for_function(
            f"document.querySelectorAll('.seat-invite').length < {count}", timeout=10_000
        )
    bo.page.goto(invite)
    bo.page.fill("input[name=name]", "Bo")
    bo.page.click("form.join button[type=submit]")
    bo.page.wait_for_url(re.compile(r"/t/[\w-]+$"))
    hrefs = page.locator(".match-teams a.button").evaluate_all(
        "links => links.map(l => l.getAttribute('href'))"
    )
    tables = [href.split("?")[0].rsplit("/", 1)[-1] for href in hrefs]
    page.goto(f"{server.base}/t/{tables[0]}")
    players = [page, bo.page]
    while not all(p.locator(".overlay.end").count() for p in players):  # both tables at once
        for p in players:
            if not p.locator(".overlay.end").count():
                act_once(p)
        page.wait_for_timeout(40)
    records = []
    for p, table_id in ((page, tables[0]), (bo.page, tables[1])):
        status, record = http(server.base, "GET", f"/api/tables/{table_id}/record",
                              token=secret_of(p, table_id))  # fmt: skip
        assert status == 200, record
        records.append(record)
    total = team_a_total(records)
    page.locator("[data-match]").click()
    page.wait_for_url(f"**/m/{match_id}")
    page.wait_for_selector(".match-verdict")
    shown = page.locator("[data-total]").get_attribute("data-total")
    assert shown == str(total), (shown, total)
    assert page.locator(".match-result tbody tr[data-deal]").count() >= 1
    no_overflow(page)
    audit(page, "a match's page, over")
    page.screenshot(path=shots / "match-desktop.png", full_page=True)
    bo.page.goto(f"{server.base}/m/{match_id}")
    bo.page.wait_for_selector(".match-verdict")
    assert bo.page.locator("[data-total]").get_attribute("data-total") == str(total)
    no_overflow(bo.page)
    audit(bo.page, "a match's page, over, on a phone")
    bo.page.screenshot(path=shots / "match-phone.png", full_page=True)
    # the other table's record, read through one's own
    bo.page.locator(".match-deals a.button").first.click()
    bo.page.wait_for_selector(".replay .pod")
    assert bo.page.locator(".replay .pod[data-seat='0'] .name").text_content() == "Ana"
    ana.close()
    bo.close()
