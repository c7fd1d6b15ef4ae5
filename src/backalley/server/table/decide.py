"""What a command to a table comes to: :func:`decide` checks it against the table's state and
gives the events it makes (numbered after the table's last), or raises the rule's or the
protocol's refusal. It does no I/O and changes nothing: the state it is given stays as it
was, whatever happens next (the events are stored, then applied by
:func:`~backalley.server.table.evolve.evolve`).

Dealing needs chance: the generator comes with the command's :class:`Context` (the
operating system's secure one at a server), as does the time, for a rematch's deadline.
Credentials are checked before a command is made (an invite, the host's token); what is
checked here is what the table's state decides.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, replace

from backalley.bots import bot_name
from backalley.cards import N_
from backalley.engine import Game, is_bid_text
from backalley.record import dealt
from backalley.rules import Phase, action_name
from backalley.server.protocol import ProtocolError
from backalley.server.settings import TableError
from backalley.server.table.events import (
    BidMade,
    BotSeated,
    CardPlayed,
    ChatSaid,
    Claimed,
    Dealt,
    Ended,
    Event,
    Left,
    Payload,
    RematchChanged,
    SeatTaken,
    Started,
    TakenBack,
)
from backalley.server.table.state import Actor, Rematch, RematchStatus, TableState, TableStatus


@dataclass(frozen=True)
class Context:
    """What a decision may draw on besides the state: chance, and the time; at a table of
    the daily deals, the dealer of its day's cards (:func:`backalley.server.daily.dealer`)."""

    rng: random.Random
    now: float
    dealer: Callable[[Game], None] | None = None


@dataclass(frozen=True)
class TakeSeat:
    """A person sits down: at ``seat`` (its invite checked), or at the first free seat of a
    public table (``None``: from the lobby)."""

    seat: int | None
    name: str
    token_hash: bytes
    account: str | None = None


@dataclass(frozen=True)
class GiveToBot:
    seat: int
    level: str


@dataclass(frozen=True)
class Leave:
    seat: int


@dataclass(frozen=True)
class End:
    """The host ends a table whose game has not started (the host's token checked)."""


@dataclass(frozen=True)
class Act:
    """A bid or a card for ``seat``, as a client spelt it; ``key`` is the message's
    "seat:client id" (``None``: a move made for the seat, ``by`` whom)."""

    seat: int
    action: str
    key: str | None = None
    by: Actor | None = None
    below_level: bool = False  #: a solver's bot's move, made by the stand-in meanwhile


@dataclass(frozen=True)
class Undo:
    seat: int
    key: str


@dataclass(frozen=True)
class PlayOut:
    """A claim the solver proved, in the position the table had after ``moves`` moves: the
    deal is played out along ``cards``."""

    seat: int
    key: str
    cards: tuple[str, ...]
    moves: int


@dataclass(frozen=True)
class AnswerRematch:
    """A player offers a rematch, or accepts or declines the offer; ``table`` is the
    rematch's table, once made (when every player has accepted)."""

    seat: int
    accept: bool
    key: str
    table: str | None = None


@dataclass(frozen=True)
class LapseRematch:
    """The offer open until ``until`` lapses, if nobody settled it meanwhile."""

    until: float


@dataclass(frozen=True)
class Say:
    seat: int
    text: str


@dataclass(frozen=True)
class DealDue:
    """Deal the deal that is due (a table resumed when its last deal had just ended)."""


Command = (
    TakeSeat | GiveToBot | Leave | End | Act | Undo | PlayOut | AnswerRematch | LapseRematch
    | Say | DealDue
)  # fmt: skip


def decide(state: TableState, command: Command, context: Context) -> list[Event]:
    """The events ``command`` makes at a table in ``state`` (none: nothing to do).

    :raises IllegalAction: a bid or card the rules refuse, with its rule.
    :raises TableError: a request the table refuses (a seat taken, an ended table, …).
    :raises ProtocolError: a message the table cannot take now (no take-back, …).
    """
    made = _decide(state, command, context)
    key = getattr(command, "key", None)
    return [
        Event(state.version + i, payload, key if i == 1 else None)
        for i, payload in enumerate(made, start=1)
    ]


def _decide(state: TableState, command: Command, context: Context) -> list[Payload]:
    match command:
        case TakeSeat():
            return _take_seat(state, command, context)
        case GiveToBot():
            _check_open(state)
            _check_empty(state, command.seat)
            name = bot_name(command.level, state.names)
            seated = [BotSeated(command.seat, command.level, name)]
            return seated + _start_if_full(state, command.seat, context)
        case Leave():
            return _leave(state, command.seat)
        case End():
            if state.status == TableStatus.ENDED:
                raise TableError("ended", N_("this table was closed by its host"))
            if state.status != TableStatus.OPEN:
                raise TableError(
                    "started", N_("only a table whose game has not started can be ended")
                )
            return [Ended()]
        case Act():
            return _moves(_started(state).copy(), command, context)
        case Undo():
            return _undo(state, command)
        case PlayOut():
            return _play_out(state, command, context)
        case AnswerRematch():
            return _answer(state, command, context)
        case LapseRematch():
            offer = state.rematch
            if offer is None or offer.status != RematchStatus.OPEN or offer.until != command.until:
                return []
            return [RematchChanged(replace(offer, status=RematchStatus.EXPIRED))]
        case Say():
            return [ChatSaid(command.seat, state.seats[command.seat].name, command.text)]
        case DealDue():
            if state.game is None or state.status != TableStatus.PLAYING:
                return []
            return _deals(state.game.copy(), context)


# ---------------------------------------------------------------------- seats


def _take_seat(state: TableState, command: TakeSeat, context: Context) -> list[Payload]:
    _check_open(state)
    seat = command.seat
    if seat is None:
        if not state.settings.public:
            raise TableError(
                "forbidden", N_("this table is private: it is joined by its invite links")
            )
        seat = next((s for s, taken in enumerate(state.seats) if taken.name is None), None)
        if seat is None:
            raise TableError("seat_taken", N_("every seat at this table is taken"))
    _check_empty(state, seat)
    account = command.account
    if account is not None and state.holds(account):
        held = next(s for s, taken in enumerate(state.seats) if taken.account == account)
        raise TableError(
            "seated", N_("your account already holds seat {seat} at this table"), seat=held
        )
    taken = SeatTaken(seat, command.name, command.token_hash, account)
    return [taken, *_start_if_full(state, seat, context)]


def _check_open(state: TableState) -> None:
    if state.status == TableStatus.ENDED:
        raise TableError("ended", N_("this table was closed by its host"))


def _check_empty(state: TableState, seat: int) -> None:
    if state.seats[seat].name is not None:
        raise TableError("seat_taken", N_("seat {seat} is taken"), seat=seat)


def _start_if_full(state: TableState, filled: int, context: Context) -> list[Payload]:
    """The start and the first deal, when ``filled`` was the last empty seat."""
    empty = [s for s, seat in enumerate(state.seats) if seat.name is None and s != filled]
    if state.game is not None or empty:
        return []
    return [Started(), *_deals(Game(state.rules), context)]


def _leave(state: TableState, seat: int) -> list[Payload]:
    """``seat``'s player leaves for good: during the game a bot of the table's level takes
    the seat; an open rematch offer is declined on their behalf."""
    name = state.seats[seat].name
    made: list[Payload]
    if state.status == TableStatus.PLAYING:
        level = state.settings.level
        made = [Left(seat, name, level, bot_name(level, state.names))]
    else:
        made = [Left(seat, name)]
    offer = state.rematch
    if offer is not None and offer.status == RematchStatus.OPEN:
        made.append(RematchChanged(replace(offer, status=RematchStatus.DECLINED, declined=seat)))
    return made


# ---------------------------------------------------------------------- play


def _started(state: TableState) -> Game:
    if state.game is None:
        raise ProtocolError("not_started", N_("the game starts when every seat is filled"))
    return state.game


def _moves(trial: Game, act: Act, context: Context) -> list[Payload]:
    """Apply the act to ``trial`` (a copy of the game, read as the engine reads it: a bid if
    spelt as one, B1, else a card, C2): its event, and the deals it brings about. The engine
    refuses a bad one, with its rule."""
    seat, action, by = act.seat, act.action, act.by
    deal = trial.current_deal
    is_bid = is_bid_text(action, bidding=trial.phase == Phase.BID)
    if is_bid:
        trial.bid(action, seat)
    else:
        trial.play(action, seat)
    assert deal is not None
    # The record's spelling ("pass", "3", "TS"), whatever the client wrote ("0", "10s").
    if is_bid:
        move: Payload = BidMade(seat, action_name(deal.bids[-1]), by, act.below_level)
    else:
        won_by = deal.winners[-1] if not trial.trick else None
        move = CardPlayed(seat, action_name(deal.play[-1]), by, won_by, act.below_level)
    return [move, *_deals(trial, context)]


def _deals(trial: Game, context: Context) -> list[Payload]:
    """Deal on ``trial`` every deal that is due, each as dealt (a deal thrown in as it is
    dealt brings the next)."""
    made: list[Payload] = []
    while trial.phase == Phase.DEAL:
        if context.dealer is not None:
            context.dealer(trial)
        else:
            trial.deal_from(context.rng)
        number = len(trial.deals) - 1
        shown = dealt(trial.deals[number])
        made.append(Dealt(number, shown["dealer"], tuple(shown["hands"]), tuple(shown["stock"])))
    return made


def _undo(state: TableState, command: Undo) -> list[Payload]:
    if state.settings.played_once:
        raise ProtocolError(
            "no_undo", N_("nothing is taken back here: these deals are played at other tables too")
        )
    count = state.undoable(command.seat)
    if not count:
        raise ProtocolError(
            "no_undo",
            N_(
                "nothing can be taken back now: only your last bid or card, at a table "
                "with no other person, before its trick is complete (a bid: before the "
                "first card)"
            ),
        )
    versions = tuple(move.version for move in state.deal_moves[-count:])
    return [TakenBack(command.seat, versions)]


def _play_out(state: TableState, command: PlayOut, context: Context) -> list[Payload]:
    if state.moves != command.moves:
        raise ProtocolError("stale", N_("the game moved on before the claim was settled"))
    trial = _started(state).copy()
    made: list[Payload] = [Claimed(command.seat, len(command.cards))]
    for card in command.cards:
        mover = trial.to_move
        assert mover is not None
        made += _moves(trial, Act(mover, card, None, Actor.CLAIM), context)
    return made


def _answer(state: TableState, command: AnswerRematch, context: Context) -> list[Payload]:
    if state.status != TableStatus.FINISHED:
        raise ProtocolError("not_finished", N_("a rematch is offered once the game is over"))
    if state.settings.played_once:
        raise ProtocolError(
            "no_rematch",
            N_("these deals are played at other tables too: no rematch (their results are next)"),
        )
    offer = state.rematch
    seat = command.seat
    if (
        offer is None
        or offer.status in (RematchStatus.DECLINED, RematchStatus.EXPIRED)
        or (state.rematch_lapsed(context.now))
    ):
        if not command.accept:
            raise ProtocolError("no_rematch", N_("there is no rematch offer to decline"))
        bots = [s for s, taken in enumerate(state.seats) if not taken.person]
        until = context.now + state.settings.rematch_wait
        offer = Rematch(RematchStatus.OPEN, seat, tuple(sorted({seat, *bots})), None, until, None)
    elif offer.status == RematchStatus.STARTED:
        return []
    elif command.accept:
        offer = replace(offer, accepted=tuple(sorted({*offer.accepted, seat})))
    else:
        offer = replace(offer, status=RematchStatus.DECLINED, declined=seat)
    if command.table is not None and rematch_complete(state, offer):
        offer = replace(offer, status=RematchStatus.STARTED, table=command.table)
    return [RematchChanged(offer)]


def rematch_complete(state: TableState, offer: Rematch) -> bool:
    """Whether ``offer`` is open and every player has accepted it: its table may be made."""
    return offer.status == RematchStatus.OPEN and len(offer.accepted) == len(state.seats)


__all__ = [
    "Act",
    "AnswerRematch",
    "Command",
    "Context",
    "DealDue",
    "End",
    "GiveToBot",
    "LapseRematch",
    "Leave",
    "PlayOut",
    "Say",
    "TakeSeat",
    "Undo",
    "decide",
    "rematch_complete",
]
