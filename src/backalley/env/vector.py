"""The compiled fast path as a Gymnasium vector environment: :class:`BatchedEnv` behind
``gymnasium.vector.VectorEnv``, so that training loops written for Gymnasium (CleanRL's
``ppo.py``, SB3 through :class:`backalley.env.sb3.BatchedVecEnv`) run on it unchanged.

>>> import gymnasium, backalley.env
>>> envs = gymnasium.make_vec("backalley/Batched-v0", num_envs=8, options={"hand_sizes": [2, 1]})
>>> observations, infos = envs.reset(seed=1)
>>> observations.shape, infos["action_mask"].shape
((8, 531), (8, 69))
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from backalley.bots import make_bot
from backalley.engine import Game, IllegalAction, Phase
from backalley.env import kernel as k
from backalley.env.batched import Batch, BatchedEnv, deal_deck, masked_sample
from backalley.env.dealing import MAX_PASSES
from backalley.env.seat import check_choice, illegal_reward_of, observation_space

#: Who plays the seats the policy does not: "random" (a uniformly random legal action, in
#: numpy), any of our bots or levels by name (each from its seat's view, as at a table), or a
#: function of their observations [M, D] and masks [M, 69] returning their actions [M].
Others = str | Callable[[np.ndarray, np.ndarray], np.ndarray]


class BatchedVectorEnv(gymnasium.vector.VectorEnv[Any, Any, Any]):
    """``num_envs`` games stepped together in compiled code, as one Gymnasium vector env.

    - ``seats=None`` (self-play): one policy plays every seat. Each step is one action in
      every game, by the seat to play there, observed from that seat (``infos["to_play"]``).
      The reward is that seat's: its side's points this step (``"points"``: a deal's points
      come with the card that ends it) or its result (``"win"``); ``infos["rewards"]`` holds
      every seat's, for a learner that credits each seat with its own.
    - ``seats=(0, 2)`` (or any seats of one side): the policy plays those seats and
      ``others`` the rest. Each step is one decision of the policy in every game; the
      others' moves up to its next turn happen inside the step, and the reward is what its
      side scored meanwhile (or its result), as :class:`~backalley.env.SeatEnv` gives it.
    - An illegal action ends its game (``terminated``) with ``illegal_reward`` and
      ``infos["illegal"]``, and a new game begins (``illegal="raise"``: it raises, and no
      game moves). A game cut short after ``max_passes`` all-pass deals in a row is
      ``truncated``.
    - Autoreset is same-step (``metadata["autoreset_mode"]``): the step that ends a game
      returns its reward and flags with the next game's first observation;
      ``infos["final_scores"]`` and ``infos["final_winner"]`` (−1 a draw, −2 cut short)
      give the result where ``infos["_final_scores"]`` is true.

    The legal actions are ``infos["action_mask"]`` and :meth:`action_masks`; with
    ``observation="dict"`` they are in the observation as well. Other arguments as for
    :class:`BatchedEnv`.
    """

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.SAME_STEP}  # noqa: RUF012

    def __init__(
        self,
        num_envs: int = 64,
        rules: str = "standard",
        options: Mapping[str, Any] | None = None,
        *,
        seats: Sequence[int] | None = None,
        others: Others = "random",
        episode: str = "game",
        encoding: str = "compact",
        reward: str = "points",
        observation: str = "vector",
        illegal: str = "end",
        illegal_reward: float | None = None,
        duplicate: bool = False,
        max_passes: int | None = MAX_PASSES,
    ) -> None:
        check_choice("observation", observation, ("vector", "dict"))
        check_choice("illegal", illegal, ("end", "raise"))
        bots = isinstance(others, str) and others != "random"
        self.batched = BatchedEnv(
            num_envs, rules, options, episode=episode, encoding=encoding, reward=reward,
            duplicate=duplicate, max_passes=max_passes, record=bots,
        )  # fmt: skip
        rules_set = self.batched.rules
        if seats is not None:
            seats = tuple(sorted(set(seats)))
            if not seats or any(not 0 <= s < rules_set.num_players for s in seats):
                raise ValueError(f"seats must be seats of the table, not {seats}")
            if len({rules_set.side_of(s) for s in seats}) != 1:
                raise ValueError(f"the policy's seats must be of one side, not {seats}")
        self.seats, self.others, self.illegal = seats, others, illegal
        self.mirror: Mirror | None = None
        if bots:
            if seats is None:
                raise ValueError("bots play the seats the policy does not: give seats=")
            assert isinstance(others, str)
            self.mirror = Mirror(self.batched, others)
        self.illegal_reward = illegal_reward_of(reward, illegal_reward)
        self.observation_kind = observation
        self.num_envs = num_envs
        self.single_observation_space = observation_space(encoding, rules_set, observation)
        self.single_action_space = spaces.Discrete(k.NUM_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._rng = np.random.default_rng()
        self._batch: Batch | None = None

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Every game afresh; the same ``seed`` deals the same games."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self._batch = self.batched.reset(seed=seed)
        if self.mirror is not None:
            self.mirror.reset(seed)
        rewards = np.zeros(self.num_envs, dtype=np.float64)
        ended = np.zeros(self.num_envs, dtype=bool)
        self._others_play(rewards, ended, ended.copy())
        return self._observation(), self._infos(np.zeros(self.num_envs, dtype=bool), ended)

    def step(self, actions: Any) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """One action for each game (the policy's decision there)."""
        batch = self._batch
        if batch is None:
            raise RuntimeError("call reset() before step()")
        actions = np.asarray(actions, dtype=np.int64).reshape(self.num_envs)
        mover = batch.to_play.copy()  # the seats that act (the step writes over the arrays)
        inside = (actions >= 0) & (actions < k.NUM_ACTIONS)
        legal = np.zeros(self.num_envs, dtype=bool)
        legal[inside] = batch.action_masks[np.flatnonzero(inside), actions[inside]] == 1
        if self.illegal == "raise" and not legal.all():
            bad = int(np.flatnonzero(~legal)[0])
            raise IllegalAction(
                None,
                "game {game}: action {action} is not legal now (its mask refuses it)",
                game=bad,
                action=int(actions[bad]),
            )  # and no game has moved
        moved = self._step(np.where(legal, actions, k.WAIT))
        rewards = self._rewards_of(moved, mover)
        terminated, truncated = moved.done.copy(), moved.truncated.copy()
        ended = terminated | truncated
        illegal = ~legal
        for i in np.flatnonzero(illegal):
            self.batched.restart(int(i))
            if self.mirror is not None:
                self.mirror.restart(int(i))
        rewards[illegal] = self.illegal_reward
        terminated |= illegal
        self._batch = self.batched.observe()
        self._others_play(rewards, terminated, truncated)
        infos = self._infos(illegal, terminated | truncated | ended)
        infos["rewards"] = moved.rewards.copy()
        return self._observation(), rewards, terminated, truncated, infos

    def action_masks(self) -> np.ndarray:
        """[N, 69] booleans: each game's legal actions now."""
        assert self._batch is not None, "call reset() first"
        return self._batch.action_masks.astype(bool)

    # ------------------------------------------------------------------ inside

    def _rewards_of(self, batch: Batch, mover: np.ndarray) -> np.ndarray:
        """Each game's reward from ``batch``: the policy's seats' (their side's), or in
        self-play the seat that moved."""
        seat = mover if self.seats is None else np.full(self.num_envs, self.seats[0])
        rewards: np.ndarray = batch.rewards[np.arange(self.num_envs), seat].astype(np.float64)
        return rewards

    def _others_play(
        self, rewards: np.ndarray, terminated: np.ndarray, truncated: np.ndarray
    ) -> None:
        """Let ``others`` move in every game until the policy's seats are to play, adding
        what the policy's side scores meanwhile to ``rewards`` and games that end to the
        flags."""
        if self.seats is None:
            return
        assert self._batch is not None
        for _ in range(10_000):
            batch = self._batch
            waiting = ~np.isin(batch.to_play, self.seats)
            if not waiting.any():
                return
            actions = np.full(self.num_envs, k.WAIT, dtype=np.int64)
            if self.mirror is not None:
                actions[waiting] = self.mirror.act(np.flatnonzero(waiting), batch.to_play)
            else:
                actions[waiting] = self._others_act(
                    batch.observations[waiting], batch.action_masks[waiting]
                )
            moved = self._step(actions)
            rewards += moved.rewards[:, self.seats[0]]
            terminated |= moved.done
            truncated |= moved.truncated
            self._batch = moved
        raise RuntimeError("the other seats did not come round to the policy's seats")

    def _step(self, actions: np.ndarray) -> Batch:
        """The batched games' step, the mirror (if bots play) following it."""
        if self.mirror is None:
            return self.batched.step(actions)
        moved = self.batched.step(actions)  # first: if it refuses an action, nothing moved
        self.mirror.apply(actions)
        self.mirror.follow(moved.done | moved.truncated)
        return moved

    def _others_act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        if callable(self.others):
            return np.asarray(self.others(observations, masks), dtype=np.int64)
        return masked_sample(masks, self._rng)

    def _observation(self) -> Any:
        batch = self._batch
        assert batch is not None
        if self.observation_kind == "vector":
            return batch.observations.copy()
        return {
            "observation": batch.observations.copy(),
            "action_mask": batch.action_masks.astype(np.int8),
        }

    def _infos(self, illegal: np.ndarray, ended: np.ndarray) -> dict[str, Any]:
        batch = self._batch
        assert batch is not None
        infos: dict[str, Any] = {
            "action_mask": batch.action_masks.astype(np.int8),
            "to_play": batch.to_play.copy(),
        }
        if illegal.any():
            infos["illegal"], infos["_illegal"] = illegal.copy(), illegal.copy()
        if ended.any():
            infos["final_scores"] = self.batched.final_scores.copy()
            infos["final_winner"] = self.batched.final_winner.copy()
            infos["_final_scores"] = infos["_final_winner"] = ended.copy()
        return infos


class Mirror:
    """Engine games that follow a :class:`BatchedEnv`'s games action for action, dealt the
    same decks, so that our bots — which read a seat's view — can play seats of the
    compiled games (``others="heuristic"``). The batched environment must keep its decks
    (``record=True``)."""

    def __init__(self, batched: BatchedEnv, bot: str) -> None:
        self.batched = batched
        self.bots = [make_bot(bot) for _ in range(batched.num_players)]
        self.games: list[Game] = []
        self._rng = random.Random()

    def reset(self, seed: int | None) -> None:
        """Follow every game afresh (after the batched environment's reset)."""
        self._rng = random.Random(seed)
        self.games = [Game(self.batched.rules) for _ in range(self.batched.num_games)]
        for i in range(self.batched.num_games):
            self.restart(i)

    def restart(self, i: int) -> None:
        """Follow the new game in slot ``i`` from its first deal."""
        self.games[i] = Game(self.batched.rules_of(i))
        self._catch_up(i)

    def apply(self, actions: np.ndarray) -> None:
        """Each game's action, as the batched games are about to take it (WAIT: none)."""
        for i in np.flatnonzero(actions != k.WAIT):
            self.games[i].apply(int(actions[i]))

    def follow(self, replaced: np.ndarray) -> None:
        """After the batched step: the games it replaced begin again, the others deal the
        decks the kernel dealt."""
        for i, game in enumerate(self.games):
            if replaced[i]:
                self.restart(i)
            elif game.phase == Phase.DEAL:
                self._catch_up(i)

    def act(self, slots: np.ndarray, to_play: np.ndarray) -> np.ndarray:
        """The bots' actions in ``slots``, each from the view of the seat to play there."""
        return np.array(
            [self.bots[int(to_play[i])].act(self.games[i].view(int(to_play[i])), self._rng)
             for i in slots],
            dtype=np.int64,
        )  # fmt: skip

    def _catch_up(self, i: int) -> None:
        game = self.games[i]
        decks, first = self.batched.decks_of(i)
        while game.phase == Phase.DEAL and not game.is_over:
            deal_deck(game, decks[len(game.deals) % len(decks)], first)
