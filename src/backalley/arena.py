"""Matches between bots in duplicate format, and what they show about strength.

Every deal sequence is played under each seating (:func:`seatings`): with partnerships, bot A
holds seats 0 & 2 in the first game and seats 1 & 3 in the second, over the same cards. The
luck of the cards then cancels in the difference between the two bots, which is what the
confidence interval is computed on. The cards of each deal come from a generator keyed by the
match seed, the deal set, and the deal's place in the game (counted deal, attempt), so every
game of a set sees the same hands deal for deal — as long as their throw-ins (all-pass
redeals) do not differ; when they do, the later deals are still equally random for all, only
no longer identical.

>>> from backalley.rules import Ruleset
>>> report = run_match("heuristic", "random", Ruleset.preset("standard", hand_sizes=[3, 2]),
...                    games=4, seed=1)
>>> [s.name for s in report.bots], report.games
(['heuristic', 'random'], 4)
"""

from __future__ import annotations

import math
import random
import statistics
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from backalley.bots import Bot, make_bot
from backalley.engine import DealKind, Game, Phase, contract_made
from backalley.record import write_record
from backalley.rules import Ruleset

Z95 = statistics.NormalDist().inv_cdf(0.975)


@dataclass(frozen=True)
class GameResult:
    """One game of a pair: which bot held side 0, the scores, and the contracts' fate."""

    pair: int  #: the deal set
    seating: int  #: which of the deal set's seatings (0, 1, … )
    a_sides: tuple[int, ...]  #: the sides bot A played (the others are B's)
    scores: tuple[int, ...]  #: per side
    winner: int | None
    contracts: tuple[tuple[int, int], ...]  #: per side (made, bid), numeric contracts
    boards: tuple[tuple[int, int], ...]  #: per side (made, bid)
    record: dict[str, Any]

    @property
    def a_side(self) -> int:
        """Bot A's side in a partnership game."""
        return self.a_sides[0]

    def sides_of(self, bot: int) -> tuple[int, ...]:
        """The sides bot 0 (A) or 1 (B) played."""
        if bot == 0:
            return self.a_sides
        return tuple(s for s in range(len(self.scores)) if s not in self.a_sides)

    def points(self, bot: int) -> float:
        """The bot's final score: its side's, or the mean of its seats' in ``classic3``."""
        sides = self.sides_of(bot)
        return sum(self.scores[s] for s in sides) / len(sides)


def _duplicate_dealer(seed: int, pair: int) -> Callable[[Game], None]:
    """Deal each deal from a generator keyed by (seed, pair, counted deal, attempt)."""
    attempts: dict[tuple[int, int], int] = {}

    def deal(game: Game) -> None:
        kind, _size, _seats = game.next_deal()
        key = (game.counted_deals, int(kind))
        attempt = attempts.get(key, 0)
        attempts[key] = attempt + 1
        rng = random.Random(f"{seed}/{pair}/{key[0]}/{key[1]}/{attempt}")
        first = random.Random(f"{seed}/{pair}").randrange(game.num_players)
        game.deal_from(rng, first_dealer=first)

    return deal


def seatings(num_players: int) -> list[tuple[int, ...]]:
    """Who sits where in each game of a deal set: 0 is bot A, 1 bot B.

    Partnerships: A holds seats 0 & 2, then 1 & 3. Three seats (``classic3``): A alone in each
    seat against two Bs, then B alone in each seat against two As — six games, so that each
    bot meets every seat and both line-ups over the same cards.
    """
    if num_players == 4:
        return [(0, 1, 0, 1), (1, 0, 1, 0)]
    alone = [tuple(0 if s == r else 1 for s in range(3)) for r in range(3)]
    return alone + [tuple(1 - b for b in seating) for seating in alone]


def play_pair(
    bot_a: str, bot_b: str, rules: Ruleset, seed: int, pair: int, repeatable: bool = False
) -> list[GameResult]:
    """Every game of deal set ``pair``: the same cards under each seating. With
    ``repeatable`` bots, the seed alone decides every game (see :func:`make_bot`)."""
    results = []
    for number, seating in enumerate(seatings(rules.num_players)):
        a, b = make_bot(bot_a, repeatable), make_bot(bot_b, repeatable)
        bots = [a if who == 0 else b for who in seating]
        game = play_duplicate(rules, seed, pair, number, _by_bots(bots))
        names = [bot.name for bot in bots]
        a_sides = tuple(sorted({rules.side_of(s) for s, who in enumerate(seating) if who == 0}))
        results.append(_result(game, pair, number, a_sides, names))
    return results


def play_duplicate(
    rules: Ruleset,
    seed: int,
    pair: int,
    number: int,
    choose: Callable[[Game, int, random.Random], int],
) -> Game:
    """Game ``number`` of deal set ``pair`` played to its end, dealt as every game of the
    set is, each action ``choose(game, seat, rng)`` with the seat's own generator for that
    game. :func:`play_pair` chooses by the seats' bots; a benchmark may choose otherwise
    (``benchmarks/headroom.py`` reads the game)."""
    game = Game(rules)
    deal = _duplicate_dealer(seed, pair)
    rngs = [random.Random(f"{seed}/{pair}/{number}/{s}") for s in range(rules.num_players)]
    while not game.is_over:
        if game.phase == Phase.DEAL:
            deal(game)
            continue
        seat = game.to_move
        assert seat is not None
        game.apply(choose(game, seat, rngs[seat]))
    return game


def _by_bots(bots: list[Bot]) -> Callable[[Game, int, random.Random], int]:
    """Each seat's action chosen by its bot, from its own view."""
    return lambda game, seat, rng: bots[seat].act(game.view(seat), rng)


def _result(
    game: Game, pair: int, seating: int, a_sides: tuple[int, ...], names: list[str]
) -> GameResult:
    contracts = [[0, 0] for _ in range(game.num_sides)]
    boards = [[0, 0] for _ in range(game.num_sides)]
    for deal in game.deals:
        if deal.thrown_in is not None or deal.kind != DealKind.NORMAL:
            continue
        for side, contract in enumerate(deal.contracts):
            if contract is None:
                continue
            made = contract_made(contract, deal.tricks[side], deal.hand_size)
            tally = boards if contract == "board" else contracts
            tally[side][0] += bool(made)
            tally[side][1] += 1
    return GameResult(
        pair=pair,
        seating=seating,
        a_sides=a_sides,
        scores=tuple(game.scores),
        winner=game.winner,
        contracts=tuple((made, bid) for made, bid in contracts),
        boards=tuple((made, bid) for made, bid in boards),
        record=write_record(game, players=names),
    )


@dataclass
class BotSummary:
    """One bot's figures over the match."""

    name: str
    points: list[float] = field(default_factory=list)  #: its final score, per game
    wins: int = 0
    draws: int = 0
    contracts_made: int = 0
    contracts_bid: int = 0
    boards_made: int = 0
    boards_bid: int = 0

    @property
    def mean(self) -> float:
        """Mean points per game."""
        return statistics.fmean(self.points) if self.points else 0.0

    @property
    def half_width(self) -> float:
        """Half the width of the 95 % confidence interval of :attr:`mean`."""
        return interval(self.points)


def interval(values: list[int] | list[float]) -> float:
    """Half the width of a 95 % normal confidence interval for the mean of ``values``."""
    if len(values) < 2:
        return math.inf
    return Z95 * statistics.stdev(values) / math.sqrt(len(values))


@dataclass
class MatchReport:
    """A duplicate match: per-bot summaries and, per pair, A's edge over B."""

    rules: Ruleset
    seed: int
    bots: tuple[BotSummary, BotSummary]
    differences: list[float] = field(default_factory=list)  #: per deal set, (A − B) per game
    results: list[GameResult] = field(default_factory=list)

    @property
    def games(self) -> int:
        """Games played (two per deal set, six in ``classic3``)."""
        return len(self.results)

    @property
    def difference(self) -> tuple[float, float]:
        """Mean points per game A scored over B, and the 95 % half-width."""
        if not self.differences:
            return 0.0, math.inf
        return statistics.fmean(self.differences), interval(self.differences)

    def add(self, pair: list[GameResult]) -> None:
        """Count every game of a deal set."""
        edge = 0.0
        for result in pair:
            self.results.append(result)
            for index, bot in enumerate(self.bots):
                sides = result.sides_of(index)
                bot.points.append(result.points(index))
                bot.wins += result.winner in sides
                bot.draws += result.winner is None
                for side in sides:
                    bot.contracts_made += result.contracts[side][0]
                    bot.contracts_bid += result.contracts[side][1]
                    bot.boards_made += result.boards[side][0]
                    bot.boards_bid += result.boards[side][1]
            edge += result.points(0) - result.points(1)
        self.differences.append(edge / len(pair))


def run_match(
    bot_a: str,
    bot_b: str,
    rules: Ruleset,
    games: int,
    seed: int,
    jobs: int = 1,
    on_pair: Callable[[list[GameResult]], None] | None = None,
    repeatable: bool = False,
    ray: str | None = None,
    played: Any = None,
) -> MatchReport:
    """Play at least ``games`` games — whole deal sets — across ``jobs``, or on the Ray
    cluster at ``ray`` (:mod:`backalley.arena_ray`, whose ``Played`` ``played`` collects the
    nodes); with ``repeatable`` bots, which keep to no wall-clock budget, the same seed plays
    the same games on any machine.

    :raises UnknownBot: for an unknown bot.
    :raises RayError: when ``ray`` is given and no cluster answers there.
    """
    make_bot(bot_a), make_bot(bot_b)  # fail early on an unknown name
    report = MatchReport(rules, seed, (BotSummary(bot_a), BotSummary(bot_b)))
    pairs = range(deal_sets(rules, games))
    if ray is not None:
        from backalley.arena_ray import play_pairs_on_ray

        played_pairs = play_pairs_on_ray(ray, bot_a, bot_b, rules, seed, pairs, repeatable, played)
    else:
        played_pairs = _pairs(bot_a, bot_b, rules, seed, pairs, jobs, repeatable)
    for pair in played_pairs:
        report.add(pair)
        if on_pair is not None:
            on_pair(pair)
    report.results.sort(key=lambda r: (r.pair, r.seating))
    return report


def deal_sets(rules: Ruleset, games: int) -> int:
    """How many deal sets make at least ``games`` games: whole sets, rounded up (a set is
    played once per seating, so that the luck of the cards cancels)."""
    per_set = len(seatings(rules.num_players))
    return max(1, -(-games // per_set))


def _pairs(
    bot_a: str,
    bot_b: str,
    rules: Ruleset,
    seed: int,
    pairs: range,
    jobs: int,
    repeatable: bool,
) -> Iterator[list[GameResult]]:
    if jobs <= 1:
        for pair in pairs:
            yield play_pair(bot_a, bot_b, rules, seed, pair, repeatable)
        return
    spec = (rules.name, rules.options())  # plain data crosses processes; the rule set is rebuilt
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        n = len(pairs)
        yield from pool.map(
            _play_pair_in_worker,
            [bot_a] * n,
            [bot_b] * n,
            [spec] * n,
            [seed] * n,
            pairs,
            [repeatable] * n,
            chunksize=4,
        )


def _play_pair_in_worker(
    bot_a: str,
    bot_b: str,
    spec: tuple[str, dict[str, Any]],
    seed: int,
    pair: int,
    repeatable: bool,
) -> list[GameResult]:
    rules = Ruleset.preset(spec[0], **spec[1])
    return play_pair(bot_a, bot_b, rules, seed, pair, repeatable)
