"""The 54 cards of Back Alley, their notation, and sets of cards as bit masks (RULES C1–C3).

A card is an ``int`` from 0 to 53. Suit-major layout: card ``13 * suit + rank`` with suits
♠ ♥ ♦ ♣ as 0‥3 and ranks 2‥A as 0‥12; the Little Blooper is 52 and the Big Blooper 53. Jokers
sitting above every suit card means that, within a trump mask, the highest set bit is the
highest trump (C3) and the lowest set bit the lowest one — which is what P4 and P5 need.

A set of cards is an ``int`` bit mask (bit *c* set when card *c* is in the set).

>>> parse_card("10h") == parse_card("TH")
True
>>> card_name(parse_card("bj"))
'BJ'
>>> [card_name(c) for c in mask_cards(mask_of([parse_card("AS"), parse_card("2S")]))]
['2S', 'AS']
"""

from __future__ import annotations

from collections.abc import Iterable

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


class CardError(ValueError):
    """A card written in a way RULES C2 does not allow; ``text`` is the offending input."""

    rule = "C2"

    def __init__(self, message: str, text: str) -> None:
        super().__init__(message)
        self.text = text


def card_name(card: int) -> str:
    """The canonical spelling of ``card`` (C2): ``"AS"``, ``"TD"``, ``"BJ"``."""
    return _NAMES[card]


def parse_card(text: str) -> int:
    """Read a card written as C2 allows: any letter case, ``10`` for ``T``.

    :raises CardError: when ``text`` names no card.
    """
    if not isinstance(text, str):
        raise CardError(f"a card must be written as text, not {text!r}", repr(text))
    key = text.upper() if text.isascii() else ""  # C2: ASCII letters only
    if key.startswith("10"):
        key = "T" + key[2:]
    try:
        return _BY_NAME[key]
    except KeyError:
        raise CardError(
            f"{text!r} is not a card: write rank then suit, like AS, TD, 7C, or BJ, LJ", repr(text)
        ) from None


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


def trump_mask(trump: int | None) -> int:
    """Every trump when ``trump`` is the trump suit: the suit and both jokers (C3); 0 for none."""
    return 0 if trump is None else SUIT_MASKS[trump] | JOKERS


def format_cards(mask: int) -> list[str]:
    """The canonical names of the cards in ``mask``, ascending."""
    return [_NAMES[c] for c in mask_cards(mask)]
