"""A review as people read it: tables for the terminal (rich) and a self-contained HTML page.

Every string a player reads goes through gettext. The page has its style inline and loads
nothing, so it opens anywhere, offline.
"""

from __future__ import annotations

import html
from collections.abc import Container, Iterable, Iterator, Sequence

from rich.table import Table
from rich.text import Text

from backalley.analysis import BidReview, CardReview, DealReview, Review
from backalley.cards import N_
from backalley.i18n import _, language, side_name, trump_name
from backalley.rules import Ruleset, ThrownIn


def mark(cost: int) -> str:
    """The mark of a card that gave tricks away: ``?`` for one, ``??`` for two or more."""
    return "" if cost <= 0 else "?" if cost == 1 else "??"


def seat_name(seat: int, players: tuple[str, ...] | None, short: bool = False) -> str:
    """``seat 2``, or the player's name with the seat (``short``: the name alone)."""
    if players is None:
        return _("seat {seat}").format(seat=seat)
    if short:
        return players[seat]
    return _("{name} (seat {seat})").format(name=players[seat], seat=seat)


def deal_title(deal: DealReview, players: tuple[str, ...] | None) -> str:
    """The heading of a deal's review: who dealt, how many cards, the trump."""
    return _("Deal {number} · dealt by {dealer} · {cards} cards · {trump}").format(
        number=deal.deal + 1,
        dealer=seat_name(deal.dealer, players),
        cards=deal.hand_size,
        trump=trump_name(deal.trump),
    )


def deal_outcome(deal: DealReview, rules: Ruleset) -> list[str]:
    """A line a side: its contract, its double-dummy tricks at the first lead and the tricks
    it took; or one line saying why the deal was not reviewed."""
    if deal.thrown_in == ThrownIn.RENIG:
        return [_("thrown in for a renig (D6): nothing to review")]
    if deal.thrown_in is not None:
        return [_("thrown in, every player passed (D7): nothing to review")]
    if not deal.reviewed:
        return [_("a tie-breaker: its play stops at seven tricks, so it is not reviewed")]
    parts = []
    for side in range(rules.num_sides):
        contract = deal.contracts[side]
        shown = "–" if contract is None else str(contract)
        dd = "–" if deal.double_dummy is None else str(deal.double_dummy[side])
        parts.append(
            _("{side}: contract {contract}, double dummy {dd}, took {taken}").format(
                side=side_name(rules, side), contract=shown, dd=dd, taken=deal.taken[side]
            )
        )
    return parts


def tricks_of(deal: DealReview, rules: Ruleset) -> Iterator[tuple[int, list[CardReview], int]]:
    """The reviewed cards trick by trick: (trick number, its cards, the winner, or -1 while
    the trick is open). A reviewed deal is a counted one: every seat plays."""
    seats = rules.num_players
    for start in range(0, len(deal.cards), seats):
        cards = list(deal.cards[start : start + seats])
        number = start // seats
        yield number, cards, deal.winners[number] if number < len(deal.winners) else -1


def deal_table(deal: DealReview, rules: Ruleset, players: tuple[str, ...] | None) -> Table:
    """A deal trick by trick (:func:`deal_title` is its heading): a column a seat, each card
    with its mark and, for a mistake, the cards that would have kept every trick; the card
    that led is marked ›."""
    table = Table()
    table.add_column(_("trick"), justify="right")
    for seat in range(rules.num_players):
        table.add_column(seat_name(seat, players, short=True))
    table.add_column(_("won by"))
    for number, cards, winner in tricks_of(deal, rules):
        cells: list[Text | str] = [""] * rules.num_players
        for position, card in enumerate(cards):
            text = Text(("› " if position == 0 else "") + str(card.card))
            if card.mistake:
                text.append(f" {mark(card.cost)}", style="bold red")
                better = " ".join(map(str, card.better))
                text.append("\n" + _("better: {cards}").format(cards=better), style="dim")
            cells[card.seat] = text
        won = "" if winner < 0 else seat_name(winner, players, short=True)
        table.add_row(str(number + 1), *cells, won)
    return table


def bids_table(deal: DealReview, players: tuple[str, ...] | None) -> Table:
    """Each bid against the adviser's: its expected points for every bid it weighed and the
    side's tricks over the deals it solved."""
    head, rows = _bid_rows(deal, players, fallback=" *")
    table = Table(title=_("Bids, with the expert bot's advice"))
    for column in head:
        table.add_column(column)
    for row in rows:
        table.add_row(*row)
    return table


def _bid_rows(
    deal: DealReview, players: tuple[str, ...] | None, fallback: str = ""
) -> tuple[list[str], list[list[str]]]:
    """The head and rows of a deal's bids table, as plain text. ``fallback`` is appended to
    advice the bot gave as the heuristic player, having solved nothing (the terminal passes
    ``" *"``; the page marks nothing)."""
    head = [
        _("player"),
        _("bid"),
        _("expert"),
        _("expected points of each bid"),
        _("side's tricks in the solved deals"),
    ]
    rows = [
        [
            seat_name(bid.seat, players),
            str(bid.bid),
            str(bid.advice) + (fallback if bid.fell_back else ""),
            expected_text(bid),
            distribution_text(bid),
        ]
        for bid in deal.bids
    ]
    return head, rows


def expected_text(bid: BidReview) -> str:
    """Each bid weighed and its mean points: ``pass +0.0 · 1 +4.4 · board −40.0``."""
    return " · ".join(f"{b} {v:+.1f}".replace("-", "−") for b, v in bid.expected.items())


def distribution_text(bid: BidReview) -> str:
    """The side's tricks and in how many solved deals: ``1×6 · 2×8`` (6 deals gave 1)."""
    return " · ".join(f"{tricks}×{count}" for tricks, count in bid.distribution.items())


def summary_table(result: Review) -> Table:
    """Per player: cards reviewed, mistakes, and tricks given away over the game."""
    head, rows = _summary_rows(result)
    table = Table(title=_("Summary"))
    table.add_column(head[0])
    for column in head[1:]:
        table.add_column(column, justify="right")
    for row in rows:
        table.add_row(*row)
    return table


def _summary_rows(result: Review) -> tuple[list[str], list[list[str]]]:
    """The head and rows of the summary table, as plain text: a player, then numbers."""
    head = [_("player"), _("cards"), _("mistakes"), _("tricks given away")]
    rows = [
        [
            seat_name(seat, result.players),
            str(result.cards(seat)),
            str(result.mistakes(seat)),
            str(result.given_away(seat)),
        ]
        for seat in range(result.rules.num_players)
    ]
    return head, rows


# ---------------------------------------------------------------------------- HTML


STYLE = """
body { font: 15px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 60em;
       padding: 0 1em; color: #1d1d1f; }
h1 { font-size: 1.6em; } h2 { font-size: 1.2em; margin-top: 2em; }
table { border-collapse: collapse; margin: .6em 0; }
th, td { border-bottom: 1px solid #ddd; padding: .3em .8em; text-align: left;
         vertical-align: top; }
th { background: #f4f4f6; }
td.n { text-align: right; }
.mistake { color: #b00020; font-weight: 600; }
.better { color: #666; font-size: .85em; display: block; font-weight: 400; }
.lead { font-weight: 600; }
p.outcome { color: #333; }
"""


def html_page(result: Review) -> str:
    """The whole review as one HTML document, with nothing to fetch."""
    e = html.escape
    rules = result.rules
    title = e(_("Back Alley: double-dummy review"))
    about = e(_("Rules: {rules}.").format(rules=rules.name))
    parts = [
        "<!doctype html>",
        f'<html lang="{language()}"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{title}</title>",
        f"<style>{STYLE}</style></head><body>",
        f"<h1>{title}</h1>",
        f"<p>{about} {e(_(LEGEND))}</p>",
        f"<h2>{e(_('Summary'))}</h2>",
        _summary_html(result),
    ]
    for deal in result.deals:
        parts.append(f"<h2>{e(deal_title(deal, result.players))}</h2>")
        lines = "<br>".join(map(e, deal_outcome(deal, rules)))
        parts.append(f'<p class="outcome">{lines}</p>')
        if deal.cards:
            parts.append(_deal_html(deal, rules, result.players))
        if deal.bids:
            parts.append(_bids_html(deal, result.players))
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


LEGEND = N_(
    "Each card is shown with the tricks it gave away against the best card at that moment, "
    "double dummy (every hand known, best play by all): ? for one trick, ?? for two or more, "
    "with the cards that would have kept them. › marks the card that led the trick."
)


def _html_table(
    head: Sequence[str],
    rows: Iterable[Sequence[str]],
    *,
    numbers: Container[int] = (),
    markup: bool = False,
) -> str:
    """A table with ``head`` as its header row; the cells are plain text, escaped here, or
    HTML already (``markup``); the columns whose index is in ``numbers`` align right."""
    e = html.escape
    parts = ["<table><tr>" + "".join(f"<th>{e(h)}</th>" for h in head) + "</tr>"]
    for row in rows:
        cells = (
            f'<td class="n">{cell}</td>' if column in numbers else f"<td>{cell}</td>"
            for column, cell in enumerate(row if markup else map(e, row))
        )
        parts.append("<tr>" + "".join(cells) + "</tr>")
    parts.append("</table>")
    return "".join(parts)


def _summary_html(result: Review) -> str:
    head, rows = _summary_rows(result)
    return _html_table(head, rows, numbers=range(1, len(head)))


def _deal_html(deal: DealReview, rules: Ruleset, players: tuple[str, ...] | None) -> str:
    e = html.escape
    seats = (seat_name(s, players, short=True) for s in range(rules.num_players))
    head = [_("trick"), *seats, _("won by")]
    rows: list[list[str]] = []
    for number, cards, winner in tricks_of(deal, rules):
        cells = [""] * rules.num_players
        for position, card in enumerate(cards):
            lead = "› " if position == 0 else ""
            text = f'<span class="lead">{lead}</span>{e(str(card.card))}'
            if card.mistake:
                better = e(_("better: {cards}").format(cards=" ".join(map(str, card.better))))
                text = (
                    f'<span class="mistake">{lead}{e(str(card.card))} {mark(card.cost)}'
                    f'<span class="better">{better}</span></span>'
                )
            cells[card.seat] = text
        won = "" if winner < 0 else e(seat_name(winner, players, short=True))
        rows.append([str(number + 1), *cells, won])
    return _html_table(head, rows, numbers={0}, markup=True)


def _bids_html(deal: DealReview, players: tuple[str, ...] | None) -> str:
    return _html_table(*_bid_rows(deal, players))


__all__ = ["bids_table", "deal_table", "html_page", "mark", "summary_table"]
