"""What the terminal game writes: cards, seats, sides, game lengths and rules as the
person reads them, and the table's boxes (the deal's line, each seat, the middle) drawn from
the person's view."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from rich.text import Text

from backalley.cards import RANKS, SUIT_SYMBOLS, Card
from backalley.i18n import _, ngettext, trump_name
from backalley.rules import (
    Ruleset,
    game_length,
    length_of,
    next_seat,
)
from backalley.tui.saves import SavedGame
from backalley.tui.session import Session
from backalley.view import bid_text, board_level_of


def card_text(card: int) -> Text:
    """A card as a player reads it: ``Q♥`` in red, ``10♣`` in black, the Bloopers named."""
    card = Card(card)
    if card.suit is None:
        return Text(str(card), style="bold magenta")
    rank = RANKS[card.rank]
    shown = ("10" if rank == "T" else rank) + SUIT_SYMBOLS[card.suit]
    return Text(shown, style="bold red" if card.suit in (1, 2) else "bold")


def seat_label(session: Session, seat: int) -> str:
    """``You`` or ``West (hard)``: where a seat sits from the person's chair, and who plays it."""
    if seat == session.seat:
        return _("You")
    level = session.level_of(seat) or ""
    return _("{place} ({level})").format(place=place_of(session, seat), level=_(level))


def place_of(session: Session, seat: int) -> str:
    """West, North, East (or Left, Right at three) as seen from the person's chair."""
    n = session.game.num_players
    offset = (seat - session.seat) % n
    names = [_("South"), _("West"), _("North"), _("East")] if n == 4 else [
        _("South"), _("Left"), _("Right")
    ]  # fmt: skip
    return names[offset]


def side_label(session: Session, side: int) -> str:
    """A side as the score sheet heads it: ``us`` and ``them``, or a seat alone (classic3)."""
    seats = session.game.rules.seats_of(side)
    if len(seats) == 1:
        return _("You") if seats[0] == session.seat else place_of(session, seats[0])
    return _("us") if session.seat in seats else _("them")


def length_label(preset: str, length: str) -> str:
    """A length of game as the start screen offers it, saying what it is (D2)."""
    if length == "short":
        return _("short game (3, 2 and 1 cards)")
    sizes = game_length(preset, length) or Ruleset.preset(preset).hand_sizes
    deals, cards = len(sizes), max(sizes)
    if length == "longer":
        said = ngettext(
            "longer game (up to {cards} cards, {deals} deal)",
            "longer game (up to {cards} cards, {deals} deals)",
            deals,
        )
    else:
        said = ngettext(
            "full game (up to {cards} cards, {deals} deal)",
            "full game (up to {cards} cards, {deals} deals)",
            deals,
        )
    return said.format(cards=cards, deals=deals)


def rules_label(rules: Ruleset) -> str:
    """``standard · short game (3, 2 and 1 cards)``: the preset and the length of a game."""
    length = length_of(rules)
    if length is None:
        sizes = ", ".join(map(str, rules.hand_sizes))
        return _("{rules} · hand sizes {sizes}").format(rules=rules.name, sizes=sizes)
    return f"{rules.name} · {length_label(rules.name, length)}"


def all_pass_note(rules: Ruleset) -> str:
    """What a deal in which everyone passes comes to under ``rules`` (D7), in a few words."""
    if rules.all_pass == "play":
        return _("If everyone passes, the deal is played with no contract (D7).")
    limit = rules.all_pass_limit
    if limit is None:
        return _("If everyone passes, the deal is dealt again (D7).")
    return ngettext(
        "If everyone passes, the deal is dealt again; once that has happened {limit} time "
        "in a row, it is played with no contract (D7).",
        "If everyone passes, the deal is dealt again; once that has happened {limit} times "
        "in a row, it is played with no contract (D7).",
        limit,
    ).format(limit=limit)


def saved_game_text(saved: SavedGame) -> Text:
    """A saved game as the start offers it: when it was saved, its rules and length, the deal
    reached and the scores."""
    session = saved.session
    view = session.game.view(session.seat)
    when = datetime.fromtimestamp(saved.saved_at).strftime("%Y-%m-%d %H:%M")
    text = Text(_("Resume the game saved {when}").format(when=when), style="bold")
    total = len(view.rules.hand_sizes)
    reached = ngettext(
        "deal {number} of {total}, {cards} card",
        "deal {number} of {total}, {cards} cards",
        view.hand_size,
    ).format(number=min(session.game.counted_deals + 1, total), total=total, cards=view.hand_size)
    text.append(f"\n{rules_label(view.rules)} · {reached}")
    scores = " · ".join(
        f"{side_label(session, side)} {score}" for side, score in enumerate(view.scores)
    )
    text.append(f"\n{scores}")
    text.append(f"  {saved.path.name}", style="dim")
    return text


def info_text(session: Session, view: Any) -> Text:
    """The deal's line at the top: rules, deal, hand size, trump and turn-up, dealer."""
    if view.deal_kind is None:
        return Text("")
    turned = " ".join(str(c) for c in view.turned_up)
    trump = trump_name(view.trump, view.lone_joker)
    parts = [
        view.rules.name,
        _("deal {number}").format(number=view.deal_number + 1),
        ngettext("{cards} card", "{cards} cards", view.hand_size).format(cards=view.hand_size),
        _("{trump} (turn-up {cards})").format(trump=trump, cards=turned),
        _("dealer: {seat}").format(seat=seat_label(session, view.dealer)),
    ]
    text = Text(" · ".join(parts), style="bold")
    if view.joker_shown is not None:
        seat, joker = view.joker_shown
        text.append("\n")
        text.append(
            _("{seat} showed {joker} and drew from the stock (D4)").format(
                seat=seat_label(session, seat), joker=joker
            )
        )
        if view.drawn is not None:
            text.append(" " + _("you drew {card}").format(card=view.drawn))
    return text


def seat_text(session: Session, view: Any, seat: int) -> Text:
    """A seat's box: its name (lit on its turn), bid, its side's tricks, cards, card played."""
    text = Text(seat_label(session, seat), style="bold reverse" if seat == view.to_move else "bold")
    bids = dict(view.bids)
    side = view.rules.side_of(seat)
    if seat in bids:
        said = bid_text(view, bids[seat], board_level_of(view, seat))
        text.append("\n" + _("bid {bid}").format(bid=said))
    if view.leader is not None:
        text.append("\n" + _("side took {tricks}").format(tricks=view.tricks_won[side]))
    if seat != session.seat:
        count = view.hand_counts[seat]
        text.append("\n" + ngettext("{count} card", "{count} cards", count).format(count=count))
    played = dict(view.trick)
    if seat in played:
        text.append("\n")
        text.append_text(card_text(played[seat]))
    return text


def trick_text(session: Session, view: Any, show_last: bool) -> Text:
    """The middle of the table: each side's contract and tricks, and the last trick if asked."""
    text = Text()
    if view.leader is not None and view.deal_kind is not None:
        for side, contract in enumerate(view.contracts):
            shown = "–" if contract is None else str(contract)
            text.append(
                _("{names}: contract {contract}, took {taken}").format(
                    names=side_label(session, side),
                    contract=shown,
                    taken=view.tricks_won[side],
                )
                + "\n"
            )
    if show_last and view.completed_tricks:
        leader, cards = view.completed_tricks[-1]
        text.append("\n" + _("Last trick:") + " ")
        seat = leader
        for card in cards:
            text.append(f"{place_of(session, seat)} ")
            text.append_text(card_text(card))
            text.append("  ")
            seat = next_seat(seat, view.seats_in_deal)
    text.rstrip()  # no blank line at the foot of the box
    return text
