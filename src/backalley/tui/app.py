"""``backalley play``: Back Alley at the terminal, one person and the bots (Textual).

The screens only show what the person's seat view holds and send the person's choice to the
engine; the rules stay in the engine (a refused action comes back with its rule id), the
bots' turns run away from the screen's loop, and the game is saved after every action.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime
from typing import Any, ClassVar

from rich.text import Text
from textual import events, work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Center, Horizontal, Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, DataTable, Footer, Label, OptionList, Select, Static
from textual.widgets.option_list import Option

from backalley.analysis import claim, hint, review
from backalley.cards import RANKS, SUIT_SYMBOLS, Card
from backalley.engine import IllegalAction
from backalley.i18n import _, explain, ngettext, trump_name
from backalley.rules import (
    BOARD,
    GAME_LENGTHS,
    PASS,
    PRESETS,
    Bid,
    DealKind,
    Phase,
    Ruleset,
    game_length,
    game_rules,
    length_of,
    next_seat,
)
from backalley.tui.announce import announcements
from backalley.tui.saves import KEEP, SavedGame, keep, unfinished_saves
from backalley.tui.session import LEVELS, Session, hand_order
from backalley.view import SeatView, bid_text, board_level_of

MIN_SIZE = (80, 24)
#: Lines of the table's log on screen (the newest last).
LOG_LINES = 5


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


class CardButton(Button):
    """A card of the person's hand: pressed (or clicked) to play it."""

    def __init__(self, card: Card, legal: bool) -> None:
        super().__init__(card_text(card), name=str(card), disabled=not legal)
        self.card = card


class BidButton(Button):
    """A bid the person may make."""

    def __init__(self, action: int, label: str | None = None) -> None:
        super().__init__(label or str(Bid(action)), name=str(Bid(action)))
        self.bid = action


class StartScreen(Screen[dict[str, Any]]):
    """The preset, the length of game, and the bots' levels."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "app.quit", _("Quit"))]

    def choices(self) -> list[tuple[str, str, list[tuple[str, str]], str]]:
        """Each choice: its id, its label, its options (shown, value) and the default."""
        levels = [(_(level), level) for level in LEVELS]
        return [
            ("preset", _("Rules"), [(name, name) for name in PRESETS], "standard"),
            ("length", _("Length"), self.lengths("standard"), "short"),
            ("partner", _("Your partner"), levels, "medium"),
            ("opponents", _("Your opponents"), levels, "medium"),
        ]

    @staticmethod
    def lengths(preset: str) -> list[tuple[str, str]]:
        return [(length_label(preset, length), length) for length in GAME_LENGTHS]

    def compose(self) -> ComposeResult:
        yield Static(_("Back Alley"), id="title")
        with Center(), Vertical(id="choices"):
            for choice, label, options, default in self.choices():
                yield Label(label)
                yield Select(options, value=default, allow_blank=False, id=choice)
                if choice == "length":
                    yield Static(id="length-note")
            yield Button(_("Start"), id="start", variant="primary")
        yield Footer()

    def on_mount(self) -> None:
        self.show_note()

    def chosen(self) -> dict[str, Any]:
        return {
            choice: self.query_one(f"#{choice}", Select).value for choice, *_r in self.choices()
        }

    def on_select_changed(self, event: Select.Changed) -> None:
        """A new preset relabels the lengths (their deals differ); either redoes the note."""
        if event.select.id == "preset":
            length = self.query_one("#length", Select)
            kept = length.value
            length.set_options(self.lengths(str(event.value)))
            length.value = kept
        self.show_note()

    def show_note(self) -> None:
        """What a deal in which everyone passes comes to, in the game about to start (D7)."""
        chosen = self.chosen()
        rules = game_rules(str(chosen["preset"]), str(chosen["length"]))
        self.query_one("#length-note", Static).update(all_pass_note(rules))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "start":
            self.dismiss(self.chosen())


class SavedGamesScreen(Screen[SavedGame | None]):
    """First, when games are saved unfinished: resume one, or start a new game (which keeps
    them: a new game never writes over a save). Dismissed with the game to resume, or
    ``None`` for a new one."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "app.quit", _("Quit"))]

    def __init__(self, saved: list[SavedGame]) -> None:
        super().__init__()
        self.saved = saved

    def compose(self) -> ComposeResult:
        yield Static(_("Back Alley"), id="title")
        heading = ngettext(
            "A game you have not finished is saved:",
            "Games you have not finished are saved:",
            len(self.saved),
        )
        new = Text(_("Start a new game"), style="bold")
        kept = _("the saved games are kept ({keep} at most): resume them here later")
        new.append("\n" + kept.format(keep=KEEP), style="dim")
        options: list[Option | None] = []
        for number, saved in enumerate(self.saved):
            options += [Option(saved_game_text(saved), id=f"saved-{number}"), None]
        options.append(Option(new, id="new"))
        with Center(), Vertical(id="saved"):
            yield Label(heading)
            yield OptionList(*options, id="saved-games")
        yield Footer()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        chosen = event.option.id or ""
        if chosen.startswith("saved-"):
            self.dismiss(self.saved[int(chosen.removeprefix("saved-"))])
        else:
            self.dismiss(None)


class DealReviewScreen(ModalScreen[None]):
    """After a deal: each side's contract against its tricks, and the person's mistakes."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter,escape,space", "dismiss", _("Continue"))
    ]

    def __init__(self, text: Text) -> None:
        super().__init__()
        self.text = text

    def compose(self) -> ComposeResult:
        with Vertical(id="review"):
            yield Static(self.text, id="review-text")
            yield Button(_("Continue"), id="continue", variant="primary")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss()


class TableScreen(Screen[None]):
    """The table: the seats, the trick, the person's hand or bids, the score sheet."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark", "hint", _("Hint")),
        Binding("v", "last_trick", _("Last trick")),
        Binding("exclamation_mark", "claim", _("Claim the rest")),
        # Actions of this screen, which has no "focus_next" (only the app has): bound to that
        # name, the arrows found no action and Textual dropped them without a word.
        Binding("left", "move_focus('previous')", _("Previous"), show=False),
        Binding("right", "move_focus('next')", _("Next"), show=False),
        Binding("home", "move_focus('first')", _("First"), show=False),
        Binding("end", "move_focus('last')", _("Last"), show=False),
        Binding("escape,ctrl+q", "app.quit", _("Save and quit")),
    ]

    def __init__(self, session: Session, pace: float) -> None:
        super().__init__()
        self.session = session
        self.pace = pace
        self.typed = ""
        self.message = Text("")
        self.show_last = False
        self.deals_seen = len(session.game.deals)
        self.sheet_rows = -1  #: scored deals on the score sheet (-1: not drawn yet)
        self.news: list[str] = []  #: what happened at the table, oldest first

    def compose(self) -> ComposeResult:
        yield Static(id="info")
        with Horizontal(id="main"):
            with Vertical(id="table"):
                yield Static(id="seat-north", classes="seat")
                with Horizontal(id="middle"):
                    yield Static(id="seat-west", classes="seat")
                    yield Static(id="trick")
                    yield Static(id="seat-east", classes="seat")
                yield Static(id="seat-south", classes="seat")
            with Vertical(id="side"):
                yield DataTable(id="sheet", zebra_stripes=True, cursor_type="none")
                yield Static(id="log")
        yield Horizontal(id="hand")
        yield Horizontal(id="bids")
        yield Static(id="status")
        yield Footer()

    def on_resize(self, event: events.Resize) -> None:
        self.app.call_later(self.app.check_size)  # type: ignore[attr-defined]

    def on_mount(self) -> None:
        # The sheet only shows: focused, it would take the arrows for a cursor it hides.
        self.query_one("#sheet", DataTable).can_focus = False
        self.build_sheet()
        self.add_to_log(announcements(None, self.view(), None, self.name_of))
        self.refresh_table()
        self.next_turn()

    def view(self) -> SeatView:
        """The person's view: all the table shows comes from it."""
        return self.session.game.view(self.session.seat)

    def name_of(self, seat: int) -> str:
        """A seat as the table names it, for the log."""
        return seat_label(self.session, seat)

    # ---------------------------------------------------------------- showing

    def refresh_table(self) -> None:
        """Redraw everything from the person's view (and nothing else)."""
        session = self.session
        view = session.game.view(session.seat)
        self.query_one("#info", Static).update(self.info_text(view))
        places = {0: "south", 1: "west", 2: "north", 3: "east"}
        n = session.game.num_players
        for seat in range(n):
            offset = (seat - session.seat) % n
            place = places[offset] if n == 4 else ["south", "west", "east"][offset]
            self.query_one(f"#seat-{place}", Static).update(self.seat_text(view, seat))
        if n == 3:
            self.query_one("#seat-north", Static).update("")
        self.query_one("#trick", Static).update(self.trick_text(view))
        self.show_log()
        self.show_status()
        self.build_actions(view)
        self.fill_sheet()

    def info_text(self, view: Any) -> Text:
        if view.deal_kind is None:
            return Text("")
        turned = " ".join(str(c) for c in view.turned_up)
        trump = trump_name(view.trump, view.lone_joker)
        parts = [
            view.rules.name,
            _("deal {number}").format(number=view.deal_number + 1),
            ngettext("{cards} card", "{cards} cards", view.hand_size).format(cards=view.hand_size),
            _("{trump} (turn-up {cards})").format(trump=trump, cards=turned),
            _("dealer: {seat}").format(seat=seat_label(self.session, view.dealer)),
        ]
        text = Text(" · ".join(parts), style="bold")
        if view.joker_shown is not None:
            seat, joker = view.joker_shown
            text.append("\n")
            text.append(
                _("{seat} showed {joker} and drew from the stock (D4)").format(
                    seat=seat_label(self.session, seat), joker=joker
                )
            )
            if view.drawn is not None:
                text.append(" " + _("you drew {card}").format(card=view.drawn))
        return text

    def seat_text(self, view: Any, seat: int) -> Text:
        session = self.session
        text = Text(
            seat_label(session, seat), style="bold reverse" if seat == view.to_move else "bold"
        )
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

    def trick_text(self, view: Any) -> Text:
        text = Text()
        if view.leader is not None and view.deal_kind is not None:
            for side, contract in enumerate(view.contracts):
                shown = "–" if contract is None else str(contract)
                text.append(
                    _("{names}: contract {contract}, took {taken}").format(
                        names=side_label(self.session, side),
                        contract=shown,
                        taken=view.tricks_won[side],
                    )
                    + "\n"
                )
        if self.show_last and view.completed_tricks:
            leader, cards = view.completed_tricks[-1]
            text.append("\n" + _("Last trick:") + " ")
            seat = leader
            for card in cards:
                text.append(f"{place_of(self.session, seat)} ")
                text.append_text(card_text(card))
                text.append("  ")
                seat = next_seat(seat, view.seats_in_deal)
        text.rstrip()  # no blank line at the foot of the box
        return text

    def show_status(self) -> None:
        self.query_one("#status", Static).update(self.status_text())

    def add_to_log(self, lines: list[str]) -> None:
        """Keep ``lines`` in the log (its last fifty lines: the screen shows the last few)."""
        self.news = [*self.news, *lines][-50:]

    def show_log(self) -> None:
        """The last lines of the log, the newest at the bottom and in bold."""
        text = Text()
        shown = self.news[-LOG_LINES:]
        for number, line in enumerate(shown):
            newest = number == len(shown) - 1
            text.append(("\n" if number else "") + line, style="bold" if newest else "")
        self.query_one("#log", Static).update(text)

    def status_text(self) -> Text:
        game = self.session.game
        if game.is_over:
            if game.winner is None:
                said = _("The game is over: a draw.")
            else:
                said = _("The game is over: {winner} won.").format(
                    winner=" & ".join(
                        seat_label(self.session, s) for s in game.rules.seats_of(game.winner)
                    )
                )
            return Text(said, style="bold green")
        text = Text()
        to_move = game.to_move
        if to_move == self.session.seat:
            said = _("Your bid") if game.phase == Phase.BID else _("Your card")
            text.append(said, style="bold")
        elif to_move is not None:
            text.append(_("{seat} is thinking…").format(seat=seat_label(self.session, to_move)))
        if self.typed:
            text.append("   " + _("typed: {text}").format(text=self.typed), style="italic")
        if self.message:
            text.append("   ")
            text.append_text(self.message)
        text.append(
            "\n"
            + _(
                "keys: arrows and Enter, or type a card (qh) or a bid (3, p, b) · "
                "? hint · v last trick · ! claim the rest · Esc save and quit"
            ),
            style="dim",
        )
        return text

    def build_actions(self, view: Any) -> None:
        """The person's hand (legal cards playable, the others dimmed) and, when a bid is
        due from them, the legal bids."""
        legal = {int(a) for a in view.legal_actions}
        hand = hand_order(list(view.hand), view.trump)
        bidding = view.phase == Phase.BID and view.to_move == self.session.seat
        bids = sorted(legal) if bidding else []
        card_focus = self.show_buttons(
            "#hand",
            [(str(c), c not in legal) for c in hand],
            lambda: [CardButton(c, c in legal) for c in hand],
        )
        labels = [bid_text(view, a, view.board_level + 1) for a in bids]
        bid_focus = self.show_buttons(
            "#bids",
            [(label, False) for label in labels],
            lambda: [BidButton(a, label) for a, label in zip(bids, labels, strict=True)],
        )
        focus = card_focus if bid_focus is None else bid_focus
        if focus is not None and view.to_move == self.session.seat:
            self.call_after_refresh(focus.focus)

    def show_buttons(
        self, box_id: str, keys: list[tuple[str, bool]], build: Callable[[], list[Button]]
    ) -> Button | None:
        """Show in the box ``box_id`` the buttons ``build`` makes, unless their (name, disabled)
        ``keys`` are those already shown; the first enabled new button, to focus."""
        box = self.query_one(box_id, Horizontal)
        box.display = bool(keys)  # an empty row takes no room (none is due at the start)
        if [(b.name, b.disabled) for b in box.query(Button)] == keys:
            return None
        wanted = build()
        box.remove_children()
        box.mount(*wanted)
        return next((b for b in wanted if not b.disabled), None)

    def build_sheet(self) -> None:
        sheet = self.query_one("#sheet", DataTable)
        rules = self.session.game.rules
        sheet.add_column("#")
        sheet.add_column(_("cards"))
        for side in range(rules.num_sides):
            sheet.add_column(side_label(self.session, side))

    def fill_sheet(self) -> None:
        """A row per scored deal, as on paper; redrawn only when a deal has been scored."""
        game = self.session.game
        scored = [
            (number, deal.hand_size, deal.points)
            for number, deal in enumerate(game.deals)
            if deal.points is not None  # a deal thrown in is never scored
        ]
        if len(scored) == self.sheet_rows:
            return
        self.sheet_rows = len(scored)
        sheet = self.query_one("#sheet", DataTable)
        sheet.clear()
        totals = [0] * game.num_sides
        for number, hand_size, deal_points in scored:
            cells = []
            for side, points in enumerate(deal_points):
                totals[side] += points
                cells.append(f"{points:+d} = {totals[side]}")
            sheet.add_row(str(number + 1), str(hand_size), *cells)
        sheet.scroll_end(animate=False)  # the newest deal in sight in a long game

    # ---------------------------------------------------------------- acting

    def next_turn(self) -> None:
        """Hand the turn to a bot (away from the screen's loop), or wait for the person."""
        game = self.session.game
        if game.is_over or game.to_move is None:
            return
        if not self.session.human_to_move:
            self.bot_turn()

    @work(thread=True, exclusive=True, group="bots")
    def bot_turn(self) -> None:
        start = time.monotonic()
        action = self.session.bot_action()
        left = self.pace - (time.monotonic() - start)
        if left > 0:
            time.sleep(left)
        self.app.call_from_thread(self.after_bot, action)

    def after_bot(self, action: int) -> None:
        self.take(action)
        self.after_action()

    def take(self, action: object) -> None:
        """Take the action of the seat to move, and log what it brought about.

        :raises IllegalAction: with the rule it breaks; nothing changes then.
        """
        before = self.view()
        self.session.act(action)
        # the card played, if it was a card: the last of that deal's cards
        play = self.session.game.deals[before.deal_number].play
        card = play[-1] if before.phase == Phase.PLAY else None
        self.add_to_log(announcements(before, self.view(), card, self.name_of))

    def after_action(self) -> None:
        self.message = Text("")
        self.typed = ""
        game = self.session.game
        seen, self.deals_seen = self.deals_seen, len(game.deals)
        scored = [i for i in range(seen - 1, len(game.deals)) if game.deals[i].points is not None]
        self.refresh_table()
        if scored:
            text = self.deal_review_text(scored[-1])
            self.app.push_screen(DealReviewScreen(text), lambda _result: self.after_review())
            return
        self.next_turn()

    def after_review(self) -> None:
        self.refresh_table()
        self.next_turn()

    def deal_review_text(self, number: int) -> Text:
        session = self.session
        game = session.game
        deal = game.deals[number]
        rules = game.rules
        text = Text(_("Deal {number} is over").format(number=number + 1) + "\n\n", style="bold")
        for side in range(rules.num_sides):
            names = " & ".join(seat_label(session, s) for s in rules.seats_of(side))
            contract = deal.contracts[side]
            shown = "–" if contract is None else str(contract)
            points = 0 if deal.points is None else deal.points[side]
            text.append(
                _("{names}: contract {contract}, took {taken}, {points:+d} points").format(
                    names=names, contract=shown, taken=deal.tricks[side], points=points
                )
                + "\n"
            )
        if deal.kind == DealKind.NORMAL:
            reviewed = review(game, only=number).deals[number]
            mine = [c for c in reviewed.cards if c.seat == session.seat and c.mistake]
            text.append("\n")
            if not mine:
                text.append(_("You gave no trick away, double dummy.") + "\n", style="green")
            for card in mine:
                better = " ".join(str(c) for c in card.better)
                text.append(
                    ngettext(
                        "Trick {trick}: {card} gave {cost} trick away; better: {better}",
                        "Trick {trick}: {card} gave {cost} tricks away; better: {better}",
                        card.cost,
                    ).format(trick=card.trick + 1, card=card.card, cost=card.cost, better=better)
                    + "\n",
                    style="yellow",
                )
        if game.is_over:
            text.append("\n")
            text.append(self.status_text())
        return text

    def play_action(self, action: object) -> None:
        """The person's bid or card; a refusal says why, with its rule, and changes nothing."""
        if not self.session.human_to_move:
            return
        try:
            self.take(action)
        except IllegalAction as error:
            self.typed = ""
            self.message = Text(explain(error), style="bold red")
            self.show_status()
            return
        self.after_action()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        button = event.button
        if isinstance(button, CardButton):
            self.play_action(button.card)
        elif isinstance(button, BidButton):
            self.play_action(button.bid)

    def on_key(self, event: events.Key) -> None:
        """Typing: a card (``qh``, ``10h``, ``bj``), or a bid (digits, ``p``, ``b``)."""
        char = event.character
        if not char or not (char.isalnum()) or not self.session.human_to_move:
            return
        if event.key in self.active_bindings:  # v: the last trick, not a letter typed
            return
        event.stop()
        self.typed += char.lower()
        game = self.session.game
        if game.phase == Phase.BID:
            self.typed_bid()
        else:
            self.typed_card()
        if self.session.human_to_move:
            self.show_status()

    def typed_bid(self) -> None:
        typed = self.typed
        if typed in ("p", "b"):
            self.typed = ""
            self.play_action(PASS if typed == "p" else BOARD)
        elif typed.isdigit():
            top = max((a - PASS for a in self.session.game.legal_actions() if a < BOARD), default=0)
            if int(typed) * 10 > top or len(typed) == 2:
                self.typed = ""
                self.play_action(typed)
        else:
            self.typed = ""
            self.message = Text(_("bid with a number, p (pass) or b (board)"), style="red")

    def typed_card(self) -> None:
        typed = self.typed
        if len(typed) < 2 or typed == "10":
            return  # a rank so far
        self.typed = ""
        self.play_action(typed)

    def action_hint(self) -> None:
        if not self.session.human_to_move:
            return
        self.message = Text(_("asking the expert bot…"), style="italic")
        self.refresh_table()
        self.ask_hint()

    @work(thread=True, exclusive=True, group="hint")
    def ask_hint(self) -> None:
        advice = hint(self.session.game, self.session.seat)
        ranked = sorted(advice.expected.items(), key=lambda item: -item[1])
        shown = ", ".join(f"{a} {v:+.1f}" for a, v in ranked[:4])
        text = Text(
            _("Hint: the expert bot would choose {action}").format(action=advice.action)
            + (f" ({shown})" if shown else ""),
            style="bold cyan",
        )
        self.app.call_from_thread(self.show_hint, text)

    def show_hint(self, text: Text) -> None:
        self.message = text
        self.show_status()

    def action_claim(self) -> None:
        """Claim every remaining trick: accepted when the solver proves it (the deal is then
        played out), refused with nothing changed otherwise."""
        session = self.session
        if session.game.phase != Phase.PLAY or not session.human_to_move:
            return
        settled = claim(session.game.copy(), session.seat)  # settled aside, then played here
        if not settled.accepted:
            self.message = Text(
                _("Claim refused: the other side can still take a trick."), style="bold red"
            )
            self.refresh_table()
            return
        for card in settled.played:
            self.take(card)
        self.after_action()
        self.message = Text(_("Claim accepted: the rest of the tricks are yours."), style="green")

    def action_last_trick(self) -> None:
        self.show_last = not self.show_last
        self.refresh_table()

    def action_move_focus(self, where: str) -> None:
        """Left and Right (Home and End): the focus to the previous or next (the first or the
        last) button the person may press in the hand or the bids, stopping at either end."""
        buttons = self.pressable()
        if not buttons:
            return
        focused = self.focused
        if not isinstance(focused, Button) or focused not in buttons:
            target = buttons[-1] if where in ("previous", "last") else buttons[0]
        else:
            at = buttons.index(focused)
            steps = {"previous": at - 1, "next": at + 1, "first": 0, "last": len(buttons) - 1}
            target = buttons[min(max(steps[where], 0), len(buttons) - 1)]
        # at once, not after the next refresh as Widget.focus does: a second arrow (or the
        # Enter) read in the same burst of input must start from the button just reached
        self.set_focus(target)

    def pressable(self) -> list[Button]:
        """The buttons the person may press now: the legal bids while a bid is due from them,
        else the legal cards of the hand (none while another seat is to move)."""
        for box in ("#bids", "#hand"):
            buttons = [b for b in self.query_one(box, Horizontal).query(Button) if not b.disabled]
            if buttons:
                return buttons
        return []


class TooSmallScreen(ModalScreen[None]):
    """Shown over the table while the terminal is smaller than the table needs."""

    def compose(self) -> ComposeResult:
        message = _("This terminal is too small: make it at least {w} × {h}.")
        yield Static(message.format(w=MIN_SIZE[0], h=MIN_SIZE[1]), id="too-small")

    def on_resize(self, event: events.Resize) -> None:
        self.app.call_later(self.app.check_size)  # type: ignore[attr-defined]


class PlayApp(App[None]):
    """Back Alley in the terminal.

    With a ``session``, straight to its table. Otherwise ``new_game`` says how to start one
    (``seat``, ``seed``, ``save_path``, and ``rules``, ``partner``, ``opponents`` when the
    command line chose them, else the start screen asks); and first, when ``save_path`` or
    the saves kept next to it hold unfinished games, it offers to resume them.
    """

    CSS_PATH = "play.tcss"
    TITLE = "Back Alley"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+c", "quit", _("Save and quit"), show=False, priority=True)
    ]

    def __init__(
        self,
        session: Session | None = None,
        *,
        new_game: dict[str, Any] | None = None,
        pace: float = 0.8,
    ) -> None:
        super().__init__()
        self.session = session
        self.new_game = new_game or {}
        self.pace = pace

    def on_mount(self) -> None:
        save_path = self.new_game.get("save_path")
        if self.session is not None:
            self.open_table()
        elif save_path is not None and (saved := unfinished_saves(save_path)):
            self.push_screen(SavedGamesScreen(saved), self.resume_or_new)
        else:
            self.ask_or_start()
        self.check_size()

    def open_table(self) -> None:
        assert self.session is not None
        self.push_screen(TableScreen(self.session, self.pace))

    def resume_or_new(self, saved: SavedGame | None) -> None:
        """The saved game chosen, which goes on saving where it is; or a new game."""
        if saved is None:
            self.ask_or_start()
            return
        self.session = saved.session
        self.open_table()

    def ask_or_start(self) -> None:
        """The game the command line chose, or the start screen's."""
        rules = self.new_game.get("rules")
        if rules is None:
            self.push_screen(StartScreen(), self.start)
            return
        partner = self.new_game.get("partner", "medium")
        self.start_new(rules, partner, self.new_game.get("opponents", "medium"))

    def start(self, choices: dict[str, Any] | None) -> None:
        if choices is None:
            self.exit()
            return
        rules = game_rules(choices["preset"], choices["length"])
        self.start_new(rules, choices["partner"], choices["opponents"])

    def start_new(self, rules: Ruleset, partner: str, opponents: str) -> None:
        """Deal a new game, the save it takes the place of kept first (never written over)."""
        save_path = self.new_game.get("save_path")
        if save_path is not None:
            keep(save_path)
        self.session = Session.new(
            rules,
            seat=self.new_game.get("seat", 0),
            partner=partner,
            opponents=opponents,
            seed=self.new_game.get("seed"),
            save_path=save_path,
        )
        self.open_table()

    def on_resize(self, event: events.Resize) -> None:
        self.check_size()

    def check_size(self) -> None:
        """Cover the table with a request for room while the terminal is too small."""
        small = self.size.width < MIN_SIZE[0] or self.size.height < MIN_SIZE[1]
        covered = isinstance(self.screen, TooSmallScreen)
        if small and not covered:
            self.push_screen(TooSmallScreen())
        elif covered and not small:
            self.pop_screen()


def run_play(session: Session | None, new_game: dict[str, Any], pace: float) -> Session | None:
    """Run the game; whatever ends it (a key, Ctrl-C, a closed terminal), the last action is
    already saved. Returns the game played, if one was started or resumed."""
    app = PlayApp(session, new_game=new_game, pace=pace)
    app.run()
    return app.session


__all__ = ["PlayApp", "run_play"]
