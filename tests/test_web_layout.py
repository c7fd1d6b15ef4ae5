"""The table's layout at every size a player brings, in every state of a game: nothing on the
felt covers anything else (seats, trick cards, banners, the corners, the hand), the cards are
as big as the screen allows, overlays are opaque, and the score sheet reads at a glance.

One game against bots is played at one size; at each new state (a bid to make, 0 to 3 cards
in the trick when it is our turn, a resting trick, the review, the end, and a waiting room)
the page is resized to each size and measured (Chromium lays it out again at once)."""

from __future__ import annotations

from typing import Any

import pytest

from backalley.server.client import create_table, seat_bot, take_seat
from browser_support import (
    DESKTOP,
    MY_TURN,
    OVER,
    RESTING,
    Watched,
    act_once,
    against_bots,
    browser,
    needs_chromium,
    sit,
)
from server_support import server

pytestmark = [needs_chromium, pytest.mark.browser]
__all__ = ["browser", "server"]  # fixtures

SIZES = [(360, 640), (390, 844), (768, 1024), (1280, 800), (1920, 1080)]

#: The boxes that must not meet, each named by its kind and what it shows.
BOXES = """() => {
  const boxes = [];
  const add = (kind, el, name) => {
    const r = el.getBoundingClientRect();
    if (r.width > 0 && r.height > 0) {
      boxes.push({ kind, name, x: r.left, y: r.top, w: r.width, h: r.height });
    }
  };
  const all = (selector) => [...document.querySelectorAll(selector)];
  for (const pod of all(".felt .pod")) add("seat", pod, pod.textContent.trim().slice(0, 30));
  for (const card of all("[data-trick] .card")) add("trick card", card, card.dataset.card);
  const banner = document.querySelector(".felt .banner");
  if (banner && banner.textContent.trim()) add("banner", banner, banner.textContent.trim());
  for (const part of all(".corner.nw > *, .corner.ne > *")) add("corner", part, part.className);
  const hand = document.querySelector(".hand");
  if (hand && hand.children.length) add("hand", hand, `${hand.children.length} cards`);
  return boxes;
}"""

#: What the page shows now, as a state of the list above.
STATE = f"""() => {{
  if ({OVER}) return "end";
  if (document.querySelector(".overlay.waiting:not([hidden])")) return "waiting room";
  if ({RESTING}) return "resting trick";
  if (document.querySelector(".bids button:not([aria-disabled])")) return "bidding";
  return `${{document.querySelectorAll("[data-trick] .card").length}} trick cards`;
}}"""

#: Nothing moves: the cards have come to rest.
STILL = "![...document.querySelectorAll('.card')].some((card) => card.getAnimations().length)"

#: What the checks read beside the boxes: the cards' heights, the overlays' backgrounds.
FACTS = """() => {
  const height = (selector) => {
    const el = document.querySelector(selector);
    return el ? el.getBoundingClientRect().height : null;
  };
  const overlay = [...document.querySelectorAll(".overlay:not([hidden])")];
  return {
    hand: height(".hand .card"), turnUp: height(".turned-up .card"),
    overlays: overlay.map((el) => getComputedStyle(el).backgroundColor),
    wide: document.documentElement.scrollWidth - innerWidth,
  };
}"""


def meeting(boxes: list[dict[str, Any]]) -> list[str]:
    """The pairs of ``boxes`` that overlap by more than half a pixel each way."""
    met = []
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            dx = min(a["x"] + a["w"], b["x"] + b["w"]) - max(a["x"], b["x"])
            dy = min(a["y"] + a["h"], b["y"] + b["h"]) - max(a["y"], b["y"])
            if dx > 0.5 and dy > 0.5:
                met.append(f"{a['kind']} {a['name']!r} and {b['kind']} {b['name']!r}")
    return met


def opaque(colour: str) -> bool:
    """Whether a computed CSS colour (``rgb(…)`` or ``rgba(…)``) has no transparency."""
    return colour.startswith("rgb(") or colour.endswith(", 1)")


def check_every_size(page: Any, state: str, problems: list[str]) -> None:
    """Measure the page in ``state`` at each size, noting what is wrong."""
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_function(STILL)
        where = f"{state} at {width}×{height}"
        problems += [f"{where}: {pair}" for pair in meeting(page.evaluate(BOXES))]
        facts = page.evaluate(FACTS)
        if facts["wide"] > 0:
            problems.append(f"{where}: the page is {facts['wide']} px wider than the screen")
        seen = [colour for colour in facts["overlays"] if not opaque(colour)]
        problems += [f"{where}: an overlay shows through ({colour})" for colour in seen]
        up, hand = facts["turnUp"], facts["hand"]
        if up is not None and hand is not None and up + 0.5 < hand:
            problems.append(f"{where}: the turn-up ({up:.0f} px) is smaller than a hand card")
        if (width, height) == (1280, 800) and facts["hand"] is not None and facts["hand"] < 100:
            problems.append(f"{where}: a hand card is {facts['hand']:.0f} px tall")
    page.set_viewport_size(DESKTOP)


def test_nothing_on_the_table_overlaps_at_any_size_in_any_state(server: Any, browser: Any) -> None:
    problems: list[str] = []
    seen: set[str] = set()
    wanted = {"bidding", "0 trick cards", "1 trick cards", "2 trick cards", "3 trick cards",
              "resting trick", "the review", "end"}  # fmt: skip
    # Four deals of 13 cards: the deal moves round the table, so we lead at least one trick
    # (0 cards in it) even if we win none, and every other count comes to our turn.
    table, token = against_bots(server.base, hand_sizes=[13, 13, 13, 13], level="easy", pace=0)
    person = Watched(browser, DESKTOP, settings={"speed": "tap"})
    page = person.page
    sit(page, server.base, table["id"], 0, token, "Ana")
    while True:
        page.wait_for_function(f"({MY_TURN} || {RESTING} || {OVER}) && {STILL}")
        state = page.evaluate(STATE)
        if state not in seen:
            seen.add(state)
            check_every_size(page, state, problems)
        if state == "end":
            break
        if "the review" not in seen and page.locator(".sheet tbody tr:not(.current)").count():
            page.click(".tabs [data-tab=review]")
            seen.add("the review")
            check_every_size(page, "the review", problems)
            page.click(".tabs [data-tab=sheet]")
        if state == "resting trick":
            page.click(".felt", position={"x": 5, "y": 5})  # a tap: the trick goes on
            page.wait_for_function(f"!({RESTING})")
        else:
            act_once(page)
    assert wanted <= seen, f"not seen: {wanted - seen}"
    person.close()

    # A table waiting for its players: its invitations over the felt.
    waiting = create_table(server.base, {"hand_sizes": [3, 2]})
    token = take_seat(server.base, waiting, 0, "Ana")
    host = Watched(browser, DESKTOP)
    sit(host.page, server.base, waiting["id"], 0, token, "Ana")
    host.page.wait_for_selector(".overlay:not([hidden])")
    check_every_size(host.page, "the waiting room", problems)
    host.close()
    assert not problems, "\n".join(problems)


#: The buttons under the hand and the bids that a tap at their centre does not reach.
UNREACHED = """() => [...document.querySelectorAll(".actions button, .bids button")].filter((b) => {
  const r = b.getBoundingClientRect();
  const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return r.width && r.top >= 0 && r.bottom <= innerHeight && !(hit && b.contains(hit));
}).map((b) => b.textContent)"""


def test_a_toast_on_a_phone_leaves_the_buttons_under_it_working(
    server: Any,
    browser: Any,
) -> None:
    table, token = against_bots(server.base, hand_sizes=[5], level="easy", pace=0)
    person = Watched(browser, {"width": 360, "height": 640})
    page = person.page
    sit(page, server.base, table["id"], 0, token, "Ana")
    page.wait_for_function(MY_TURN)
    # The buttons at the foot of the screen, where a toast shows (a phone's usual view).
    page.evaluate(
        "() => { const r = document.querySelector('.actions').getBoundingClientRect();"
        " scrollBy(0, r.bottom - innerHeight + 12); }"
    )
    assert page.evaluate(UNREACHED) == []
    page.evaluate(
        "import('/static/dom.js').then((m) => m.toast("
        "'not connected: your move will be sent when the connection is back'))"
    )
    page.wait_for_selector("#toast:not([hidden])")
    covered = page.evaluate("""() => {
      const t = document.getElementById("toast").getBoundingClientRect();
      return [...document.querySelectorAll(".actions button, .bids button")].some((b) => {
        const r = b.getBoundingClientRect();
        return r.left < t.right && r.right > t.left && r.top < t.bottom && r.bottom > t.top;
      });
    }""")
    assert covered  # the toast lies over some of them on a phone this small ...
    assert page.evaluate(UNREACHED) == []  # ... and a tap still reaches every one
    person.close()


def test_the_score_sheet_reads_at_a_glance(server: Any, browser: Any) -> None:
    """On a desktop: one line a cell, the sides' columns as wide as each other, and nothing
    of the rows showing through the head that stays on top as the sheet scrolls."""
    # Twenty deals of one card: more rows than the sheet shows at once; four bots play them
    # (in a second), and the sheet is read as a spectator sees it at the end.
    table = create_table(server.base, {"hand_sizes": [1] * 20, "pace": 0})
    for seat in range(4):
        seat_bot(server.base, table, seat, "easy")
    person = Watched(browser, {"width": 1280, "height": 800})
    page = person.page
    page.goto(f"{server.base}/t/{table['id']}?watch={table['watch']['code']}")
    page.wait_for_selector(".overlay.end")
    page.wait_for_function("document.querySelectorAll('.sheet tbody tr').length >= 20")
    sheet = page.evaluate("""() => {
      const cells = [...document.querySelectorAll(".sheet td, .sheet th")];
      const lineHeight = parseFloat(getComputedStyle(cells[0]).lineHeight) || 16;
      const rows = [...document.querySelectorAll(".sheet tbody td, .sheet tbody th")];
      const tallest = Math.max(...rows.map((c) => c.getBoundingClientRect().height));
      const heads = [...document.querySelectorAll(".sheet .side-head")]
        .map((h) => h.getBoundingClientRect().width);
      const clipped = cells.filter((c) => c.scrollWidth > c.clientWidth + 1)
        .map((c) => c.textContent);
      const head = document.querySelector(".sheet thead");
      const scroller = document.querySelector(".sheet-scroll");
      scroller.scrollTop = 60;
      const top = head.getBoundingClientRect().bottom;
      const under = [...document.querySelectorAll(".sheet tbody tr")].filter((row) => {
        const r = row.getBoundingClientRect();
        return r.top < top && r.bottom > scroller.getBoundingClientRect().top;
      });
      const covered = under.every((row) => {
        const r = row.getBoundingClientRect();
        const x = r.left + r.width / 2;
        const y = Math.max(r.top, scroller.getBoundingClientRect().top) + 1;
        return head.contains(document.elementFromPoint(x, y));
      });
      const scrolled = scroller.scrollTop;
      return { tallest, lineHeight, heads, clipped, covered, scrolled, rows: cells.length };
    }""")
    assert sheet["tallest"] < 2 * sheet["lineHeight"], sheet  # one line a cell
    left, right = sheet["heads"]
    assert abs(left - right) <= 1, sheet  # even columns
    assert sheet["clipped"] == [], sheet
    assert sheet["scrolled"] > 0 and sheet["covered"], sheet  # rows under the head: hidden
    # A long game's numbers (boards set for hundreds), in the sidebar's width: still no cell
    # clipped, the type made smaller to fit.
    clipped = page.evaluate("""async () => {
      const { scoreSheet } = await import("/static/sheet.js");
      const deal = (points) => ({ hand_size: 13, trump: "H", thrown_in: null,
        contracts: ["board", "board"], tricks: [13, 0], points });
      const view = { scores: [-1930, 1420], phase: "over", history: [
        deal([-1040, 520]), deal([-890, 900]), { ...deal(null), thrown_in: "all_pass" }] };
      const box = document.querySelector(".sheet-scroll");
      box.replaceChildren(scoreSheet(view, (side) => side ? "Pip & Kit" : "Ana & Dot"));
      return [...box.querySelectorAll("td, th")].filter((c) => c.scrollWidth > c.clientWidth + 1)
        .map((c) => c.textContent);
    }""")
    assert clipped == [], clipped
    person.close()
