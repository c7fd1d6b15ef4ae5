"""Back Alley (Back Alley Bridge, Blooper): an exact rules engine, game records and tools.

The engine (:class:`Game`) is pure: no I/O, no clock, no global randomness. Information leaves
it only through a seat's :class:`SeatView`.
"""

from backalley._compiled import COMPILED  # first: chooses compiled or pure-Python modules
from backalley.cards import card_name, parse_card
from backalley.engine import BOARD, PASS, Deal, Game, IllegalAction, Phase, bid_action
from backalley.rules import RulesError, Ruleset
from backalley.view import SeatView

__all__ = [
    "BOARD",
    "COMPILED",
    "PASS",
    "Deal",
    "Game",
    "IllegalAction",
    "Phase",
    "RulesError",
    "Ruleset",
    "SeatView",
    "bid_action",
    "card_name",
    "parse_card",
]
__version__ = "0.1.0"
