"""The words of a table's life, one spelling each (their stored and sent spelling is the
value): where a table is, where its rematch is, and who made a move for a seat other than
its person. The tables, the store and the nodes all read them from here."""

from __future__ import annotations

from enum import StrEnum


class TableStatus(StrEnum):
    """Where a table is in its life."""

    OPEN = "open"  #: seats are being filled
    PLAYING = "playing"
    FINISHED = "finished"  #: its game is over
    ENDED = "ended"  #: its host ended it before its game started

    @property
    def over(self) -> bool:
        """Finished or ended: nothing more is played here."""
        return self in (TableStatus.FINISHED, TableStatus.ENDED)


#: The statuses of a table whose game may still change (a table to hold, to rebuild).
UNFINISHED = (TableStatus.OPEN, TableStatus.PLAYING)


class RematchStatus(StrEnum):
    OPEN = "open"  #: offered, waiting for every player
    DECLINED = "declined"
    EXPIRED = "expired"  #: nobody settled it in time
    STARTED = "started"  #: every player accepted: its table is made


class Actor(StrEnum):
    """Who made a move for a seat other than its person (a move's ``by``)."""

    BOT = "bot"  #: the seat is a bot's
    STAND_IN = "stand_in"  #: a bot for a person away past the grace period
    TIMER = "timer"  #: the turn timer ran out
    CLAIM = "claim"  #: a claim accepted, played out


__all__ = ["UNFINISHED", "Actor", "RematchStatus", "TableStatus"]
