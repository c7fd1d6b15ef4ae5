"""The browser tests' shared parts: a server and Debian's Chromium under Playwright, browser
contexts that fail a test on any console error, and the moves of a player at the table."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from backalley.server.client import Member, Seat, create_table, seat_bot, take_seat

playwright_api = pytest.importorskip("playwright.sync_api")
#: Debian's Chromium, where the package puts it, before any other `chromium` on the PATH.
DEBIAN_CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM = (
    str(DEBIAN_CHROMIUM)
    if DEBIAN_CHROMIUM.exists()
    else shutil.which("chromium") or shutil.which("chromium-browser")
)
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None, reason="no chromium: scripts/test.sh installs Debian's"
)
ROOT = Path(__file__).resolve().parent.parent
WEB = ROOT / "src" / "backalley" / "web"
PHONE = {"width": 360, "height": 740}
DESKTOP = {"width": 1280, "height": 800}
LONG = 120_000  # ms: a first review may wait for the solver to be compiled on this machine

#: Our turn: a bid to make, or a card we may play.
MY_TURN = (
    "document.querySelector('.bids button:not([aria-disabled]),"
    " .hand button.card.legal:not([aria-disabled])')"
)
OVER = "document.querySelector('.overlay.end')"
#: A completed trick resting on the table: its winner marked, its cards no longer moving.
RESTING = (
    "document.querySelector('[data-trick] [data-winner]') && [...document.querySelectorAll("
    "'[data-trick] .card')].every((card) => !card.getAnimations().length)"
)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with playwright_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=CHROMIUM,
            args=["--no-sandbox", "--disable-background-networking", "--disable-component-update"],
        )
        yield chromium
        chromium.close()


@pytest.fixture
def shots(tmp_path: Path) -> Path:
    saved = os.environ.get("BACKALLEY_SCREENSHOTS")
    folder = ROOT / "docs" / "images" / "web" if saved else tmp_path
    folder.mkdir(parents=True, exist_ok=True)
    return folder


class Watched:
    """A browser context and page whose console errors are kept, to fail the test on; the
    page's settings (``speed`` of the pause after a trick, …) set before it loads."""

    def __init__(self, browser: Any, viewport: dict[str, int], **options: Any) -> None:
        settings = options.pop("settings", {"speed": "fast"})
        # Playwright's wait_for_function evaluates its predicate with eval, which the page's
        # Content-Security-Policy forbids: the tests lift it (test_web.py's
        # test_the_page_keeps_to_its_content_security_policy plays under it).
        options.setdefault("bypass_csp", True)
        self.context = browser.new_context(viewport=viewport, **options)
        self.context.add_init_script(
            f"localStorage.setItem('backalley.settings', {json.dumps(json.dumps(settings))})"
        )
        self.errors: list[str] = []
        self.page = self.new_page()

    def new_page(self) -> Any:
        page = self.context.new_page()
        page.on(
            "console",
            lambda m: (
                self.errors.append(f"{m.text} ({m.location.get('url')})")
                if m.type == "error"
                else None
            ),
        )
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        page.set_default_timeout(LONG)
        return page

    def close(self) -> None:
        self.context.close()
        assert self.errors == [], self.errors


def no_overflow(page: Any) -> None:
    wide = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert wide <= 0, f"the page is {wide} px wider than the screen"


def create(
    page: Any,
    base: str,
    *,
    bots: bool,
    pace: str = "0.3",
    level: str = "easy",
    length: str = "short",
    public: bool = False,
    timer: str = "",
    name: str = "Ana",
) -> str:
    """Create a table from the home page's form; the table's id."""
    page.goto(base + "/?new")
    if page.locator("input[name=name]").first.is_editable():  # signed in: the account's name
        page.fill("input[name=name]", name)
    page.select_option("select[name=length]", length)
    page.select_option("select[name=bots]", "all" if bots else "none")
    page.select_option("select[name=level]", level)
    page.select_option("select[name=pace]", pace)
    page.select_option("select[name=timer]", timer)
    if public:
        page.check("input[name=public]")
    page.click("form button[type=submit]")
    page.wait_for_url("**/t/*")
    return str(page.url.rsplit("/", 1)[-1])


def against_bots(base: str, **settings: Any) -> tuple[dict[str, Any], str]:
    """A table (short by default, easy bots at once) with "Ana" at seat 0 and a bot in every
    other seat: the table, and Ana's token."""
    settings = {"hand_sizes": [3, 2, 1], "pace": 0, "level": "easy", **settings}
    table = create_table(base, settings)
    token = take_seat(base, table, 0, "Ana")
    for seat in range(1, len(table["invites"])):
        seat_bot(base, table, seat, settings["level"])
    return table, token


def sit(page: Any, base: str, table_id: str, seat: int, token: str, name: str) -> None:
    """Open ``table_id`` in ``page`` as the player holding ``token`` at ``seat``."""
    page.goto(base + "/")
    facts = {table_id: {"seat": seat, "token": token, "name": name, "at": 0}}
    page.evaluate("facts => localStorage.setItem('backalley.tables', JSON.stringify(facts))", facts)
    page.goto(f"{base}/t/{table_id}")


def secret_of(page: Any, table_id: str) -> str:
    """The secret this page's browser holds for ``table_id`` (its seat's token, or the
    host's): what reads a private table's record."""
    facts = page.evaluate(f"JSON.parse(localStorage.getItem('backalley.tables'))[{table_id!r}]")
    return str(facts.get("token") or facts["host"])


def act_once(page: Any, highest: bool = False) -> bool:
    """Play this page's first legal action if it is its turn (bidding 1 where it may, to keep
    deals from being thrown in; or, with ``highest``, the highest bid, board above any
    number, which leads to the first trick, P1); whether it did."""
    bids = page.locator(".bids button:not([aria-disabled])")
    cards = page.locator(".hand button.card.legal:not([aria-disabled])")
    target = None
    if bids.count() and highest:
        offered = bids.evaluate_all("els => els.map(e => e.dataset.bid)")
        numbers = [b for b in offered if b.isdigit()]
        top = "board" if "board" in offered else max(numbers, key=int) if numbers else None
        target = bids.first if top is None else page.locator(f".bids button[data-bid='{top}']")
    elif bids.count():
        one = page.locator(".bids button[data-bid='1']:not([aria-disabled])")
        target = one if one.count() else bids.first
    elif cards.count():
        target = cards.first
    if target is None:
        return False
    try:  # the page may have been redrawn since: then it is no longer our turn
        target.click(timeout=2000)
    except playwright_api.TimeoutError:
        return False
    return True


def play_to_the_end(page: Any, on_turn: Any = None) -> None:
    """Act whenever it is our turn until the game is over; ``on_turn(page)`` first."""
    while not page.locator(".overlay.end").count():
        page.wait_for_function(f"{MY_TURN} || {OVER}")
        if page.locator(".overlay.end").count():
            return
        if on_turn is not None:
            on_turn(page)
        act_once(page)
        page.wait_for_timeout(30)


def cards_in(page: Any, selector: str) -> list[str]:
    return list(page.locator(selector).evaluate_all("cs => cs.map(c => c.dataset.card)"))


def member_of(context: Any, base: str) -> Member:
    """The account signed in in a browser context, as a client of the API: its cookie, and
    the CSRF token the server gives for it."""
    someone = Member(base)
    [cookie] = [c for c in context.cookies() if c["name"] == "backalley_session"]
    someone.cookie = cookie["value"]
    status, answer = someone.request("GET", "/api/account")
    assert status == 200 and answer["account"] is not None
    someone.csrf, someone.account = answer["csrf"], answer["account"]
    return someone


def account_game(base: str, someone: Member, seed: int, level: str = "medium") -> str:
    """A one-deal game that ``someone``'s account plays to its end against bots (played by
    random legal choices, through the API, in a thread of its own: Playwright's loop runs in
    the test's); the table's id."""
    import asyncio
    import random
    from concurrent.futures import ThreadPoolExecutor

    table = create_table(base, {"hand_sizes": [1], "pace": 0, "level": level})
    status, _ = someone.request(
        "POST", f"/api/tables/{table['id']}/seats/0",
        {"invite": table["invites"][0]["invite"], "name": someone.account["name"]},
    )  # fmt: skip
    assert status == 201
    for seat in (1, 2, 3):
        seat_bot(base, table, seat, level)

    async def play() -> None:
        rng = random.Random(seed)
        async with Seat.connect(base, table["id"], member=someone) as seat:
            while True:
                await seat.until(lambda s: s.view is not None and (s.my_turn or s.over))
                if seat.over:
                    return
                assert seat.view is not None
                await seat.reply(await seat.act(rng.choice(seat.view["legal"])))

    with ThreadPoolExecutor(1) as aside:
        aside.submit(asyncio.run, asyncio.wait_for(play(), 60)).result()
    return str(table["id"])
