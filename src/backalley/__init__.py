"""Back Alley (Back Alley Bridge, Blooper): an exact rules engine, game records and tools.

The engine (:class:`Game`) is pure: no I/O, no clock, no global randomness. Information leaves
it only through a seat's :class:`SeatView`. Every error the package raises on purpose is a
:class:`BackAlleyError`; a refused action is an :class:`IllegalAction` citing its rule.

>>> game = Game(Ruleset.preset("classic", hand_sizes=[2, 1]), seed=3)
>>> game.view(game.to_move).legal_actions
(Bid('pass'), Bid('1'), Bid('2'), Bid('board'))
"""

from backalley._compiled import COMPILED  # first: chooses compiled or pure-Python modules
from backalley.cards import BackAlleyError, Card, CardError, CardSet, card_name, parse_card
from backalley.engine import Deal, Game, IllegalAction, SeatError
from backalley.record import RecordError, ReplayError
from backalley.rules import (
    BOARD,
    PASS,
    Bid,
    BidError,
    DealKind,
    Phase,
    RulesError,
    Ruleset,
    ThrownIn,
    bid_action,
)
from backalley.view import SeatView

__all__ = [
    "BOARD",
    "COMPILED",
    "PASS",
    "BackAlleyError",
    "Bid",
    "BidError",
    "Card",
    "CardError",
    "CardSet",
    "Deal",
    "DealKind",
    "Game",
    "IllegalAction",
    "Phase",
    "RecordError",
    "ReplayError",
    "RulesError",
    "Ruleset",
    "SeatError",
    "SeatView",
    "ThrownIn",
    "bid_action",
    "card_name",
    "parse_card",
]
__version__ = "0.1.0"
