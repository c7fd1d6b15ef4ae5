"""The 54 cards of Back Alley, their notation, and sets of cards (rules C1–C3).

A card is an ``int`` from 0 to 53. Suit-major layout: card ``13 * suit + rank`` with suits
♠ ♥ ♦ ♣ as 0‥3 and ranks 2‥A as 0‥12; the Little Blooper is 52 and the Big Blooper 53. Jokers
sitting above every suit card means that, within a trump mask, the highest set bit is the
highest trump (C3) and the lowest set bit the lowest one — which is what P4 and P5 need.

A set of cards is an ``int`` bit mask (bit *c* set when card *c* is in the set). The engine
computes with plain ints; what it hands out (views, errors) names them: :class:`Card` and
:class:`CardSet` are those ints with a readable ``repr`` and ``str``.

>>> parse_card("10h") == parse_card("TH")
True
>>> card_name(parse_card("bj"))
'BJ'
>>> [card_name(c) for c in mask_cards(mask_of([parse_card("AS"), parse_card("2S")]))]
['2S', 'AS']
>>> hand = CardSet("7h ks lj as")
>>> hand
CardSet('AS KS 7H LJ')
>>> print(hand, len(hand), Card("KS") in hand)
AS KS 7H LJ 4 True
>>> list(hand)
[Card('AS'), Card('KS'), Card('7H'), Card('LJ')]
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from mypy_extensions import mypyc_attr

RANKS = "23456789TJQKA"
SUITS = "SHDC"
SUIT_SYMBOLS = "♠♥♦♣"

SPADES, HEARTS, DIAMONDS, CLUBS = range(4)
LITTLE_BLOOPER = 52
BIG_BLOOPER = 53
NUM_CARDS = 54

FULL_DECK = (1 << NUM_CARDS) - 1
JOKERS = (1 << LITTLE_BLOOPER) | (1 << BIG_BLOOPER)
SUIT_MASKS: tuple[int, ...] = tuple(0x1FFF << (13 * s) for s in range(4))
#: Aces, kings, queens and jacks of every suit: the honours the renig rule looks for (D6).
HONOURS = sum(0xF << (13 * s + 9) for s in range(4))

_NAMES: tuple[str, ...] = (*tuple(r + s for s in SUITS for r in RANKS), "LJ", "BJ")
_BY_NAME: dict[str, int] = {name: card for card, name in enumerate(_NAMES)}


@mypyc_attr(native_class=False)
class BackAlleyError(Exception):
    """The base of every error the package raises on purpose.

    ``rule`` is the rule id the error cites (``"P3"``), or ``None`` when no rule is at stake
    (an unreadable record, an unknown bot); ``message`` says what is wrong in plain English;
    ``template`` and ``params`` let a client show it in the reader's language.
    """

    def __init__(self, rule: str | None, template: str, **params: Any) -> None:
        self.rule = rule
        self.template = template
        self.params = params
        self.message = template.format(**params)
        super().__init__(self.message if rule is None else f"{rule}: {self.message}")


def N_(message: str) -> str:
    """Mark a message for translation without translating it: the engine does no I/O."""
    return message


_NOT_A_CARD = N_("{text} is not a card: write rank then suit, like AS, TD, 7C, or BJ, LJ")


@mypyc_attr(native_class=False)
class CardError(BackAlleyError, ValueError):
    """A card written in a way rule C2 does not allow; ``text`` is the offending input.

    >>> parse_card("zz")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    backalley.cards.CardError: C2: 'zz' is not a card: write rank then suit, like AS, TD, ...
    """

    def __init__(self, text: str, template: str = _NOT_A_CARD) -> None:
        super().__init__("C2", template, text=text)
        self.text = text


def card_name(card: object) -> str:
    """The canonical spelling of ``card`` (C2): ``"AS"``, ``"TD"``, ``"BJ"``.

    :raises CardError: when ``card`` is no card number (0‥53).
    """
    if not isinstance(card, bool) and isinstance(card, int) and 0 <= card < NUM_CARDS:
        return _NAMES[card]
    raise CardError(repr(card))


def parse_card(text: object) -> int:
    """Read a card written as C2 allows: any letter case, ``10`` for ``T``.

    :raises CardError: when ``text`` names no card.
    """
    if not isinstance(text, str):
        raise CardError(repr(text))
    key = text.upper() if text.isascii() else ""  # C2: ASCII letters only
    if key.startswith("10"):
        key = "T" + key[2:]
    try:
        return _BY_NAME[key]
    except KeyError:
        raise CardError(repr(text)) from None


def suit_of(card: int) -> int:
    """The suit index of a suit card; 4 for a joker."""
    return card // 13


def rank_of(card: int) -> int:
    """The rank index (0 = 2 … 12 = A) of a suit card; 13 for LJ, 14 for BJ."""
    return card - 13 * 4 + 13 if card >= LITTLE_BLOOPER else card % 13


def mask_of(cards: Iterable[int]) -> int:
    """The bit mask holding ``cards``."""
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


#: The order cards are shown in: ♠ ♥ ♦ ♣, each from the ace down, then BJ and LJ.
DISPLAY_ORDER: tuple[int, ...] = (
    *(13 * suit + rank for suit in range(4) for rank in range(12, -1, -1)),
    BIG_BLOOPER,
    LITTLE_BLOOPER,
)


@mypyc_attr(native_class=False)
class Card(int):
    """One card: the ``int`` 0‥53 that the engine computes with, named when shown.

    >>> Card("10h"), str(Card(53)), Card("AS") == 12, Card("QD").suit, Card("LJ").suit
    (Card('TH'), 'BJ', True, 2, None)
    >>> Card(54)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    backalley.cards.CardError: C2: 54 is not a card: write rank then suit, like AS, TD, ...
    """

    __slots__ = ()

    def __new__(cls, card: object) -> Card:
        number = parse_card(card) if isinstance(card, str) else card
        card_name(number)  # refuses anything but 0‥53 (C2)
        assert isinstance(number, int)
        return int.__new__(cls, number)

    def __repr__(self) -> str:
        return f"Card('{_NAMES[self]}')"

    def __str__(self) -> str:
        return _NAMES[self]

    @property
    def suit(self) -> int | None:
        """The suit index (0‥3 for ♠ ♥ ♦ ♣), or ``None`` for a Blooper."""
        return None if self >= LITTLE_BLOOPER else self // 13

    @property
    def rank(self) -> int:
        """The rank index: 0 for a 2 … 12 for an ace, 13 for LJ, 14 for BJ."""
        return rank_of(self)


#: Every card as a :class:`Card`, indexed by its number.
CARDS: tuple[Card, ...] = tuple(Card(c) for c in range(NUM_CARDS))


@mypyc_attr(native_class=False)
class CardSet(int):
    """An immutable set of cards: the engine's bit mask, shown and iterated as cards.

    Built from a mask, from names (``CardSet("AS KS 7H")``) or from cards. Bitwise operators
    give plain masks, as ints do; ``CardSet(mask)`` names one again. Iteration and ``str``
    follow :data:`DISPLAY_ORDER`.

    >>> CardSet("2c bj 10d")
    CardSet('TD 2C BJ')
    >>> CardSet([Card("AS"), Card("2S")]) == mask_of([12, 0]), CardSet(), len(CardSet(FULL_DECK))
    (True, CardSet(''), 54)
    """

    __slots__ = ()

    def __new__(cls, cards: object = 0) -> CardSet:
        if isinstance(cards, int):
            if isinstance(cards, bool):
                raise CardError(repr(cards))
            mask = int(cards)
            if not 0 <= mask <= FULL_DECK:
                raise CardError(
                    hex(mask), N_("{text} is no set of cards: it has bits beyond the 54")
                )
        elif isinstance(cards, str):
            mask = mask_of(parse_card(word) for word in cards.split())
        elif isinstance(cards, Iterable):
            mask = mask_of(parse_card(c) if isinstance(c, str) else Card(c) for c in cards)
        else:
            raise CardError(repr(cards), N_("{text} is no set of cards"))
        return int.__new__(cls, mask)

    def __iter__(self) -> Iterator[Card]:
        for card in DISPLAY_ORDER:
            if self >> card & 1:
                yield CARDS[card]

    def __len__(self) -> int:
        return self.bit_count()

    def __contains__(self, card: object) -> bool:
        if isinstance(card, str):
            card = parse_card(card)
        return isinstance(card, int) and 0 <= card < NUM_CARDS and bool(self >> card & 1)

    def __repr__(self) -> str:
        return f"CardSet('{self}')"

    def __str__(self) -> str:
        return " ".join(_NAMES[c] for c in DISPLAY_ORDER if self >> c & 1)


def _chunk_table() -> tuple[tuple[tuple[int, ...], ...], ...]:
    """For each 13-bit chunk position (4 suits, then the jokers), each chunk value's cards."""
    tables = []
    for base in (0, 13, 26, 39, 52):
        width = 13 if base < 52 else 2
        tables.append(
            tuple(
                tuple(base + i for i in range(width) if value >> i & 1)
                for value in range(1 << width)
            )
        )
    return tuple(tables)


_CHUNKS = _chunk_table()


def mask_cards(
    mask: int,
    _s: tuple[tuple[int, ...], ...] = _CHUNKS[0],
    _h: tuple[tuple[int, ...], ...] = _CHUNKS[1],
    _d: tuple[tuple[int, ...], ...] = _CHUNKS[2],
    _c: tuple[tuple[int, ...], ...] = _CHUNKS[3],
    _j: tuple[tuple[int, ...], ...] = _CHUNKS[4],
) -> list[int]:
    """The cards of ``mask`` in ascending order; fast, since legal moves are built with it.

    (The tables are bound as defaults because local names are the fastest to read.)
    """
    return [
        *_s[mask & 0x1FFF],
        *_h[mask >> 13 & 0x1FFF],
        *_d[mask >> 26 & 0x1FFF],
        *_c[mask >> 39 & 0x1FFF],
        *_j[mask >> 52],
    ]


def trump_mask(trump: int | None, lone_joker: int | None = None) -> int:
    """Every trump when ``trump`` is the trump suit: the suit and both jokers (C3); with no
    trump suit, the deal's lone joker (D8) or nothing."""
    if trump is None:
        return 0 if lone_joker is None else 1 << lone_joker
    return SUIT_MASKS[trump] | JOKERS


def format_cards(mask: int) -> list[str]:
    """The canonical names of the cards in ``mask``, ascending."""
    return [_NAMES[c] for c in mask_cards(mask)]
