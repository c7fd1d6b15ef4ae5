"""What a table is made with, checked at the edge: its :class:`Settings` (rules, options,
bots' level, pace, timers), the names people sit under, and :class:`TableError`, the
refusals of a table that are no rule of the game."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field
from typing import Any

from backalley.bots import LEVELS
from backalley.cards import N_, BackAlleyError
from backalley.rules import Ruleset
from backalley.server import protocol
from backalley.server.protocol import ProtocolError

MAX_DEALS = 60  #: deals a table's game may hold (the longest preset has 25)


@dataclass(frozen=True)
class Settings:
    """How a table plays: its rules, and the pace of its bots and players."""

    rules: str = "standard"
    options: dict[str, Any] = field(default_factory=dict)
    level: str = "medium"  #: the bots' level, for bot seats and stand-ins
    pace: float = 1.0  #: seconds a bot waits before it acts
    turn_timer: float | None = None  #: seconds a person has for an action, or no limit
    grace: float = 60.0  #: seconds a player may be away before a bot stands in
    public: bool = False  #: listed in the lobby, where anyone may take a free seat or watch
    rematch_wait: float = 60.0  #: seconds the players have to accept a rematch
    #: ``DAY/SET`` at a table of the daily deals (:mod:`~backalley.server.daily`), which the
    #: server makes: never a client's setting
    daily: str | None = None
    #: ``MATCH/N`` at table N (1 or 2) of a team match (:mod:`~backalley.server.matches`),
    #: which the server makes: never a client's setting either
    match: str | None = None

    @property
    def played_once(self) -> bool:
        """Its deals are played at other tables too (the daily deals, a team match): no
        take-back, no rematch."""
        return self.daily is not None or self.match is not None

    def ruleset(self) -> Ruleset:
        return Ruleset.preset(self.rules, **self.options)

    @classmethod
    def checked(cls, data: dict[str, Any]) -> Settings:
        """Settings from a client's request.

        :raises TableError: naming the field that is wrong.
        """
        known = {f for f in cls.__dataclass_fields__} - {"daily", "match"}
        unknown = set(data) - known - {"hand_sizes"}
        if unknown:
            raise TableError(
                "bad_field", N_("unknown setting {name}"), name=", ".join(sorted(unknown))
            )
        options = data.get("options") or {}
        if not isinstance(options, dict):
            raise TableError(
                "bad_field", N_("{field} must be {kind}"), field="options", kind=N_("an object")
            )
        options = dict(options)
        if data.get("hand_sizes") is not None:
            options["hand_sizes"] = data["hand_sizes"]
        sizes = options.get("hand_sizes")
        if isinstance(sizes, list) and len(sizes) > MAX_DEALS:  # a game of a thousand deals
            raise TableError("bad_field", N_("a game holds at most {limit} deals"), limit=MAX_DEALS)
        settings = cls(
            rules=data.get("rules", "standard"),
            options=options,
            level=data.get("level", "medium"),
            pace=_number(data, "pace", 1.0, 0.0, 30.0),
            turn_timer=_number(data, "turn_timer", None, 1.0, 3600.0),
            grace=_number(data, "grace", 60.0, 0.0, 3600.0),
            public=False if data.get("public") is None else data["public"],
            rematch_wait=_number(data, "rematch_wait", 60.0, 1.0, 3600.0),
        )
        if not isinstance(settings.public, bool):
            raise TableError(
                "bad_field", N_("{field} must be {kind}"), field="public", kind=N_("true or false")
            )
        check_level(settings.level)
        try:
            settings.ruleset()
        except (BackAlleyError, TypeError, ValueError) as error:
            raise TableError(
                "bad_rules", N_("these rules cannot be played: {reason}"), reason=str(error)
            ) from None
        return settings


def _number(data: dict[str, Any], name: str, default: float | None, low: float, high: float) -> Any:
    value = data.get(name, default)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
        raise TableError(
            "bad_field",
            N_("{field} must be a number from {low} to {high}"),
            field=name,
            low=low,
            high=high,
        )
    return float(value)


class TableError(ProtocolError):
    """A request the table refuses (not a rule of the game): ``code`` names it for programs."""


def check_level(level: object) -> None:
    """:raises TableError: ``level`` is not one of the bots' levels."""
    if not isinstance(level, str) or level not in LEVELS:
        raise TableError(
            "bad_field",
            N_("unknown bot level {level}; the levels are {levels}"),
            level=str(level)[:20],
            levels=", ".join(LEVELS),
        )


def check_name(name: object) -> str:
    """A display name as shown: trimmed, 1 to MAX_NAME printable characters."""
    if not isinstance(name, str):
        raise TableError(
            "bad_field", N_("{field} must be {kind}"), field="name", kind=N_("a string")
        )
    name = " ".join(name.split())
    if (
        not name
        or len(name) > protocol.MAX_NAME
        or any(unicodedata.category(ch)[0] == "C" for ch in name)
    ):
        raise TableError(
            "bad_name",
            N_("a name holds 1 to {limit} printable characters"),
            limit=protocol.MAX_NAME,
        )
    return name


__all__ = ["MAX_DEALS", "Settings", "TableError", "check_level", "check_name"]
