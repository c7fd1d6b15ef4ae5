"""The table screen of the terminal game: the seats, the trick, the person's hand or bids,
the score sheet and the log, all drawn from the person's view; the person's choice goes to
the engine, the bots' turns run away from the screen's loop."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, ClassVar

from rich.text import Text
from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Button, DataTable, Footer, Static

from backalley.analysis import claim, hint, review
from backalley.cards import N_
from backalley.engine import IllegalAction
from backalley.i18n import _, explain, ngettext
from backalley.rules import (
    BOARD,
    PASS,
    DealKind,
    Phase,
)
from backalley.tui.announce import announcements
from backalley.tui.screens import BidButton, CardButton, DealReviewScreen
from backalley.tui.session import Session, hand_order, solver_ready
from backalley.tui.texts import info_text, seat_label, seat_text, side_label, trick_text
from backalley.view import SeatView, bid_text

#: Lines of the table's log on screen (the newest last).
LOG_LINES = 5
STILL_PREPARING = N_(
    "The solver is still being prepared: the strong bots play as medium ones meanwhile"
)
NOT_YET = N_("The solver is still being prepared: ask again in a few seconds")


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
        self.query_one("#info", Static).update(info_text(self.session, view))
        places = {0: "south", 1: "west", 2: "north", 3: "east"}
        n = session.game.num_players
        for seat in range(n):
            offset = (seat - session.seat) % n
            place = places[offset] if n == 4 else ["south", "west", "east"][offset]
            self.query_one(f"#seat-{place}", Static).update(seat_text(self.session, view, seat))
        if n == 3:
            self.query_one("#seat-north", Static).update("")
        self.query_one("#trick", Static).update(trick_text(self.session, view, self.show_last))
        self.show_log()
        self.show_status()
        self.build_actions(view)
        self.fill_sheet()

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
        if self.session.below_level and not solver_ready[0]():  # why a strong bot plays so
            self.message = Text(_(STILL_PREPARING), style="italic")
            self.show_status()

    def solver_waits(self) -> bool:
        """Whether the solver is still being prepared (said so, if it is)."""
        if solver_ready[0]():
            return False
        self.message = Text(_(NOT_YET), style="italic")
        self.refresh_table()
        return True

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
        if deal.kind == DealKind.NORMAL and not solver_ready[0]():
            text.append("\n" + _("No review of this deal: the solver was still being prepared."))
        elif deal.kind == DealKind.NORMAL:
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
        if not self.session.human_to_move or self.solver_waits():
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
        if session.game.phase != Phase.PLAY or not session.human_to_move or self.solver_waits():
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
