"""Back Alley as a PettingZoo AEC environment: the seats act in turn, each observing its
own view (docs/env.md).

>>> env = BackAlleyAEC(options={"hand_sizes": [2, 1]})
>>> env.reset(seed=3)
>>> agent = env.agent_selection
>>> sorted(env.observe(agent)), env.observe(agent)["observation"].shape
(['action_mask', 'observation'], (531,))
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from backalley.engine import Game, Phase
from backalley.env.dealing import MAX_PASSES, dealer_for, game_rules, passes_in_a_row
from backalley.env.encoding import bounds, encode_view, size_of
from backalley.env.kernel import NUM_ACTIONS
from backalley.rules import Ruleset


class BackAlleyAEC(AECEnv):  # type: ignore[misc]
    """One game (or one deal) at a time, through the engine and its seat views.

    ``rules``, ``options``, ``episode``, ``encoding`` and ``reward`` are as for
    :class:`~backalley.env.BatchedEnv`. With ``duplicate``, episodes come in groups (two at
    four seats, three in ``classic3``) dealt the same cards, each with the hands turned one
    seat further. After ``max_passes`` deals in a row thrown in because all passed (D7),
    every agent is truncated. At the end each agent's info holds ``scores`` and ``winner``
    (the winning side, −1 for a draw).
    """

    metadata: ClassVar[dict[str, Any]] = {
        "name": "backalley_v0",
        "render_modes": ["ansi", "human"],
        "is_parallelizable": False,
    }

    def __init__(
        self,
        rules: str = "standard",
        options: Mapping[str, Any] | None = None,
        *,
        episode: str = "game",
        encoding: str = "compact",
        reward: str = "points",
        duplicate: bool = False,
        max_passes: int | None = MAX_PASSES,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        self.max_passes = max_passes
        self.rules = Ruleset.preset(rules, **dict(options or {}))
        self.episode, self.encoding, self.reward = episode, encoding, reward
        self.duplicate = duplicate
        self.render_mode = render_mode
        n = self.rules.num_players
        self.possible_agents = [f"player_{seat}" for seat in range(n)]
        low, high = bounds(encoding, self.rules)
        observation = spaces.Dict(
            {
                "observation": spaces.Box(low, high, (size_of(encoding),), np.float32),
                "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), np.int8),
            }
        )
        self.observation_spaces = dict.fromkeys(self.possible_agents, observation)
        self.action_spaces: dict[str, spaces.Space[Any]] = {
            a: spaces.Discrete(NUM_ACTIONS) for a in self.possible_agents
        }
        self._rng = random.Random()
        self._episodes = 0
        self.game: Game | None = None

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._rng = random.Random(seed)
            self._episodes = 0
        group = (2 if self.rules.num_players == 4 else 3) if self.duplicate else 1
        turn = self._episodes % group
        if turn == 0:
            self._deal_seed = self._rng.getrandbits(62)
        self._episodes += 1
        episode_rng = random.Random(self._deal_seed)
        self.game = Game(game_rules(self.rules, self.episode, episode_rng))
        self._deal = dealer_for(self._deal_seed, turn)
        self._deal(self.game)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self._agent(self.game)

    def _agent(self, game: Game) -> str:
        seat = game.to_move
        return self.possible_agents[0 if seat is None else seat]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        assert self.game is not None
        view = self.game.view(self.possible_agents.index(agent))
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        mask[list(map(int, view.legal_actions))] = 1
        return {"observation": encode_view(view, self.encoding), "action_mask": mask}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        game = self.game
        assert game is not None
        before = list(game.scores)
        self._cumulative_rewards[agent] = 0
        game.apply(int(action))  # type: ignore[arg-type]
        passes = self.max_passes
        while game.phase == Phase.DEAL and (passes is None or passes_in_a_row(game) < passes):
            self._deal(game)
        rules = game.rules
        for seat, name in enumerate(self.possible_agents):
            side = rules.side_of(seat)
            if self.reward == "points":
                self.rewards[name] = game.scores[side] - before[side]
            elif game.is_over and game.winner is not None:
                self.rewards[name] = 1 if side == game.winner else -1
            else:
                self.rewards[name] = 0
        if game.is_over:
            self.terminations = dict.fromkeys(self.agents, True)
            winner = -1 if game.winner is None else game.winner
            for name in self.agents:
                self.infos[name] = {"scores": list(game.scores), "winner": winner}
        elif game.phase == Phase.DEAL:  # max_passes all-pass deals in a row
            self.truncations = dict.fromkeys(self.agents, True)
        else:
            self.agent_selection = self._agent(game)
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        if self.game is None:
            return None
        text = str(self.game.public_view())
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass
