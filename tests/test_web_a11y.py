"""The page for everyone: axe-core (WCAG 2.1 A and AA) on every page and state, at a phone's
size and a desktop's, in two languages, with no serious or critical violation; and a whole
game played by keyboard alone, the focus where it should be after every move.

axe-core comes from npm, installed by scripts/test.sh into tests/.npm (never from a CDN)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from backalley.server.client import create_table, seat_bot, take_seat
from backalley.server.client import request as http
from browser_support import (
    DESKTOP,
    MY_TURN,
    PHONE,
    RESTING,
    ROOT,
    Watched,
    account_game,
    act_once,
    against_bots,
    browser,
    create,
    member_of,
    needs_chromium,
    sit,
)
from server_support import Server, server

pytestmark = [needs_chromium, pytest.mark.browser]
__all__ = ["browser", "server"]  # fixtures

AXE = ROOT / "tests" / ".npm" / "node_modules" / "axe-core" / "axe.min.js"
WCAG = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
#: The states of the table page the audit must reach in a game.
TABLE_STATES = ("bidding", "play", "our lead", "a finished trick", "the deal's review", "the end")


@pytest.fixture(scope="module")
def axe_source() -> str:
    assert AXE.exists(), "axe-core is missing: scripts/test.sh installs it with npm"
    return AXE.read_text(encoding="utf-8")


class Audit:
    """axe-core run on a page in each state it is shown in; what it checked, kept."""

    def __init__(self, source: str, where: str) -> None:
        self.source = source
        self.where = where
        self.checked: list[str] = []

    def __call__(self, page: Any, state: str) -> None:
        if not page.evaluate("typeof window.axe === 'object'"):
            page.add_script_tag(content=self.source)
        run = "tags => axe.run(document, {runOnly: {type: 'tag', values: tags}})"
        results = page.evaluate(run, WCAG)
        bad = [
            f"{v['id']} ({v['impact']}): {v['help']} — {[n['target'] for n in v['nodes'][:3]]}"
            for v in results["violations"]
            if v["impact"] in ("serious", "critical")
        ]
        assert bad == [], f"{state}, {self.where}: {bad}"
        self.checked.append(state)


def a_game_to_audit(base: str, page: Any, audit: Audit) -> set[str]:
    """Play a game of two deals of 2 cards against bots, auditing each table state
    as it comes (the pause after a trick waits for a tap, so that the finished trick can be
    audited)."""
    table, token = against_bots(base, hand_sizes=[2, 2], pace=0.1)
    sit(page, base, table["id"], 0, token, "Ana")
    seen: set[str] = set()

    def once(state: str) -> None:
        if state not in seen:
            audit(page, state)
            seen.add(state)

    while not page.locator(".overlay.end").count():
        page.wait_for_function(
            f"{MY_TURN} || document.querySelector('.overlay.end, [data-trick] [data-winner]')"
        )
        if page.locator("[data-trick] [data-winner]").count():
            page.wait_for_function(RESTING)
            once("a finished trick")
            page.click(".felt")  # a tap goes on
            page.wait_for_function("!document.querySelector('[data-trick] [data-winner]')")
            continue
        if page.locator("#panel-review li").count() and "the deal's review" not in seen:
            page.click("#tab-review")
            once("the deal's review")
            page.click("#tab-sheet")
        if page.locator(".bids button").count():
            once("bidding")
        elif page.locator(".hand .card.legal").count():
            once("play" if page.locator(".trick .card").count() else "our lead")
        act_once(page, highest=True)  # the highest bid leads to the first trick: our lead
        page.wait_for_timeout(50)
    once("the end")
    return seen


#: Each language and each size audited once: the page's layout is the size's, its words the
#: language's (a run of every pairing took CI two more minutes of browser).
@pytest.mark.parametrize(("lang", "size"), [("en", "phone"), ("es", "desktop")])
def test_every_page_and_state_has_no_serious_violation(
    server: Server, browser: Any, axe_source: str, lang: str, size: str, record_property: Any
) -> None:
    viewport = PHONE if size == "phone" else DESKTOP
    watched = Watched(browser, viewport, locale=lang, settings={"speed": "tap"})
    page = watched.page
    audit = Audit(axe_source, f"{viewport['width']}×{viewport['height']}, {lang}")
    public = create_table(server.base, {"hand_sizes": [1], "public": True})
    take_seat(server.base, public, 0, "Bo")
    page.goto(server.base + "/")
    page.wait_for_selector(f".lobby-list li[data-table='{public['id']}']")
    audit(page, "home and lobby")
    page.goto(server.base + "/?new")
    page.click(".create .options summary")
    audit(page, "home, options open")
    page.goto(public["invites"][1]["url"])
    page.wait_for_selector(".join-seats li")
    audit(page, "join")
    page.goto(server.base + "/account")
    page.wait_for_selector("form.account-form")
    audit(page, "account, signed out")
    name = f"Audit {lang} {size}"
    signing_up = page.locator("form.account-form").nth(1)
    signing_up.locator("input[name=name]").fill(name)
    signing_up.locator("input[name=password]").fill("a long enough secret")
    signing_up.locator("button[type=submit]").click()
    page.wait_for_selector("a[href^='/players/']")
    audit(page, "account, signed in")
    profile = page.locator("a[href^='/players/']").first.get_attribute("href")
    create(page, server.base, bots=False)
    page.wait_for_selector(".overlay.waiting")
    audit(page, "waiting for players")
    # A game, then its replay; and a spectator of a game under way.
    for _ in range(8):  # "our lead" may not come in one game (a few rarely bring it)
        missing = set(TABLE_STATES) - set(audit.checked)
        if not missing:
            break
        a_game_to_audit(server.base, page, audit)
    assert set(TABLE_STATES) <= set(audit.checked)
    table = page.url.rsplit("/", 1)[-1]
    page.goto(f"{server.base}/replay/{table}")
    page.wait_for_selector(".replay .review li")
    audit(page, "replay")
    running = create_table(server.base, {"hand_sizes": [3], "pace": 2, "public": True})
    for seat in range(4):
        seat_bot(server.base, running, seat, "easy")
    page.goto(f"{server.base}/t/{running['id']}?watch")
    page.wait_for_selector(".pod .backs")
    audit(page, "spectator")
    account_game(server.base, member_of(watched.context, server.base), seed=1)
    for _ in range(100):  # the ratings take the game in a moment after it ends
        if http(server.base, "GET", "/api" + profile)[1]["history"]:
            break
        page.wait_for_timeout(100)
    page.goto(server.base + profile)
    page.wait_for_selector(".profile svg.chart")
    audit(page, "profile")
    page.goto(server.base + "/leaderboard")
    page.wait_for_selector("table.board")
    audit(page, "leaderboard")
    states = sorted(set(audit.checked))
    print(f"axe-core at {audit.where}: {len(states)} page states checked: {', '.join(states)}")
    record_property("axe_checked", len(states))
    watched.close()


# ---------------------------------------------------------------------- by keyboard alone


def focused(page: Any) -> dict[str, Any]:
    """Where the focus is: the group it is in and what it is."""
    return dict(
        page.evaluate("""() => {
          const el = document.activeElement;
          const group = el.closest('.hand') ? 'hand'
            : el.closest('.bids') ? 'bids' : el.id || el.tagName;
          return {group, card: el.dataset.card || null, bid: el.dataset.bid || null,
                  legal: el.classList.contains('legal') || Boolean(el.dataset.bid)};
        }""")
    )


@pytest.fixture
def keyboard_table(server: Server) -> Iterator[tuple[dict[str, Any], str]]:
    yield against_bots(server.base, pace=0.3)


def test_a_whole_short_game_by_keyboard_alone(
    server: Server, browser: Any, keyboard_table: tuple[dict[str, Any], str]
) -> None:
    table, token = keyboard_table
    watched = Watched(browser, DESKTOP)
    page = watched.page
    sit(page, server.base, table["id"], 0, token, "Ana")
    page.wait_for_selector(".pod .backs")
    # Tab only to enter the table: the skip link first, and it leads to the game (unless our
    # turn came as the page opened, which brought the focus to the hand or bids already).
    if focused(page)["group"] not in ("hand", "bids"):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.id") != "skip" and page.evaluate(f"!!({MY_TURN})"):
            # Our turn came between the look and the key, and took the focus before the Tab
            # moved it on: open the page again, on our turn.
            page.reload()
            page.wait_for_selector(".pod .backs")
        else:
            assert page.evaluate("document.activeElement.id") == "skip"
            page.keyboard.press("Enter")
            assert focused(page)["group"] in ("hand", "bids", "table")
    moves = 0
    while not page.locator(".overlay.end").count():
        page.wait_for_function(f"{MY_TURN} || document.querySelector('.overlay.end')")
        if page.locator(".overlay.end").count():
            break
        # The turn came: the focus is on our bids, or on a card we may play.
        page.wait_for_function("document.activeElement.closest('.bids, .hand')")
        where = focused(page)
        bidding = page.locator(".bids button").count() > 0
        assert where["group"] == ("bids" if bidding else "hand"), where
        assert where["legal"], where
        if bidding:  # the arrows: to the next bid and back, then one more: "1" if there is one
            page.keyboard.press("ArrowRight")
            page.keyboard.press("ArrowLeft")
            assert focused(page)["bid"] == where["bid"]
            page.keyboard.press("ArrowRight")
            chosen = focused(page)["bid"]
            page.keyboard.press("Enter")
            page.wait_for_function(
                f"[...document.querySelectorAll('.pod.me .chip.bid')].length"
                f" || !document.querySelector(\".bids [data-bid='{chosen}']\")"
            )
        else:  # a legal card: the one focused, played with Space
            card = where["card"]
            page.keyboard.press("Space")
            page.wait_for_function(f"!document.querySelector(\".hand [data-card='{card}']\")")
        moves += 1
        # Never lost to the page's body after a move and the redraw.
        assert page.evaluate("document.activeElement !== document.body")
    assert moves >= 6
    assert page.evaluate("document.activeElement !== document.body")
    record = http(server.base, "GET", f"/api/tables/{table['id']}/record", token=table["host"])[1]
    assert len(record["deals"]) >= 3
    watched.close()
