"""A table's log: its events, each a typed payload of one kind, numbered by version, and
what a receiver may see of one (:meth:`Event.redact`, the one place that hides anything).

A payload's stored and sent form is its :meth:`data` (JSON), as the log has always held
it; :func:`payload_of` reads it back. Credentials never enter an event: a seat's token hash
and account ride on :class:`SeatTaken` only in memory, to be stored in the seat's own row.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar

from backalley.server import protocol
from backalley.server.table.state import Actor, Rematch


class EventKind(StrEnum):
    """What an event records (its stored and sent spelling is the value)."""

    SEAT = "seat"  #: a person took a seat
    BOT = "bot"  #: a bot was given a seat
    START = "start"  #: every seat filled: the game began
    DEAL = "deal"  #: a deal was dealt (its cards stored, never sent)
    BID = "bid"
    CARD = "card"
    CLAIM = "claim"  #: a claim accepted: the rest of the deal played out
    TAKEBACK = "takeback"  #: actions taken back, by their versions
    LEFT = "left"  #: a player left: a bot has the seat, or it is free again
    ENDED = "ended"  #: the host ended the table before it started
    REMATCH = "rematch"  #: a rematch offered, accepted, declined, lapsed or started
    CHAT = "chat"


@dataclass(frozen=True)
class SeatTaken:
    KIND: ClassVar[EventKind] = EventKind.SEAT
    seat: int
    name: str
    token_hash: bytes | None = None  #: in memory only: stored with the seat's row
    account: str | None = None  #: in memory only: stored with the seat's row

    def data(self) -> dict[str, Any]:
        return {"seat": self.seat, "name": self.name}


@dataclass(frozen=True)
class BotSeated:
    KIND: ClassVar[EventKind] = EventKind.BOT
    seat: int
    level: str
    name: str

    def data(self) -> dict[str, Any]:
        return {"seat": self.seat, "level": self.level, "name": self.name}


@dataclass(frozen=True)
class Started:
    KIND: ClassVar[EventKind] = EventKind.START

    def data(self) -> dict[str, Any]:
        return {}


@dataclass(frozen=True)
class Dealt:
    """A deal as dealt, in the record's spelling: every hand and the stock."""

    KIND: ClassVar[EventKind] = EventKind.DEAL
    deal: int
    dealer: int
    hands: tuple[str, ...]
    stock: tuple[str, ...]

    def data(self) -> dict[str, Any]:
        return {"deal": self.deal, "dealer": self.dealer, "hands": list(self.hands),
                "stock": list(self.stock)}  # fmt: skip


@dataclass(frozen=True)
class BidMade:
    KIND: ClassVar[EventKind] = EventKind.BID
    seat: int
    action: str  #: the record's spelling
    by: Actor | None = None
    below_level: bool = False  #: a solver's bot's, made by the stand-in (the solver not ready)

    def data(self) -> dict[str, Any]:
        return {"seat": self.seat, "action": self.action} | _by(self.by, self.below_level)


@dataclass(frozen=True)
class CardPlayed:
    KIND: ClassVar[EventKind] = EventKind.CARD
    seat: int
    action: str  #: the card, in the record's spelling
    by: Actor | None = None
    won_by: int | None = None  #: the trick's winner, when this card completed it (P5)
    below_level: bool = False  #: as :attr:`BidMade.below_level`

    def data(self) -> dict[str, Any]:
        data = {"seat": self.seat, "action": self.action} | _by(self.by, self.below_level)
        return data if self.won_by is None else data | {"won_by": self.won_by}


@dataclass(frozen=True)
class Claimed:
    KIND: ClassVar[EventKind] = EventKind.CLAIM
    seat: int
    cards: int  #: the cards left in the claimer's hand, played out after this event

    def data(self) -> dict[str, Any]:
        return {"seat": self.seat, "cards": self.cards}


@dataclass(frozen=True)
class TakenBack:
    KIND: ClassVar[EventKind] = EventKind.TAKEBACK
    seat: int
    versions: tuple[int, ...]  #: the moves taken back

    def data(self) -> dict[str, Any]:
        return {"seat": self.seat, "versions": list(self.versions)}


@dataclass(frozen=True)
class Left:
    """A player left for good: during the game a bot of ``level`` named ``bot`` takes the
    seat; before it the seat is free again."""

    KIND: ClassVar[EventKind] = EventKind.LEFT
    seat: int
    name: str | None
    level: str | None = None
    bot: str | None = None

    def data(self) -> dict[str, Any]:
        data: dict[str, Any] = {"seat": self.seat, "name": self.name}
        return data if self.bot is None else data | {"level": self.level, "bot": self.bot}


@dataclass(frozen=True)
class Ended:
    KIND: ClassVar[EventKind] = EventKind.ENDED

    def data(self) -> dict[str, Any]:
        return {}


@dataclass(frozen=True)
class RematchChanged:
    KIND: ClassVar[EventKind] = EventKind.REMATCH
    offer: Rematch

    def data(self) -> dict[str, Any]:
        return self.offer.to_json()


@dataclass(frozen=True)
class ChatSaid:
    KIND: ClassVar[EventKind] = EventKind.CHAT
    seat: int
    name: str | None
    text: str

    def data(self) -> dict[str, Any]:
        return {"seat": self.seat, "name": self.name, "text": self.text}


Payload = (
    SeatTaken | BotSeated | Started | Dealt | BidMade | CardPlayed | Claimed | TakenBack | Left
    | Ended | RematchChanged | ChatSaid
)  # fmt: skip

#: Events that change the game (and restart the turn timer), and those that change the table
#: as its description gives it (sent along with them).
GAME_KINDS = frozenset(
    {EventKind.START, EventKind.DEAL, EventKind.BID, EventKind.CARD, EventKind.CLAIM,
     EventKind.TAKEBACK}
)  # fmt: skip
TABLE_KINDS = frozenset(
    {EventKind.SEAT, EventKind.BOT, EventKind.START, EventKind.LEFT, EventKind.ENDED,
     EventKind.REMATCH, EventKind.TAKEBACK}
)  # fmt: skip


def _by(by: Actor | None, below_level: bool) -> dict[str, Any]:
    said = {} if by is None else {"by": by.value}
    return (said | {"below_level": True}) if below_level else said


def _actor(data: dict[str, Any]) -> Actor | None:
    by = data.get("by")
    return None if by is None else Actor(by)


def _below(data: dict[str, Any]) -> bool:
    return bool(data.get("below_level", False))


def payload_of(kind: str, data: dict[str, Any]) -> Payload:
    """The payload an event of ``kind`` stored as ``data``.

    :raises ValueError: an unknown kind; :raises KeyError: a field missing.
    """
    match EventKind(kind):
        case EventKind.SEAT:
            return SeatTaken(data["seat"], data["name"])
        case EventKind.BOT:
            return BotSeated(data["seat"], data["level"], data["name"])
        case EventKind.START:
            return Started()
        case EventKind.DEAL:
            return Dealt(data["deal"], data["dealer"], tuple(data["hands"]), tuple(data["stock"]))
        case EventKind.BID:
            return BidMade(data["seat"], data["action"], _actor(data), _below(data))
        case EventKind.CARD:
            return CardPlayed(data["seat"], data["action"], _actor(data), data.get("won_by"),
                              _below(data))  # fmt: skip
        case EventKind.CLAIM:
            return Claimed(data["seat"], data["cards"])
        case EventKind.TAKEBACK:
            return TakenBack(data["seat"], tuple(data["versions"]))
        case EventKind.LEFT:
            return Left(data["seat"], data["name"], data.get("level"), data.get("bot"))
        case EventKind.ENDED:
            return Ended()
        case EventKind.REMATCH:
            return RematchChanged(Rematch.from_json(data))
        case EventKind.CHAT:
            return ChatSaid(data["seat"], data.get("name"), data["text"])


def seen_of_deal(deal: dict[str, Any], seat: int | None) -> dict[str, Any]:
    """What ``seat`` (``None``: a spectator) may see of a deal as dealt (its dealer, hands
    and stock, in the record's spelling) while its game is under way: its own hand, no
    other, no stock. The one rule of what stays hidden, for the events a table sends and the
    records it gives out alike."""
    hands = [hand if s == seat else None for s, hand in enumerate(deal["hands"])]
    return {"dealer": deal["dealer"], "hands": hands, "stock": None}


@dataclass(frozen=True)
class Event:
    """One entry of a table's log: its version, its payload, and the client id of the
    message that caused it ("seat:id"), if one did."""

    version: int
    payload: Payload
    client_id: str | None = None

    @property
    def kind(self) -> EventKind:
        return self.payload.KIND

    def redact(self, seat: int | None = None) -> dict[str, Any]:
        """The event as ``seat`` may see it (``None``: anyone, as broadcasts and resyncs
        send it): a deal with only what :func:`seen_of_deal` leaves (for ``None``, no card:
        each seat's hand reaches it in its view), anything else as it is."""
        payload = self.payload
        if isinstance(payload, Dealt):
            out: dict[str, Any] = {"kind": "deal", "deal": payload.deal, "dealer": payload.dealer}
            if seat is not None:
                out["hand"] = payload.hands[seat]
            return out
        return {"kind": self.kind.value, **payload.data()}

    def text(self) -> str:
        """The public event with its version, as JSON: what the log keeps for resyncs."""
        return protocol.dumps({"version": self.version, **self.redact()})


__all__ = [
    "GAME_KINDS",
    "TABLE_KINDS",
    "BidMade",
    "BotSeated",
    "CardPlayed",
    "ChatSaid",
    "Claimed",
    "Dealt",
    "Ended",
    "Event",
    "EventKind",
    "Left",
    "Payload",
    "RematchChanged",
    "SeatTaken",
    "Started",
    "TakenBack",
    "payload_of",
    "seen_of_deal",
]
