"""Rule sets, and the shape of a game that every rule set shares.

The option table of the rule book (docs/rules.md) is :data:`OPTIONS`; a :class:`Ruleset` is a
preset (``standard``, ``classic``, ``classic3``) with some options overridden. Unknown names
and values of the wrong kind are refused, never ignored.

The seats' arithmetic lives here, once (C4): :meth:`Ruleset.side_of`,
:meth:`Ruleset.partner_of`, :meth:`Ruleset.left_of` and :func:`next_seat`; so do the phases of
a game (:class:`Phase`) and the kinds of deal (:class:`DealKind`), which views name too.

>>> rules = Ruleset.preset("standard", hand_sizes=[3, 2, 1])
>>> rules
Ruleset.preset('standard', hand_sizes=[3, 2, 1])
>>> rules.hand_sizes, rules.blooper_forces, rules.num_players
((3, 2, 1), True, 4)
>>> Ruleset.preset("classic3").hand_sizes[:3]
(2, 3, 4)
>>> rules.side_of(3), rules.partner_of(3), rules.left_of(3), next_seat(2, (0, 2))
(1, 1, 0, 0)
>>> Ruleset.preset("nope")
Traceback (most recent call last):
...
backalley.rules.RulesError: unknown rule set 'nope': choose one of standard, classic, classic3, bab
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, fields, replace
from enum import IntEnum, StrEnum
from typing import Any, Final, Literal

from mypy_extensions import mypyc_attr

from backalley.cards import CARDS, N_, BackAlleyError, Card, card_name

PRESETS = ("standard", "classic", "classic3", "bab")


@mypyc_attr(native_class=False)
class RulesError(BackAlleyError, ValueError):
    """An unknown preset, an unknown option, or an option value of the wrong kind.

    ``template`` and ``params`` let a client show the message in the reader's language.
    """

    def __init__(self, template: str, **params: Any) -> None:
        super().__init__(None, template, **params)


class Phase(IntEnum):
    """Where a game stands."""

    DEAL = 0  #: a deal is due (the game starts here; a seeded game deals at once)
    BID = 1
    PLAY = 2
    OVER = 3


class ThrownIn(StrEnum):
    """Why a deal was thrown in (its spelling in views, reviews and verify's output)."""

    RENIG = "renig"  #: D6: a player with no honour and no trump
    ALL_PASS = "all_pass"  #: D7: every player passed


class DealKind(IntEnum):
    """A counted deal, or one of the tie-breaker deals of E2 and E3."""

    NORMAL = 0
    TIE_BREAKER = 1  #: E2: four players, first side to 7 tricks
    TIE_BREAKER_THREE = 2  #: E3: three tied players, all 13 tricks played
    TIE_BREAKER_TWO = 3  #: E3: two tied players, two-card tricks, first to 7


# Actions are ints: a card is 0‥53 (backalley.cards); the bids follow, PASS (a bid of 0),
# then one action per number of tricks, then BOARD (B1).
PASS: Final = 54
BOARD: Final = PASS + 14


def bid_action(tricks: int) -> int:
    """The action bidding ``tricks`` (0 is a pass)."""
    return PASS + tricks


NOT_A_BID = N_("{text} is not a bid: write pass, a number of tricks, or board")


@mypyc_attr(native_class=False)
class BidError(BackAlleyError, ValueError):
    """A bid written in a way B1 does not allow; ``text`` is the offending input."""

    def __init__(self, text: str) -> None:
        super().__init__("B1", NOT_A_BID, text=text)
        self.text = text


def parse_bid(text: object) -> int:
    """Read a bid as a record writes it: ``pass``, ``0``, ASCII digits, or ``board`` (B1).

    :raises BidError: when ``text`` is no bid.
    """
    key = text.lower() if isinstance(text, str) else None
    if key == "pass":
        return PASS
    if key == "board":
        return BOARD
    if key and key.isascii() and key.isdigit() and int(key) <= 13:
        return PASS + int(key)
    raise BidError(repr(text))


def action_name(action: int) -> str:
    """The record spelling of an action: ``"AS"``, ``"pass"``, ``"3"``, ``"board"``."""
    if action < PASS:
        return card_name(action)
    if action == PASS:
        return "pass"
    if action == BOARD:
        return "board"
    if PASS < action < BOARD:
        return str(action - PASS)
    raise BidError(repr(action))


@mypyc_attr(native_class=False)
class Bid(int):
    """A bid: the action ``int`` the engine computes with, named when shown (B1).

    >>> Bid("pass"), Bid("3"), str(Bid(BOARD)), Bid("board") == BOARD, Bid("2").tricks
    (Bid('pass'), Bid('3'), 'board', True, 2)
    """

    __slots__ = ()

    def __new__(cls, bid: object) -> Bid:
        action = parse_bid(bid) if isinstance(bid, str) else bid
        if isinstance(action, bool) or not isinstance(action, int) or not PASS <= action <= BOARD:
            raise BidError(repr(bid))
        return int.__new__(cls, action)

    def __repr__(self) -> str:
        return f"Bid('{action_name(self)}')"

    def __str__(self) -> str:
        return action_name(self)

    @property
    def tricks(self) -> int | None:
        """The number of tricks bid (0 for a pass), or ``None`` for board."""
        return None if self == BOARD else self - PASS


#: Every bid as a :class:`Bid`, indexed by its number of tricks (14: board).
BIDS: tuple[Bid, ...] = tuple(Bid(action) for action in range(PASS, BOARD + 1))


def named_action(action: int) -> Card | Bid:
    """An action as views name it: a :class:`~backalley.cards.Card` or a :class:`Bid`."""
    return CARDS[action] if action < PASS else BIDS[action - PASS]


def bidding_order(dealer: int, num_players: int) -> tuple[int, ...]:
    """Every seat in the order they bid: from the dealer's left, clockwise (B1)."""
    return tuple((dealer + 1 + i) % num_players for i in range(num_players))


def next_seat(seat: int, seats: Sequence[int]) -> int:
    """The seat that plays after ``seat`` among ``seats``, the seats dealt in, clockwise (C4;
    in an E3 tie-breaker a player may sit out)."""
    return seats[(seats.index(seat) + 1) % len(seats)]


@dataclass(frozen=True)
class Option:
    """One row of the option table: its name, the values it takes, and the rule it sets."""

    name: str
    choices: tuple[Any, ...] | None
    rule: str
    help: str


OPTIONS: tuple[Option, ...] = (
    Option("hand_sizes", None, "D2", N_("hand size of each counted deal; null for the preset's")),
    Option(
        "joker_turnup",
        ("no_trump", "turn_again", "lone_joker"),
        "D4, D5, D8",
        N_("what a turned-up joker does"),
    ),
    Option("renig_min_hand", None, "D6", N_("smallest hand size checked for renig; null for none")),
    Option(
        "all_pass",
        ("redeal", "play", "redeal_same"),
        "D7",
        N_("what happens when every player passes"),
    ),
    Option(
        "all_pass_limit",
        None,
        "D7",
        N_("all-pass throw-ins in a row after which an all-pass deal is played; null for no limit"),
    ),
    Option("max_bid", ("hand_minus_one", "hand", "hand_cap_12"), "B1", N_("highest numeric bid")),
    Option("board_tie_leader", ("last", "first"), "P1", N_("which of tied board bidders leads")),
    Option(
        "board_leads_trump", ("bidder", "side", "off"), "P3", N_("who may lead trump after board")
    ),
    Option(
        "blooper_forces",
        (True, False, "big_opponents"),
        "P4",
        N_("a led Blooper forces highest / lowest trump; big_opponents: BJ, opponents only"),
    ),
    Option(
        "board_multiplier",
        (True, False, "doubling"),
        "S3",
        N_("board scores are multiplied by board level; doubling: by 2 to the side's level"),
    ),
    Option("tie_breaker", (True, False), "E2, E3", N_("a tie is settled by a tie-breaker deal")),
    Option(
        "contract_cap", (True, False), "B3", N_("a side's numeric contract above the hand is cut")
    ),
    Option("contract_points", (5, 10), "S1", N_("points a contract trick scores")),
    Option("zero_contract", ("nothing", "tricks"), "S2", N_("what a side with no contract scores")),
    Option(
        "rainbow_hand",
        None,
        "S5",
        N_("the hand size whose deal pays a rainbow bonus; null for none"),
    ),
)
OPTION_NAMES = tuple(option.name for option in OPTIONS)
_UNKNOWN_OPTION = N_("unknown option {key}: options are {names}")

# D2: the preset hand sizes.
_STANDARD_SIZES = (*range(13, 0, -1), *range(2, 14))
_CLASSIC_SIZES = (*range(1, 14), *range(13, 0, -1))
_CLASSIC3_SIZES = (*range(2, 14), *range(13, 1, -1))
_BAB_SIZES = (12, 10, 8, 6, 4, 2, 1, 3, 5, 7, 9, 11, 13)


@dataclass(frozen=True)
class Ruleset:
    """A preset with its options: everything that makes one Back Alley game differ from another.

    Build one with :meth:`preset`; fields are the option names of the rule book
    (docs/rules.md), except that ``hand_sizes`` is always the resolved list (never ``None``).
    """

    name: Literal["standard", "classic", "classic3", "bab"]
    hand_sizes: tuple[int, ...]
    joker_turnup: str
    renig_min_hand: int | None
    all_pass: str
    all_pass_limit: int | None
    max_bid: str
    board_tie_leader: str
    board_leads_trump: str
    blooper_forces: bool | str
    board_multiplier: bool | str
    tie_breaker: bool
    contract_cap: bool
    contract_points: int
    zero_contract: str
    rainbow_hand: int | None

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled (and deep-copied) by its fields: the compiled build cannot set a frozen
        instance's fields one by one, as pickle otherwise would."""
        return (Ruleset, tuple(getattr(self, f.name) for f in fields(self)))

    @property
    def num_players(self) -> int:
        """Four seats, or three in ``classic3`` (C4)."""
        return 3 if self.name == "classic3" else 4

    @property
    def num_sides(self) -> int:
        """Two partnerships, or one side per player in ``classic3`` (C4)."""
        return 3 if self.name == "classic3" else 2

    def side_of(self, seat: int) -> int:
        """The side a seat plays for (C4): partners sit opposite."""
        return seat if self.name == "classic3" else seat % 2

    def partner_of(self, seat: int) -> int | None:
        """The seat opposite ``seat``, its partner; ``None`` in ``classic3`` (C4)."""
        return None if self.name == "classic3" else (seat + 2) % 4

    def seats_of(self, side: int) -> tuple[int, ...]:
        """The seats that play for ``side`` (C4)."""
        return tuple(s for s in range(self.num_players) if self.side_of(s) == side)

    def left_of(self, seat: int) -> int:
        """The next seat clockwise at the table (C4): who bids first after a dealer (B1)."""
        return (seat + 1) % self.num_players

    def bidding_order(self, dealer: int) -> tuple[int, ...]:
        """Every seat in the order they bid: from the dealer's left, clockwise (B1)."""
        return bidding_order(dealer, self.num_players)

    @classmethod
    def preset(cls, name: str, /, **options: Any) -> Ruleset:
        """The preset ``name`` with ``options`` overriding its defaults.

        :raises RulesError: for an unknown preset, option or value.
        """
        if name not in PRESETS:
            raise RulesError(
                N_("unknown rule set {name}: choose one of {choices}"),
                name=repr(name),
                choices=", ".join(PRESETS),
            )
        if name == "bab":
            return _BAB.with_options(options)
        classic = name != "standard"
        base = cls(
            name=name,  # type: ignore[arg-type]
            hand_sizes={"standard": _STANDARD_SIZES, "classic": _CLASSIC_SIZES}.get(
                name, _CLASSIC3_SIZES
            ),
            joker_turnup="turn_again" if classic else "no_trump",
            renig_min_hand=7 if classic else None,
            all_pass="play" if classic else "redeal",
            all_pass_limit=None,
            max_bid="hand" if classic else "hand_minus_one",
            board_tie_leader="first" if classic else "last",
            board_leads_trump="side" if classic else "bidder",
            blooper_forces=not classic,
            board_multiplier=not classic,
            tie_breaker=classic,
            contract_cap=False,
            contract_points=5,
            zero_contract="nothing",
            rainbow_hand=None,
        )
        return base.with_options(options)

    def with_options(self, options: Mapping[str, Any]) -> Ruleset:
        """This rule set with ``options`` (option name → value, as in a record) overridden."""
        changes: dict[str, Any] = {}
        for key, value in options.items():
            changes[key] = self._checked(key, value)
        if changes.get("hand_sizes", 0) is None:
            changes["hand_sizes"] = Ruleset.preset(self.name).hand_sizes
        return replace(self, **changes)

    @staticmethod
    def _checked(key: str, value: Any) -> Any:
        option = next((o for o in OPTIONS if o.name == key), None)
        if option is None:
            raise RulesError(_UNKNOWN_OPTION, key=repr(key), names=", ".join(OPTION_NAMES))
        if key == "hand_sizes":
            if value is None:
                return None
            if (
                not isinstance(value, (list, tuple))
                or not value
                or not all(is_int(v) and 1 <= v <= 13 for v in value)
            ):
                raise RulesError(
                    N_("option hand_sizes must be a list of hand sizes 1..13 or null, not {value}"),
                    value=repr(value),
                )
            return tuple(value)
        if key == "all_pass_limit":
            if value is not None and not (is_int(value) and value >= 1):
                raise RulesError(
                    N_("option all_pass_limit must be an integer from 1 up, or null, not {value}"),
                    value=repr(value),
                )
            return value
        if key == "rainbow_hand":
            if value is not None and not (is_int(value) and 1 <= value <= 13):
                raise RulesError(
                    N_("option rainbow_hand must be a hand size 1..13, or null, not {value}"),
                    value=repr(value),
                )
            return value
        if key == "renig_min_hand":
            if value is not None and not is_int(value):
                raise RulesError(
                    N_("option renig_min_hand must be an integer or null, not {value}"),
                    value=repr(value),
                )
            return value
        assert option.choices is not None
        if not any(type(value) is type(c) and value == c for c in option.choices):
            shown = ", ".join(_show(c) for c in option.choices)
            raise RulesError(
                N_("option {key} must be one of {shown}, not {value}"),
                key=key,
                shown=shown,
                value=_show(value),
            )
        return value

    def __repr__(self) -> str:
        changed = self.changed_options()
        options = "".join(f", {key}={value!r}" for key, value in changed.items())
        return f"Ruleset.preset({self.name!r}{options})"

    def options(self) -> dict[str, Any]:
        """Every option with its value, as a record's ``options`` member would give it."""
        values = asdict(self)
        values["hand_sizes"] = list(self.hand_sizes)
        return {name: values[name] for name in OPTION_NAMES}

    def changed_options(self) -> dict[str, Any]:
        """The options that differ from the preset's, for a compact record."""
        preset = Ruleset.preset(self.name).options()
        return {k: v for k, v in self.options().items() if preset[k] != v}


#: The lengths of game every client offers: ``short`` (three deals, 3, 2 and 1 cards),
#: ``longer`` (the preset's deals of up to 7 cards) and ``full`` (the preset's own, D2).
GAME_LENGTHS = ("short", "longer", "full")


def game_length(preset: str, length: str) -> tuple[int, ...] | None:
    """The ``hand_sizes`` option (D2) of a game of ``length`` under ``preset``: ``None`` for
    the preset's own list.

    >>> game_length("standard", "short"), game_length("classic3", "longer")
    ((3, 2, 1), (2, 3, 4, 5, 6, 7, 7, 6, 5, 4, 3, 2))
    """
    if length == "short":
        return (3, 2, 1)
    if length == "longer":
        return tuple(size for size in Ruleset.preset(preset).hand_sizes if size <= 7)
    if length == "full":
        return None
    raise RulesError(
        N_("unknown length of game {length}: choose one of {choices}"),
        length=repr(length),
        choices=", ".join(GAME_LENGTHS),
    )


#: All-pass throw-ins in a row after which a short or longer game plays the next all-pass
#: deal with no contract (D7 ``all_pass_limit``): a 1-card deal is otherwise dealt again and
#: again while everyone passes.
ALL_PASS_LIMIT = 3


def game_rules(preset: str, length: str, options: dict[str, Any] | None = None) -> Ruleset:
    """The rules of a game of ``length`` (one of :data:`GAME_LENGTHS`) under
    ``preset``, with the person's own ``options`` on top.

    A short or longer game stops redealing all-pass deals after :data:`ALL_PASS_LIMIT` in a
    row, unless ``options`` name ``all_pass_limit``; the full game keeps the preset's.

    :raises RulesError: for an unknown length or a bad option.
    """
    chosen = dict(options or {})
    sizes = game_length(preset, length)
    if sizes is not None:
        chosen.setdefault("hand_sizes", list(sizes))
        chosen.setdefault("all_pass_limit", ALL_PASS_LIMIT)
    return Ruleset.preset(preset, **chosen)


def length_of(rules: Ruleset) -> str | None:
    """Which of :data:`GAME_LENGTHS` ``rules`` deal, if any (``None``: hand
    sizes of the person's own)."""
    for length in GAME_LENGTHS:
        sizes = game_length(rules.name, length) or Ruleset.preset(rules.name).hand_sizes
        if tuple(rules.hand_sizes) == tuple(sizes):
            return length
    return None


def is_int(value: object) -> bool:
    """An ``int`` and not a ``bool``: a count or a seat as the rules take them."""
    return isinstance(value, int) and not isinstance(value, bool)


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return json.dumps(value) if isinstance(value, str) else repr(value)


def parse_option_value(key: str, text: str) -> Any:
    """Read ``k=v`` text from the command line into the option's kind (JSON-like spelling).

    :raises RulesError: when the option is unknown or the text is not one of its values.
    """
    if key not in OPTION_NAMES:
        raise RulesError(_UNKNOWN_OPTION, key=repr(key), names=", ".join(OPTION_NAMES))
    try:
        value = json.loads(text)
    except ValueError:
        value = text
    if key == "hand_sizes" and isinstance(value, int) and not isinstance(value, bool):
        value = [value]  # a one-deal game: hand_sizes=7
    if key == "hand_sizes" and isinstance(value, str):
        with contextlib.suppress(ValueError):
            value = [int(part) for part in value.split(",")]
    Ruleset._checked(key, value)
    return value


#: bab-online's rules (docs/rules.md, the ``bab`` preset): 13 deals 12→1→13, ten points a
#: contract trick, boards doubling, a turned-up joker leaving the other as the lone trump
#: (D8), the Big Blooper forcing only the leader's opponents, a rainbow bonus on the 4-card
#: deal, zero contracts scoring their tricks, all-zero deals dealt again by the same dealer.
_BAB = Ruleset(
    name="bab",
    hand_sizes=_BAB_SIZES,
    joker_turnup="lone_joker",
    renig_min_hand=None,
    all_pass="redeal_same",
    all_pass_limit=None,
    max_bid="hand_cap_12",
    board_tie_leader="last",
    board_leads_trump="off",
    blooper_forces="big_opponents",
    board_multiplier="doubling",
    tie_breaker=False,
    contract_cap=True,
    contract_points=10,
    zero_contract="tricks",
    rainbow_hand=4,
)

assert {f.name for f in fields(Ruleset)} == {"name", *OPTION_NAMES}
