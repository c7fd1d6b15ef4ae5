"""The browser page, end to end: Playwright driving Debian's Chromium against ``backalley
serve`` in a subprocess. Every test fails on a console error; ``BACKALLEY_SCREENSHOTS=1``
saves the README's screenshots into docs/images/web/ (else into the test's folder)."""

from __future__ import annotations

import gzip
import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from backalley import Phase
from backalley.analysis import claim_holds
from backalley.record import read_record, replay, verify
from backalley.server.client import create_table, seat_bot
from backalley.server.client import request as http
from server_support import Server, database

playwright_api = pytest.importorskip("playwright.sync_api")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="no chromium: scripts/test.sh installs Debian's"
)
ROOT = Path(__file__).resolve().parent.parent
WEB = ROOT / "src" / "backalley" / "web"
PHONE = {"width": 360, "height": 740}
DESKTOP = {"width": 1280, "height": 800}
LONG = 120_000  # ms: a first review may wait for the solver to be compiled on this machine


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    running = Server.start(database("sqlite", tmp_path_factory.mktemp("web")))
    yield running
    running.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with playwright_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield chromium
        chromium.close()


@pytest.fixture
def shots(tmp_path: Path) -> Path:
    saved = os.environ.get("BACKALLEY_SCREENSHOTS")
    folder = ROOT / "docs" / "images" / "web" if saved else tmp_path
    folder.mkdir(parents=True, exist_ok=True)
    return folder


class Watched:
    """A browser context and page whose console errors are kept, to fail the test on."""

    def __init__(self, browser: Any, viewport: dict[str, int]) -> None:
        self.context = browser.new_context(viewport=viewport)
        self.errors: list[str] = []
        self.page = self.new_page()

    def new_page(self) -> Any:
        page = self.context.new_page()
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        page.set_default_timeout(LONG)
        return page

    def close(self) -> None:
        self.context.close()
        assert self.errors == []


def no_overflow(page: Any) -> None:
    wide = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert wide <= 0, f"the page is {wide} px wider than the screen"


def create(page: Any, base: str, *, bots: bool, pace: str = "0.3") -> str:
    """Create a short game from the home page; the table's id."""
    page.goto(base + "/")
    page.fill("input[name=name]", "Ana")
    page.select_option("select[name=length]", "short")
    page.select_option("select[name=bots]", "all" if bots else "none")
    page.select_option("select[name=level]", "easy")
    page.select_option("select[name=pace]", pace)
    page.click("button[type=submit]")
    page.wait_for_url("**/t/*")
    return page.url.rsplit("/", 1)[-1]


def act_once(page: Any) -> bool:
    """Play this page's first legal action if it is its turn; whether it did."""
    for choice in (".bids button:not([disabled])", ".hand button.card:not([disabled])"):
        found = page.locator(choice)
        if found.count():
            try:  # the page may have been redrawn since: then it is no longer our turn
                found.first.click(timeout=2000)
            except playwright_api.TimeoutError:
                return False
            return True
    return False


def test_one_person_and_three_bots_play_a_short_game(
    server: Server, browser: Any, shots: Path
) -> None:
    for name, viewport in (("phone", PHONE), ("desktop", DESKTOP)):
        watched = Watched(browser, viewport)
        page = watched.page
        page.goto(server.base + "/")
        page.fill("input[name=name]", "Ana")
        no_overflow(page)
        page.screenshot(path=shots / f"home-{name}.png", full_page=True)
        table = create(page, server.base, bots=True)
        seen = {"bid": False, "play": False, "review": False}
        while not page.locator(".end:not([hidden])").count():
            page.wait_for_function(
                "document.querySelector('.bids button:not([disabled]),"
                " .hand button.card:not([disabled])') || !document.querySelector('.end').hidden"
            )
            if page.locator(".bids button").count() and not seen["bid"]:
                no_overflow(page)
                page.screenshot(path=shots / f"bidding-{name}.png", full_page=True)
                seen["bid"] = True
            if page.locator(".hand button.card:not([disabled])").count() and not seen["play"]:
                legal = page.locator(".hand button.card:not([disabled])").count()
                dimmed = page.locator(".hand button.card.dim").count()
                assert legal + dimmed == page.locator(".hand button.card").count()
                no_overflow(page)
                page.screenshot(path=shots / f"play-{name}.png", full_page=True)
                seen["play"] = True
            if not seen["review"] and page.locator(".review li").count():
                page.locator(".review").scroll_into_view_if_needed()
                page.screenshot(path=shots / f"review-{name}.png", full_page=True)
                seen["review"] = True
            act_once(page)
            page.wait_for_timeout(50)
        assert seen["bid"] and seen["play"]
        # The last deal's review (a tie-breaker's says there is nothing to review).
        page.wait_for_function("!document.querySelector('.review').hidden"
                               " && !document.querySelector('.review .quiet')")  # fmt: skip
        record = http(server.base, "GET", f"/api/tables/{table}/record")[1]
        verdict = verify(record).output
        assert verdict["finished"] and verdict["ok"]
        sheet = page.locator(".sheet tbody tr")
        assert sheet.count() == len(record["deals"]) + 1  # a row a deal, and the total
        totals = page.locator(".sheet tbody tr.total td").all_inner_texts()[3:]
        assert [int(x) for x in totals] == verdict["scores"]
        assert page.locator(".end .winner").inner_text()
        no_overflow(page)
        page.screenshot(path=shots / f"final-{name}.png", full_page=True)
        # The replay of the finished game, hands open, with its review.
        page.click(".end a")
        page.wait_for_selector(".replay .hands li")
        page.click("text=card ▶")
        frames = http(server.base, "GET", f"/api/tables/{table}/replay")[1]["deals"][0]["frames"]
        after = frames[min(1, len(frames) - 1)]  # a deal thrown in has no card to step over
        held = sum(len(hand) for hand in after["hands"])
        page.wait_for_function(
            f"document.querySelectorAll('.replay .hands .card').length == {held}"
        )
        page.wait_for_selector(".replay .review li")
        no_overflow(page)
        page.screenshot(path=shots / f"replay-{name}.png", full_page=True)
        watched.close()


def test_four_people_play_a_deal_together(server: Server, browser: Any) -> None:
    host = Watched(browser, DESKTOP)
    table = create(host.page, server.base, bots=False)
    host.page.wait_for_selector(".invites button.copy")
    links = host.page.locator(".invites button.copy[data-url*='invite']")
    urls = [links.nth(i).get_attribute("data-url") for i in range(links.count())]
    assert len(urls) == 3
    guests = []
    for number, url in enumerate(urls, start=1):
        guest = Watched(browser, PHONE)
        guest.page.goto(url)
        guest.page.fill("input[name=name]", f"Guest {number}")
        guest.page.click("button[type=submit]")
        guest.page.wait_for_url(f"**/t/{table}")
        guests.append(guest)
    everyone = [host, *guests]
    for person in everyone:
        person.page.wait_for_selector(".hand button.card")
    while not all(p.page.locator(".sheet tbody tr").count() >= 2 for p in everyone):
        if not any(act_once(p.page) for p in everyone):
            host.page.wait_for_timeout(100)
    names = host.page.locator(".seat .name").all_inner_texts()
    assert names == ["Ana", "Guest 1", "Guest 2", "Guest 3"]
    for person in everyone:
        person.close()


def test_a_page_closed_mid_trick_comes_back_where_it_was(server: Server, browser: Any) -> None:
    watched = Watched(browser, PHONE)
    page = watched.page
    table = create(page, server.base, bots=True)
    # Play on until a trick is under way and it is our turn.
    while True:
        page.wait_for_function(
            "document.querySelector('.bids button, .hand button.card:not([disabled])')"
        )
        if page.locator(".trick .card").count() and page.locator(".hand button.card").count():
            break
        act_once(page)
        page.wait_for_timeout(50)
    hand = page.locator(".hand .card").evaluate_all("cards => cards.map(c => c.dataset.card)")
    trick = page.locator(".trick .card").evaluate_all("cards => cards.map(c => c.dataset.card)")
    page.close()
    again = watched.new_page()
    again.goto(f"{server.base}/t/{table}")
    again.wait_for_selector(".hand .card")
    assert again.locator(".hand .card").evaluate_all("cs => cs.map(c => c.dataset.card)") == hand
    assert again.locator(".trick .card").evaluate_all("cs => cs.map(c => c.dataset.card)") == trick
    assert again.locator(".hand button.card:not([disabled])").count() >= 1  # still our turn
    watched.close()


def test_a_spectator_sees_no_hand(server: Server, browser: Any) -> None:
    host = Watched(browser, DESKTOP)
    table = create(host.page, server.base, bots=True, pace="1")
    host.page.wait_for_selector(".invites button.copy")
    watch = host.page.locator(".invites button.copy[data-url*='watch']").get_attribute("data-url")
    spectator = Watched(browser, PHONE)
    spectator.page.goto(watch)
    spectator.page.wait_for_selector(".seat")
    spectator.page.wait_for_selector(".info .deal")
    assert spectator.page.locator(".hand .card").count() == 0
    assert spectator.page.locator(".chat form").is_hidden()
    hand = host.page.locator(".hand .card").evaluate_all("cs => cs.map(c => c.dataset.card)")
    shown = spectator.page.locator(".card").evaluate_all("cs => cs.map(c => c.dataset.card)")
    public = spectator.page.locator(".info .card, .trick .card").count()
    assert len(shown) == public and not (set(hand) & set(shown) - set(shown[:public]))
    assert table
    no_overflow(spectator.page)
    spectator.close()
    host.close()


def test_the_pages_own_javascript_and_css_are_small() -> None:
    files = sorted(WEB.glob("*.js")) + sorted(WEB.glob("*.css"))
    size = sum(len(gzip.compress(path.read_bytes(), 9)) for path in files)
    assert size < 100_000, size


def test_keyboard_labels_and_the_four_colour_deck(server: Server, browser: Any) -> None:
    watched = Watched(browser, DESKTOP)
    page = watched.page
    create(page, server.base, bots=True)
    page.wait_for_selector(".hand .card")
    labels = page.locator(".hand .card").evaluate_all(
        "cs => cs.map(c => [c.dataset.card, c.getAttribute('aria-label')])"
    )
    names = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
    for card, label in labels:
        if card in ("BJ", "LJ"):
            assert label == ("Big Blooper" if card == "BJ" else "Little Blooper")
        else:
            assert label.endswith(f"of {names[card[1]]}"), (card, label)
    # Keyboard only: Tab to the first action and press Enter.
    page.wait_for_function(
        "document.querySelector('.bids button, .hand button.card:not([disabled])')"
    )
    before = page.locator(".seat .bid").count()
    bids = page.locator(".bids button")
    # A bid of board (the last button), which no throw-in takes back; else a card.
    first = bids.last if bids.count() else page.locator(".hand button.card:not([disabled])").first
    first.focus()
    page.keyboard.press("Enter")
    page.wait_for_function(f"document.querySelectorAll('.seat .bid').length > {before}"
                           " || document.querySelectorAll('.trick .card').length > 0")  # fmt: skip
    # The four-colour deck: diamonds blue; with two colours, red.
    page.evaluate(  # a diamond outside the regions the page redraws
        "document.body.append(Object.assign(document.createElement('span'),"
        " {id: 'sample', className: 'card s-D'}))"
    )
    colour = "getComputedStyle(document.getElementById('sample')).color"
    red = page.evaluate(colour)
    page.check("#four-colour")
    blue = page.evaluate(colour)
    assert red == "rgb(192, 21, 29)" and blue == "rgb(29, 78, 216)"
    watched.close()


def test_a_lost_connection_comes_back_where_it_was(browser: Any, tmp_path: Path) -> None:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = database("sqlite", tmp_path)
    server = Server.start(url, port)
    watched = Watched(browser, PHONE)
    try:
        page = watched.page
        table = create(page, server.base, bots=True)
        page.wait_for_function(
            "document.querySelector('.bids button, .hand button.card:not([disabled])')"
        )
        hand = page.locator(".hand .card").evaluate_all("cs => cs.map(c => c.dataset.card)")
        server.kill()  # the connection is lost
        page.wait_for_function("document.getElementById('status').textContent !== ''")
        server = Server.start(url, port)
        page.wait_for_function("document.getElementById('status').textContent === ''")
        assert page.url.endswith(f"/t/{table}")
        page.wait_for_selector(".hand .card")
        assert page.locator(".hand .card").evaluate_all("cs => cs.map(c => c.dataset.card)") == hand
        assert act_once(page)  # and play goes on
        page.wait_for_function("document.querySelectorAll('.seat .bid, .trick .card').length > 0")
    finally:
        watched.context.close()  # first: the page would try again while the server stops
        server.stop()
    # Chromium logs each refused reconnection attempt; nothing else may reach the console.
    assert [e for e in watched.errors if "WebSocket connection to" not in e] == []


def test_the_page_speaks_the_browsers_language_with_a_switch(server: Server, browser: Any) -> None:
    context = browser.new_context(viewport=PHONE, locale="es-ES")
    errors: list[str] = []
    page = context.new_page()
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    spanish = http(server.base, "GET", "/api/i18n/es")[1]["messages"]["New table"]
    dutch = http(server.base, "GET", "/api/i18n/nl")[1]["messages"]["New table"]
    assert spanish != "New table" and dutch != "New table"
    page.goto(server.base + "/")
    page.wait_for_selector("h1")
    assert page.locator("h1").inner_text() == spanish
    assert page.evaluate("document.documentElement.lang") == "es"
    page.select_option("#lang", "nl")
    page.wait_for_function(f"(document.querySelector('h1') || {{}}).textContent === {dutch!r}")
    page.reload()
    page.wait_for_function(f"(document.querySelector('h1') || {{}}).textContent === {dutch!r}")
    context.close()
    assert errors == []


def test_empty_seats_given_to_bots_and_the_turn_timer(server: Server, browser: Any) -> None:
    watched = Watched(browser, PHONE)
    page = watched.page
    page.goto(server.base + "/")
    page.fill("input[name=name]", "Ana")
    page.select_option("select[name=length]", "short")
    page.select_option("select[name=bots]", "none")
    page.select_option("select[name=pace]", "0.3")
    page.select_option("select[name=timer]", "30")
    page.click("button[type=submit]")
    page.wait_for_url("**/t/*")
    for _ in range(3):  # the host gives each empty seat to a bot
        page.wait_for_selector(".invites button:has-text('give to a bot')")
        page.locator(".invites li select").first.select_option("easy")
        page.locator(".invites button:has-text('give to a bot')").first.click()
        page.wait_for_timeout(200)
    page.wait_for_selector(".hand .card")
    assert page.locator(".seat .tag:has-text('bot')").count() == 3
    page.wait_for_function("/\\d+ s left/.test(document.querySelector('.prompt').textContent)")
    no_overflow(page)
    watched.close()


def test_the_claim_button_is_settled_as_the_solver_says(server: Server, browser: Any) -> None:
    """Claims at the first card of one-deal games, until the server has both accepted one and
    refused one: each time the page must say what the solver, asked here afterwards, says."""
    outcomes: set[bool] = set()
    for _ in range(25):
        watched = Watched(browser, DESKTOP)
        settled = _claim_in_the_browser(server.base, watched.page)
        watched.close()
        if settled is not None:
            outcomes.add(settled)
        if outcomes == {True, False}:
            break
    assert outcomes == {True, False}


def _claim_in_the_browser(base: str, page: Any) -> bool | None:
    """One table of one two-card deal, seat 0 in the browser and three bots: claim at our
    first card, check the page against the solver; whether the claim held (None: no card of
    ours came, the deal being thrown in)."""
    table = create_table(base, {"hand_sizes": [2], "pace": 0, "level": "easy"})
    page.goto(table["invites"][0]["url"])
    page.fill("input[name=name]", "Ana")
    page.click("button[type=submit]")
    page.wait_for_url(f"**/t/{table['id']}")
    for seat in (1, 2, 3):
        seat_bot(base, table, seat, "easy")
    while True:  # bid, until our first card is due or the game is over
        page.wait_for_function(
            "document.querySelector('.bids button:not([disabled]),"
            " .hand button.card:not([disabled]), .end .winner')"
        )
        if page.locator(".end .winner").count():
            return None
        if page.locator(".hand button.card:not([disabled])").count():
            break
        act_once(page)
    hand = page.locator(".hand .card").all_inner_texts()
    page.click("text=claim the rest")
    page.wait_for_function("/claim/.test(document.getElementById('toast').textContent)")
    said = page.locator("#toast").inner_text()
    accepted = "claim holds" in said
    if not accepted:  # refused: nothing changed, and play goes on
        assert "does not hold" in said
        assert page.locator(".hand .card").all_inner_texts() == hand
        while not page.locator(".end .winner").count():
            if not act_once(page):
                page.wait_for_timeout(50)
    page.wait_for_selector(".end .winner")
    record = http(base, "GET", f"/api/tables/{table['id']}/record")[1]
    assert verify(record).exit_code == 0
    assert accepted == claim_holds(_at_our_first_card(record))
    return accepted


def _at_our_first_card(record: dict[str, Any]) -> Any:
    """The game as it stood when seat 0's first card was due (where it claimed); a deal
    thrown in before it has no card."""
    for deal, played in enumerate(record["deals"]):
        for cards in range(len(played["play"]) + 1):
            cut = json.loads(json.dumps(record))
            cut["deals"] = cut["deals"][: deal + 1]
            cut["deals"][deal]["play"] = played["play"][:cards]
            game = replay(read_record(cut))
            if game.phase == Phase.PLAY and game.to_move == 0:
                return game
    raise AssertionError("seat 0 never had a card to play")
