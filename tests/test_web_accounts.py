"""Accounts in the browser: sign up, play a short game against bots, sign in from a second
browser context and find the game there, on the profile and, after enough games, on the
leaderboard; a wrong password and an unknown name get the same message (that they take the
same time is measured over HTTP, in tests/test_accounts.py: a browser's own time swamps it).
``BACKALLEY_SCREENSHOTS=1`` saves the account, profile and leaderboard screenshots."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from backalley.ratings import PROVISIONAL_SIGMA
from backalley.server.client import Member
from backalley.server.client import request as http
from browser_support import (
    DESKTOP,
    PHONE,
    Watched,
    account_game,
    browser,
    create,
    needs_chromium,
    no_overflow,
    play_to_the_end,
    shots,
)
from server_support import Server, server

pytestmark = [needs_chromium, pytest.mark.browser]
__all__ = ["browser", "server", "shots"]  # fixtures

PASSWORD = "a long enough secret"


def sign_up(page: Any, base: str, name: str) -> None:
    page.goto(base + "/account")
    form = page.locator("form", has=page.get_by_role("heading", name="New account"))
    form.locator("input[name=name]").fill(name)
    form.locator("input[name=password]").fill(PASSWORD)
    form.locator("button[type=submit]").click()
    page.get_by_role("heading", name=f"Signed in as {name}").wait_for()


def sign_in(page: Any, base: str, name: str, password: str) -> str:
    """Try to sign in from the account page: the message the form shows ("" when it went
    through)."""
    page.goto(base + "/account")
    form = page.locator("form", has=page.get_by_role("heading", name="Sign in"))
    form.locator("input[name=name]").fill(name)
    form.locator("input[name=password]").fill(password)
    form.locator("button[type=submit]").click()
    page.wait_for_function(
        "document.querySelector('.form-error')?.textContent || "
        "document.querySelector('h1')?.textContent.startsWith('Signed in')"
    )
    error = page.locator(".form-error")
    return str(error.first.text_content()) if error.count() else ""


def test_an_account_finds_its_game_on_a_second_browser_and_climbs_the_leaderboard(
    server: Server, browser: Any, shots: Path
) -> None:
    first = Watched(browser, DESKTOP)
    page = first.page
    sign_up(page, server.base, "Rosa")
    page.screenshot(path=shots / "account-desktop.png", full_page=True)
    assert page.locator("#nav-account").text_content() == "Rosa"
    table = create(page, server.base, bots=True, name="Rosa")
    play_to_the_end(page)

    second = Watched(browser, PHONE)
    other = second.page
    assert sign_in(other, server.base, "Rosa", PASSWORD) == ""
    other.goto(server.base + "/")
    link = other.locator(f".games a[href='/replay/{table}'], .games a[href='/t/{table}']")
    link.first.wait_for()
    other.goto(server.base + "/account")
    other.get_by_role("link", name="your profile, games and rating").click()
    other.locator(f".games a[href='/replay/{table}']").wait_for()
    other.get_by_text("(provisional)").wait_for()
    no_overflow(other)

    # More games, played by the account through the API, until its rating is no longer
    # provisional: then the leaderboard lists it with the rated players.
    someone = Member(server.base)
    assert someone.sign_in("Rosa", PASSWORD)[0] == 200
    account = someone.account["id"]
    games = 1
    while True:
        rating = http(server.base, "GET", f"/api/players/{account}")[1]["rating"]
        if rating["games"] == games and rating["sigma"] < PROVISIONAL_SIGMA:
            break
        if rating["games"] == games:
            account_game(server.base, someone, seed=games)
            games += 1
        else:
            time.sleep(0.1)
    assert games <= 20  # the provisional threshold is reached in a reasonable number of games
    other.goto(server.base + "/leaderboard")
    rated = other.locator("table.board", has=other.locator("caption", has_text="Rated players"))
    rated.get_by_role("link", name="Rosa").wait_for()
    no_overflow(other)
    other.screenshot(path=shots / "leaderboard-phone.png", full_page=True)
    other.goto(f"{server.base}/players/{account}")
    other.locator("svg.chart").wait_for()
    assert other.locator("svg.chart circle").count() == games
    other.screenshot(path=shots / "profile-phone.png", full_page=True)
    page.goto(f"{server.base}/players/{account}")
    page.locator("svg.chart").wait_for()
    page.screenshot(path=shots / "profile-desktop.png", full_page=True)
    first.close()
    second.close()


def test_a_wrong_password_and_an_unknown_name_look_the_same(server: Server, browser: Any) -> None:
    watched = Watched(browser, DESKTOP)
    page = watched.page
    sign_up(page, server.base, "Selma")
    page.get_by_role("button", name="Sign out", exact=True).click()
    page.wait_for_url(server.base + "/")
    said: dict[str, set[str]] = {"wrong": set(), "unknown": set()}
    for attempt in range(4):
        for kind, name in (("wrong", "Selma"), ("unknown", f"Nobody {attempt}")):
            said[kind].add(sign_in(page, server.base, name, "not the password"))
    assert said["wrong"] == said["unknown"] and len(said["wrong"]) == 1
    assert said["wrong"] != {""}
    # the browser logs each refused sign-in's answer, which is the point here; nothing else
    refused = "the server responded with a status of 401"
    assert len([e for e in watched.errors if refused in e]) == 8
    watched.errors = [e for e in watched.errors if refused not in e]
    watched.close()
