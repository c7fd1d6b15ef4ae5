"""``backalley play``: Back Alley at the terminal, one person and the bots (Textual).

The screens only show what the person's seat view holds and send the person's choice to the
engine; the rules stay in the engine (a refused action comes back with its rule id), the
bots' turns run away from the screen's loop, and the game is saved after every action.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, ClassVar

from rich.text import Text
from textual import events, work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Center, Horizontal, Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, DataTable, Footer, Label, Select, Static

from backalley.analysis import claim, hint, review
from backalley.cards import RANKS, SUIT_SYMBOLS, Card
from backalley.engine import IllegalAction
from backalley.i18n import _, explain, ngettext, trump_name
from backalley.rules import BOARD, PASS, PRESETS, Bid, DealKind, Phase, Ruleset, next_seat
from backalley.tui.session import LEVELS, Session, hand_order

MIN_SIZE = (80, 24)

#: Hand sizes of a short game, by preset (D2 halved: up to 7 cards).
SHORT = {
    preset: [size for size in Ruleset.preset(preset).hand_sizes if size <= 7] for preset in PRESETS
}


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


class CardButton(Button):
    """A card of the person's hand: pressed (or clicked) to play it."""

    def __init__(self, card: Card, legal: bool) -> None:
        super().__init__(card_text(card), name=str(card), disabled=not legal)
        self.card = card


class BidButton(Button):
    """A bid the person may make."""

    def __init__(self, action: int) -> None:
        super().__init__(str(Bid(action)), name=str(Bid(action)))
        self.bid = action


class StartScreen(Screen[dict[str, Any]]):
    """The preset, a short or full game, and the bots' levels."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "app.quit", _("Quit"))]

    def choices(self) -> list[tuple[str, str, list[tuple[str, str]], str]]:
        """Each choice: its id, its label, its options (shown, value) and the default."""
        levels = [(_(level), level) for level in LEVELS]
        length = [(_("short game (up to 7 cards)"), "short"), (_("full game"), "full")]
        return [
            ("preset", _("Rules"), [(name, name) for name in PRESETS], "standard"),
            ("length", _("Length"), length, "short"),
            ("partner", _("Your partner"), levels, "medium"),
            ("opponents", _("Your opponents"), levels, "medium"),
        ]

    def compose(self) -> ComposeResult:
        yield Static(_("Back Alley"), id="title")
        with Center(), Vertical(id="choices"):
            for choice, label, options, default in self.choices():
                yield Label(label)
                yield Select(options, value=default, allow_blank=False, id=choice)
            yield Button(_("Start"), id="start", variant="primary")
        yield Footer()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "start":
            self.dismiss(
                {
                    choice: self.query_one(f"#{choice}", Select).value
                    for choice, *_rest in self.choices()
                }
            )


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
        Binding("left", "focus_previous", _("Previous"), show=False),
        Binding("right", "focus_next", _("Next"), show=False),
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
                yield Horizontal(id="hand")
                yield Horizontal(id="bids")
            yield DataTable(id="sheet", zebra_stripes=True, cursor_type="none")
        yield Static(id="status")
        yield Footer()

    def on_resize(self, event: events.Resize) -> None:
        self.app.call_later(self.app.check_size)  # type: ignore[attr-defined]

    def on_mount(self) -> None:
        self.build_sheet()
        self.refresh_table()
        self.next_turn()

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
        self.show_status()
        self.build_actions(view)
        self.fill_sheet()

    def info_text(self, view: Any) -> Text:
        if view.deal_kind is None:
            return Text("")
        turned = " ".join(str(c) for c in view.turned_up)
        trump = trump_name(view.trump)
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
            text.append("\n" + _("bid {bid}").format(bid=bids[seat]))
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
                names = "/".join(seat_label(self.session, s) for s in view.rules.seats_of(side))
                text.append(
                    _("{names}: contract {contract}, took {taken}").format(
                        names=names, contract=shown, taken=view.tricks_won[side]
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
        return text

    def show_status(self) -> None:
        self.query_one("#status", Static).update(self.status_text())

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
        bid_focus = self.show_buttons(
            "#bids", [(str(Bid(a)), False) for a in bids], lambda: [BidButton(a) for a in bids]
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
        if [(b.name, b.disabled) for b in box.query(Button)] == keys:
            return None
        wanted = build()
        box.remove_children()
        box.mount(*wanted)
        box.display = bool(wanted)
        return next((b for b in wanted if not b.disabled), None)

    def build_sheet(self) -> None:
        sheet = self.query_one("#sheet", DataTable)
        rules = self.session.game.rules
        sheet.add_column("#")
        sheet.add_column(_("cards"))
        for side in range(rules.num_sides):
            seats = rules.seats_of(side)
            if len(seats) == 1:
                seat = seats[0]
                who = _("You") if seat == self.session.seat else place_of(self.session, seat)
            else:
                who = _("us") if self.session.seat in seats else _("them")
            sheet.add_column(who)

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
        self.session.act(action)
        self.after_action()

    def after_action(self) -> None:
        self.message = Text("")
        self.typed = ""
        game = self.session.game
        finished = [i for i in range(self.deals_seen - 1, len(game.deals)) if _done(game.deals[i])]
        self.deals_seen = len(game.deals)
        scored = [i for i in finished if game.deals[i].points is not None]
        if finished and not scored:
            renig = game.deals[finished[-1]].thrown_in == "renig"
            said = (
                _("A hand held no honour and no trump (renig, D6): the deal is dealt again.")
                if renig
                else _("Every player passed: the deal is dealt again.")
            )
            self.message = Text(said, style="yellow")
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
            self.session.act(action)
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
        settled = claim(session.game, session.seat)
        if not settled.accepted:
            self.message = Text(
                _("Claim refused: the other side can still take a trick."), style="bold red"
            )
            self.refresh_table()
            return
        session.save()
        self.after_action()
        self.message = Text(_("Claim accepted: the rest of the tricks are yours."), style="green")

    def action_last_trick(self) -> None:
        self.show_last = not self.show_last
        self.refresh_table()


def _done(deal: Any) -> bool:
    return deal.points is not None or deal.thrown_in is not None


class TooSmallScreen(ModalScreen[None]):
    """Shown over the table while the terminal is smaller than the table needs."""

    def compose(self) -> ComposeResult:
        message = _("This terminal is too small: make it at least {w} × {h}.")
        yield Static(message.format(w=MIN_SIZE[0], h=MIN_SIZE[1]), id="too-small")

    def on_resize(self, event: events.Resize) -> None:
        self.app.call_later(self.app.check_size)  # type: ignore[attr-defined]


class PlayApp(App[None]):
    """Back Alley in the terminal."""

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
        if self.session is not None:
            self.push_screen(TableScreen(self.session, self.pace))
        else:
            self.push_screen(StartScreen(), self.start)
        self.check_size()

    def start(self, choices: dict[str, Any] | None) -> None:
        if choices is None:
            self.exit()
            return
        preset = choices["preset"]
        options = {} if choices["length"] == "full" else {"hand_sizes": SHORT[preset]}
        rules = Ruleset.preset(preset, **options)
        self.session = Session.new(
            rules,
            seat=self.new_game.get("seat", 0),
            partner=choices["partner"],
            opponents=choices["opponents"],
            seed=self.new_game.get("seed"),
            save_path=self.new_game.get("save_path"),
        )
        self.push_screen(TableScreen(self.session, self.pace))

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


def run_play(session: Session | None, new_game: dict[str, Any], pace: float) -> None:
    """Run the game; whatever ends it (a key, Ctrl-C, a closed terminal), the last action is
    already saved."""
    PlayApp(session, new_game=new_game, pace=pace).run()


__all__ = ["PlayApp", "run_play"]
