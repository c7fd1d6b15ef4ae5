"""Stable-Baselines3 and sb3-contrib learning on the compiled environment through its
``VecEnv`` adapter (``backalley.env.sb3``), as their users call them."""

from __future__ import annotations

import numpy as np
import pytest

from support import needs

needs("stable_baselines3", "sb3_contrib", reason="the sb3 extra: pip install -e '.[sb3]'")


def test_maskable_ppo_learns_on_the_seats_it_is_given_against_our_bots() -> None:
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
    from stable_baselines3.common.logger import Logger

    from backalley.env.sb3 import BatchedVecEnv

    env = BatchedVecEnv(8, "standard", {"hand_sizes": [3, 2, 1]}, seats=(0, 2), others="heuristic")
    env.seed(1)
    assert is_masking_supported(env)
    model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=128, n_epochs=1, seed=1)
    model.set_logger(Logger(folder=None, output_formats=[]))  # no SB3-… folder in /tmp
    model.learn(512)
    observations = env.reset()
    masks = get_action_masks(env)
    assert masks.shape == (8, 69) and masks.any(axis=1).all()
    actions, _ = model.predict(observations, action_masks=masks)
    assert masks[np.arange(8), actions].all()  # masked: never an illegal action
    _, rewards, _, infos = env.step(actions)
    assert rewards.shape == (8,) and not any(info.get("illegal") for info in infos)


def test_plain_ppo_runs_through_illegal_actions_and_episodes_are_counted() -> None:
    from stable_baselines3 import PPO
    from stable_baselines3.common.logger import Logger
    from stable_baselines3.common.vec_env import VecMonitor

    from backalley.env.sb3 import BatchedVecEnv

    env = VecMonitor(BatchedVecEnv(8, "standard", {"hand_sizes": [2, 1]}))
    model = PPO("MlpPolicy", env, n_steps=32, batch_size=64, n_epochs=1, seed=2)
    model.set_logger(Logger(folder=None, output_formats=[]))
    model.learn(512)
    assert len(model.ep_info_buffer) > 10  # VecMonitor saw episodes end (illegal ones too)
    with pytest.raises(ValueError, match="vector observation"):
        BatchedVecEnv(2, observation="dict")
