"""One seat of Back Alley as a Gymnasium environment; our bots play the other seats.

>>> env = SeatEnv(options={"hand_sizes": [3, 2, 1]}, others="random")
>>> observation, info = env.reset(seed=1)
>>> observation.shape, int(info["action_mask"].sum()) > 0
((531,), True)
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from backalley.bots import make_bot
from backalley.engine import Game, Phase
from backalley.env.dealing import dealer_for, game_rules
from backalley.env.encoding import bounds, encode_view, size_of
from backalley.env.kernel import NUM_ACTIONS
from backalley.rules import Ruleset


class SeatEnv(gymnasium.Env):
    """The agent plays ``seat``; ``others`` (a bot or level name, or one per other seat,
    clockwise from the agent's left) play the rest, each seeing only its own view.

    Observations are :mod:`backalley.env.encoding` vectors; the legal actions are
    ``info["action_mask"]`` and :meth:`action_masks` (as sb3-contrib's MaskablePPO reads
    them). The reward is what the agent's side scores as each deal is scored (``"points"``),
    or +1 / −1 / 0 at the end (``"win"``). Options as for :class:`~backalley.env.BatchedEnv`.
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi"]}  # noqa: RUF012 (Env declares it so)

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
        render_mode: str | None = None,
    ) -> None:
        self.rules = Ruleset.preset(rules, **dict(options or {}))
        n = self.rules.num_players
        names = [others] * (n - 1) if isinstance(others, str) else list(others)
        if len(names) != n - 1:
            raise ValueError(f"others names {n - 1} bots, one per other seat, not {len(names)}")
        self.seat = seat
        self.bots = {(seat + 1 + k) % n: make_bot(name) for k, name in enumerate(names)}
        self.episode, self.encoding, self.reward = episode, encoding, reward
        self.render_mode = render_mode
        low, high = bounds(encoding)
        self.observation_space = spaces.Box(low, high, (size_of(encoding),), np.float32)
        self.action_space = spaces.Discrete(NUM_ACTIONS)
        self.game: Game | None = None
        self._mask = np.zeros(NUM_ACTIONS, dtype=np.int8)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        deal_seed = int(self.np_random.integers(2**62))
        self._bot_rng = random.Random(deal_seed)
        self.game = Game(game_rules(self.rules, self.episode, random.Random(deal_seed)))
        self._deal = dealer_for(deal_seed, 0)
        self._scored = 0
        self._others_play()
        return self._observe(), self._info()

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        game = self.game
        assert game is not None and game.to_move == self.seat, "call reset() first"
        game.apply(int(action))
        self._others_play()
        side = self.rules.side_of(self.seat)
        if self.reward == "points":
            reward = float(game.scores[side] - self._scored)
            self._scored = game.scores[side]
        else:
            reward = 0.0
            if game.is_over and game.winner is not None:
                reward = 1.0 if game.winner == side else -1.0
        return self._observe(), reward, game.is_over, False, self._info()

    def action_masks(self) -> np.ndarray:
        """The legal actions now, as 0/1 (empty once the game is over)."""
        return self._mask.astype(bool)

    def render(self) -> str | None:
        return None if self.game is None else str(self.game.view(self.seat))

    def _others_play(self) -> None:
        game = self.game
        assert game is not None
        while not game.is_over:
            if game.phase == Phase.DEAL:
                self._deal(game)
                continue
            seat = game.to_move
            if seat == self.seat:
                break
            assert seat is not None
            game.apply(self.bots[seat].act(game.view(seat), self._bot_rng))

    def _observe(self) -> np.ndarray:
        game = self.game
        assert game is not None
        view = game.view(self.seat)
        self._mask[:] = 0
        self._mask[list(map(int, view.legal_actions))] = 1
        if game.is_over:
            return np.zeros(size_of(self.encoding), dtype=np.float32)
        return encode_view(view, self.encoding)

    def _info(self) -> dict[str, Any]:
        game = self.game
        assert game is not None
        info: dict[str, Any] = {"action_mask": self._mask.copy()}
        if game.is_over:
            info["scores"] = list(game.scores)
            info["winner"] = game.winner
        return info
