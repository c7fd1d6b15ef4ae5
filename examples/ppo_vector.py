"""PPO in one file, as CleanRL writes it, on the compiled vector environment, with masks.

    python examples/ppo_vector.py [--minutes M] [--others heuristic] [--out DIR]

(``pip install -e '.[sb3,plot]'`` for PyTorch and matplotlib.) CleanRL's ``ppo.py`` loop —
rollouts of ``--num-steps`` in ``--num-envs`` games, generalised advantage estimation, a
clipped objective over minibatches — with two changes for Back Alley: the environment is
``gymnasium.make_vec("backalley/Batched-v0", …)``, whose games reset in the step that ends
them (``AutoresetMode.SAME_STEP``), and the actor's logits are masked with
``infos["action_mask"]``, so no illegal action is ever drawn. The agent holds seats 0 and 2
of short ``standard`` games (3, 2, 1 cards) against ``--others`` (``heuristic``).

The actor (ReLU layers) is saved as a numpy policy,
:meth:`backalley.env.policy.Policy.from_layers`, that ``backalley arena policy:DIR/policy.npz``
plays; every ``--minutes``/10 it is measured in the arena against ``heuristic`` in
duplicate, and the curve is saved as ``curve.png``.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import gymnasium
import numpy as np
import torch
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn
from torch import nn

import backalley.env  # noqa: F401  (registers backalley/Batched-v0)
from backalley.env.policy import Policy

RULES = ("standard", {"hand_sizes": [3, 2, 1]})


def layer(inputs: int, outputs: int, std: float = np.sqrt(2)) -> nn.Linear:
    """A linear layer initialised as CleanRL does (orthogonal weights, zero bias)."""
    linear = nn.Linear(inputs, outputs)
    nn.init.orthogonal_(linear.weight, std)
    nn.init.constant_(linear.bias, 0.0)
    return linear


class Agent(nn.Module):
    """Separate actor and critic, two hidden layers of ``hidden`` each."""

    def __init__(self, observations: int, actions: int, hidden: int = 256) -> None:
        super().__init__()
        self.critic = nn.Sequential(
            layer(observations, hidden), nn.ReLU(), layer(hidden, hidden), nn.ReLU(),
            layer(hidden, 1, std=1.0),
        )  # fmt: skip
        self.actor = nn.Sequential(
            layer(observations, hidden), nn.ReLU(), layer(hidden, hidden), nn.ReLU(),
            layer(hidden, actions, std=0.01),
        )  # fmt: skip

    def value(self, x: torch.Tensor) -> torch.Tensor:
        return self.critic(x)

    def act(
        self, x: torch.Tensor, mask: torch.Tensor, action: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        """An action drawn among the legal ones (or ``action`` given), its log-probability,
        the entropy and the value."""
        logits = self.actor(x).masked_fill(~mask, -1e8)
        dist = torch.distributions.Categorical(logits=logits)
        if action is None:
            action = dist.sample()
        return action, dist.log_prob(action), dist.entropy(), self.critic(x)

    def policy(self) -> Policy:
        """The actor as a numpy policy that plays without PyTorch."""
        linears = [m for m in self.actor if isinstance(m, nn.Linear)]
        return Policy.from_layers(
            [(m.weight.detach().numpy(), m.bias.detach().numpy()) for m in linears]
        )


def arena(policy_file: Path, opponent: str, games: int, seed: int) -> tuple[float, float]:
    """The policy holding a side against ``opponent`` in duplicate: points a game over it and
    the 95 % half-width."""
    from backalley.arena import run_match
    from backalley.rules import Ruleset

    rules = Ruleset.preset(RULES[0], **RULES[1])
    mean, half = run_match(f"policy:{policy_file}", opponent, rules, games, seed, 1).difference
    return float(mean), float(half)


def train(args: argparse.Namespace, console: Console) -> tuple[Agent, list]:
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    envs = gymnasium.make_vec(
        "backalley/Batched-v0", num_envs=args.num_envs, rules=RULES[0], options=RULES[1],
        seats=(0, 2), others=args.others,
    )  # fmt: skip
    n, steps = args.num_envs, args.num_steps
    size = envs.single_observation_space.shape[0]
    actions_n = int(envs.single_action_space.n)
    agent = Agent(size, actions_n)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)
    obs = torch.zeros((steps, n, size))
    masks = torch.zeros((steps, n, actions_n), dtype=torch.bool)
    actions = torch.zeros((steps, n), dtype=torch.long)
    logprobs, rewards, dones, values = (torch.zeros((steps, n)) for _ in range(4))
    observation, infos = envs.reset(seed=args.seed)
    next_obs = torch.as_tensor(observation, dtype=torch.float32)
    next_mask = torch.as_tensor(infos["action_mask"], dtype=torch.bool)
    next_done = torch.zeros(n)
    curve: list[tuple[int, float, float]] = []
    checkpoint = args.out / "policy.npz"
    start = time.perf_counter()
    next_measure, global_step = 0.0, 0

    def measure(elapsed: float) -> None:
        agent.policy().save(checkpoint)
        curve.append((global_step, elapsed, arena(checkpoint, "heuristic", args.curve_games, 1)[0]))

    columns = (TextColumn("{task.description}"), BarColumn(), TimeRemainingColumn())
    with Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task("PPO", total=args.minutes * 60)
        while (elapsed := time.perf_counter() - start) < args.minutes * 60:
            bar.update(task, completed=elapsed)
            if elapsed >= next_measure:
                measure(elapsed)
                next_measure = elapsed + args.minutes * 60 / 10
                bar.update(task, description=f"PPO: {curve[-1][2]:+.1f} vs heuristic")
            # The rollout.
            for step in range(steps):
                global_step += n
                obs[step], masks[step], dones[step] = next_obs, next_mask, next_done
                with torch.no_grad():
                    action, logprob, _, value = agent.act(next_obs, next_mask)
                values[step], actions[step], logprobs[step] = value.flatten(), action, logprob
                observation, reward, terminated, truncated, infos = envs.step(action.numpy())
                rewards[step] = torch.as_tensor(reward, dtype=torch.float32) / args.reward_scale
                next_obs = torch.as_tensor(observation, dtype=torch.float32)
                next_mask = torch.as_tensor(infos["action_mask"], dtype=torch.bool)
                next_done = torch.as_tensor(terminated | truncated, dtype=torch.float32)
            # Generalised advantage estimation (the step that ends a game also starts the
            # next: its reward is the old game's, the value after it the new game's, cut).
            with torch.no_grad():
                next_value = agent.value(next_obs).flatten()
                advantages = torch.zeros_like(rewards)
                last = torch.zeros(n)
                for t in reversed(range(steps)):
                    ends = next_done if t == steps - 1 else dones[t + 1]
                    after = next_value if t == steps - 1 else values[t + 1]
                    delta = rewards[t] + args.gamma * after * (1 - ends) - values[t]
                    last = delta + args.gamma * args.gae_lambda * (1 - ends) * last
                    advantages[t] = last
                returns = advantages + values
            # The update: epochs of minibatches, clipped.
            b_obs, b_masks = obs.reshape(-1, size), masks.reshape(-1, actions_n)
            b_actions, b_logprobs = actions.reshape(-1), logprobs.reshape(-1)
            b_adv, b_returns = advantages.reshape(-1), returns.reshape(-1)
            batch = n * steps
            minibatch = batch // args.num_minibatches
            for _ in range(args.update_epochs):
                order = torch.randperm(batch)
                for first in range(0, batch, minibatch):
                    mb = order[first : first + minibatch]
                    _, newlogprob, entropy, newvalue = agent.act(
                        b_obs[mb], b_masks[mb], b_actions[mb]
                    )
                    ratio = (newlogprob - b_logprobs[mb]).exp()
                    adv = b_adv[mb]
                    adv = (adv - adv.mean()) / (adv.std() + 1e-8)
                    pg_loss = torch.max(
                        -adv * ratio, -adv * ratio.clamp(1 - args.clip, 1 + args.clip)
                    ).mean()
                    v_loss = 0.5 * ((newvalue.flatten() - b_returns[mb]) ** 2).mean()
                    loss = pg_loss - args.ent_coef * entropy.mean() + args.vf_coef * v_loss
                    optimizer.zero_grad()
                    loss.backward()
                    nn.utils.clip_grad_norm_(agent.parameters(), 0.5)
                    optimizer.step()
    measure(time.perf_counter() - start)
    envs.close()
    return agent, curve


def plot(curve: list, results: dict[str, tuple[float, float]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(7, 4), dpi=120)
    axes.plot([c[1] / 60 for c in curve], [c[2] for c in curve], marker="o", markersize=3)
    axes.axhline(0, color="grey", linewidth=0.8)
    axes.set_xlabel("minutes of training (one core)")
    axes.set_ylabel("points a game over heuristic (arena)")
    summary = ", ".join(f"{b}: {m:+.1f} ± {h:.1f}" for b, (m, h) in results.items())
    axes.set_title(f"PPO (CleanRL style), short standard games ({summary})", fontsize=9)
    figure.tight_layout()
    figure.savefig(path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=10.0, help="time to train")
    parser.add_argument("--num-envs", type=int, default=64)
    parser.add_argument("--num-steps", type=int, default=64)
    parser.add_argument("--num-minibatches", type=int, default=8)
    parser.add_argument("--update-epochs", type=int, default=4)
    parser.add_argument("--learning-rate", type=float, default=3e-4)
    parser.add_argument("--gamma", type=float, default=1.0)
    parser.add_argument("--gae-lambda", type=float, default=0.95)
    parser.add_argument("--clip", type=float, default=0.2)
    parser.add_argument("--ent-coef", type=float, default=0.01)
    parser.add_argument("--vf-coef", type=float, default=0.5)
    parser.add_argument("--reward-scale", type=float, default=20.0, help="rewards divided by")
    parser.add_argument("--others", default="heuristic", help="who holds seats 1 and 3")
    parser.add_argument("--curve-games", type=int, default=100, help="arena games a point")
    parser.add_argument("--arena-games", type=int, default=400, help="games per final match")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=Path("ppo"))
    args = parser.parse_args()
    console = Console()
    args.out.mkdir(parents=True, exist_ok=True)
    _, curve = train(args, console)
    console.print(
        f"Trained for {curve[-1][1] / 60:.1f} min, {curve[-1][0]:,} steps: "
        f"{curve[0][2]:+.1f} → {curve[-1][2]:+.1f} points a game over heuristic"
    )
    results: dict[str, tuple[float, float]] = {}
    for opponent in ("heuristic", "hard"):
        with console.status(f"Arena: the policy against {opponent}"):
            results[opponent] = arena(args.out / "policy.npz", opponent, args.arena_games, 7)
        mean, half = results[opponent]
        console.print(
            f"Arena, {args.arena_games} games in duplicate: policy − {opponent} = "
            f"{mean:+.1f} ± {half:.1f} points a game (95 %)"
        )
    (args.out / "curve.json").write_text(json.dumps({"curve": curve, "arena": results}))
    try:
        plot(curve, results, args.out / "curve.png")
    except ImportError:
        console.print("No plot: matplotlib is not installed (pip install -e '.[plot]').")
        return
    console.print(f"Wrote {args.out / 'policy.npz'} and {args.out / 'curve.png'}")


if __name__ == "__main__":
    main()
