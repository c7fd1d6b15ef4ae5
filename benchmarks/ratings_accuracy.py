"""Ratings accuracy: OpenSkill's predictions of games between bots, and the bots' anchors.

How well the ratings (backalley.ratings) predict games between bots of known strength, and
the calibration that fixes the bots' ratings on the server.

    python benchmarks/ratings_accuracy.py [--games N] [--jobs J] [--seed S] [--calibrate]
                                          [--length L] [--weights W] [--timed]

Every game seats four bots whose levels are drawn at random from the levels (with
replacement, by ``--weights``), under the ``standard`` rules at the page's length ``--length``
(``longer`` by default: the deals of up to seven cards; a full game of ``expert`` bots takes
a minute). A game is fixed by its seed: the seed draws the levels, deals the cards and seeds
the bots, which play ``repeatable`` (no wall-clock budget, see ``backalley arena
--repeatable``) unless ``--timed``.

``--calibrate`` first plays N games and fits the levels' ratings to all of them at once: the
μ of each level that make the games' outcomes the most likely under the model the server rates
with, and their standard errors as σ (:func:`calibrate`). They become
``src/backalley/anchors.json``, the fixed ratings of the bots on the server.

Then, always, N other games (other seeds) are rated in order from newcomers, each level one
player (a level seated more than once in a game moves by the sum of its seats' moves, which
cancel in part when it sits on both sides, and its uncertainty shrinks as much as its
most-informed seat's), and before
each game the chance that side 0 wins is predicted by the model, by the anchors held fixed,
and by the members' past win rates (Laplace-smoothed); the Brier scores and a calibration
table compare the predictions with the outcomes. Last, newcomers are simulated against
anchored bots to count the games before their rating stops being provisional.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from backalley import ratings
from backalley.bots import LEVELS, make_bot, play_game
from backalley.engine import Game
from backalley.ratings import NEWCOMER, PROVISIONAL_SIGMA, Standing, places, rate, win_chances
from backalley.rules import GAME_LENGTHS, Ruleset, game_rules

ORDER = ("easy", "medium", "hard", "expert")  #: the levels, weakest first, as they should rate
assert set(ORDER) == set(LEVELS)
ANCHORS = Path(__file__).resolve().parent.parent / "src" / "backalley" / "anchors.json"
PRESET = "standard"
SET_SIZE = 500_000  #: seeds per set: calibration games and accuracy games never share one


@dataclass(frozen=True)
class Played:
    """One finished game: who sat where and how the sides finished."""

    seed: int
    levels: tuple[str, ...]  #: per seat
    sides: tuple[int, ...]  #: per seat, its side
    scores: tuple[int, ...]  #: per side
    winner: int | None
    seconds: float = 0.0

    @property
    def order(self) -> list[int]:
        """Each side's place (see :func:`backalley.ratings.places`)."""
        return places(self.scores, self.winner)

    @property
    def outcome(self) -> float:
        """For side 0: 1 won, 0 lost, 0.5 drawn."""
        mine, theirs = self.order[0], min(self.order[1:])
        return 1.0 if mine < theirs else 0.0 if mine > theirs else 0.5

    def members(self) -> list[list[str]]:
        """The levels on each side."""
        return [
            [level for level, s in zip(self.levels, self.sides, strict=True) if s == side]
            for side in range(len(self.scores))
        ]


def rules_for(length: str) -> Ruleset:
    """The rules of a game of ``length`` as the page starts it."""
    return game_rules(PRESET, length)


def draw_levels(seed: int, weights: Mapping[str, float], seats: int = 4) -> tuple[str, ...]:
    """The levels of a game's seats, drawn from ``weights`` by the game's seed."""
    rng = random.Random(f"ratings-accuracy/levels/{seed}")
    names = list(weights)
    return tuple(rng.choices(names, [weights[n] for n in names], k=seats))


def play(seed: int, length: str, weights: Mapping[str, float], timed: bool = False) -> Played:
    """Play the game of ``seed``: the same seed, the same game (unless ``timed``)."""
    rules = rules_for(length)
    levels = draw_levels(seed, weights, rules.num_players)
    bots = [make_bot(level, repeatable=not timed) for level in levels]
    start = time.perf_counter()
    game = play_game(Game(rules, seed=seed), bots, seed=seed)
    return Played(
        seed=seed,
        levels=levels,
        sides=tuple(rules.side_of(seat) for seat in range(rules.num_players)),
        scores=tuple(game.scores),
        winner=game.winner,
        seconds=time.perf_counter() - start,
    )


def seeds_of(kind: str, seed: int, games: int) -> range:
    """The seeds of ``games`` games of ``kind`` (``calibration`` or ``accuracy``): disjoint
    sets of seeds for the two kinds and for different ``seed``."""
    if games > SET_SIZE:
        raise ValueError(f"at most {SET_SIZE} games a set")
    base = (2 * seed + (kind == "accuracy")) * SET_SIZE
    return range(base, base + games)


def play_all(
    seeds: Sequence[int],
    length: str,
    weights: Mapping[str, float],
    jobs: int = 1,
    timed: bool = False,
    on_game: Callable[[Played], None] | None = None,
) -> list[Played]:
    """Every game of ``seeds``, in seed order, across ``jobs`` processes."""
    results = []
    for played in _games(seeds, length, weights, jobs, timed):
        results.append(played)
        if on_game is not None:
            on_game(played)
    return results


def _games(
    seeds: Sequence[int], length: str, weights: Mapping[str, float], jobs: int, timed: bool
) -> Iterator[Played]:
    if jobs <= 1:
        for seed in seeds:
            yield play(seed, length, weights, timed)
        return
    n = len(seeds)
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        yield from pool.map(
            play, seeds, [length] * n, [dict(weights)] * n, [timed] * n, chunksize=4
        )


def rate_game(standings: Mapping[str, Standing], played: Played) -> dict[str, Standing]:
    """Every level's standing after ``played``, each level one player (see the module's
    docstring for a level seated more than once)."""
    members = played.members()
    after = rate([[standings[level] for level in side] for side in members], played.order)
    seats: dict[str, list[Standing]] = defaultdict(list)
    for names, news in zip(members, after, strict=True):
        for level, new in zip(names, news, strict=True):
            seats[level].append(new)
    updated = dict(standings)
    for level, news in seats.items():
        old = standings[level]
        mu = old.mu + sum(new.mu - old.mu for new in news)
        updated[level] = Standing(mu, min(new.sigma for new in news), old.games + 1)
    return updated


def calibrate(games: Iterable[Played], levels: Sequence[str] = ORDER) -> dict[str, Standing]:
    """The levels' standings under which ``games`` are the most likely, by the model the
    server rates with: side 0 wins with chance Φ((Σμ₀ − Σμ₁) / c), c² = 2β² + Σσ² over the
    seats (OpenSkill's Plackett–Luce for two sides, :func:`backalley.ratings.win_chances`).

    Every game at once (Fisher scoring), not ratings moved game by game, whose last standing
    leans on the last few hundred games: levels a few points apart came out in the wrong
    order that way. The levels' mean stays a newcomer's μ (only differences are seen), and
    each σ is the fit's standard error, which enters c in turn (fitted again until it
    settles)."""
    played = list(games)
    at = {level: i for i, level in enumerate(levels)}
    signs = np.zeros((len(played), len(levels)))  # +1 a seat of side 0, −1 of side 1
    seats = np.zeros((len(played), len(levels)))
    for row, game in enumerate(played):
        for level, side in zip(game.levels, game.sides, strict=True):
            signs[row, at[level]] += 1 if side == 0 else -1
            seats[row, at[level]] += 1
    won = np.array([game.outcome for game in played])
    beta = ratings.SIGMA / 2
    mu = np.full(len(levels), ratings.MU)
    sigma = np.zeros(len(levels))
    # Only differences are seen: the information has the levels' mean as its null direction.
    # Adding that direction makes it invertible without moving the mean (the gradient has no
    # part along it) and without leaning on a pseudo-inverse to tell rounding from zero.
    mean = np.full((len(levels), len(levels)), 1 / len(levels))
    for _ in range(5):
        scale = np.sqrt(2 * beta**2 + seats @ sigma**2)[:, None]
        x = signs / scale
        for _ in range(100):
            z = x @ mu
            p = np.clip(0.5 * (1 + _erf(z / math.sqrt(2))), 1e-12, 1 - 1e-12)
            density = np.exp(-(z**2) / 2) / math.sqrt(2 * math.pi)
            gradient = x.T @ (density * (won - p) / (p * (1 - p)))
            information = x.T @ (x * (density**2 / (p * (1 - p)))[:, None])
            step = np.linalg.solve(information + mean, gradient)
            mu = mu + step
            if np.abs(step).max() < 1e-10:
                break
        covariance = np.linalg.inv(information + mean) - mean
        sigma = np.sqrt(np.clip(np.diag(covariance), 0.0, None))
    counts = seats.astype(bool).sum(axis=0)
    return {
        level: Standing(float(mu[i]), float(sigma[i]), int(counts[i])) for level, i in at.items()
    }


def _erf(values: np.ndarray) -> np.ndarray:
    return np.array([math.erf(v) for v in values])


def write_anchors(path: Path, standings: Mapping[str, Standing], note: str) -> None:
    """Write ``standings`` as ``anchors.json`` (read by :func:`backalley.ratings.anchors`),
    one level a line."""
    rows = [
        f'    {json.dumps(level)}: {{"mu": {round(s.mu, 4)}, "sigma": {round(s.sigma, 4)}, '
        f'"games": {s.games}}}'
        for level, s in standings.items()
    ]
    text = "\n".join(
        ["{", f'  "note": {json.dumps(note)},', '  "levels": {', ",\n".join(rows), "  }", "}"]
    )
    path.write_text(text + "\n", encoding="utf-8")


@dataclass
class WinRates:
    """The plain baseline: each level's past win rate, per seat played."""

    wins: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    games: dict[str, int] = field(default_factory=lambda: defaultdict(int))

    def rate_of(self, level: str) -> float:
        """Laplace-smoothed: (wins + 1) / (games + 2), ½ with no history."""
        return (self.wins[level] + 1) / (self.games[level] + 2)

    def chance(self, members: Sequence[Sequence[str]]) -> float:
        """Side 0's chance: each side's mean win rate, normalised over the two sides."""
        mean = [statistics.fmean(self.rate_of(level) for level in side) for side in members]
        return mean[0] / (mean[0] + mean[1])

    def add(self, played: Played) -> None:
        outcome = played.outcome
        for level, side in zip(played.levels, played.sides, strict=True):
            self.games[level] += 1
            self.wins[level] += outcome if side == 0 else 1 - outcome


@dataclass
class Forecasts:
    """Side 0's predicted chance before each game, by each forecaster, and the outcomes."""

    chances: dict[str, list[float]]
    outcomes: list[float]
    standings: dict[str, Standing]  #: the levels' standings after the last game


def forecast(
    games: Iterable[Played],
    fixed: Mapping[str, Standing] | None = None,
    levels: Sequence[str] = ORDER,
) -> Forecasts:
    """Rate ``games`` in order from newcomers, each forecaster predicting each game before it
    is rated: ``openskill`` (the moving ratings), ``baseline`` (win rates), ``constant``
    (½) and, given ``fixed`` standings, ``anchors`` (those, never moving)."""
    standings = dict.fromkeys(levels, NEWCOMER)
    rates = WinRates()
    names = ["openskill", "baseline", "constant"] + (["anchors"] if fixed else [])
    chances: dict[str, list[float]] = {name: [] for name in names}
    outcomes = []
    for played in games:
        members = played.members()
        chances["openskill"].append(win_chances([[standings[x] for x in s] for s in members])[0])
        chances["baseline"].append(rates.chance(members))
        chances["constant"].append(0.5)
        if fixed:
            chances["anchors"].append(win_chances([[fixed[x] for x in s] for s in members])[0])
        outcomes.append(played.outcome)
        standings = rate_game(standings, played)
        rates.add(played)
    return Forecasts(chances, outcomes, standings)


def brier(chances: Sequence[float], outcomes: Sequence[float]) -> float:
    """The mean squared difference between the predicted chances and the outcomes."""
    if len(chances) != len(outcomes) or not chances:
        raise ValueError("one chance per outcome, at least one")
    return statistics.fmean((p - o) ** 2 for p, o in zip(chances, outcomes, strict=True))


@dataclass(frozen=True)
class Bin:
    low: float
    high: float
    count: int
    predicted: float  #: mean predicted chance (nan when empty)
    observed: float  #: mean outcome (nan when empty)


def calibration_bins(
    chances: Sequence[float], outcomes: Sequence[float], bins: int = 10
) -> list[Bin]:
    """The predictions cut into ``bins`` equal ranges of chance, each with its mean predicted
    chance and its observed win rate (a draw counts half)."""
    grouped: list[list[tuple[float, float]]] = [[] for _ in range(bins)]
    for p, o in zip(chances, outcomes, strict=True):
        grouped[min(bins - 1, int(p * bins))].append((p, o))
    nan = float("nan")
    return [
        Bin(
            i / bins,
            (i + 1) / bins,
            len(pairs),
            statistics.fmean(p for p, _ in pairs) if pairs else nan,
            statistics.fmean(o for _, o in pairs) if pairs else nan,
        )
        for i, pairs in enumerate(grouped)
    ]


def by_rating(standings: Mapping[str, Standing]) -> list[str]:
    """The levels, lowest mean first."""
    return sorted(standings, key=lambda level: standings[level].mu)


def games_to_leave_provisional(
    fixed: Mapping[str, Standing],
    rng: random.Random,
    company: Callable[[random.Random], Sequence[str]],
    limit: int = 500,
) -> int:
    """Games a newcomer in seat 0 plays before its sigma drops below ``PROVISIONAL_SIGMA``:
    its partner and opponents (``company``: three levels, partner first) anchored, each game
    won or lost at the toss of a coin, only the newcomer rated."""
    me, played = NEWCOMER, 0
    while me.provisional and played < limit:
        partner, *opponents = company(rng)
        sides = [[me, fixed[partner]], [fixed[level] for level in opponents]]
        me = rate(sides, [1, 2] if rng.random() < 0.5 else [2, 1])[0][0]
        played += 1
    return played


def _percentile(values: Sequence[int], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _progress(console: Console) -> Progress:
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=console,
    )


def _standings_table(
    title: str, standings: Mapping[str, Standing], games: Sequence[Played]
) -> Table:
    seats: dict[str, int] = defaultdict(int)
    wins: dict[str, float] = defaultdict(float)
    for played in games:
        for level, side in zip(played.levels, played.sides, strict=True):
            seats[level] += 1
            wins[level] += played.outcome if side == 0 else 1 - played.outcome
    order = by_rating(standings)
    matches = order == list(ORDER)
    verdict = "matches" if matches else "does NOT match"
    table = Table(title=f"{title}: {' < '.join(order)} ({verdict} easy < medium < hard < expert)")
    for column in ("level", "mu", "sigma", "shown", "games", "seats", "seat win rate"):
        table.add_column(column, justify="left" if column == "level" else "right")
    for level in order:
        s = standings[level]
        rate_ = f"{100 * wins[level] / seats[level]:.1f} %" if seats[level] else "–"
        table.add_row(
            level, f"{s.mu:.2f}", f"{s.sigma:.2f}", f"{s.shown}", f"{s.games:,}",
            f"{seats[level]:,}", rate_,
        )  # fmt: skip
    return table


LABELS = {
    "openskill": "OpenSkill (ratings moving, from newcomers)",
    "anchors": "OpenSkill (anchors fixed)",
    "baseline": "win rates (Laplace)",
    "constant": "constant 0.5",
}


def _brier_table(result: Forecasts, title: str) -> Table:
    table = Table(title=title)
    for column in ("forecaster", "Brier", "skill vs 0.5", "Brier, 2nd half"):
        table.add_column(column, justify="left" if column == "forecaster" else "right")
    half = len(result.outcomes) // 2
    const = brier(result.chances["constant"], result.outcomes)
    for name, chances in result.chances.items():
        score = brier(chances, result.outcomes)
        late = brier(chances[half:], result.outcomes[half:]) if half else float("nan")
        table.add_row(LABELS[name], f"{score:.4f}", f"{1 - score / const:+.1%}", f"{late:.4f}")
    return table


def _calibration_table(result: Forecasts, names: Sequence[str]) -> Table:
    table = Table(title="Calibration: side 0's predicted chance against its observed win rate")
    table.add_column("predicted", justify="right")
    for name in names:
        for column in ("games", "mean predicted", "observed"):
            table.add_column(f"{name}\n{column}", justify="right")
    columns = [calibration_bins(result.chances[name], result.outcomes) for name in names]
    for row in zip(*columns, strict=True):
        cells = [f"{row[0].low:.1f}–{row[0].high:.1f}"]
        for b in row:
            if b.count:
                cells += [f"{b.count:,}", f"{b.predicted:.3f}", f"{b.observed:.3f}"]
            else:
                cells += ["0", "–", "–"]
        table.add_row(*cells)
    return table


def _provisional_table(fixed: Mapping[str, Standing], weights: Mapping[str, float]) -> Table:
    names = list(weights)
    companies: dict[str, Callable[[random.Random], Sequence[str]]] = {
        "levels drawn as in the games": lambda rng: rng.choices(
            names, [weights[n] for n in names], k=3
        ),
    }
    for level in ORDER:
        companies[f"all three {level}"] = lambda _rng, level=level: (level,) * 3
    table = Table(
        title=f"Games before a newcomer's sigma drops below PROVISIONAL_SIGMA = "
        f"{PROVISIONAL_SIGMA} (partner and opponents anchored, outcomes at random, "
        f"1,000 newcomers each)"
    )
    for column in ("company", "min", "median", "90th pct", "max"):
        table.add_column(column, justify="left" if column == "company" else "right")
    for index, (label, company) in enumerate(companies.items()):
        rng = random.Random(f"ratings-accuracy/provisional/{index}")
        counts = [games_to_leave_provisional(fixed, rng, company) for _ in range(1000)]
        table.add_row(
            label, f"{min(counts)}", f"{statistics.median(counts):g}",
            f"{_percentile(counts, 0.9):g}", f"{max(counts)}",
        )  # fmt: skip
    return table


def parse_weights(text: str) -> dict[str, float]:
    """``easy=1,medium=1,…`` → weights of each level, all levels present."""
    weights = {}
    for part in text.split(","):
        name, _, value = part.partition("=")
        weights[name.strip()] = float(value)
    if set(weights) != set(ORDER) or min(weights.values()) <= 0:
        raise argparse.ArgumentTypeError(f"give every level a positive weight: {text!r}")
    return {level: weights[level] for level in ORDER}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4000, help="games in each set")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--calibrate", action="store_true", help=f"write {ANCHORS.name}")
    parser.add_argument("--length", choices=GAME_LENGTHS, default="longer")
    parser.add_argument(
        "--weights", type=parse_weights, default="easy=1,medium=1,hard=1,expert=1",
        help="how often each level is drawn for a seat",
    )  # fmt: skip
    parser.add_argument(
        "--timed", action="store_true", help="the bots' wall-clock budgets (not repeatable)"
    )
    parser.add_argument("--anchors", type=Path, default=ANCHORS, help=argparse.SUPPRESS)
    args = parser.parse_args()
    console, err = Console(width=max(Console().width, 132)), Console(stderr=True)
    rules = rules_for(args.length)
    mix = ", ".join(f"{level} {w:g}" for level, w in args.weights.items())
    console.print(
        f"[bold]Ratings accuracy[/]: {PRESET} rules, length {args.length} "
        f"(hand sizes {', '.join(map(str, rules.hand_sizes))}; all-pass limit "
        f"{rules.all_pass_limit}), {args.games:,} games a set, seed {args.seed}, levels drawn "
        f"per seat with weights {mix}, {'timed' if args.timed else 'repeatable'} bots, "
        f"{args.jobs} job{'s' * (args.jobs != 1)}"
    )
    started = time.perf_counter()

    def played_set(kind: str) -> list[Played]:
        seeds = seeds_of(kind, args.seed, args.games)
        begin = time.perf_counter()
        with _progress(err) as progress:
            task = progress.add_task(f"{kind} games", total=len(seeds))
            games = play_all(
                seeds, args.length, args.weights, args.jobs, args.timed,
                on_game=lambda _: progress.advance(task),
            )  # fmt: skip
        took = time.perf_counter() - begin
        slowest = max(games, key=lambda g: g.seconds)
        console.print(
            f"{kind}: {len(games):,} games (seeds {seeds.start}–{seeds.stop - 1}) in "
            f"{took:.0f} s, slowest game {slowest.seconds:.1f} s ({', '.join(slowest.levels)})"
        )
        return games

    fixed = None
    if args.calibrate:
        games = played_set("calibration")
        fixed = calibrate(games)
        command = " ".join(["python", "benchmarks/ratings_accuracy.py", *sys.argv[1:]])
        note = (
            f"calibrated by `{command}`: {len(games)} games of four bots, levels drawn per "
            f"seat ({mix}), {PRESET} rules, length {args.length} "
            f"(hand sizes {','.join(map(str, rules.hand_sizes))}), seed {args.seed}"
        )
        write_anchors(args.anchors, fixed, note)
        console.print(_standings_table("Calibration (written as anchors)", fixed, games))
        console.print(f"wrote {args.anchors}")
    else:
        fixed = ratings.anchors()
    games = played_set("accuracy")
    result = forecast(games, fixed)
    console.print(_standings_table("Accuracy games, final order", result.standings, games))
    console.print(
        _brier_table(
            result,
            f"Brier score of side 0's predicted chance over {len(games):,} games "
            f"({sum(o == 0.5 for o in result.outcomes)} drawn); lower is better",
        )
    )
    console.print(_calibration_table(result, [n for n in result.chances if n != "constant"]))
    console.print(_provisional_table(fixed, args.weights))
    console.print(f"total {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
