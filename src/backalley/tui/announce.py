"""What the table's log says after an action: who dealt, who bids first, who leads, who won
a trick, and why a deal was thrown in.

Read from the person's views before and after the action (and the card it played), never
worked out from the rules: a trick's winner is the view's (``trick_winners``, the engine's),
a thrown-in deal is a finished deal's ``thrown_in``, the first bidder is the seat to
move before any bid.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from backalley.i18n import _, ngettext
from backalley.rules import PASS, DealKind, Phase, ThrownIn
from backalley.view import DealSummary, SeatView

#: A seat's name as the table shows it: ``West (hard)``.
Namer = Callable[[int], str]


def announcements(
    before: SeatView | None, after: SeatView, card: int | None, name: Namer
) -> list[str]:
    """The news between two views of one seat: ``before`` an action (``None``: the table is
    just opened) and ``after`` it; ``card`` is the card the action played, if any."""
    lines: list[str] = []
    if before is None:
        first, seen = _throw_in_run_start(after.history), -1
    else:
        first, seen = len(before.history), before.deal_number
        lines += _trick_won(before, after, card, name)
        lines += _bidding_over(before, after, name)
    history = after.history
    for index in range(first, len(history)):
        summary = history[index]
        if index > seen:  # a deal thrown in as it was dealt (D6): never on the table
            lines.append(_dealt(index, summary.hand_size, summary.dealer, name, after.seat))
        if summary.thrown_in is not None:
            lines += _thrown_in(history[: index + 1], after.rules.all_pass_limit)
    new_deal = before is None or after.deal_number > before.deal_number
    if new_deal and after.deal_kind is not None and after.phase != Phase.OVER:
        lines += _opening(after, name)
    return lines


def _throw_in_run_start(history: Sequence[DealSummary]) -> int:
    """Where the thrown-in deals just before the current one begin (the table was opened
    after them: it tells them first)."""
    start = len(history)
    while start and history[start - 1].thrown_in is not None:
        start -= 1
    return start


def _dealt(number: int, cards: int, dealer: int | None, name: Namer, you: int | None) -> str:
    if dealer is not None and dealer == you:
        said = ngettext(
            "deal {number}, {cards} card, dealt by you",
            "deal {number}, {cards} cards, dealt by you",
            cards,
        )
    else:
        said = ngettext(
            "deal {number}, {cards} card, dealt by {seat}",
            "deal {number}, {cards} cards, dealt by {seat}",
            cards,
        )
    seat = "" if dealer is None else name(dealer)
    return said.format(number=number + 1, cards=cards, seat=seat)


def _opening(view: SeatView, name: Namer) -> list[str]:
    """A deal on the table: its dealer, and who bids first (or leads a tie-breaker)."""
    lines = [_dealt(view.deal_number, view.hand_size, view.dealer, name, view.seat)]
    if view.to_move is None:
        return lines
    if view.phase == Phase.BID and not view.bids:
        lines.append(_you_or(view, view.to_move, _("You bid first"), _("{seat} bids first"), name))
    elif view.deal_kind != DealKind.NORMAL and not view.trick and not view.completed_tricks:
        lines.append(_leads(view, view.to_move, name))
    return lines


def _trick_won(before: SeatView, after: SeatView, card: int | None, name: Namer) -> list[str]:
    """``trick won by …`` when ``card`` was the last card of the trick ``before`` shows."""
    if card is None or before.phase != Phase.PLAY or before.to_move is None:
        return []
    if len(before.trick) + 1 < len(before.seats_in_deal):
        return []
    if after.deal_number == before.deal_number:
        winners = after.trick_winners
    else:  # the deal's last trick: the next deal is on the table already
        winners = after.history[before.deal_number].trick_winners
    winner = winners[len(before.completed_tricks)]
    if winner == after.seat:
        return [_("trick won by you")]
    return [_("trick won by {seat}").format(seat=name(winner))]


def _bidding_over(before: SeatView, after: SeatView, name: Namer) -> list[str]:
    """When the bidding ends and the deal is played: everyone passed, and who leads."""
    same_deal = after.deal_number == before.deal_number
    if before.phase != Phase.BID or not same_deal or after.phase != Phase.PLAY:
        return []
    lines = []
    if all(bid == PASS for _seat, bid in after.bids):
        lines.append(_("everyone passed: the deal is played with no contract (D7)"))
    if after.leader is not None:
        lines.append(_leads(after, after.leader, name))
    return lines


def _leads(view: SeatView, seat: int, name: Namer) -> str:
    return _you_or(view, seat, _("You lead"), _("{seat} leads"), name)


def _you_or(view: SeatView, seat: int, yours: str, theirs: str, name: Namer) -> str:
    """``yours`` when ``seat`` is the view's own, else ``theirs`` naming it."""
    return yours if seat == view.seat else theirs.format(seat=name(seat))


def _thrown_in(history: Sequence[DealSummary], limit: int | None) -> list[str]:
    """Why the last deal of ``history`` was thrown in, how many times in a row, and (D7) that
    the next all-pass deal is played once the limit is reached."""
    reason = history[-1].thrown_in
    count = 0
    for summary in reversed(history):
        if summary.thrown_in != reason:
            break
        count += 1
    if reason == ThrownIn.ALL_PASS:
        if count == 1:
            lines = [_("deal thrown in: everyone passed (D7)")]
        else:
            lines = [
                ngettext(
                    "deal thrown in: everyone passed again, {count} time in a row (D7)",
                    "deal thrown in: everyone passed again, {count} times in a row (D7)",
                    count,
                ).format(count=count)
            ]
        if limit is not None and count == limit:
            lines.append(_("if everyone passes again, the deal is played with no contract (D7)"))
        return lines
    if count == 1:
        return [_("deal thrown in: renig (D6)")]
    return [
        ngettext(
            "deal thrown in: renig again, {count} time in a row (D6)",
            "deal thrown in: renig again, {count} times in a row (D6)",
            count,
        ).format(count=count)
    ]


__all__ = ["Namer", "announcements"]
