"""A table's log: its events, each of a kind (:class:`EventKind`) with its data, numbered by
version; :meth:`Event.redact` is the one place that hides what a receiver may not see of one."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from backalley.server import protocol


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
    LEFT = "left"  #: a player left: a bot has the seat
    ENDED = "ended"  #: the host ended the table before it started
    REMATCH = "rematch"  #: a rematch offered, accepted, declined, lapsed or started
    CHAT = "chat"


#: Events that change the game (and restart the turn timer), and those that change the table
#: as :meth:`Table.describe` gives it (sent along with them).
GAME_KINDS = frozenset(
    {EventKind.START, EventKind.DEAL, EventKind.BID, EventKind.CARD, EventKind.CLAIM,
     EventKind.TAKEBACK}
)  # fmt: skip
TABLE_KINDS = frozenset(
    {EventKind.SEAT, EventKind.BOT, EventKind.START, EventKind.LEFT, EventKind.ENDED,
     EventKind.REMATCH, EventKind.TAKEBACK}
)  # fmt: skip


def seen_of_deal(deal: dict[str, Any], seat: int | None) -> dict[str, Any]:
    """What ``seat`` (``None``: a spectator) may see of a deal as dealt (its dealer, hands
    and stock, in the record's spelling) while its game is under way: its own hand, no
    other, no stock. The one rule of what stays hidden, for the events a table sends and the
    records it gives out alike."""
    hands = [hand if s == seat else None for s, hand in enumerate(deal["hands"])]
    return {"dealer": deal["dealer"], "hands": hands, "stock": None}


@dataclass
class Event:
    """One entry of a table's log, as stored; :meth:`redact` is what clients are sent."""

    version: int
    kind: EventKind
    data: dict[str, Any]
    client_id: str | None = None

    def redact(self, seat: int | None = None) -> dict[str, Any]:
        """The event as ``seat`` may see it (``None``: anyone, as broadcasts and resyncs
        send it): a deal with only what :func:`seen_of_deal` leaves (for ``None``, no card:
        each seat's hand reaches it in its view), anything else as it is."""
        if self.kind == EventKind.DEAL:
            seen = seen_of_deal(self.data, seat)
            out = {"kind": "deal", "deal": self.data["deal"], "dealer": seen["dealer"]}
            if seat is not None:
                out["hand"] = seen["hands"][seat]
            return out
        return {"kind": self.kind.value, **self.data}

    def text(self) -> str:
        """The public event with its version, as JSON: what the log keeps for resyncs."""
        return protocol.dumps({"version": self.version, **self.redact()})


__all__ = ["GAME_KINDS", "TABLE_KINDS", "Event", "EventKind", "seen_of_deal"]
