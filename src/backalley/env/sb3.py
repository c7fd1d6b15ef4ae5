"""The compiled fast path for Stable-Baselines3: :class:`~backalley.env.vector.BatchedVectorEnv`
as SB3's ``VecEnv`` (``pip install 'backalley[sb3]'``), masks included for sb3-contrib's
``MaskablePPO``::

    from sb3_contrib import MaskablePPO
    from backalley.env.sb3 import BatchedVecEnv

    env = BatchedVecEnv(64, "standard", {"hand_sizes": [3, 2, 1]}, seats=(0, 2), others="heuristic")
    MaskablePPO("MlpPolicy", env).learn(100_000)

SB3 wants a finished episode's last observation in ``infos[i]["terminal_observation"]``, to
bootstrap an episode cut short (``TimeLimit.truncated``). The batched games reset in the same
step and keep no last observation: that entry is zeros, and an episode cut short (the
environments' ``max_passes``: ten all-pass deals in a row) is given to SB3 as ended
(``TimeLimit.truncated`` false, ``infos[i]["cut_short"]`` true), so that nothing is
bootstrapped from a made-up observation.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import VecEnv

from backalley.env.policy import Policy
from backalley.env.vector import BatchedVectorEnv


class BatchedVecEnv(VecEnv):  # type: ignore[misc]
    """``num_envs`` compiled games as one SB3 ``VecEnv``; arguments as for
    :class:`~backalley.env.vector.BatchedVectorEnv` (a vector observation; the masks come
    from :meth:`action_masks`, as sb3-contrib reads them)."""

    def __init__(self, num_envs: int = 64, *args: Any, **kwargs: Any) -> None:
        if kwargs.get("observation", "vector") != "vector":
            raise ValueError("SB3's MlpPolicy takes the vector observation (observation='vector')")
        self.vector = BatchedVectorEnv(num_envs, *args, **kwargs)
        super().__init__(
            num_envs, self.vector.single_observation_space, self.vector.single_action_space
        )
        self._actions: np.ndarray | None = None

    def reset(self) -> np.ndarray:
        seed = self._seeds[0] if self._seeds and self._seeds[0] is not None else None
        observations, _infos = self.vector.reset(seed=seed)
        self._reset_seeds()
        self._reset_options()
        return np.asarray(observations)

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        assert self._actions is not None, "step_async() first"
        observations, rewards, terminated, truncated, infos = self.vector.step(self._actions)
        done = terminated | truncated
        out: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        blank = np.zeros(self.observation_space.shape, dtype=np.float32)
        for i in np.flatnonzero(done):
            out[i]["terminal_observation"] = blank
            out[i]["TimeLimit.truncated"] = False  # no last observation to bootstrap from
            out[i]["cut_short"] = bool(truncated[i] and not terminated[i])
            if "final_scores" in infos:
                out[i]["scores"] = infos["final_scores"][i].copy()
                out[i]["winner"] = int(infos["final_winner"][i])
        if "illegal" in infos:
            for i in np.flatnonzero(infos["illegal"]):
                out[i]["illegal"] = True
        return np.asarray(observations), rewards.astype(np.float32), done, out

    def action_masks(self) -> np.ndarray:
        """[N, 69] booleans: each game's legal actions now."""
        return self.vector.action_masks()

    def close(self) -> None:
        self.vector.close()

    # SB3 asks these of each sub-environment; the games have no per-game objects, so they
    # answer for the whole batch, and action_masks per game.

    def env_method(
        self, method_name: str, *args: Any, indices: Any = None, **kwargs: Any
    ) -> list[Any]:
        if method_name == "action_masks":
            return list(self.action_masks()[self._indices(indices)])
        value = getattr(self.vector, method_name)(*args, **kwargs)
        return [value for _ in self._indices(indices)]

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        value = getattr(self, attr_name) if attr_name == "action_masks" else None
        if value is None:
            value = getattr(self.vector, attr_name)
        return [value for _ in self._indices(indices)]

    def has_attr(self, attr_name: str) -> bool:
        return attr_name == "action_masks" or hasattr(self.vector, attr_name)

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        setattr(self.vector, attr_name, value)

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        return [False for _ in self._indices(indices)]

    def _indices(self, indices: int | Iterable[int] | None) -> Sequence[int]:
        if indices is None:
            return range(self.num_envs)
        if isinstance(indices, int):
            return [indices]
        return list(indices)


def policy_of(model: Any) -> Policy:
    """The actor of an SB3 ``PPO`` or sb3-contrib ``MaskablePPO`` with an ``MlpPolicy`` of ReLU
    layers (``policy_kwargs={"activation_fn": torch.nn.ReLU}``), trained on the compact
    vector observation, as a :class:`~backalley.env.policy.Policy`: a numpy file that
    ``backalley arena policy:FILE`` and the server's tables play, with no PyTorch.

    :raises ValueError: for a policy of another shape (another activation, a features
        extractor that is not a plain flatten).
    """
    actor = model.policy
    if type(actor.features_extractor).__name__ != "FlattenExtractor":
        raise ValueError("only an MlpPolicy's plain features (FlattenExtractor) can be exported")
    return Policy.from_torch(
        [*actor.mlp_extractor.policy_net, actor.action_net],
        hint=" (policy_kwargs={'activation_fn': torch.nn.ReLU})",
    )
