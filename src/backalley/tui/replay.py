"""``backalley replay``: step through any record, deal by deal and card by card, hands open."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Footer, Static

from backalley.cards import CardSet, mask_cards
from backalley.engine import Game
from backalley.i18n import _, trump_name
from backalley.tui.session import hand_order


class ReplayApp(App[None]):
    """Any position of a recorded game, every hand shown: ←/→ a card, shift+←/→ a trick,
    ↑/↓ a deal."""

    CSS = "#position { padding: 1 2; } #where { padding: 0 2; background: $boost; }"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("right", "step(1)", _("Next card")),
        Binding("left", "step(-1)", _("Previous card")),
        Binding("shift+right", "trick(1)", _("Next trick")),
        Binding("shift+left", "trick(-1)", _("Previous trick")),
        Binding("down", "deal(1)", _("Next deal")),
        Binding("up", "deal(-1)", _("Previous deal")),
        Binding("home", "deal_start", _("Start of deal")),
        Binding("end", "deal_end", _("End of deal")),
        Binding("escape,q", "quit", _("Quit")),
    ]

    def __init__(self, game: Game) -> None:
        super().__init__()
        self.source = game
        self.deal = 0
        self.card = 0
        self.starts = deal_starts(game)

    def compose(self) -> ComposeResult:
        yield Static(id="where")
        yield Static(id="position")
        yield Footer()

    def on_mount(self) -> None:
        self.show()

    def position(self) -> Game:
        """The game replayed up to the current deal and card, the deal's bids all made."""
        if not self.starts:
            return Game(self.source.rules)
        game = self.starts[self.deal].copy()
        for card in self.source.deals[self.deal].play[: self.card]:
            game.apply(card)
        return game

    def show(self) -> None:
        game = self.position()
        deal = self.source.deals[self.deal] if self.source.deals else None
        total = 0 if deal is None else len(deal.play)
        where = _("deal {deal} of {deals} · card {card} of {cards}").format(
            deal=self.deal + 1, deals=len(self.source.deals), card=self.card, cards=total
        )
        self.query_one("#where", Static).update(Text(where, style="bold"))
        self.query_one("#position", Static).update(position_text(game))

    def action_step(self, delta: int) -> None:
        total = len(self.source.deals[self.deal].play) if self.source.deals else 0
        self.card = max(0, min(total, self.card + delta))
        self.show()

    def action_trick(self, delta: int) -> None:
        """To the start of the next (or this, or the previous) trick."""
        if not self.source.deals:
            return
        deal = self.source.deals[self.deal]
        size = len(deal.seats)
        total = len(deal.play)
        start = self.card - self.card % size
        if delta > 0:
            self.card = min(total, start + size)
        else:
            self.card = start - size if self.card == start else start
            self.card = max(0, self.card)
        self.show()

    def action_deal(self, delta: int) -> None:
        self.deal = max(0, min(len(self.source.deals) - 1, self.deal + delta))
        self.card = 0
        self.show()

    def action_deal_start(self) -> None:
        self.card = 0
        self.show()

    def action_deal_end(self) -> None:
        self.card = len(self.source.deals[self.deal].play) if self.source.deals else 0
        self.show()


def deal_starts(source: Game) -> list[Game]:
    """For each deal of ``source``, the game replayed up to that deal's first card: the
    earlier deals played out, the deal dealt and its bids all made."""
    game = Game(source.rules)
    starts = []
    for deal in source.deals:
        game.start_deal(deal.dealer, [mask_cards(h) for h in deal.hands], list(deal.stock))
        for action in deal.bids:
            game.apply(action)
        starts.append(game.copy())
        for card in deal.play:
            game.apply(card)
    return starts


def position_text(game: Game) -> Text:
    """The table with every hand open: the deal, each seat's cards and bid, the trick, the
    contracts and the scores, in the reader's language."""
    view = game.public_view()
    text = Text()
    if view.deal_kind is None:
        return text
    trump = trump_name(view.trump, view.lone_joker)
    text.append(
        _("dealer: seat {seat}").format(seat=view.dealer)
        + f" · {trump} ({' '.join(map(str, view.turned_up))})\n\n",
        style="bold",
    )
    bids = dict(view.bids)
    played = dict(view.trick)
    for seat in range(game.num_players):
        marker = "›" if seat == view.to_move else " "
        cards = " ".join(str(c) for c in hand_order(list(CardSet(game.hand(seat))), view.trump))
        text.append(f"{marker} " + _("seat {seat}").format(seat=seat) + f"  {cards or '-'}")
        if seat in bids:
            text.append("   " + _("bid {bid}").format(bid=bids[seat]))
        if seat in played:
            text.append("   " + _("played {card}").format(card=played[seat]), style="bold")
        text.append("\n")
    text.append("\n")
    for side, contract in enumerate(view.contracts):
        shown = "–" if contract is None else str(contract)
        text.append(
            _("side {side}: contract {contract}, took {taken}, score {score}").format(
                side=side, contract=shown, taken=view.tricks_won[side], score=view.scores[side]
            )
            + "\n"
        )
    return text


def run_replay(game: Game) -> None:
    """Step through ``game`` in the terminal."""
    ReplayApp(game).run()


__all__ = ["ReplayApp", "run_replay"]
