"""Back Alley on RLlib: the PettingZoo environment as RLlib's multi-agent environment, PPO's
network with the illegal actions masked, a self-play seating of a learner against its own
past, and the learner as a numpy policy (docs/env.md, "Self-play on RLlib").

RLlib comes with the ``rllib`` extra (``pip install -e '.[rllib]'``, PyTorch's CPU build
first on a machine without a GPU). Each seat is an agent (``player_0`` … ``player_3``) and
sees its own view only: ``{"observation": …, "action_mask": …}``, as the AEC environment gives
it. Every seat is rewarded its side's points as each deal is scored.

>>> from backalley.env.rllib import multi_agent_env, side_of
>>> env = multi_agent_env({"options": {"hand_sizes": [2, 1]}})
>>> observations, _ = env.reset(seed=3)
>>> {agent: side_of(agent) for agent in sorted(env.possible_agents)}
{'player_0': 0, 'player_1': 1, 'player_2': 0, 'player_3': 1}
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping
from typing import Any

from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import (
    DefaultPPOTorchRLModule,
)
from ray.rllib.callbacks.callbacks import RLlibCallback
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
from ray.tune.registry import register_env

from backalley.env.aec import BackAlleyAEC
from backalley.env.policy import Policy

ENV = "backalley"
"""The name :func:`register` gives the environment in Ray's registry."""

MAIN, PAST = "main", "past"
"""The learner's module and its frozen past self, which holds the other side."""


def multi_agent_env(config: Mapping[str, Any] | None = None) -> PettingZooEnv:
    """RLlib's multi-agent face of :class:`~backalley.env.aec.BackAlleyAEC`, made from its
    keyword arguments (``rules``, ``options``, ``episode``, ``encoding``, ``reward``, …)."""
    return PettingZooEnv(BackAlleyAEC(**dict(config or {})))


def register(name: str = ENV) -> str:
    """Put :func:`multi_agent_env` in Ray's registry under ``name`` (for
    ``config.environment(name, env_config=…)``), and return the name."""
    register_env(name, multi_agent_env)
    return name


def side_of(agent: str) -> int:
    """The side of an agent ``player_N`` at four seats (C4: seats 0 and 2 are side 0)."""
    return int(agent.rpartition("_")[2]) % 2


def self_play_mapping(agent: str, episode: Any, **_: Any) -> str:
    """RLlib's agent-to-module mapping for self-play: ``main`` holds both seats of one side
    of each episode and ``past`` the other side's, which side by the episode's id, so that
    the learner sits on each side, deals first and leads as often as its past self."""
    main_side = zlib.crc32(str(episode.id_).encode()) % 2
    return MAIN if side_of(agent) == main_side else PAST


def _masked(logits: Any, mask: Any) -> Any:
    """``logits`` with every action outside ``mask`` (0/1) pushed out of reach."""
    return logits.masked_fill(mask == 0, -1e9)


class MaskedPPOModule(DefaultPPOTorchRLModule):  # type: ignore[misc]
    """PPO's default torch network on the ``observation`` part of a seat's observation, its
    logits of actions outside ``action_mask`` pushed out of reach, so that neither sampling
    nor the greedy action is ever illegal (RLlib's own example expects other key names)."""

    def __init__(self, *, observation_space: Any = None, **kwargs: Any) -> None:
        self._with_mask = observation_space
        super().__init__(observation_space=observation_space["observation"], **kwargs)

    def setup(self) -> None:
        super().setup()
        self.observation_space = self._with_mask  # what the environment gives the module

    @staticmethod
    def _split(batch: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
        """The mask, and the batch with the plain observation, the batch left as it was."""
        observations = batch[Columns.OBS]
        if not isinstance(observations, Mapping):
            return None, batch
        return observations["action_mask"], {**batch, Columns.OBS: observations["observation"]}

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        mask, plain = self._split(batch)
        out: dict[str, Any] = super()._forward(plain, **kwargs)
        out[Columns.ACTION_DIST_INPUTS] = _masked(out[Columns.ACTION_DIST_INPUTS], mask)
        return out

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        mask, plain = self._split(batch)
        out: dict[str, Any] = super()._forward_train(plain, **kwargs)
        out[Columns.ACTION_DIST_INPUTS] = _masked(out[Columns.ACTION_DIST_INPUTS], mask)
        return out

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> Any:
        return super().compute_values(self._split(batch)[1], embeddings)


def model_config(hidden: tuple[int, ...] = (256, 256)) -> DefaultModelConfig:
    """Layers of ReLU, the shape :func:`policy_of` exports (RLlib's default is tanh)."""
    return DefaultModelConfig(fcnet_hiddens=list(hidden), fcnet_activation="relu")


def self_play_modules() -> MultiRLModuleSpec:
    """The two modules of self-play, ``main`` and ``past``, both masked."""
    spec = RLModuleSpec(module_class=MaskedPPOModule)
    return MultiRLModuleSpec(rl_module_specs={MAIN: spec, PAST: spec})


def copy_main_to_past(algorithm: Any) -> None:
    """Freeze the learner as it is now into ``past``, in the learner and on every env runner
    (only trained modules are sent to the env runners after an update)."""
    state = algorithm.get_module(MAIN).get_state()
    algorithm.set_state({"learner_group": {"learner": {"rl_module": {PAST: state}}}})

    def load(runner: Any) -> None:
        runner.module[PAST].set_state(state)

    algorithm.env_runner_group.foreach_env_runner(load, local_env_runner=True)


class SelfPlay(RLlibCallback):  # type: ignore[misc]
    """``past`` starts as ``main`` and becomes ``main`` again every ``refresh`` iterations;
    each result gains ``main_margin``, the learner's points a game over its past self in
    the episodes of that iteration."""

    def __init__(self, refresh: int = 5) -> None:
        super().__init__()
        self.refresh = refresh

    def on_algorithm_init(self, *, algorithm: Any, **_: Any) -> None:
        copy_main_to_past(algorithm)

    def on_train_result(self, *, algorithm: Any, result: dict[str, Any], **_: Any) -> None:
        returns = result.get("env_runners", {}).get("module_episode_returns_mean", {})
        if MAIN in returns and PAST in returns:  # each module's return sums its two seats
            result["main_margin"] = float(returns[MAIN] - returns[PAST]) / 2
        if algorithm.iteration % self.refresh == 0:
            copy_main_to_past(algorithm)


def policy_of(module: Any, encoding: str = "compact") -> Policy:
    """The actor of a :class:`MaskedPPOModule` (its encoder's layers, then its action head)
    as a :class:`~backalley.env.policy.Policy`: a numpy file that ``backalley arena
    policy:FILE`` and the server's tables play, with no Ray and no PyTorch. ``encoding`` is
    the environment's.

    :raises ValueError: for a network of another shape (tanh layers: RLlib's default).
    """
    encoder = module.encoder
    actor = getattr(encoder, "actor_encoder", None) or encoder.encoder
    leaves = [m for tree in (actor, module.pi) for m in tree.modules() if not any(m.children())]
    return Policy.from_torch(leaves, encoding, hint=" (model_config(): fcnet_activation='relu')")
