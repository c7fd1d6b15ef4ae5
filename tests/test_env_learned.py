"""Learned agents from off-the-shelf libraries (examples/maskable_ppo.py, examples/ppo_vector.py,
examples/imitation.py): a network trained with PyTorch becomes a numpy policy that plays the
same actions, and a short run of each example trains, saves, plots and plays in the arena."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from backalley.bots import make_bot, play_game
from backalley.engine import Game
from backalley.env import BatchedEnv, encode_view
from backalley.env.policy import Policy, PolicyBot
from backalley.rules import Ruleset
from support import needs

needs("torch", reason="the sb3 extra: pip install -e '.[sb3]'")
ROOT = Path(__file__).parent.parent
EXAMPLES = ROOT / "examples"


@pytest.fixture(scope="module")
def torch() -> Any:
    import torch

    return torch


def observations(count: int) -> tuple[np.ndarray, np.ndarray]:
    """``count`` observations and masks of short games played at random."""
    env = BatchedEnv(count, "standard", {"hand_sizes": [3, 2, 1]})
    batch = env.reset(4)
    rng = np.random.default_rng(4)
    for _ in range(5):
        batch = env.step(env.sample(rng))
    return batch.observations.copy(), batch.action_masks.copy()


def test_linear_layers_become_a_policy_with_the_same_logits(torch: Any) -> None:
    torch.manual_seed(0)
    network = torch.nn.Sequential(
        torch.nn.Linear(531, 32), torch.nn.ReLU(), torch.nn.Linear(32, 16), torch.nn.ReLU(),
        torch.nn.Linear(16, 69),
    )  # fmt: skip
    linears = [m for m in network if isinstance(m, torch.nn.Linear)]
    policy = Policy.from_layers(
        [(m.weight.detach().numpy(), m.bias.detach().numpy()) for m in linears]
    )
    x, _ = observations(32)
    with torch.no_grad():
        expected = network(torch.as_tensor(x)).numpy()
    assert np.allclose(policy.logits(x), expected, atol=1e-5)
    with pytest.raises(ValueError, match="do not chain"):
        Policy.from_layers(
            [(np.zeros((32, 531)), np.zeros(32)), (np.zeros((69, 31)), np.zeros(69))]
        )


def test_a_maskable_ppo_actor_is_exported_and_plays_its_greedy_actions(
    tmp_path: Path, torch: Any
) -> None:
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import Logger

    from backalley.env.sb3 import BatchedVecEnv, policy_of

    env = BatchedVecEnv(8, "standard", {"hand_sizes": [3, 2, 1]}, seats=(0, 2))
    model = MaskablePPO(
        "MlpPolicy", env, n_steps=16, batch_size=64, seed=1, device="cpu",
        policy_kwargs={"net_arch": [32, 32], "activation_fn": torch.nn.ReLU},
    )  # fmt: skip
    model.set_logger(Logger(folder=None, output_formats=[]))  # no SB3-… folder in /tmp
    model.learn(128)
    policy = policy_of(model)
    x, masks = observations(64)
    greedy, _ = model.predict(x, action_masks=masks.astype(bool), deterministic=True)
    ours = np.where(masks > 0, policy.logits(x), -np.inf).argmax(axis=1)
    assert (greedy == ours).all()
    # Saved, it is a bot of the arena that plays from a seat's view, with numpy alone.
    path = tmp_path / "policy.npz"
    policy.save(path)
    bot = make_bot(f"policy:{path}")
    game = Game(Ruleset.preset("standard", hand_sizes=[3, 2, 1]), seed=5)
    view = game.view(game.to_move)
    logits = policy.logits(encode_view(view)[None, :])[0]
    assert bot.act(view, None) == max(view.legal_actions, key=lambda a: logits[int(a)])
    # (Beside heuristic, which bids: four untrained policies may pass every deal, and under
    # `standard` a deal all pass is thrown in and dealt again, without end — D7.)
    heuristic = make_bot("heuristic")
    assert play_game(game, [bot, heuristic, bot, heuristic]).is_over
    # Another activation is refused by name, not exported wrong.
    tanh = MaskablePPO("MlpPolicy", env, n_steps=16, batch_size=64, device="cpu")
    with pytest.raises(ValueError, match="Tanh"):
        policy_of(tanh)
    env.close()


def test_the_vector_examples_agent_exports_what_it_plays(torch: Any) -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("ppo_vector", EXAMPLES / "ppo_vector.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    agent = module.Agent(531, 69, hidden=16)
    x, masks = observations(32)
    with torch.no_grad():
        logits = agent.actor(torch.as_tensor(x)).numpy()
    assert np.allclose(agent.policy().logits(x), logits, atol=1e-5)
    # Its masked draw never takes an illegal action.
    for _ in range(20):
        action, *_ = agent.act(torch.as_tensor(x), torch.as_tensor(masks > 0))
        assert masks[np.arange(len(x)), action.numpy()].all()


#: The smoke settings of each learning example's command in docs/env.md (seconds, not minutes;
#: the last of a repeated option counts).
SMOKE = {
    "maskable_ppo.py": ["--minutes", "0.1", "--envs", "8", "--n-steps", "16"],
    "ppo_vector.py": ["--minutes", "0.1", "--num-envs", "8", "--num-steps", "16"],
    "imitation.py": ["--data-minutes", "0.05", "--minutes", "0.02", "--jobs", "1",
                     "--teacher", "hard", "--hidden", "16"],
}  # fmt: skip


def documented(example: str) -> list[str]:
    """The command of docs/env.md that runs ``example``, as words."""
    from test_env import env_page_commands

    found = [c for c in env_page_commands() if c.startswith(f"python examples/{example}")]
    assert len(found) == 1, f"docs/env.md runs examples/{example} {len(found)} times"
    return found[0].split()


@pytest.mark.examples
@pytest.mark.parametrize("example", sorted(SMOKE))
def test_a_short_run_of_each_learning_example_trains_plots_and_plays(
    tmp_path: Path, example: str
) -> None:
    """The command docs/env.md gives, with a smoke setting: it trains, saves a policy the
    arena plays, plots its curve, and measures it against heuristic and hard."""
    out = tmp_path / "run"
    words = documented(example)
    words[0] = sys.executable
    done = subprocess.run(
        [*words, *SMOKE[example], "--curve-games", "2", "--arena-games", "2", "--out", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
        env={**os.environ, "COLUMNS": "120"},
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert (out / "policy.npz").exists() and (out / "curve.png").exists()
    result = json.loads((out / "curve.json").read_text())
    assert result["curve"] and all(len(v) == 2 for v in result["arena"].values())
    assert "hard" in " ".join(result["arena"])
    assert isinstance(make_bot(f"policy:{out / 'policy.npz'}"), PolicyBot)
