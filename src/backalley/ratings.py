"""Ratings from finished games: OpenSkill's Plackett-Luce model over the game's sides, two
sides of two in a partnership game, three sides of one in ``classic3``.

A side's place is its rank by final score (the tie-breaker's winner first, a draw shared).
People's ratings move; a bot's rating is its level's anchor (:func:`anchors`, fixed by a
calibration run between the levels, ``python benchmarks/ratings_accuracy.py --calibrate``)
and never moves, so that the bots hold the scale in place; a guest (a seat with no account)
plays as a newcomer each game and keeps nothing. This module does no I/O beyond reading the
anchors shipped with it, and knows nothing of the server (docs/ratings.md).

>>> ana, bo = NEWCOMER, NEWCOMER
>>> [[ana, _], [bo, _]] = rate([[ana, anchors()["medium"]], [bo, anchors()["medium"]]],
...                            places([120, -40], winner=0))
>>> ana.mu > 25 > bo.mu, ana.games, ana.provisional
(True, 1, True)
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

MU = 25.0  #: a newcomer's mean skill
SIGMA = MU / 3  #: a newcomer's uncertainty
#: A rating is provisional until its uncertainty drops below this, from a newcomer's 8.33:
#: twelve games with medium bots at the table, about twenty (at most about 24 in nine cases
#: out of ten) with bots of mixed levels (benchmarks/ratings_accuracy.py; docs/ratings.md).
PROVISIONAL_SIGMA = 5.0


@dataclass(frozen=True)
class Standing:
    """One player's rating: the model's mean ``mu`` and uncertainty ``sigma``, and the rated
    games behind it."""

    mu: float = MU
    sigma: float = SIGMA
    games: int = 0

    @property
    def provisional(self) -> bool:
        """Too few games yet for the rating to say much."""
        return self.sigma >= PROVISIONAL_SIGMA

    @property
    def shown(self) -> int:
        """The rating people see: a cautious estimate (three uncertainties below the mean),
        placed so that a newcomer shows 1000; it rises as the uncertainty shrinks.

        >>> NEWCOMER.shown
        1000
        """
        return round(1000 + 40 * (self.mu - 3 * self.sigma))

    def to_json(self) -> dict[str, Any]:
        return {
            "mu": round(self.mu, 4),
            "sigma": round(self.sigma, 4),
            "games": self.games,
            "rating": self.shown,
            "provisional": self.provisional,
        }


NEWCOMER = Standing()


@cache
def _model() -> Any:
    from openskill.models import PlackettLuce

    return PlackettLuce(mu=MU, sigma=SIGMA)


def places(scores: Sequence[int], winner: int | None) -> list[int]:
    """Each side's place (1 first) from the final scores: a side with more points is ahead, a
    tie-breaker's ``winner`` ahead of the sides it tied with, equal sides share a place.

    >>> places([200, 150, 200], winner=2), places([80, 80], winner=None)
    ([2, 3, 1], [1, 1])
    """
    key = [(score, side == winner) for side, score in enumerate(scores)]
    return [1 + sum(other > mine for other in key) for mine in key]


def _teams(sides: Sequence[Sequence[Standing]]) -> list[list[Any]]:
    """The sides as the model's teams of ratings."""
    model = _model()
    return [[model.rating(mu=s.mu, sigma=s.sigma) for s in side] for side in sides]


def rate(sides: Sequence[Sequence[Standing]], order: Sequence[int]) -> list[list[Standing]]:
    """Every player's standing after one game whose sides finished in places ``order``."""
    rated = _model().rate(_teams(sides), ranks=list(order))
    return [
        [Standing(r.mu, r.sigma, s.games + 1) for r, s in zip(new, old, strict=True)]
        for new, old in zip(rated, sides, strict=True)
    ]


def win_chances(sides: Sequence[Sequence[Standing]]) -> list[float]:
    """The model's chance that each side finishes first."""
    return [float(p) for p in _model().predict_win(_teams(sides))]


@cache
def anchors() -> dict[str, Standing]:
    """Each bot level's fixed standing, as the calibration run wrote it (``anchors.json``)."""
    text = resources.files("backalley").joinpath("anchors.json").read_text(encoding="utf-8")
    data = json.loads(text)
    return {level: Standing(v["mu"], v["sigma"], v["games"]) for level, v in data["levels"].items()}


__all__ = [
    "MU",
    "NEWCOMER",
    "PROVISIONAL_SIGMA",
    "SIGMA",
    "Standing",
    "anchors",
    "places",
    "rate",
    "win_chances",
]
