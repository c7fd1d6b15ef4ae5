"""``backalley play``: Back Alley at the terminal, one person and the bots (Textual).

The screens only show what the person's seat view holds and send the person's choice to the
engine; the rules stay in the engine (a refused action comes back with its rule id), the
bots' turns run away from the screen's loop, and the game is saved after every action.
"""

from __future__ import annotations

from typing import Any, ClassVar

from textual import events
from textual.app import App
from textual.binding import Binding, BindingType

from backalley.i18n import _
from backalley.rules import (
    Ruleset,
    game_rules,
)
from backalley.tui.saves import SavedGame, keep, unfinished_saves
from backalley.tui.screens import MIN_SIZE, SavedGamesScreen, StartScreen, TooSmallScreen
from backalley.tui.session import Session
from backalley.tui.table import TableScreen


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
