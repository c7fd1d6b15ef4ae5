"""The example that learns: its gradient is right, and a short run trains, plots and plays."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from backalley.bots import UnknownBot, make_bot, play_game
from backalley.engine import Game
from backalley.env.policy import Policy, PolicyBot, masked_softmax
from backalley.rules import Ruleset

EXAMPLE = Path(__file__).parent.parent / "examples" / "self_play.py"


def example():
    spec = importlib.util.spec_from_file_location("self_play", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_policy_gradient_is_the_derivative_of_its_loss() -> None:
    rng = np.random.default_rng(3)
    policy = Policy.random([531, 6, 69], seed=3)
    policy.weights[-1] *= 100  # far from uniform, so the entropy term counts
    x = rng.random((5, 531)).astype(np.float64)
    masks = (rng.random((5, 69)) < 0.3).astype(np.uint8)
    masks[:, 0] = 1
    actions = np.array([np.flatnonzero(m)[-1] for m in masks])
    advantages = rng.standard_normal(5)
    policy.weights = [w.astype(np.float64) for w in policy.weights]
    policy.biases = [b.astype(np.float64) for b in policy.biases]

    def loss() -> float:
        probs = masked_softmax(policy.logits(x), masks)
        logp = np.log(np.where(masks > 0, probs, 1.0))
        chosen = logp[np.arange(5), actions]
        entropy = -(probs * logp).sum(axis=1)
        return float(np.mean(-advantages * chosen) - 0.01 * np.mean(entropy))

    grads = example().gradients(policy, x, masks, actions, advantages)
    params = [*policy.weights, *policy.biases]
    for param, grad in zip(params, grads, strict=True):
        for index in [tuple(rng.integers(0, s) for s in param.shape) for _ in range(6)]:
            saved = param[index]
            param[index] = saved + 1e-6
            up = loss()
            param[index] = saved - 1e-6
            down = loss()
            param[index] = saved
            assert grad[index] == pytest.approx((up - down) / 2e-6, rel=1e-3, abs=1e-7)


def test_a_policy_file_is_a_bot_of_the_arena(tmp_path: Path) -> None:
    path = tmp_path / "p.npz"
    Policy.random([531, 16, 69], seed=1).save(path)
    bot = make_bot(f"policy:{path}")
    assert isinstance(bot, PolicyBot)
    game = play_game(Game(Ruleset.preset("classic", hand_sizes=[3, 1]), seed=2), [bot] * 4)
    assert game.is_over
    with pytest.raises(UnknownBot):
        make_bot(f"policy:{tmp_path / 'missing.npz'}")
    with pytest.raises(ValueError, match="531 floats"):
        Policy.random([100, 69])


@pytest.mark.examples
def test_a_short_run_of_the_example_learns_plots_and_plays_in_the_arena(tmp_path: Path) -> None:
    out = tmp_path / "run"
    subprocess.run(
        [sys.executable, str(EXAMPLE), "--minutes", "0.15", "--games", "64",
         "--arena-games", "4", "--min-updates", "2", "--out", str(out)],
        check=True, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert (out / "curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    result = json.loads((out / "curve.json").read_text())
    assert len(result["curve"]) >= 2
    assert set(result["arena"]) == {"random", "heuristic"}
    steps = [point[0] for point in result["curve"]]
    assert steps == sorted(steps) and steps[-1] > 0
    trained = Policy.load(out / "policy.npz")
    assert not np.allclose(trained.weights[-1], Policy.random([531, 128, 69], seed=1).weights[-1])
