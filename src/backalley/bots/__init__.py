"""Players that choose actions from what their seat sees — and nothing else.

A bot gets a :class:`~backalley.view.SeatView` and a seeded ``random.Random`` and returns one
of ``view.legal_actions``. It never receives the game, so it cannot look at another hand or
the stock: bots cannot cheat (``tests/test_bots.py`` proves that no hidden state is reachable
from a view).

>>> from backalley.engine import Game
>>> from backalley.rules import Ruleset
>>> game = Game(Ruleset.preset("standard", hand_sizes=[3, 2]), seed=5)
>>> bots = [make_bot("heuristic"), make_bot("random")] * 2
>>> play_game(game, bots, seed=5).is_over
True
"""

from __future__ import annotations

import functools
import importlib.metadata
import random
from collections.abc import Callable, Sequence
from typing import Protocol

from backalley.cards import N_, BackAlleyError
from backalley.engine import Game
from backalley.view import SeatView


class UnknownBot(BackAlleyError, ValueError):
    """A name that is neither a bot nor a level."""

    def __init__(self, name: str) -> None:
        super().__init__(
            None,
            N_("unknown bot {name}: choose one of {known}"),
            name=repr(name),
            known=", ".join([*BOTS, *LEVELS, *_named_elsewhere()]),
        )


class BadBudget(UnknownBot):
    """``pimc:KEY=VALUE,…`` with a key that is no budget or a value that is no number."""

    def __init__(self, name: str, item: str) -> None:
        BackAlleyError.__init__(
            self,
            None,
            N_(
                "{item} in {name} is no budget: write KEY=VALUE with KEY one of {keys} and "
                "VALUE a number above 0"
            ),
            item=repr(item),
            name=repr(name),
            keys=", ".join(BUDGETS),
        )


class Bot(Protocol):
    """A player: a name and a way to choose an action from a seat's view."""

    name: str

    def act(self, view: SeatView, rng: random.Random) -> int:
        """One of ``view.legal_actions``."""
        ...


def play_game(game: Game, bots: Sequence[Bot], seed: int = 0) -> Game:
    """Play ``game`` to its end, each seat's bot seeing only that seat's view.

    Each seat has its own generator, so one bot's choices never change another's chances.
    """
    rngs = [random.Random(seed * 7919 + seat) for seat in range(game.num_players)]
    while not game.is_over:
        seat = game.to_move
        if seat is None:
            raise RuntimeError("the game waits for a deal: give it a generator or deal it")
        game.apply(bots[seat].act(game.view(seat), rngs[seat]))
    return game


def make_bot(name: str, repeatable: bool = False) -> Bot:
    """The bot (or level) called ``name``: see :data:`BOTS` and :data:`LEVELS`.

    A ``repeatable`` bot keeps to no wall-clock budget, only to its counts (samples, nodes),
    so that the same generator gives the same choices however busy the machine is; it may
    then take longer over a decision.

    ``pimc:KEY=VALUE,…`` is the sampling bot at budgets of one's own, e.g.
    ``pimc:samples=40,seconds=1.2,nodes=1000000`` (see :class:`~backalley.bots.pimc.PimcBot`;
    ``seconds=none`` for no clock): to measure one budget against another.

    Other packages add players of their own as entry points of the group ``backalley.bots``
    (:func:`players_elsewhere`): ``NAME`` or ``NAME:ARGUMENT``, the entry point's callable
    given ``ARGUMENT`` (or ``None``). The research environment adds OpenSpiel's search bots
    (``openspiel-ismcts``, ``openspiel-mcts``) and ``policy:FILE``, a numpy policy saved by
    its :class:`~backalley.env.policy.Policy`.

    :raises UnknownBot: for an unknown name.
    :raises MissingExtra: for a player whose optional part is not installed.
    """
    factory = BOTS.get(LEVELS.get(name, name))
    settings: dict[str, float | None] = dict(LEVEL_SETTINGS.get(name, {}))
    if factory is None and name.startswith("pimc:"):
        factory, settings = _pimc, _budgets(name)
    if factory is None:
        return _made_elsewhere(name)
    if repeatable and factory is _pimc:
        settings["seconds"] = settings["bid_seconds"] = None
    return factory(**settings)


def _random() -> Bot:
    from backalley.bots.simple import RandomBot

    return RandomBot()


def _beginner() -> Bot:
    from backalley.bots.beginner import BeginnerBot

    return BeginnerBot()


def _heuristic() -> Bot:
    from backalley.bots.heuristic import HeuristicBot

    return HeuristicBot()


def _pimc(**settings: float | None) -> Bot:
    from backalley.bots.pimc import PimcBot

    return PimcBot(**settings)  # type: ignore[arg-type]


#: The budgets ``pimc:KEY=VALUE,…`` may set, and the type of each.
BUDGETS: dict[str, type] = {
    "samples": int,
    "seconds": float,
    "bid_seconds": float,
    "nodes": int,
    "settle": float,
    "settle_after": int,
    "rollout_hands": int,
    "rollout_samples": int,
}


def _budgets(name: str) -> dict[str, float | None]:
    """The settings of ``pimc:KEY=VALUE,…``.

    :raises BadBudget: for a key that is no budget, or a value that is no number above 0.
    """
    settings: dict[str, float | None] = {}
    for item in name.partition(":")[2].split(","):
        key, _, text = (part.strip() for part in item.partition("="))
        kind = BUDGETS.get(key)
        if kind is None:
            raise BadBudget(name, item)
        if text.lower() == "none" and key in ("seconds", "bid_seconds", "settle"):
            settings[key] = None
            continue
        try:
            number = kind(text)
        except ValueError:
            raise BadBudget(name, item) from None
        if not number > 0 or number == float("inf"):
            raise BadBudget(name, item)
        settings[key] = number
    return settings


GROUP = "backalley.bots"  #: the entry points' group of the players other packages add


@functools.cache
def _named_elsewhere() -> dict[str, importlib.metadata.EntryPoint]:
    """The players other packages add (entry points of :data:`GROUP`), by name."""
    return {point.name: point for point in importlib.metadata.entry_points(group=GROUP)}


def _made_elsewhere(name: str) -> Bot:
    """The player ``name`` (``NAME`` or ``NAME:ARGUMENT``) another package adds.

    :raises UnknownBot: no package adds it, or it refuses the argument.
    """
    head, _, argument = name.partition(":")
    point = _named_elsewhere().get(head)
    if point is None:
        raise UnknownBot(name)
    try:
        bot: Bot = point.load()(argument if ":" in name else None)
    except (OSError, ValueError, KeyError) as error:
        if isinstance(error, MissingExtra):
            raise
        raise UnknownBot(name) from None
    return bot


def players_elsewhere() -> list[str]:
    """The names of the players other packages add (see :func:`make_bot`)."""
    return sorted(_named_elsewhere())


class MissingExtra(BackAlleyError, ValueError):
    """A bot that needs an optional part of the install that is not there."""

    def __init__(self, name: str, extra: str) -> None:
        super().__init__(
            None,
            N_("{name} needs an optional part: pip install 'backalley[{extra}]'"),
            name=name,
            extra=extra,
        )


#: Our bots by name (other packages add theirs: :func:`players_elsewhere`).
BOTS: dict[str, Callable[..., Bot]] = {
    "random": _random,
    "beginner": _beginner,
    "heuristic": _heuristic,
    "pimc": _pimc,
}
#: Levels people choose from, and the bot behind each.
#: (The names are marked for translation: a player chooses among them.)
LEVELS: dict[str, str] = {
    N_("easy"): "beginner",
    N_("medium"): "heuristic",
    N_("hard"): "pimc",
    N_("expert"): "pimc",
}
#: The budgets that make ``pimc`` a ``hard`` or an ``expert`` player: deals solved per
#: decision, seconds per decision, and solver nodes per deal.
#: The clocks keep a decision with 13 cards in hand to about 0.3 s for ``expert``, 0.25 s for
#: ``hard`` (they were 1.2 s and 0.5 s: see docs/bots.md); below ten cards or so they never
#: bind, and the counts alone decide.
LEVEL_SETTINGS: dict[str, dict[str, float]] = {
    "hard": {"samples": 10, "seconds": 0.25, "nodes": 150_000},
    "expert": {"samples": 40, "seconds": 0.3, "nodes": 1_000_000},
}


#: The names bots of each level take at a table, so that a table of bots reads as people:
#: a level's first name not already taken there.
BOT_NAMES: dict[str, tuple[str, ...]] = {
    "easy": ("Pip", "Dot", "Kit", "Bo"),
    "medium": ("Max", "Lou", "Bea", "Ned"),
    "hard": ("Vera", "Hugo", "Iris", "Otto"),
    "expert": ("Ada", "Kai", "Rex", "Zoe"),
}


def bot_name(level: str, taken: Sequence[str | None]) -> str:
    """A name for a bot of ``level`` that none of ``taken`` has.

    >>> bot_name("medium", ["Ana", "Max", None])
    'Lou'
    """
    for name in BOT_NAMES[level]:
        if name not in taken:
            return name
    number = 2
    while f"{BOT_NAMES[level][0]} {number}" in taken:
        number += 1
    return f"{BOT_NAMES[level][0]} {number}"


def needs_solver(name: str) -> bool:
    """Whether the bot or level ``name`` solves deals (and so may first compile the solver)."""
    return LEVELS.get(name, name) == "pimc" or name.startswith("pimc:")


#: The level that plays for a solver's bot (``hard``, ``expert``) while the solver is being
#: prepared (compiled, the first time on a machine), so that nobody waits for it.
STAND_IN_LEVEL = "medium"


def plays_as(level: str, solver_ready: bool) -> str:
    """The level a bot of ``level`` plays at: its own, or ``STAND_IN_LEVEL`` for a solver's
    bot while the solver is not ready."""
    return STAND_IN_LEVEL if needs_solver(level) and not solver_ready else level


__all__ = [
    "BOTS",
    "BOT_NAMES",
    "BUDGETS",
    "LEVELS",
    "LEVEL_SETTINGS",
    "STAND_IN_LEVEL",
    "BadBudget",
    "Bot",
    "MissingExtra",
    "UnknownBot",
    "bot_name",
    "make_bot",
    "needs_solver",
    "play_game",
    "players_elsewhere",
    "plays_as",
]
