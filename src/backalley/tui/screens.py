"""The terminal game's screens around the table: choosing a game, a saved game to go on
with, a deal's review, and the word that the terminal is too small."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Center, Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Footer, Label, OptionList, Select, Static
from textual.widgets.option_list import Option

from backalley.cards import Card
from backalley.i18n import _, ngettext
from backalley.rules import (
    GAME_LENGTHS,
    PRESETS,
    Bid,
    game_rules,
)
from backalley.tui.saves import KEEP, SavedGame
from backalley.tui.session import LEVELS
from backalley.tui.texts import all_pass_note, card_text, length_label, saved_game_text

MIN_SIZE = (80, 24)  #: the smallest terminal the table fits in: columns, lines


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


class TooSmallScreen(ModalScreen[None]):
    """Shown over the table while the terminal is smaller than the table needs."""

    def compose(self) -> ComposeResult:
        message = _("This terminal is too small: make it at least {w} × {h}.")
        yield Static(message.format(w=MIN_SIZE[0], h=MIN_SIZE[1]), id="too-small")

    def on_resize(self, event: events.Resize) -> None:
        self.app.call_later(self.app.check_size)  # type: ignore[attr-defined]
