"""``backalley/1`` game records: write, read, replay, resume and verify (docs/record.md).

A record is the game's event log: the rule set, every deal as dealt, every bid and card in
order. The game is rebuilt from it by replaying every action through the engine, so a record
can never say anything the rules would refuse without :func:`verify` saying where and why.

>>> from backalley.engine import Game
>>> from backalley.rules import Ruleset
>>> game = Game(Ruleset.preset("standard", hand_sizes=[3]), seed=4)
>>> for _ in range(5):
...     game.apply(game.legal_actions()[-1])
>>> again = replay(read_record(write_record(game)))
>>> again.deals[-1].bids == game.deals[-1].bids and again.to_move == game.to_move
True
>>> verify(write_record(game)).exit_code
0
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from typing import Any

from backalley.cards import N_, SUITS, BackAlleyError, card_name, format_cards
from backalley.engine import PASS, Deal, Game, IllegalAction, Phase, action_name
from backalley.rules import OPTION_NAMES, RulesError, Ruleset

FORMAT = "backalley/1"
_NULLABLE = ("hand_sizes", "renig_min_hand", "rainbow_hand")


class RecordError(BackAlleyError, ValueError):
    """The document is not a well-formed ``backalley/1`` record (``verify`` exit 2).

    >>> read_record('{"format": "backalley/1", "rules": "standard"}')
    Traceback (most recent call last):
    ...
    backalley.record.RecordError: "deals" must be a list
    """

    def __init__(self, message: str) -> None:
        super().__init__(None, "{message}", message=message)


@dataclass(frozen=True)
class RecordDeal:
    """One deal of a record, its types checked; cards and bids still as written."""

    dealer: int
    hands: list[list[str]]
    stock: list[str]
    bids: list[str] = field(default_factory=list)
    play: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Record:
    """A well-formed record: its rule set, optional player names and deals."""

    rules: Ruleset
    players: list[str] | None
    deals: list[RecordDeal]


# ---------------------------------------------------------------------------- writing


def write_record(game: Game, players: list[str] | None = None) -> dict[str, Any]:
    """The record of ``game``, finished or not, as a JSON-ready ``dict``."""
    record: dict[str, Any] = {"format": FORMAT, "rules": game.rules.name}
    options = game.rules.changed_options()
    if options:
        record["options"] = options
    if players is not None:
        record["players"] = list(players)
    record["deals"] = [_write_deal(deal, game.rules) for deal in game.deals]
    return record


def dealt(deal: Deal) -> dict[str, Any]:
    """A deal as it was dealt, in the record's spelling: its dealer, hands and stock."""
    return {
        "dealer": deal.dealer,
        "hands": [format_cards(hand) for hand in deal.hands],
        "stock": [card_name(c) for c in deal.stock],
    }


def _write_deal(deal: Deal, rules: Ruleset) -> dict[str, Any]:
    zero = "0" if rules.name == "bab" else "pass"  # bab-online's players bid 0
    return {
        **dealt(deal),
        "bids": [zero if b == PASS else action_name(b) for b in deal.bids],
        "play": [action_name(c) for c in deal.play],
    }


def dumps(game: Game, players: list[str] | None = None) -> str:
    """The record of ``game`` as JSON text."""
    return json.dumps(write_record(game, players), indent=1) + "\n"


# ---------------------------------------------------------------------------- reading


def read_record(document: str | bytes | dict[str, Any]) -> Record:
    """Check that ``document`` (JSON text or parsed) is a well-formed record, and read it.

    Only the shape is checked here (the exit-2 list of docs/record.md); the rules are checked by
    :func:`replay`.

    :raises RecordError: naming what is wrong.
    """
    if isinstance(document, (str, bytes)):
        try:
            document = json.loads(document)
        except (ValueError, RecursionError) as error:
            raise RecordError(f"not JSON: {error}") from None
    if not isinstance(document, dict):
        raise RecordError("a record must be a JSON object")
    if document.get("format") != FORMAT:
        raise RecordError(f'"format" must be "{FORMAT}", not {document.get("format")!r}')
    name = document.get("rules")
    if not isinstance(name, str):
        raise RecordError('"rules" must name a rule set: standard, classic or classic3')
    options = document.get("options")
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise RecordError('"options" must be an object')
    for key in options:
        if key not in OPTION_NAMES:
            raise RecordError(f"unknown option {key!r}: options are {', '.join(OPTION_NAMES)}")
    # An option given as null is left out, except where null is one of its values.
    options = {k: v for k, v in options.items() if v is not None or k in _NULLABLE}
    try:
        rules = Ruleset.preset(name, **options)
    except RulesError as error:
        raise RecordError(str(error)) from None
    players = document.get("players")
    if players is not None and (
        not isinstance(players, list)
        or len(players) != rules.num_players
        or not all(isinstance(p, str) for p in players)
    ):
        raise RecordError(f'"players" must be {rules.num_players} strings, one per seat')
    deals = document.get("deals")
    if not isinstance(deals, list):
        raise RecordError('"deals" must be a list')
    return Record(rules, players, [_read_deal(i, d) for i, d in enumerate(deals)])


def _read_deal(index: int, deal: Any) -> RecordDeal:
    where = f"deal {index}"
    if not isinstance(deal, dict):
        raise RecordError(f"{where} must be an object")
    for key in ("dealer", "hands", "stock"):
        if deal.get(key) is None:
            raise RecordError(f'{where} has no "{key}"')
    dealer = deal["dealer"]
    if not isinstance(dealer, int) or isinstance(dealer, bool):
        raise RecordError(f'{where}: "dealer" must be a seat number')
    hands = deal["hands"]
    if not isinstance(hands, list) or not all(isinstance(h, list) for h in hands):
        raise RecordError(f'{where}: "hands" must be a list of lists of cards')
    return RecordDeal(
        dealer,
        [_strings(h, f"{where}: a hand") for h in hands],
        _strings(deal["stock"], f'{where}: "stock"'),
        _strings(_optional(deal.get("bids")), f'{where}: "bids"'),
        _strings(_optional(deal.get("play")), f'{where}: "play"'),
    )


def _optional(value: Any) -> Any:
    """A member given as null is the same as one left out (docs/record.md)."""
    return [] if value is None else value


def _strings(value: Any, what: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise RecordError(f"{what} must be a list of strings")
    return value


# ---------------------------------------------------------------------------- replaying


class ReplayError(BackAlleyError):
    """The first illegal action or inconsistency of a record, and where it is: the 0-based
    ``deal``, its ``phase`` (``"deal"``, ``"bid"`` or ``"play"``) and the ``index`` in it."""

    def __init__(self, deal: int, phase: str, index: int, error: BackAlleyError) -> None:
        super().__init__(error.rule, error.template, **error.params)
        self.deal = deal
        self.phase = phase
        self.index = index

    def __str__(self) -> str:
        return f"deal {self.deal}, {self.phase} {self.index}: {self.rule}: {self.message}"


def replay(record: Record) -> Game:
    """Rebuild the game a record describes, action by action through the engine.

    :raises ReplayError: at the first action or deal the rules refuse.
    """
    game = Game(record.rules)
    _replay_into(game, record)
    return game


def _replay_into(game: Game, record: Record) -> None:
    """Replay ``record`` into the fresh ``game``, leaving it as it stood at any error."""
    last = len(record.deals) - 1
    for i, deal in enumerate(record.deals):
        try:
            game.start_deal(deal.dealer, deal.hands, deal.stock)
        except IllegalAction as error:
            raise ReplayError(i, "deal", 0, error) from None
        for phase, actions, act in (("bid", deal.bids, game.bid), ("play", deal.play, game.play)):
            for k, action in enumerate(actions):
                try:
                    act(action)
                except IllegalAction as error:
                    raise ReplayError(i, phase, k, error) from None
        if i < last and game.phase in (Phase.BID, Phase.PLAY):  # incomplete, yet not the last
            if game.phase == Phase.BID:
                missing = IllegalAction("B1", N_("this deal is missing bids, yet another follows"))
                where = ("bid", len(deal.bids))
            else:
                missing = IllegalAction("P6", N_("this deal is missing cards, yet another follows"))
                where = ("play", len(deal.play))
            raise ReplayError(i, *where, missing)


def resume(record: Record, seed: int | None = None) -> Game:
    """The game of ``record``, ready to go on; with ``seed`` it deals its later deals itself."""
    game = replay(record)
    if seed is not None:
        game.attach_rng(random.Random(seed))
    return game


# ---------------------------------------------------------------------------- verifying


@dataclass(frozen=True)
class Verdict:
    """What ``backalley verify`` prints (``output``) and its exit code (0, 1 or 2)."""

    output: dict[str, Any]
    exit_code: int


def verify(document: str | bytes | dict[str, Any]) -> Verdict:
    """Replay a record and report every deal, the scores and the first error (docs/record.md)."""
    try:
        record = read_record(document)
    except RecordError as error:
        return Verdict({"ok": False, "error": {"rule": None, "message": str(error)}}, 2)
    game = Game(record.rules)
    failure: ReplayError | None = None
    try:
        _replay_into(game, record)
    except ReplayError as error:
        failure = error
    deals = game.deals
    output: dict[str, Any] = {
        "ok": failure is None,
        "deals": [deal_report(d) for d in deals],
        "scores": list(game.scores),
        "finished": game.is_over,
        "winner": game.winner,
    }
    if failure is not None:
        output["error"] = {
            "deal": failure.deal,
            "phase": failure.phase,
            "index": failure.index,
            "rule": failure.rule,
            "message": failure.message,
        }
    return Verdict(output, 0 if failure is None else 1)


def deal_report(deal: Deal) -> dict[str, Any]:
    """One entry of ``verify``'s ``deals``, for a deal as it stands now."""
    thrown = deal.thrown_in is not None
    return {
        "dealer": deal.dealer,
        "hand_size": deal.hand_size,
        "trump": None if deal.trump is None else SUITS[deal.trump],
        "thrown_in": deal.thrown_in,
        "leader": None if thrown else deal.leader,
        "contracts": [None] * len(deal.contracts) if thrown else list(deal.contracts),
        "tricks": list(deal.tricks),
        "points": [0] * len(deal.tricks) if thrown else _points(deal),
    }


def _points(deal: Deal) -> list[int] | None:
    return None if deal.points is None else list(deal.points)
