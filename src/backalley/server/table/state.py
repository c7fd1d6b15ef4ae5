"""A table's state, as a value: its seats, its game, its log's position, take-backs,
departures and the rematch offered. Only :func:`~backalley.server.table.evolve.evolve` makes
a new one (from the state before and an event); everything else reads it.

The game is the engine's :class:`~backalley.engine.Game`, which is mutable: a state owns
its game, and nothing may change it — ``evolve`` works on a copy (cheap: a game's finished
deals are shared between copies, being final).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from backalley.engine import Game
from backalley.rules import Ruleset
from backalley.server.credentials import matches
from backalley.server.settings import Settings
from backalley.server.statuses import Actor, RematchStatus, TableStatus


@dataclass(frozen=True)
class Seat:
    """Who sits in a seat: a person (``name``, with a token and maybe an account), a bot
    (``bot``: its level), or nobody (``name`` is ``None``). The token's hash and the account
    are credentials, kept with the seat's stored row, never in the log."""

    name: str | None = None
    bot: str | None = None
    token_hash: bytes | None = None
    account: str | None = None

    @property
    def person(self) -> bool:
        """A person holds it now (not a bot, and not a player who left)."""
        return self.bot is None and self.token_hash is not None


@dataclass(frozen=True)
class Move:
    """A bid or card of the deal in play: its version, its seat and who made it."""

    version: int
    seat: int
    by: Actor | None = None


@dataclass(frozen=True)
class Departure:
    """A player who left for good during the game: where the game was (for the record)."""

    seat: int
    player: str
    deal: int
    bids: int
    play: int

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "player": self.player, "deal": self.deal,
                "bids": self.bids, "play": self.play}  # fmt: skip


@dataclass(frozen=True)
class Rematch:
    """The rematch offered once the game is over, in its latest state."""

    status: RematchStatus
    by: int  #: the seat that offered it
    accepted: tuple[int, ...]
    declined: int | None
    until: float  #: when an open offer lapses (the wall clock)
    table: str | None  #: the rematch's table, once started

    def to_json(self) -> dict[str, Any]:
        return {
            "status": self.status.value, "by": self.by, "accepted": list(self.accepted),
            "declined": self.declined, "until": self.until, "table": self.table,
        }  # fmt: skip

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Rematch:
        return cls(
            RematchStatus(data["status"]), data["by"], tuple(data["accepted"]),
            data["declined"], data["until"], data["table"],
        )  # fmt: skip


@dataclass(frozen=True)
class Secrets:
    """What opens a table, as hashes: the host's token, the watch code, each seat's invite."""

    host: bytes
    watch: bytes
    invites: tuple[bytes, ...]


@dataclass(frozen=True)
class TableState:
    """A table as its log leaves it (and its seats' credentials, from their rows)."""

    id: str
    settings: Settings
    rules: Ruleset
    secrets: Secrets
    seats: tuple[Seat, ...]
    status: TableStatus = TableStatus.OPEN
    game: Game | None = None
    version: int = 0  #: the last event's
    moves: int = 0  #: actions applied and taken back: the position's number, for the driver
    deal_moves: tuple[Move, ...] = ()  #: the bids and cards of the deal in play
    takebacks: int = 0  #: take-backs made (a game with any is never rated)
    #: each seat's moves made below its bot's level, the solver not ready yet (a game with
    #: any is never rated)
    below_level: tuple[int, ...] = ()
    departures: tuple[Departure, ...] = ()
    rematch: Rematch | None = None
    #: the last completed trick, ``(seat, card)`` in order, and who won it: a page shows it
    #: after its deal too (a view holds only its own deal's tricks)
    last_trick: tuple[tuple[int, str], ...] | None = None
    last_winner: int | None = None

    @classmethod
    def new(cls, table_id: str, settings: Settings, secrets: Secrets) -> TableState:
        """A table with every seat empty."""
        rules = settings.ruleset()
        return cls(table_id, settings, rules, secrets, (Seat(),) * rules.num_players)

    # ------------------------------------------------------------------ who is who

    @property
    def names(self) -> list[str | None]:
        return [seat.name for seat in self.seats]

    def people(self) -> list[int]:
        """The seats not given to bots."""
        return [s for s, seat in enumerate(self.seats) if seat.bot is None]

    def seat_of(self, token: str | None, account: str | None = None) -> int | None:
        """The seat ``token`` holds, or else the seat of ``account`` (signed in), or ``None``."""
        found = None
        for number, seat in enumerate(self.seats):  # all of them: no early exit to time
            if matches(token, seat.token_hash):
                found = number
        if found is None and account is not None:
            found = next((s for s, seat in enumerate(self.seats) if seat.account == account), None)
        return found

    def opens(self, credential: str | None) -> bool:
        """Whether ``credential`` is one of the table's secrets: a seat's token, the host's,
        an invite or the watch code."""
        hashes = [seat.token_hash for seat in self.seats]
        secrets = self.secrets
        found = False
        for stored in (*hashes, secrets.host, secrets.watch, *secrets.invites):
            found |= matches(credential, stored)  # all of them: no early exit to time
        return found

    def holds(self, account: str) -> bool:
        """Whether ``account`` holds a seat here now."""
        return any(seat.account == account for seat in self.seats)

    # ------------------------------------------------------------------ what may be done

    def undoable(self, seat: int | None) -> int:
        """How many actions a take-back by ``seat`` would take back now; 0 when none may be.

        Only at a table where every other seat is a bot: the seat's last bid or card of the
        deal in play, with the bots' replies after it, while its trick is not complete (for a
        bid, before the deal's first card)."""
        game = self.game
        if seat is None or game is None or self.status != TableStatus.PLAYING:
            return 0
        if self.settings.played_once:  # the same deals as other tables': no second try
            return 0
        if self.seats[seat].bot or any(
            other.bot is None for s, other in enumerate(self.seats) if s != seat
        ):
            return 0
        deal = game.current_deal
        own = [i for i, m in enumerate(self.deal_moves) if m.seat == seat and m.by != Actor.CLAIM]
        if deal is None or not own:
            return 0
        first = own[-1]
        if first < len(deal.bids):  # a bid: before the first card
            return len(self.deal_moves) - first if not deal.play else 0
        after = len(self.deal_moves) - first
        return after if after <= len(game.trick) else 0

    def rematch_lapsed(self, now: float) -> bool:
        """An open offer whose time ran out (while the server was down, its lapse never ran)."""
        offer = self.rematch
        return offer is not None and offer.status == RematchStatus.OPEN and now > offer.until


__all__ = [
    "Actor",
    "Departure",
    "Move",
    "Rematch",
    "RematchStatus",
    "Seat",
    "Secrets",
    "TableState",
    "TableStatus",
]
