"""A game at the terminal table, without the screen: who sits where, the bots, and the save.

The game itself stays in the engine; a :class:`Session` only seats one person and the bots,
asks the bots for their actions from their own views, and writes the game as a
``backalley/1`` record after every action, so that a closed terminal loses nothing.
"""

from __future__ import annotations

import itertools
import json
import random
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from backalley.bots import LEVELS as BOT_LEVELS
from backalley.bots import STAND_IN_LEVEL, Bot, make_bot, plays_as
from backalley.cards import BIG_BLOOPER, CARDS, LITTLE_BLOOPER, Card
from backalley.engine import Game
from backalley.record import RecordError, read_record, resume, write_record
from backalley.rules import Ruleset

#: The levels people choose bots by, weakest first.
LEVELS = tuple(BOT_LEVELS)
#: The record member that keeps the table's seating, so that a saved game resumes as it was.
SEATING = "backalley_play"


def default_save() -> Path:
    """Where a game is saved unless ``--save`` says otherwise: the user's data directory."""
    from platformdirs import user_data_path

    return user_data_path("backalley") / "current-game.json"


def _seating(seating: Any, rules: Ruleset) -> tuple[int, str, str, int]:
    """The saved seat, bot levels and seed, checked.

    :raises RecordError: naming what is wrong.
    """
    try:
        seat, seed = int(seating.get("seat", 0)), int(seating.get("seed", 0))
    except (AttributeError, TypeError, ValueError):
        raise RecordError(f"{SEATING}: seat and seed must be whole numbers") from None
    partner, opponents = seating.get("partner", "medium"), seating.get("opponents", "medium")
    if not 0 <= seat < rules.num_players:
        raise RecordError(f"{SEATING}: there is no seat {seat}")
    for level in (partner, opponents):
        if level not in LEVELS:
            raise RecordError(f"{SEATING}: unknown bot level {level!r}")
    return seat, partner, opponents, seed


def always_ready() -> bool:
    return True


#: Whether the solver is ready: ``backalley play`` prepares it aside at its start (compiling
#: it, the first time on a machine) and sets this; until then the strong bots play as
#: ``STAND_IN_LEVEL``, and claims, hints and reviews wait.
solver_ready: list[Callable[[], bool]] = [always_ready]


@dataclass
class Session:
    """One person at ``seat``; every other seat a bot (the partner's level, the opponents'),
    seated with its own generator as the session is made."""

    game: Game
    seat: int
    partner: str
    opponents: str
    save_path: Path | None
    seed: int
    bots: dict[int, Bot] = field(default_factory=dict, init=False)
    rngs: dict[int, random.Random] = field(default_factory=dict, init=False)
    #: bot moves made by the stand-in, the solver not ready yet
    below_level: int = field(default=0, init=False)
    stand_in: Bot | None = field(default=None, init=False)  #: made at its first move

    def __post_init__(self) -> None:
        for seat in range(self.game.rules.num_players):
            level = self.level_of(seat)
            if level is not None:
                self.bots[seat] = make_bot(level)
                self.rngs[seat] = random.Random(self.seed * 7919 + seat)

    @classmethod
    def new(
        cls,
        rules: Ruleset,
        *,
        seat: int = 0,
        partner: str = "medium",
        opponents: str = "medium",
        seed: int | None = None,
        save_path: Path | None = None,
    ) -> Session:
        """A new game, dealt from ``seed`` (a fresh secret one when not given)."""
        seed = secrets.randbits(32) if seed is None else seed
        session = cls(Game(rules, seed=seed), seat, partner, opponents, save_path, seed)
        session.save()
        return session

    @classmethod
    def resume(cls, path: Path, save_path: Path | None = None) -> Session:
        """The game saved in ``path``, with its seating, ready to go on.

        :raises RecordError, ReplayError: when the file is no valid record.
        """
        try:
            document = json.loads(path.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, ValueError) as error:
            raise RecordError(f"{path} holds no game record: {error}") from None
        record = read_record(document)
        seat, partner, opponents, seed = _seating(document.get(SEATING) or {}, record.rules)
        # each record deal is one deal of the game: later deals come from a generator of their own
        game = resume(record, seed + len(record.deals))
        save = save_path if save_path is not None else path
        return cls(game, seat, partner, opponents, save, seed)

    # ------------------------------------------------------------------ playing

    @property
    def human_to_move(self) -> bool:
        """The person is to bid or play."""
        return self.game.to_move == self.seat

    def act(self, action: object) -> None:
        """The action of the seat to move — the person's (a card, a bid, or their spelling),
        or a bot's from :meth:`bot_action` — saved once taken.

        :raises IllegalAction: with the rule it breaks; nothing changes then.
        """
        self.game.apply(action)
        self.save()

    def bot_action(self) -> int:
        """The bot on turn's choice, from its own view (slow for the strong levels: run it
        away from the screen's loop); :meth:`act` applies it."""
        seat = self.game.to_move
        assert seat is not None and seat != self.seat
        bot = self.bots[seat]
        level = self.level_of(seat)
        if level is not None and plays_as(level, solver_ready[0]()) != level:
            self.below_level += 1
            bot = self.stand_in = self.stand_in or make_bot(STAND_IN_LEVEL)
        return bot.act(self.game.view(seat), self.rngs[seat])

    def level_of(self, seat: int) -> str | None:
        """The level of the bot in ``seat``, or ``None`` for the person."""
        if seat == self.seat:
            return None
        return self.partner if seat == self.game.rules.partner_of(self.seat) else self.opponents

    # ------------------------------------------------------------------ saving

    def record(self) -> dict[str, Any]:
        """The game as a record, with the seating that lets it resume."""
        record = write_record(self.game)
        record[SEATING] = {
            "seat": self.seat,
            "partner": self.partner,
            "opponents": self.opponents,
            "seed": self.seed,
        }
        return record

    def save(self) -> None:
        """Write the record (atomically: a crash leaves the last save whole)."""
        if self.save_path is None:
            return
        self.save_path.parent.mkdir(parents=True, exist_ok=True)
        partial = self.save_path.with_suffix(".partial")
        partial.write_text(json.dumps(self.record(), indent=1) + "\n", encoding="utf-8")
        partial.replace(self.save_path)


RED = frozenset({1, 2})  #: hearts and diamonds


def hand_order(cards: list[int], trump: int | None) -> list[Card]:
    """A hand as a player holds it (and as the browser page shows it): the Bloopers on top,
    then the trumps, then the other suits, their colours alternating as far as the hand
    allows (♠ ♥ ♣ ♦ when it holds them all and none is trump), each from the ace down."""
    suits = {card // 13 for card in cards if card < LITTLE_BLOOPER}
    head = [trump] if trump in suits else []
    plain = [suit for suit in (0, 1, 3, 2) if suit in suits and suit != trump]

    def same_colour(order: list[int]) -> int:
        return sum((a in RED) == (b in RED) for a, b in itertools.pairwise(order))

    best = min(itertools.permutations(plain), key=lambda order: same_colour([*head, *order]))
    rank = {suit: place for place, suit in enumerate([*head, *best])}

    def key(card: int) -> tuple[int, int]:
        if card >= LITTLE_BLOOPER:
            return (-1, BIG_BLOOPER - card)
        return (rank[card // 13], -card)

    return [CARDS[c] for c in sorted(cards, key=key)]


__all__ = [
    "LEVELS",
    "Session",
    "default_save",
    "hand_order",
]
