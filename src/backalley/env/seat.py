"""One seat of Back Alley as a Gymnasium environment; our bots play the other seats.

>>> env = SeatEnv(options={"hand_sizes": [3, 2, 1]}, others="random")
>>> observation, info = env.reset(seed=1)
>>> observation.shape, int(info["action_mask"].sum()) > 0
((531,), True)

The registered ids (:data:`backalley.env.registry.IDS`, docs/env.md) make it with the mask
in the observation:

>>> import gymnasium
>>> env = gymnasium.make("backalley/SeatShort-v0")
>>> sorted(env.reset(seed=1)[0])
['action_mask', 'observation']
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from backalley.bots import make_bot
from backalley.engine import Game, IllegalAction, Phase
from backalley.env.dealing import MAX_PASSES, dealer_for, game_rules, passes_in_a_row
from backalley.env.encoding import bounds, encode_view, size_of
from backalley.env.kernel import NUM_ACTIONS
from backalley.rules import Ruleset

ILLEGAL_POINTS = -100.0  #: the reward for an illegal action that ends the episode ("points")
ILLEGAL_WIN = -1.0  #: the same under the reward "win"


class SeatEnv(gymnasium.Env[Any, int]):
    """The agent plays ``seat``; ``others`` (a bot or level name, or one per other seat,
    clockwise from the agent's left) play the rest, each seeing only its own view.

    - ``observation``: ``"vector"``, the :mod:`backalley.env.encoding` vector, or
      ``"dict"``, that vector and the legal actions as ``{"observation", "action_mask"}``
      (as PettingZoo's games give them). Either way :meth:`action_masks` (as sb3-contrib's
      MaskablePPO reads it) and ``info["action_mask"]`` hold the mask.
    - ``illegal``: ``"end"`` — an illegal action ends the episode (``terminated``), with the
      reward ``illegal_reward`` (:data:`ILLEGAL_POINTS`, or :data:`ILLEGAL_WIN` under the
      reward ``"win"``) and ``info["illegal"]`` true; the game does not move. ``"raise"`` —
      it raises :class:`~backalley.engine.IllegalAction`, naming the rule.
    - ``max_passes``: after that many deals in a row thrown in because every seat passed
      (D7), the episode is ``truncated`` (the rules are untouched; ``None``: never).
    - The reward is what the agent's side scores as each deal is scored (``"points"``), or
      +1 / −1 / 0 at the end (``"win"``). Options as for :class:`~backalley.env.BatchedEnv`.

    ``info`` holds numbers and arrays only, so that vector environments can stack it: at the
    end ``scores`` (each side's) and ``winner`` (the winning side, −1 for a draw).
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi"], "render_fps": 1}  # noqa: RUF012

    def __init__(
        self,
        rules: str = "standard",
        options: Mapping[str, Any] | None = None,
        *,
        seat: int = 0,
        others: str | list[str] = "heuristic",
        episode: str = "game",
        encoding: str = "compact",
        reward: str = "points",
        observation: str = "vector",
        illegal: str = "end",
        illegal_reward: float | None = None,
        max_passes: int | None = MAX_PASSES,
        render_mode: str | None = None,
    ) -> None:
        check_choice("observation", observation, ("vector", "dict"))
        check_choice("illegal", illegal, ("end", "raise"))
        check_choice("reward", reward, ("points", "win"))
        self.rules = Ruleset.preset(rules, **dict(options or {}))
        n = self.rules.num_players
        names = [others] * (n - 1) if isinstance(others, str) else list(others)
        if len(names) != n - 1:
            raise ValueError(f"others names {n - 1} bots, one per other seat, not {len(names)}")
        self.seat = seat
        self.bots = {(seat + 1 + k) % n: make_bot(name) for k, name in enumerate(names)}
        self.episode, self.encoding, self.reward = episode, encoding, reward
        self.observation_kind, self.illegal, self.max_passes = observation, illegal, max_passes
        self.illegal_reward = illegal_reward_of(reward, illegal_reward)
        self.render_mode = render_mode
        self.observation_space = observation_space(encoding, self.rules, observation)
        self.action_space = spaces.Discrete(NUM_ACTIONS)
        self.game: Game | None = None
        self._mask = np.zeros(NUM_ACTIONS, dtype=np.int8)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        super().reset(seed=seed)
        deal_seed = int(self.np_random.integers(2**62))
        self._bot_rng = random.Random(deal_seed)
        self.game = Game(game_rules(self.rules, self.episode, random.Random(deal_seed)))
        self._deal = dealer_for(deal_seed, 0)
        self._scored = 0
        self._ended = False
        self._others_play()
        return self._observe(), self._info()

    def step(self, action: int) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        game = self.game
        if game is None or self._ended:
            raise RuntimeError("the episode is over (or never began): call reset()")
        try:
            game.apply(int(action))
        except IllegalAction:
            if self.illegal == "raise":
                raise
            self._ended = True
            return self._observe(), self.illegal_reward, True, False, self._info(illegal=True)
        self._others_play()
        side = self.rules.side_of(self.seat)
        if self.reward == "points":
            reward = float(game.scores[side] - self._scored)
            self._scored = game.scores[side]
        else:
            reward = 0.0
            if game.is_over and game.winner is not None:
                reward = 1.0 if game.winner == side else -1.0
        truncated = not game.is_over and self._too_many_passes()
        self._ended = game.is_over or truncated
        return self._observe(), reward, game.is_over, truncated, self._info()

    def action_masks(self) -> np.ndarray:
        """The legal actions now, as booleans (none once the episode has ended)."""
        return self._mask.astype(bool)

    def render(self) -> Any:  # the seat's view as text (render_mode "ansi")
        return None if self.game is None else str(self.game.view(self.seat))

    def _too_many_passes(self) -> bool:
        assert self.game is not None
        return self.max_passes is not None and passes_in_a_row(self.game) >= self.max_passes

    def _others_play(self) -> None:
        game = self.game
        assert game is not None
        while not game.is_over:
            if game.phase == Phase.DEAL:
                if self._too_many_passes():
                    break
                self._deal(game)
                continue
            seat = game.to_move
            if seat == self.seat:
                break
            assert seat is not None
            game.apply(self.bots[seat].act(game.view(seat), self._bot_rng))

    def _observe(self) -> Any:
        game = self.game
        assert game is not None
        self._mask[:] = 0
        if self._ended or game.is_over or game.to_move != self.seat:
            vector = np.zeros(size_of(self.encoding), dtype=np.float32)
        else:
            view = game.view(self.seat)
            self._mask[list(map(int, view.legal_actions))] = 1
            vector = encode_view(view, self.encoding)
        if self.observation_kind == "vector":
            return vector
        return {"observation": vector, "action_mask": self._mask.copy()}

    def _info(self, illegal: bool = False) -> dict[str, Any]:
        game = self.game
        assert game is not None
        info: dict[str, Any] = {"action_mask": self._mask.copy()}
        if illegal:
            info["illegal"] = True
        if game.is_over:
            info["scores"] = np.array(game.scores, dtype=np.int64)
            info["winner"] = -1 if game.winner is None else int(game.winner)
        return info


def check_choice(name: str, value: str, allowed: tuple[str, ...]) -> None:
    """Refuse an argument that is none of ``allowed``, naming it and them."""
    if value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, allowed))}, not {value!r}")


def illegal_reward_of(reward: str, given: float | None) -> float:
    """The reward for an illegal action that ends an episode: ``given``, else
    :data:`ILLEGAL_POINTS` or :data:`ILLEGAL_WIN` as the reward is counted."""
    if given is not None:
        return float(given)
    return ILLEGAL_POINTS if reward == "points" else ILLEGAL_WIN


def observation_space(encoding: str, rules: Ruleset, kind: str) -> spaces.Space[Any]:
    """One seat's observation: the encoding's vector (``"vector"``), or it and the legal
    actions as ``{"observation", "action_mask"}`` (``"dict"``)."""
    low, high = bounds(encoding, rules)
    vector = spaces.Box(low, high, (size_of(encoding),), np.float32)
    if kind == "vector":
        return vector
    mask = spaces.Box(0, 1, (NUM_ACTIONS,), np.int8)
    return spaces.Dict({"observation": vector, "action_mask": mask})
