"""Self-play on RLlib (backalley.env.rllib, examples/rllib_self_play.py): the masked network
never offers an illegal action, the exported policy plays the network's greedy action, the
past self is frozen and brought up to date, and docs/env.md's run works on two Ray nodes."""

from __future__ import annotations

import doctest
import json
import random
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

import ray_support
from backalley.env.policy import Policy, PolicyBot
from support import needs

EXTRA = "the rllib extra: pip install -e '.[rllib]'"
needs("ray", "torch", reason=EXTRA)

pytestmark = pytest.mark.ray

cluster = ray_support.cluster
ROOT = Path(__file__).parent.parent
CONFIG = {"options": {"hand_sizes": [3, 2, 1]}}


@pytest.fixture(scope="module")
def rl() -> SimpleNamespace:
    """torch, RLlib's names and backalley.env.rllib's, imported by the test process that runs
    this module's tests alone."""
    pytest.importorskip("ray.rllib", reason=EXTRA)
    import torch
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from backalley.env import rllib

    return SimpleNamespace(torch=torch, Columns=Columns, RLModuleSpec=RLModuleSpec, env=rllib)


def module(
    rl: SimpleNamespace, hidden: tuple[int, ...] = (32, 16), activation: str = "relu"
) -> Any:
    env = rl.env.multi_agent_env(CONFIG)
    agent = env.possible_agents[0]
    config = rl.env.model_config(hidden)
    config.fcnet_activation = activation
    spec = rl.RLModuleSpec(
        module_class=rl.env.MaskedPPOModule,
        observation_space=env.observation_spaces[agent],
        action_space=env.action_spaces[agent],
        model_config=config,
    )
    return spec.build()


def observations(rl: SimpleNamespace, count: int, seed: int) -> list[dict[str, np.ndarray]]:
    """Observations of the seat on turn from games played at random, bids and cards alike."""
    env, rng, seen = rl.env.multi_agent_env(CONFIG), random.Random(seed), []
    obs, _ = env.reset(seed=seed)
    while len(seen) < count:
        (agent, o), *_ = obs.items()
        seen.append(o)
        obs, _, terminated, truncated, _ = env.step(
            {agent: rng.choice(np.flatnonzero(o["action_mask"]).tolist())}
        )
        if terminated["__all__"] or truncated["__all__"] or not obs:
            obs, _ = env.reset(seed=rng.getrandbits(32))
    return seen


def batch_of(rl: SimpleNamespace, seen: list[dict[str, np.ndarray]]) -> dict[str, Any]:
    stacked = {k: rl.torch.as_tensor(np.stack([o[k] for o in seen])) for k in seen[0]}
    return {rl.Columns.OBS: stacked}


def test_the_modules_examples_run_as_written(rl: SimpleNamespace) -> None:
    """backalley.env.rllib's doctests, here rather than collected with the other modules' (see
    conftest.py)."""
    failed, tried = doctest.testmod(rl.env)
    assert tried > 0 and failed == 0


def test_the_masked_network_never_samples_or_prefers_an_illegal_action(rl: SimpleNamespace) -> None:
    torch, Columns = rl.torch, rl.Columns
    net, seen = module(rl), observations(rl, 300, seed=4)
    masks = np.stack([o["action_mask"] for o in seen]).astype(bool)
    for forward in (net.forward_exploration, net.forward_inference, net.forward_train):
        logits = forward(batch_of(rl, seen))[Columns.ACTION_DIST_INPUTS].detach()
        draws = torch.distributions.Categorical(logits=logits).sample((50,)).numpy()
        assert masks[np.arange(len(seen)), draws].all()
        assert masks[np.arange(len(seen)), logits.argmax(1).numpy()].all()
    assert masks.sum(1).min() >= 1 and (masks.sum(1) > 1).mean() > 0.5  # choices to get wrong


def test_the_values_are_the_networks_own_whatever_the_mask(rl: SimpleNamespace) -> None:
    torch, Columns = rl.torch, rl.Columns
    net, seen = module(rl), observations(rl, 20, seed=5)
    batch = batch_of(rl, seen)
    cleared = {Columns.OBS: {**batch[Columns.OBS], "action_mask": torch.ones(20, 69)}}
    assert torch.equal(net.compute_values(batch), net.compute_values(cleared))
    assert isinstance(batch[Columns.OBS], dict)  # the batch is left as it was


def test_the_exported_policy_plays_the_networks_greedy_action(rl: SimpleNamespace) -> None:
    from backalley.engine import Game
    from backalley.rules import Ruleset

    torch, Columns = rl.torch, rl.Columns
    net = module(rl)
    for parameter in net.parameters():  # away from the near-uniform start
        torch.nn.init.normal_(parameter, std=0.3)
    policy = rl.env.policy_of(net)
    assert [w.shape for w in policy.weights] == [(531, 32), (32, 16), (16, 69)]
    seen = observations(rl, 200, seed=6)
    ours = policy.logits(np.stack([o["observation"] for o in seen]))
    theirs = net.forward_inference(batch_of(rl, seen))[Columns.ACTION_DIST_INPUTS].detach().numpy()
    masks = np.stack([o["action_mask"] for o in seen]).astype(bool)
    assert np.allclose(ours[masks], theirs[masks], atol=1e-4)
    assert (np.where(masks, ours, -np.inf).argmax(1) == theirs.argmax(1)).all()
    # and as the arena's bot, from the engine's view, after a save and a load
    game = Game(Ruleset.preset("standard", hand_sizes=[3]), seed=2)
    view = game.view(game.to_move)
    from backalley.env.encoding import encode_view

    x = encode_view(view, "compact")[None, :]
    logits = (
        net.forward_inference(
            {Columns.OBS: {"observation": torch.as_tensor(x), "action_mask": torch.ones(1, 69)}}
        )[Columns.ACTION_DIST_INPUTS][0]
        .detach()
        .numpy()
    )
    legal = [int(a) for a in view.legal_actions]
    assert PolicyBot(policy).act(view, None) == max(legal, key=lambda a: logits[a])


def test_a_network_of_tanh_layers_is_refused_by_name(rl: SimpleNamespace) -> None:
    with pytest.raises(ValueError, match="not Tanh"):
        rl.env.policy_of(module(rl, activation="tanh"))


def test_self_play_seats_main_and_past_on_opposite_sides_each_half_the_time(
    rl: SimpleNamespace,
) -> None:
    sides = []
    for k in range(400):
        episode = SimpleNamespace(id_=f"{k:032x}")
        seating = [rl.env.self_play_mapping(f"player_{seat}", episode) for seat in range(4)]
        assert seating[0] == seating[2] != seating[1] == seating[3]
        assert set(seating) == {rl.env.MAIN, rl.env.PAST}
        sides.append(seating.index(rl.env.MAIN))
    assert 160 < sides.count(0) < 240


def test_the_past_self_stays_frozen_until_it_is_brought_up_to_date(
    cluster: str, rl: SimpleNamespace
) -> None:
    """Two iterations of self-play in this process (on the cluster, with no env runner of its
    own), past refreshed every second one: after the first, main has learnt and past has
    not; after the second, past is main again."""
    import ray

    sys.path.insert(0, str(ROOT / "examples"))
    import rllib_self_play

    args = SimpleNamespace(envs_per_runner=1, batch=256, refresh=2, seed=3)
    ray.init(address=cluster, log_to_driver=False, logging_level="error")
    try:
        algorithm = rllib_self_play.build(args, runners=0)
        runner = algorithm.env_runner

        def weights(name: str) -> list[np.ndarray]:
            return [p.detach().numpy().copy() for p in runner.module[name].parameters()]

        def same(a: list[np.ndarray], b: list[np.ndarray]) -> bool:
            return all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))

        start = weights(rl.env.MAIN)
        assert same(weights(rl.env.PAST), start)
        first = algorithm.train()
        assert not same(weights(rl.env.MAIN), start) and same(weights(rl.env.PAST), start)
        assert "main_margin" in first
        algorithm.train()
        past = weights(rl.env.PAST)
        assert same(past, weights(rl.env.MAIN)) and not same(past, start)
        algorithm.stop()
    finally:
        ray.shutdown()


def self_play_commands() -> list[str]:
    text = (ROOT / "docs" / "env.md").read_text(encoding="utf-8")
    section = text.split("## Self-play on RLlib", 1)[1].split("\n## ", 1)[0]
    lines = [c.split("#")[0].strip() for b in re.findall(r"```sh\n(.*?)```", section, re.DOTALL)
             for c in b.splitlines()]  # fmt: skip
    return [c for c in lines if c and not c.startswith("pip install")]


def test_the_env_page_self_play_runs_on_the_two_nodes(
    cluster: str, rl: SimpleNamespace, tmp_path: Path
) -> None:
    """docs/env.md's commands: the nodes as the fixture starts them, the example on them with
    smoke settings; its env runners play on both nodes, and its policy plays in the arena."""
    commands = self_play_commands()
    assert commands[:2] == [
        "ray " + " ".join(ray_support.HEAD).format(port=6379),
        "ray " + " ".join(ray_support.NODE).format(head="HEAD:6379"),
    ]
    assert commands[-1] == "ray stop"
    run = commands[2]
    assert run.startswith("python examples/rllib_self_play.py ") and "--minutes" in run
    smoke = "--iterations 2 --batch 400 --envs-per-runner 1 --curve-games 4 --arena-games 4"
    words = re.sub(r"--minutes \S+", smoke, run.replace("HEAD:6379", cluster)).split()
    out = tmp_path / "out"
    done = subprocess.run(
        [sys.executable, str(ROOT / words[1]), *words[2:], "--out", str(out)],
        capture_output=True, text=True, timeout=600, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "Self-play on 2 Ray nodes, 2 CPUs" in done.stdout
    assert "2 iterations" in done.stdout and "policy − hard" in done.stdout
    record = json.loads((out / "curve.json").read_text())
    assert len(record["iterations"]) == 2 and record["nodes"] == 2
    assert record["iterations"][-1][0] >= 800  # two batches of 400 steps
    Policy.load(out / "policy.npz")
    played = subprocess.run(
        [str(ray_support.BIN / "backalley"), "arena", f"policy:{out / 'policy.npz'}",
         "heuristic", "--option", "hand_sizes=3,2,1", "--games", "8", "--out", "games"],
        capture_output=True, text=True, timeout=300, cwd=tmp_path,
    )  # fmt: skip
    assert played.returncode == 0, played.stderr
    assert len(list((tmp_path / "games").iterdir())) == 8
