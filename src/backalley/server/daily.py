"""The daily deals: each day (UTC) the same deals for everyone, a set a rule set, played at a
table of one's own with three bots of a fixed level; each deal's result compared with
everyone who held the same cards in the same seat (docs/protocol.md, daily deals).

The deals come from a seed per day and set, an HMAC of the day under a secret that stays on
the server: the ``BACKALLEY_DAILY_SECRET`` environment variable, or one made once and kept
in the database, so that every node of a cluster deals the same cards. A deal is keyed by its
place (how many deals were played out before it), its kind and its attempt (how many times
in a row it was thrown in, all pass or renig), as the arena keys its duplicate deals: a
table where a deal was thrown in plays the next attempt, which every other table that threw
it in plays too, and the deals after it hold the same cards as everyone's. The same dealer
deals again after a throw-in (a renig's D6, and all passing under D7's ``redeal_same``, which
:func:`in_step` sets), so that the dealers stay in step too; a deal's result is compared by
its key and dealer all the same (:func:`result_key`).
"""

from __future__ import annotations

import bisect
import datetime
import hashlib
import hmac
import os
import random
import secrets
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import insert, select
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError

from backalley.engine import Game

SEAT = 0  #: the seat the person holds at every daily table: everyone is compared there
ALONE = 0.5  #: a deal's share when nobody else has played it yet: level with the field
PACE = 0.6  #: seconds a bot waits before it acts, unless the player asks for another pace


@dataclass(frozen=True)
class DailySet:
    """A set of deals dealt each day: its rules, hand sizes and the bots' level."""

    name: str
    rules: str
    hand_sizes: tuple[int, ...]
    level: str = "hard"

    def settings(self, day: str) -> dict[str, Any]:
        """The table's settings (:class:`~backalley.server.settings.Settings`) for ``day``."""
        options = in_step(self.rules, {"hand_sizes": list(self.hand_sizes)})
        return {
            "rules": self.rules, "options": options,
            "level": self.level, "pace": PACE, "grace": 3600.0, "turn_timer": None,
            "public": False, "daily": f"{day}/{self.name}",
        }  # fmt: skip


def in_step(rules: str, options: dict[str, Any]) -> dict[str, Any]:
    """``options`` such that a deal thrown in because everyone passed is dealt again by the
    same dealer (D7's ``redeal_same`` for its ``redeal``): tables that play the same deals
    then keep their dealers in step whatever each throws in."""
    from backalley.rules import Ruleset

    if Ruleset.preset(rules, **options).all_pass == "redeal":
        return {**options, "all_pass": "redeal_same"}
    return options


#: The sets offered each day: a short ``standard`` game and a longer ``bab`` one.
SETS = {
    s.name: s
    for s in (
        DailySet("standard", "standard", (3, 2, 1)),
        DailySet("bab", "bab", (6, 4, 2, 1, 3, 5, 7)),
    )
}


def today(now: datetime.datetime | None = None) -> str:
    """The day (UTC) as ``YYYY-MM-DD``."""
    return (now or datetime.datetime.now(datetime.UTC)).strftime("%Y-%m-%d")


def parse_day(text: object) -> str | None:
    """``text`` if it is a day ``YYYY-MM-DD``, else ``None``."""
    if not isinstance(text, str) or len(text) != 10:
        return None
    try:
        return datetime.date.fromisoformat(text).isoformat()
    except ValueError:
        return None


def split(daily: str) -> tuple[str, DailySet]:
    """A table's ``daily`` setting (``DAY/SET``) as its day and set."""
    day, name = daily.split("/", 1)
    return day, SETS[name]


def day_seed(secret: bytes, daily: str) -> str:
    """The seed of a day's set (``DAY/SET``): it decides every card of it, so it never
    leaves the server."""
    return hmac.new(secret, daily.encode(), hashlib.sha256).hexdigest()


def key_after(before: Sequence[Any], kind: int) -> str:
    """The key of a deal of ``kind`` dealt after the deals ``before``: ``PLACE.KIND.ATTEMPT``
    — how many deals were played out before it, its kind, and how many times in a row just
    before it a deal of its kind was thrown in."""
    place = sum(1 for deal in before if deal.thrown_in is None)
    attempt = 0
    for deal in reversed(before):
        if deal.thrown_in is None or int(deal.kind) != kind:
            break
        attempt += 1
    return f"{place}.{kind}.{attempt}"


def deal_key(deals: Sequence[Any], index: int) -> str:
    """The key of deal ``index`` of a game's deals (:func:`key_after`)."""
    return key_after(deals[:index], int(deals[index].kind))


def result_key(deals: Sequence[Any], index: int) -> str:
    """What a deal's result is compared by: its key (:func:`deal_key`) and its dealer,
    ``PLACE.KIND.ATTEMPT.DEALER``."""
    return f"{deal_key(deals, index)}.{deals[index].dealer}"


def dealer(seed: str) -> Callable[[Game], None]:
    """Deal a daily table's due deal from its key under ``seed``, the first dealer drawn from
    the seed alone: every table of the set deals the same cards at the same key."""

    def deal(game: Game) -> None:
        kind, _size, _seats = game.next_deal()
        first = random.Random(f"{seed}/dealer").randrange(game.num_players)
        game.deal_from(random.Random(f"{seed}/{key_after(game.deals, int(kind))}"), first)

    return deal


def bot_seed(seed: str, game: Game, seat: int) -> str:
    """A bot's generator's seed at a daily table: the same position (deal, moves in it, seat)
    gives the same choice at every table, so the bots are the same opponents for all."""
    deal = game.current_deal
    moves = 0 if deal is None else len(deal.bids) + len(deal.play)
    return f"{seed}/bot/{len(game.deals)}/{moves}/{seat}"


def results(game: Game, seat: int = SEAT) -> list[tuple[str, int]]:
    """Each deal's key and the points ``seat``'s side scored on it (a thrown-in deal: 0)."""
    side = game.rules.side_of(seat)
    return [
        (result_key(game.deals, i), 0 if deal.points is None else deal.points[side])
        for i, deal in enumerate(game.deals)
    ]


def share_beaten(points: int, field_points: Sequence[int], itself: bool = False) -> float:
    """The share of ``field_points`` (sorted) that ``points`` beats, ties counting half;
    ``itself``: the field holds these very points once, left out. :data:`ALONE` when the
    field is empty."""
    below = bisect.bisect_left(field_points, points)
    level = bisect.bisect_right(field_points, points) - below - itself
    others = len(field_points) - itself
    return (below + level / 2) / others if others else ALONE


@dataclass(slots=True)
class Entry:
    """One finished try: who, and their deals' ``(key, points)``."""

    id: str  #: the table's
    name: str
    account: str | None
    ranked: bool
    deals: Sequence[Sequence[Any]]  #: ``(key, points)`` each
    shares: list[float] = field(default_factory=list)
    score: float = 0.0  #: the day's: the mean share over the deals played (0 with none)


def standings(entries: Iterable[Entry]) -> tuple[list[Entry], dict[str, list[int]]]:
    """Every entry's shares against the field, and the ranking (ranked entries, best first).

    The field of a deal is every ranked try that played it; each try is compared with the
    field without itself. Also each deal's field, sorted: ``{key: [points, …]}``.
    """
    entries = list(entries)
    fields: dict[str, list[int]] = {}
    for entry in entries:
        if entry.ranked:
            for key, points in entry.deals:
                fields.setdefault(key, []).append(points)
    for points_list in fields.values():
        points_list.sort()
    worked: dict[tuple[str, int, bool], float] = {}  # a deal's points recur: each once
    for entry in entries:
        shares = []
        for key, points in entry.deals:
            share = worked.get((key, points, entry.ranked))
            if share is None:
                share = share_beaten(points, fields.get(key, []), entry.ranked)
                worked[(key, points, entry.ranked)] = share
            shares.append(share)
        entry.shares, entry.score = shares, sum(shares) / len(shares) if shares else 0.0
    ranking = sorted((e for e in entries if e.ranked), key=lambda e: (-e.score, e.name, e.id))
    return ranking, fields


SECRET_FACT = "daily_secret"  #: its name in the database's facts


def load_secret(engine: Engine) -> bytes:
    """The daily deals' secret: ``BACKALLEY_DAILY_SECRET`` when set, else the database's,
    made there by the first server to ask (every node of a cluster then reads the same)."""
    value = os.environ.get("BACKALLEY_DAILY_SECRET")
    if value:
        return value.encode()
    from backalley.server.store import facts

    def stored() -> str | None:
        with engine.begin() as connection:
            found = connection.execute(
                select(facts.c.value).where(facts.c.name == SECRET_FACT)
            ).scalar()
            return None if found is None else str(found)

    kept = stored()
    if kept is None:
        try:
            with engine.begin() as connection:
                connection.execute(
                    insert(facts).values(name=SECRET_FACT, value=secrets.token_hex(32))
                )
        except IntegrityError:  # another node made it first: theirs it is
            pass
        kept = stored()
    assert kept is not None
    return kept.encode()


__all__ = [
    "ALONE",
    "SEAT",
    "SETS",
    "DailySet",
    "Entry",
    "bot_seed",
    "day_seed",
    "deal_key",
    "dealer",
    "in_step",
    "key_after",
    "load_secret",
    "parse_day",
    "result_key",
    "results",
    "share_beaten",
    "split",
    "standings",
    "today",
]
