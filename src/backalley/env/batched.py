"""Many games stepped at once, in preallocated numpy arrays: the environment for self-play.

>>> env = BatchedEnv(4, rules="standard", options={"hand_sizes": [3, 2, 1]})
>>> batch = env.reset(seed=1)
>>> batch.observations.shape, batch.action_masks.shape, batch.rewards.shape
((4, 531), (4, 69), (4, 4))
>>> rng = np.random.default_rng(0)
>>> finished = 0
>>> while finished < 8:
...     batch = env.step(env.sample(rng))
...     finished += int(batch.done.sum())
>>> bool(batch.action_masks.any(axis=1).all())  # every game has a player to act
True
"""

from __future__ import annotations

import random
import time
from collections.abc import Mapping
from typing import Any, ClassVar, NamedTuple

import numpy as np

from backalley import jit
from backalley.engine import Game, IllegalAction, Phase
from backalley.env import kernel as k
from backalley.env.dealing import MAX_PASSES
from backalley.env.encoding import size_of, write_observations
from backalley.rules import Ruleset

#: Deals of a game a recording environment keeps (thrown-in deals count): a game that deals
#: more can still be played, but not written as a record.
RECORDED_DEALS = 96
#: Actions of a game a recording environment keeps.
RECORDED_ACTIONS = 4096

try:  # Gymnasium 1.x declares how a vector environment starts a new episode.
    from gymnasium.vector import AutoresetMode

    _SAME_STEP: Any = AutoresetMode.SAME_STEP
except ImportError:  # pragma: no cover - without the [rl] extra
    _SAME_STEP = "SameStep"


class Batch(NamedTuple):
    """What :meth:`BatchedEnv.reset` and :meth:`BatchedEnv.step` return.

    The arrays are the environment's own, written again by the next step: copy what you keep.
    """

    observations: np.ndarray  #: [N, D] float32: each game's player to act, as it sees it
    action_masks: np.ndarray  #: [N, 69] uint8: that player's legal actions (never all 0)
    to_play: np.ndarray  #: [N] int64: the seat to act
    rewards: np.ndarray  #: [N, players] int64: what this step earned each seat
    done: np.ndarray  #: [N] bool: the game ended with this step (and a new one began)
    #: [N] bool: the game was cut short with this step, ``max_passes`` deals in a row thrown
    #: in because all passed (and a new one began); ``done`` is false for it
    truncated: np.ndarray


def rules_config(rules: Ruleset, one_deal: bool = False, reward: str = "points") -> np.ndarray:
    """The kernel's ``config`` row for ``rules``."""
    from backalley.engine import blooper_mode

    config = np.zeros(k.C_SIZE, dtype=np.int64)
    config[k.C_PLAYERS] = rules.num_players
    config[k.C_SIDES] = rules.num_sides
    config[k.C_JOKER] = ("no_trump", "turn_again", "lone_joker").index(rules.joker_turnup)
    config[k.C_RENIG] = -1 if rules.renig_min_hand is None else rules.renig_min_hand
    config[k.C_ALL_PASS] = ("redeal", "play", "redeal_same").index(rules.all_pass)
    config[k.C_ALL_PASS_LIMIT] = -1 if rules.all_pass_limit is None else rules.all_pass_limit
    config[k.C_MAX_BID] = ("hand_minus_one", "hand", "hand_cap_12").index(rules.max_bid)
    config[k.C_TIE_LEADER] = ("last", "first").index(rules.board_tie_leader)
    config[k.C_LEADS_TRUMP] = ("bidder", "side", "off").index(rules.board_leads_trump)
    config[k.C_BLOOPER] = blooper_mode(rules)
    config[k.C_MULTIPLIER] = {False: 0, True: 1, "doubling": 2}[rules.board_multiplier]
    config[k.C_TIE_BREAKER] = rules.tie_breaker
    config[k.C_CAP] = rules.contract_cap
    config[k.C_CONTRACT_POINTS] = rules.contract_points
    config[k.C_ZERO] = ("nothing", "tricks").index(rules.zero_contract)
    config[k.C_RAINBOW] = -1 if rules.rainbow_hand is None else rules.rainbow_hand
    config[k.C_DEALS] = len(rules.hand_sizes)
    config[k.C_ONE_DEAL] = one_deal
    config[k.C_REWARD] = ("points", "win").index(reward)
    return config


class BatchedEnv:
    """``num_games`` games of Back Alley under one rule set, stepped together.

    - ``rules`` and ``options``: a preset and its options, as ``backalley play`` takes them;
    - ``episode``: ``"game"`` (every deal to the end, tie-breakers included) or ``"deal"``
      (one counted deal, its hand size drawn from the rule set's list);
    - ``encoding``: ``"compact"`` or ``"full"`` (:mod:`backalley.env.encoding`);
    - ``reward``: ``"points"`` (each deal's points to every seat of the side, as it is
      scored) or ``"win"`` (+1 to the winners' seats, −1 to the others', at the end);
    - ``duplicate``: games come in groups (two at a table of four, three in ``classic3``)
      dealt the same cards, each game of a group with every hand turned one seat further;
    - ``record``: keep what :meth:`record` needs to write a finished game as a record (an
      int: how many deals of a game to keep, thrown-in deals counted; else 96).
    - ``max_passes``: a game in which that many deals in a row were thrown in because all
      passed (D7) is cut short (``Batch.truncated``) and replaced; ``None``: never.

    A finished game is replaced by a new one in the same step (Gymnasium's same-step
    autoreset): that step's rewards and ``done`` are the finished game's, its observation
    and mask the new game's; :attr:`final_scores` and :attr:`final_winner` keep the result.
    Every action of every game is the engine's, and every game too: ``tests/test_env.py``
    replays them through :class:`~backalley.engine.Game`.
    """

    metadata: ClassVar[dict[str, Any]] = {"autoreset_mode": _SAME_STEP}
    num_actions = k.NUM_ACTIONS

    def __init__(
        self,
        num_games: int,
        rules: str = "standard",
        options: Mapping[str, Any] | None = None,
        *,
        episode: str = "game",
        encoding: str = "compact",
        reward: str = "points",
        duplicate: bool = False,
        record: bool | int = False,
        max_passes: int | None = MAX_PASSES,
    ) -> None:
        if episode not in ("game", "deal"):
            raise ValueError(f"episode must be 'game' or 'deal', not {episode!r}")
        if encoding not in ("compact", "full"):
            raise ValueError(f"encoding must be 'compact' or 'full', not {encoding!r}")
        if reward not in ("points", "win"):
            raise ValueError(f"reward must be 'points' or 'win', not {reward!r}")
        self.rules = Ruleset.preset(rules, **dict(options or {}))
        self.num_games = num_games
        self.num_players = self.rules.num_players
        self.episode, self.encoding, self.reward = episode, encoding, reward
        self.group = (2 if self.num_players == 4 else 3) if duplicate else 1
        if num_games % self.group:
            raise ValueError(f"duplicate games come in groups of {self.group}: {num_games} games")
        self.observation_size = size_of(encoding)
        self._config = rules_config(self.rules, episode == "deal", reward)
        self._sizes = np.array(self.rules.hand_sizes, dtype=np.int64)
        n = num_games
        self._games = np.zeros((n, k.GAME_FIELDS), dtype=np.int64)
        self._seats = np.zeros((n, 4, k.S_SIZE), dtype=np.int64)
        self._sides = np.zeros((n, 3, k.D_SIZE), dtype=np.int64)
        kept = (RECORDED_DEALS if record is True else int(record)) if record else 1
        self._decks = np.zeros((n, kept, k.NUM_CARDS), np.int64)
        self._tricks = np.zeros((n, k.MAX_TRICKS, 5), dtype=np.int64)
        self._actions = np.zeros((n, RECORDED_ACTIONS if record else 0), dtype=np.int16)
        self._counts = np.zeros(n, dtype=np.int64)
        self._episodes = np.zeros(n, dtype=np.int64)
        self._observations = np.zeros((n, self.observation_size), dtype=np.float32)
        self._masks = np.zeros((n, k.NUM_ACTIONS), dtype=np.uint8)
        self._to_play = np.zeros(n, dtype=np.int64)
        self._rewards = np.zeros((n, self.num_players), dtype=np.int64)
        self._done = np.zeros(n, dtype=bool)
        self._truncated = np.zeros(n, dtype=bool)
        self.max_passes = max_passes
        self.final_scores = np.zeros((n, self.rules.num_sides), dtype=np.int64)
        #: the side that won; −1 a draw, −2 cut short (max_passes)
        self.final_winner = np.full(n, -2, dtype=np.int64)
        self._records: dict[int, tuple[Any, ...]] = {}
        self._seed = 0
        self._ready = False

    # ------------------------------------------------------------------ the loop

    def reset(self, seed: int | None = None) -> Batch:
        """Start every game afresh; the same ``seed`` deals the same games."""
        self._seed = random.randrange(2**62) if seed is None else int(seed) % 2**62
        self._episodes[:] = 0
        self._records.clear()
        for i in range(self.num_games):
            self._new_game(i)
        self._rewards[:] = 0
        self._done[:] = False
        self._truncated[:] = False
        self._ready = True
        return self.observe()

    def step(self, actions: np.ndarray) -> Batch:
        """Take each game's action (one of its mask's) for its player to act; a game given
        ``WAIT`` (−1) stays as it is, its rewards 0 (so that some games can move without the
        others).

        :raises IllegalAction: naming the first game whose action its mask refuses; then no
            game has moved.
        """
        if not self._ready:
            raise RuntimeError("call reset() before step()")
        actions = np.asarray(actions, dtype=np.int64)
        if actions.shape != (self.num_games,):
            raise ValueError(f"step takes {self.num_games} actions, not shape {actions.shape}")
        bad = k.first_illegal(self._config, self._games, self._seats, actions)
        if bad >= 0:
            raise IllegalAction(
                None,
                "game {game}: action {action} is not legal now (its mask refuses it)",
                game=bad,
                action=int(actions[bad]),
            )
        if self._actions.shape[1]:
            live = (self._counts < self._actions.shape[1]) & (actions != k.WAIT)
            self._actions[live, self._counts[live]] = actions[live]
            self._counts += actions != k.WAIT
        k.step_all(
            self._config, self._sizes, self._games, self._seats, self._sides,
            self._decks, self._tricks, actions, self._rewards, self._done,
        )  # fmt: skip
        for i in np.flatnonzero(self._done):
            self._finish(int(i))
        if self.max_passes is not None:
            np.greater_equal(self._games[:, k.G_RUN], self.max_passes, out=self._truncated)
            for i in np.flatnonzero(self._truncated):
                self.restart(int(i))
        return self.observe()

    @property
    def deals_scored(self) -> np.ndarray:
        """[N]: the counted deals each game has scored so far (a copy)."""
        return self._games[:, k.G_COUNTED].copy()

    def sample(self, rng: np.random.Generator) -> np.ndarray:
        """A uniformly random legal action for each game."""
        return masked_sample(self._masks, rng)

    def random_play(self, steps: int, seed: int = 0) -> int:
        """Play ``steps`` random legal actions in every game inside the compiled loop (no
        observations): the actions taken. For measuring the engine's raw speed."""
        if not self._ready:
            self.reset(seed)
        state = (self._config, self._sizes, self._games, self._seats, self._sides)
        return int(k.random_play(*state, self._decks, self._tricks, self._rewards, steps, seed))

    # ------------------------------------------------------------------ records

    def record(self, game: int) -> dict[str, Any]:
        """The ``backalley/1`` record of the last game that finished in slot ``game``, as the
        engine replays it (needs ``record=True``)."""
        if game not in self._records:
            raise KeyError(f"no finished game in slot {game} (record=True keeps them)")
        from backalley.record import write_record

        return write_record(replay(*self._records[game]))

    def finished_game(self, game: int) -> Game:
        """The last game that finished in slot ``game``, replayed through the engine."""
        if game not in self._records:
            raise KeyError(f"no finished game in slot {game} (record=True keeps them)")
        return replay(*self._records[game])

    # ------------------------------------------------------------------ inside

    def _new_game(self, i: int) -> None:
        group, turn = divmod(i, self.group)
        seed = int(k.mix_seed(self._seed, group, int(self._episodes[i])))
        self._episodes[i] += 1
        self._counts[i] = 0
        k.new_game(
            self._config, self._sizes, self._games, self._seats, self._sides,
            self._decks, self._tricks, i, seed, turn,
        )  # fmt: skip

    def _finish(self, i: int) -> None:
        sides = self.rules.num_sides
        self.final_scores[i] = self._sides[i, :sides, k.D_SCORE]
        self.final_winner[i] = self._games[i, k.G_WINNER]
        if self._actions.shape[1]:
            self._records[i] = self._snapshot(i)
        self._new_game(i)

    def rules_of(self, i: int) -> Ruleset:
        """The engine's rules for the game in slot ``i`` (one deal: its episode's hand size)."""
        if self.episode == "game":
            return self.rules
        size = int(self._games[i, k.G_ONE_SIZE])
        return self.rules.with_options({"hand_sizes": [size], "tie_breaker": False})

    def decks_of(self, i: int) -> tuple[np.ndarray, int]:
        """The decks kept for slot ``i`` (deal *d* at ``d % len``) and its first dealer."""
        return self._decks[i], int(self._games[i, k.G_FIRST_DEALER])

    def restart(self, i: int) -> None:
        """Replace game ``i`` by a new one, this one cut short: its scores so far kept in
        :attr:`final_scores`, no winner (−2). Call :meth:`observe` for the new observations."""
        sides = self.rules.num_sides
        self.final_scores[i] = self._sides[i, :sides, k.D_SCORE]
        self.final_winner[i] = -2
        self._new_game(i)

    def _snapshot(self, i: int) -> tuple[Any, ...]:
        dealt = int(self._games[i, k.G_DEAL_NUMBER]) + 1
        count = int(self._counts[i])
        if dealt > self._decks.shape[1] or count > self._actions.shape[1]:
            return (None,)
        return (
            self.rules_of(i),
            int(self._games[i, k.G_FIRST_DEALER]),
            self._decks[i, :dealt].copy(),
            self._actions[i, :count].copy(),
        )

    def observe(self) -> Batch:
        """The arrays as they are now (what the last step returned, unless games were
        restarted since)."""
        k.write_masks(self._config, self._games, self._seats, self._masks, self._to_play)
        write_observations(
            self._config, self._games, self._seats, self._sides, self._decks, self._tricks,
            self._to_play, self._observations, self.encoding == "full",
        )  # fmt: skip
        return Batch(
            self._observations, self._masks, self._to_play, self._rewards, self._done,
            self._truncated,
        )  # fmt: skip


def masked_sample(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """[M] a uniformly random legal action of each row of ``masks`` [M, 69]."""
    chosen: np.ndarray = (rng.random(masks.shape) * masks).argmax(axis=1)
    return chosen


def needs_compiling() -> bool:
    """Will the first :class:`BatchedEnv` of this process compile its kernel (ten seconds
    to a minute, once per machine) rather than load it? (:func:`backalley.jit.needs_compiling`)"""
    return bool(jit.needs_compiling(k.step_all))


def prepare() -> float:
    """Compile (or load) the kernel now, on one tiny game of each encoding: the seconds it
    took. Call it where a wait is expected (before a progress bar starts, in a thread
    while something else is set up); the first step otherwise does it unannounced."""
    from backalley.solver import on_a_large_frame

    start = time.perf_counter()

    def work() -> None:
        for encoding in ("compact", "full"):
            env = BatchedEnv(1, "standard", {"hand_sizes": [1]}, encoding=encoding)
            env.reset(seed=0)
            env.step(env.sample(np.random.default_rng(0)))
            env.random_play(1)

    on_a_large_frame(work)
    return time.perf_counter() - start


def replay(
    rules: Ruleset | None, first_dealer: int = 0, decks: Any = (), actions: Any = ()
) -> Game:
    """A game of the batched environment rebuilt through the engine: each deck dealt as the
    rules call for (D1–D3), each action applied. The engine refuses anything the rules do."""
    if rules is None:
        raise ValueError("this game dealt more than a recording environment keeps")
    game = Game(rules)
    moves = iter(int(a) for a in actions)
    for deck in decks:
        deal_deck(game, deck, first_dealer)
        while game.phase in (Phase.BID, Phase.PLAY):
            game.apply(next(moves))
    return game


def deal_deck(game: Game, deck: Any, first_dealer: int) -> None:
    """Deal ``game`` its due deal from a kernel's deck (the hands seat by seat, then the
    stock), by the dealer D1 calls for — ``first_dealer`` for the first deal."""
    _kind, size, seats = game.next_deal()
    cards = [int(c) for c in deck]
    hands: list[list[int]] = [[] for _ in range(game.num_players)]
    for number, seat in enumerate(seats):
        hands[seat] = cards[number * size : (number + 1) * size]
    dealer = game.expected_dealer()
    game.start_deal(first_dealer if dealer is None else dealer, hands, cards[len(seats) * size :])
