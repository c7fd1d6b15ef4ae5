"""The messages between the server and its clients (docs/protocol.md), checked at the edge.

Every frame is one JSON object with a ``type``. What a client sends is validated here —
size, type, fields — before any table sees it; what the server sends is built here, and
whatever it says about the game comes from a seat's view (:meth:`Game.view`) or the public
view, never from the game itself.
"""

from __future__ import annotations

import json
import unicodedata
from dataclasses import dataclass
from typing import Any

from backalley.cards import N_, SUITS, BackAlleyError, Card, card_name, format_cards
from backalley.rules import DealKind, Phase, next_seat
from backalley.view import DealSummary, SeatView

VERSION = 1  #: the protocol's version, sent in every ``state``
MAX_FRAME = 8 * 1024  #: bytes: a longer frame is refused and the connection closed (1009)
MAX_CHAT = 300  #: characters in one chat message
MAX_NAME = 24  #: characters in a display name

# Close codes (the WebSocket standard's, and 4000–4999 for the application's own).
CLOSE_POLICY = 1008  #: a flood beyond the rate limit, or no ``hello`` first
CLOSE_TOO_BIG = 1009  #: a frame over MAX_FRAME bytes
CLOSE_UNAUTHORIZED = 4401  #: the token or watch code does not open this table
CLOSE_GUESSING = 4429  #: too many wrong tokens or watch codes from this address lately
CLOSE_NO_TABLE = 4404  #: there is no such table
CLOSE_SLOW = 4408  #: the client reads too slowly: too many messages wait for it
CLOSE_LEFT = 4410  #: the player left the table: the seat is no longer theirs
CLOSE_MOVED = 1012  #: the table moved to another node (one stopping, or gone): reconnect
CLOSE_UNREACHABLE = 1013  #: the node holding the table cannot be reached now: try again later


class ProtocolError(BackAlleyError):
    """A message the server cannot take: ``code`` names the problem for programs."""

    def __init__(self, code: str, template: str, **params: Any) -> None:
        super().__init__(None, template, **params)
        self.code = code


@dataclass(frozen=True)
class Hello:
    token: str | None
    watch: str | None
    since: int | None
    lang: str | None


@dataclass(frozen=True)
class Act:
    id: str
    action: str
    seat: int | None


@dataclass(frozen=True)
class Claim:
    id: str


@dataclass(frozen=True)
class Undo:
    id: str


@dataclass(frozen=True)
class Rematch:
    id: str
    accept: bool


@dataclass(frozen=True)
class Chat:
    text: str


@dataclass(frozen=True)
class Ping:
    pass


Message = Hello | Act | Claim | Undo | Rematch | Chat | Ping


def too_large(frame: str | bytes) -> ProtocolError | None:
    """The refusal of ``frame`` when it is over :data:`MAX_FRAME` bytes."""
    size = len(frame.encode() if isinstance(frame, str) else frame)
    if size <= MAX_FRAME:
        return None
    return ProtocolError(
        "too_large", N_("a message may hold {limit} bytes, not {size}"), limit=MAX_FRAME, size=size
    )


def parse(frame: str | bytes) -> Message:
    """The client message in ``frame``, a frame :func:`too_large` let through.

    :raises ProtocolError: ``bad_json``, ``unknown_type`` or ``bad_field``.
    """
    data = loads(frame)
    if not isinstance(data, dict):
        raise ProtocolError("bad_json", N_("a message must be one JSON object"))
    kind = data.get("type")
    if kind == "hello":
        return Hello(
            token=_text(data, "token", optional=True),
            watch=_text(data, "watch", optional=True),
            since=_optional_integer(data, "since"),
            lang=_text(data, "lang", optional=True),
        )
    if kind == "act":
        seat = data.get("seat")
        if seat is not None and (type(seat) is not int):
            raise ProtocolError(
                "bad_field", N_("{field} must be {kind}"), field="seat", kind=N_("an integer")
            )
        return Act(_client_id(data), _text(data, "action"), seat)
    if kind == "claim":
        return Claim(_client_id(data))
    if kind == "undo":
        return Undo(_client_id(data))
    if kind == "rematch":
        accept = data.get("accept", True)
        if not isinstance(accept, bool):
            raise ProtocolError(
                "bad_field", N_("{field} must be {kind}"), field="accept", kind=N_("true or false")
            )
        return Rematch(_client_id(data), accept)
    if kind == "chat":
        text = clean(_text(data, "text", longest=MAX_CHAT)).strip()
        if not text:
            raise ProtocolError(
                "bad_field", N_("a chat message holds 1 to {limit} characters"), limit=MAX_CHAT
            )
        return Chat(text)
    if kind == "ping":
        return Ping()
    raise ProtocolError(
        "unknown_type",
        N_(
            "unknown message type {kind}; the types are hello, act, claim, undo, rematch, "
            "chat and ping"
        ),
        kind=json.dumps(kind)[:40],
    )


def strict_loads(text: str | bytes) -> Any:
    """``json.loads`` that refuses what JSON has not: ``NaN``, ``Infinity`` (which Python's
    parser takes, and no answer could echo back).

    :raises ValueError: for those, as for any text that is not JSON.
    """
    return json.loads(text, parse_constant=_no_constant)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def loads(frame: str | bytes) -> Any:
    """The JSON value in ``frame``, whatever it holds (nested too deep for the parser, bytes
    that are not UTF-8, ``NaN``: all refused as not JSON).

    :raises ProtocolError: ``bad_json``.
    """
    try:
        return strict_loads(frame)
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise ProtocolError("bad_json", N_("a message must be one JSON object")) from None


def is_text(value: str) -> bool:
    """Whether ``value`` is text that can be stored and sent: JSON allows escapes of lone
    surrogates (``"\ud800"``), which no UTF-8 encoder takes."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def clean(text: str) -> str:
    """``text`` without what a display name may not hold either: control and format
    characters (terminal escapes, BEL, NUL, the bidi override U+202E, the BOM)."""
    return "".join(ch for ch in text if unicodedata.category(ch)[0] != "C")


def _text(data: dict[str, Any], field: str, *, optional: bool = False, longest: int = 200) -> Any:
    value = data.get(field)
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise ProtocolError(
            "bad_field", N_("{field} must be {kind}"), field=field, kind=N_("a string")
        )
    if not is_text(value):
        raise ProtocolError(
            "bad_field", N_("{field} must be {kind}"), field=field, kind=N_("valid Unicode text")
        )
    if len(value) > longest:
        raise ProtocolError(
            "bad_field",
            N_("{field} may hold {limit} characters, not {count}"),
            field=field,
            limit=longest,
            count=len(value),
        )
    return value


def _optional_integer(data: dict[str, Any], field: str) -> Any:
    value = data.get(field)
    if value is None:
        return None
    if type(value) is not int or value < 0:
        raise ProtocolError(
            "bad_field",
            N_("{field} must be {kind}"),
            field=field,
            kind=N_("a whole number, 0 or more"),
        )
    return value


def _client_id(data: dict[str, Any]) -> str:
    value = data.get("id")
    if type(value) is int and 0 <= value < 2**53:
        return str(value)
    if isinstance(value, str) and 0 < len(value) <= 32 and is_text(value):
        return value
    raise ProtocolError(
        "bad_field",
        N_("{field} must be {kind}"),
        field="id",
        kind=N_("the client's own number (or string of up to 32 characters) for this message"),
    )


# ---------------------------------------------------------------------- what the server sends


def dumps(message: dict[str, Any]) -> str:
    """A message as a frame: compact JSON."""
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False)


def error(
    code: str, message: str, *, rule: str | None = None, error: BackAlleyError | None = None,
    id: str | None = None, version: int | None = None,
) -> dict[str, Any]:  # fmt: skip
    """An ``error`` message: ``code`` for programs, ``message`` for people; a refusal by the
    rules also names the rule, with the template and parameters to translate it."""
    out: dict[str, Any] = {"type": "error", "code": code, "message": message}
    if rule is not None:
        out["rule"] = rule
    if error is not None:
        out["template"] = error.template
        out["params"] = {
            k: v if isinstance(v, int | str) else str(v) for k, v in error.params.items()
        }
    if id is not None:
        out["id"] = id
    if version is not None:
        out["version"] = version
    return out


def suit_name(trump: int | None) -> str | None:
    """``"S"``, ``"H"``, ``"D"``, ``"C"``, or ``None`` for no trump."""
    return None if trump is None else SUITS[trump]


# Every message the server sends is built here (the error above, and these).


def ack(id: str, version: int, *, repeated: bool = False) -> dict[str, Any]:
    """A message applied (``repeated``: applied before, under the same id) at ``version``."""
    out: dict[str, Any] = {"type": "ack", "id": id, "version": version}
    if repeated:
        out["repeated"] = True
    return out


def pending(id: str, version: int, *, solver_ready: bool) -> dict[str, Any]:
    """A claim taken, to be settled (its ``ack`` or refusal follows); ``solver_ready``:
    false while the solver is still being prepared (it is settled once it is)."""
    return {"type": "pending", "id": id, "version": version, "solver_ready": solver_ready}


def pong(version: int) -> dict[str, Any]:
    return {"type": "pong", "version": version}


def presence(version: int, seats: list[dict[str, Any]]) -> dict[str, Any]:
    return {"type": "presence", "version": version, "seats": seats}


def state(
    version: int, table: dict[str, Any], seat: int | None, view: Any, chat: list[Any]
) -> dict[str, Any]:
    """The whole state, as ``seat`` (``None``: a spectator) may see it."""
    return {"type": "state", "protocol": VERSION, "version": version, "table": table,
            "you": {"seat": seat}, "view": view, "chat": chat}  # fmt: skip


def resync(version: int, events: list[Any], table: dict[str, Any], view: Any) -> dict[str, Any]:
    """The events after a client's ``since``, and the present."""
    return {"type": "resync", "version": version, "events": events, "table": table, "view": view}


_NO_VIEW: Any = object()


def event(
    version: int, public: dict[str, Any], *, table: Any = None, view: Any = _NO_VIEW
) -> dict[str, Any]:
    """One event of the log as its receiver may see it, with the table when it changed and
    the receiver's view (``null`` before the game) when it is the last of its change."""
    out: dict[str, Any] = {"type": "event", "version": version, "event": public}
    if table is not None:
        out["table"] = table
    if view is not _NO_VIEW:
        out["view"] = view
    return out


def view_json(view: SeatView) -> dict[str, Any]:
    """A seat's view (or the public view) as JSON: everything the receiver may know."""
    own = seat_json(view)
    return {
        "seat": own["seat"],
        "phase": Phase(view.phase).name.lower(),
        "sides": [list(view.rules.seats_of(side)) for side in range(view.rules.num_sides)],
        "scores": list(view.scores),
        "history": [_summary_json(d) for d in view.history],
        "winner": view.winner,
        "deal": view.deal_number,
        "kind": None if view.deal_kind is None else DealKind(view.deal_kind).name.lower(),
        "dealer": view.dealer,
        "hand_size": view.hand_size,
        "seats_in_deal": list(view.seats_in_deal),
        "hand": own["hand"],
        "hand_counts": list(view.hand_counts),
        "turned_up": [str(c) for c in view.turned_up],
        "trump": suit_name(view.trump),
        "lone_joker": None if view.lone_joker is None else card_name(view.lone_joker),
        "rules": view.rules.name,
        "joker_shown": None
        if view.joker_shown is None
        else {"seat": view.joker_shown[0], "card": str(view.joker_shown[1])},
        "drawn": own["drawn"],
        "bids": [[seat, str(bid)] for seat, bid in view.bids],
        "contracts": [_contract(c) for c in view.contracts],
        "board_level": view.board_level,
        "leader": view.leader,
        "trumps_broken": view.trumps_broken,
        "trick": [[seat, str(card)] for seat, card in view.trick],
        "tricks": [
            _played(leader, cards, view.seats_in_deal) for leader, cards in view.completed_tricks
        ],
        "trick_winners": list(view.trick_winners),
        "tricks_won": list(view.tricks_won),
        "to_move": view.to_move,
        "legal": own["legal"],
    }


def seat_json(view: SeatView) -> dict[str, Any]:
    """What a seat's view holds beyond the public view: the seat, its hand, the card it drew
    (D4) and its legal actions. The rest of :func:`view_json` is the same for every seat, so
    a broadcast converts it once."""
    return {
        "seat": view.seat,
        "hand": format_cards(view.hand) if view.seat is not None else None,
        "drawn": None if view.drawn is None else str(view.drawn),
        "legal": [str(a) for a in view.legal_actions],
    }


def _played(leader: int, cards: tuple[Card, ...], seats: tuple[int, ...]) -> list[list[Any]]:
    """A completed trick as ``[seat, card]`` pairs, like the trick in progress: who played what
    (C4), so that no client works out the order of play."""
    played, seat = [], leader
    for card in cards:
        played.append([seat, str(card)])
        seat = next_seat(seat, seats)
    return played


def _contract(contract: int | str | None) -> str | None:
    return None if contract is None else str(contract)


def _summary_json(deal: DealSummary) -> dict[str, Any]:
    points = deal.points
    if points is None and deal.thrown_in is not None:
        points = (0,) * len(deal.tricks)  # as ``backalley verify`` reports a thrown-in deal
    return {
        "dealer": deal.dealer,
        "hand_size": deal.hand_size,
        "trump": suit_name(deal.trump),
        "thrown_in": deal.thrown_in,
        "contracts": [_contract(c) for c in deal.contracts],
        "tricks": list(deal.tricks),
        "points": None if points is None else list(points),
    }


__all__ = [
    "CLOSE_GUESSING",
    "CLOSE_LEFT",
    "CLOSE_MOVED",
    "CLOSE_NO_TABLE",
    "CLOSE_POLICY",
    "CLOSE_SLOW",
    "CLOSE_TOO_BIG",
    "CLOSE_UNAUTHORIZED",
    "CLOSE_UNREACHABLE",
    "MAX_CHAT",
    "MAX_FRAME",
    "MAX_NAME",
    "Act",
    "Chat",
    "Claim",
    "Hello",
    "Message",
    "Ping",
    "ProtocolError",
    "Rematch",
    "Undo",
    "ack",
    "clean",
    "dumps",
    "error",
    "event",
    "is_text",
    "loads",
    "parse",
    "pong",
    "presence",
    "resync",
    "state",
    "view_json",
]
