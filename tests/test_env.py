"""The research environment: the batched games are the engine's, step for step and record
for record; observations come from the seat's view alone."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from backalley.bots.pimc import deal_hidden, exclusions
from backalley.engine import Game, IllegalAction, Phase
from backalley.env import BatchedEnv, encode_view
from backalley.env import kernel as k
from backalley.env.batched import deal_deck
from backalley.env.encoding import COMPACT, COMPACT_SIZE, FULL, FULL_SIZE, write_observation
from backalley.record import verify, write_record
from backalley.rules import Ruleset
from test_properties import rulesets


def feed(env: BatchedEnv, i: int, game: Game) -> None:
    """Deal ``game`` every deal the environment has dealt in slot ``i`` since."""
    while game.phase == Phase.DEAL:
        number = len(game.deals)
        assert number <= env._games[i, k.G_DEAL_NUMBER], "the engine wants a deal the env lacks"
        # the env keeps one deck unless it records: then every deal since is still there
        assert env._decks.shape[1] > env._games[i, k.G_DEAL_NUMBER] - number
        deck = env._decks[i, number % env._decks.shape[1]]
        deal_deck(game, deck, int(env._games[i, k.G_FIRST_DEALER]))


def lockstep(
    env: BatchedEnv, seed: int, steps: int, check_obs: bool = True, passes: float = 0.0
) -> int:
    """Step ``env`` at random and the engine beside it, game by game; compare everything.
    A bid is a pass with chance ``passes`` (else any legal action), so that all-pass deals
    come often. Returns the games finished."""
    batch = env.reset(seed)
    games = []
    for i in range(env.num_games):
        games.append(Game(env.rules_of(i)))
        feed(env, i, games[-1])
    rng = np.random.default_rng(seed)
    finished = 0
    for _ in range(steps):
        for i, game in enumerate(games):
            seat = game.to_move
            assert batch.to_play[i] == seat
            legal = np.zeros(env.num_actions, dtype=np.uint8)
            legal[game.legal_actions()] = 1
            assert (batch.action_masks[i] == legal).all(), (i, game)
            if check_obs:
                want = encode_view(game.view(seat), env.encoding)
                got = batch.observations[i]
                assert np.array_equal(want, got), [
                    f.name for f in (COMPACT if env.encoding == "compact" else FULL)
                    if not np.array_equal(want[f.offset : f.offset + f.length],
                                          got[f.offset : f.offset + f.length])
                ]  # fmt: skip
        actions = env.sample(rng)
        bidding = batch.action_masks[:, k.PASS] == 1
        actions[bidding & (rng.random(env.num_games) < passes)] = k.PASS
        before = [list(g.scores) for g in games]
        batch = env.step(actions)
        for i, game in enumerate(games):
            game.apply(int(actions[i]))
            rules = game.rules
            if env.reward == "points":
                for seat in range(rules.num_players):
                    side = rules.side_of(seat)
                    assert batch.rewards[i, seat] == game.scores[side] - before[i][side]
            if batch.done[i]:
                assert game.is_over
                assert list(env.final_scores[i]) == list(game.scores)
                winner = -1 if game.winner is None else game.winner
                assert env.final_winner[i] == winner
                if env.reward == "win":
                    for seat in range(rules.num_players):
                        want = 0 if winner < 0 else (1 if rules.side_of(seat) == winner else -1)
                        assert batch.rewards[i, seat] == want
                finished += 1
                games[i] = Game(env.rules_of(i))
            else:
                assert not game.is_over
            feed(env, i, games[i])
    return finished


@pytest.mark.parametrize("preset", ["standard", "classic", "classic3", "bab"])
def test_every_step_of_whole_games_is_the_engines(preset: str) -> None:
    env = BatchedEnv(
        6, preset, {"hand_sizes": [4, 2, 1, 3]}, encoding="full", record=True, max_passes=None
    )
    assert lockstep(env, seed=3, steps=400) >= 6


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rules=rulesets(),
    seed=st.integers(0, 2**40),
    episode=st.sampled_from(["game", "deal"]),
    passes=st.sampled_from([0.0, 0.8]),
)
def test_every_option_steps_as_the_engine(
    rules: Ruleset, seed: int, episode: str, passes: float
) -> None:
    env = BatchedEnv(
        4,
        rules.name,
        rules.changed_options(),
        episode=episode,
        reward="win",
        record=2000,
        max_passes=None,
    )  # renig_min_hand=1 throws in most 1-card deals: keep every deal
    lockstep(env, seed=seed, steps=120, passes=passes)


@pytest.mark.parametrize("all_pass", ["redeal", "redeal_same", "play"])
@pytest.mark.parametrize("limit", [None, 1, 2])
def test_all_pass_deals_and_their_limit_as_the_engine(all_pass: str, limit: int | None) -> None:
    """D7: deals thrown in when all pass, dealt again by the next dealer or the same one,
    and played after ``all_pass_limit`` throw-ins in a row."""
    options = {"hand_sizes": [1, 2], "all_pass": all_pass, "all_pass_limit": limit}
    env = BatchedEnv(8, "standard", options, encoding="full", record=True, max_passes=None)
    assert lockstep(env, seed=1, steps=300, passes=0.9) >= 8


def test_full_length_games_of_each_preset_in_lockstep() -> None:
    for preset in ("standard", "classic", "classic3", "bab"):
        env = BatchedEnv(2, preset, encoding="full", record=True, max_passes=None)
        assert lockstep(env, seed=11, steps=1400, check_obs=preset == "classic") >= 1


def test_thousands_of_games_are_the_engines_records() -> None:
    env = BatchedEnv(64, "standard", {"hand_sizes": [5, 3, 1, 2]}, record=True, max_passes=None)
    env.reset(seed=7)
    rng = np.random.default_rng(7)
    finished = 0
    while finished < 2000:
        batch = env.step(env.sample(rng))
        for i in np.flatnonzero(batch.done):
            game = env.finished_game(int(i))
            assert game.is_over
            assert list(game.scores) == list(env.final_scores[i])
            finished += 1
    record = env.record(0)
    assert verify(record).exit_code == 0
    assert record == write_record(env.finished_game(0))


def test_one_seed_deals_the_same_games_and_another_seed_others() -> None:
    def played(seed: int) -> list[list[int]]:
        env = BatchedEnv(8, "classic", {"hand_sizes": [3, 1]})
        env.reset(seed)
        rng = np.random.default_rng(0)
        scores = []
        for _ in range(200):
            batch = env.step(env.sample(rng))
            scores += [list(env.final_scores[i]) for i in np.flatnonzero(batch.done)]
        return scores

    assert played(5) == played(5)
    assert played(5) != played(6)


def test_duplicate_games_deal_the_same_cards_with_the_seats_turned() -> None:
    for preset, group in (("standard", 2), ("classic3", 3)):
        env = BatchedEnv(group * 3, preset, {"hand_sizes": [6, 2]}, duplicate=True)
        env.reset(seed=2)
        for g in range(3):
            first = env._seats[g * group, :, k.S_HAND]
            dealer = env._games[g * group, k.G_DEALER]
            for turn in range(1, group):
                twin = env._seats[g * group + turn, :, k.S_HAND]
                players = env.num_players
                for seat in range(players):
                    # under D4 a shown joker is replaced: compare the cards as dealt
                    assert env._decks[g * group + turn, 0, seat * 6 : seat * 6 + 6].tolist() == (
                        env._decks[g * group, 0, ((seat - turn) % players) * 6 :][:6].tolist()
                    )
                assert env._games[g * group + turn, k.G_DEALER] == (dealer + turn) % players
                assert sorted(twin.tolist()) != [] and first.sum() != 0


def test_a_mask_is_never_empty_and_an_illegal_action_changes_nothing() -> None:
    env = BatchedEnv(16, "bab", {"hand_sizes": [2, 1]})
    batch = env.reset(seed=4)
    rng = np.random.default_rng(4)
    for _ in range(300):
        assert batch.action_masks.any(axis=1).all()
        assert (batch.to_play >= 0).all()
        batch = env.step(env.sample(rng))
    state = env._games.copy(), env._seats.copy()
    actions = env.sample(rng)
    bad = int(np.flatnonzero(batch.action_masks[5] == 0)[0])
    actions[5] = bad
    with pytest.raises(IllegalAction, match=f"game 5: action {bad} is not legal"):
        env.step(actions)
    assert np.array_equal(env._games, state[0]) and np.array_equal(env._seats, state[1])
    with pytest.raises(ValueError, match="step takes 16 actions"):
        env.step(actions[:3])


def test_the_layouts_are_contiguous_and_sized_as_documented() -> None:
    for fields, size in ((COMPACT, COMPACT_SIZE), (FULL, FULL_SIZE)):
        at = 0
        for field in fields:
            assert field.offset == at and field.length > 0 and field.meaning
            at += field.length
        assert at == size
    assert (COMPACT_SIZE, FULL_SIZE) == (531, 3499)


@pytest.mark.parametrize("encoding", ["compact", "full"])
def test_dealing_the_hidden_cards_again_changes_no_observation(encoding: str) -> None:
    """The other hands dealt again, consistently with the seat's view (its voids, P4's
    forced trumps): the observation is the same."""
    env = BatchedEnv(
        24, "standard", {"hand_sizes": [9, 5]}, encoding=encoding, record=True, max_passes=None
    )
    env.reset(seed=9)
    games = [Game(env.rules) for _ in range(env.num_games)]
    for i, game in enumerate(games):
        feed(env, i, game)
    rng = np.random.default_rng(9)
    rand = random.Random(9)
    out = np.zeros(env.observation_size, dtype=np.float32)
    checked = 0
    for _ in range(60):
        actions = env.sample(rng)
        batch = env.step(actions)
        for i in range(env.num_games):
            if batch.done[i]:
                games[i] = Game(env.rules)
            else:
                games[i].apply(int(actions[i]))
            feed(env, i, games[i])
        for i in range(env.num_games):
            seat = int(batch.to_play[i])
            view = games[i].view(seat)
            hands = deal_hidden(view, rand, exclusions(view))
            if hands is None:
                continue
            saved = env._seats[i].copy()
            for s in range(4):
                if s != seat:
                    played = env._seats[i, s, k.S_DEALT] & ~env._seats[i, s, k.S_HAND]
                    env._seats[i, s, k.S_HAND] = hands[s]
                    env._seats[i, s, k.S_DEALT] = hands[s] | played
            write_observation(
                env._config, env._games, env._seats, env._sides, env._decks, env._tricks,
                i, seat, out, encoding == "full",
            )  # fmt: skip
            env._seats[i] = saved
            assert np.array_equal(out, batch.observations[i])
            checked += 1
    assert checked > 1000


# ---------------------------------------------------------------------- PettingZoo, Gymnasium


@pytest.mark.parametrize(
    ("preset", "kw"),
    [
        ("standard", {"options": {"hand_sizes": [3, 2, 1]}}),
        ("classic3", {"episode": "deal", "duplicate": True}),
        ("bab", {"options": {"hand_sizes": [4, 1]}, "reward": "win", "encoding": "full"}),
    ],
)
@pytest.mark.filterwarnings("ignore:Observation")  # a dict of arrays, as PettingZoo's own
def test_the_pettingzoo_environment_passes_its_api_and_seed_tests(preset: str, kw: dict) -> None:
    from pettingzoo.test import api_test, seed_test

    from backalley.env import pettingzoo_env

    api_test(pettingzoo_env(preset, **kw), num_cycles=600)
    seed_test(lambda: pettingzoo_env(preset, **kw), num_cycles=300)


def test_pettingzoo_observations_are_the_views_and_games_end_as_the_engine_says() -> None:
    from backalley.env import pettingzoo_env

    env = pettingzoo_env("classic", {"hand_sizes": [2, 1]}, reward="win")
    rng = np.random.default_rng(1)
    for episode in range(20):
        env.reset(seed=episode)
        totals = dict.fromkeys(env.possible_agents, 0)
        for agent in env.agent_iter():
            observation, reward, terminated, truncated, _info = env.last()
            totals[agent] += reward
            if terminated or truncated:
                env.step(None)
                continue
            seat = env.possible_agents.index(agent)
            view = env.game.view(seat)
            assert np.array_equal(observation["observation"], encode_view(view))
            assert set(np.flatnonzero(observation["action_mask"])) == set(view.legal_actions)
            env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
        game = env.game
        assert game.is_over
        for seat, agent in enumerate(env.possible_agents):
            side = game.rules.side_of(seat)
            want = 0 if game.winner is None else (1 if side == game.winner else -1)
            assert totals[agent] == want


def test_pettingzoo_duplicate_episodes_deal_the_same_cards_turned() -> None:
    from backalley.env import pettingzoo_env

    env = pettingzoo_env("standard", {"hand_sizes": [5]}, duplicate=True)
    env.reset(seed=8)
    first = env.game.deals[0]
    env.reset()
    second = env.game.deals[0]
    assert list(second.hands) == [first.hands[(s - 1) % 4] for s in range(4)]
    assert second.stock == first.stock and second.dealer == (first.dealer + 1) % 4
    env.reset()
    assert env.game.deals[0].hands != first.hands


def test_a_seat_environment_plays_one_seat_against_bots() -> None:
    from backalley.env import SeatEnv

    env = SeatEnv("standard", {"hand_sizes": [3, 2, 1]}, seat=1, others="heuristic")
    results = []
    for seed in (4, 4, 5):
        observation, info = env.reset(seed=seed)
        total, done = 0.0, False
        while not done:
            assert env.observation_space.contains(observation)
            assert env.game.to_move == 1
            assert np.array_equal(observation, encode_view(env.game.view(1)))
            legal = np.flatnonzero(info["action_mask"])
            assert len(legal) and np.array_equal(env.action_masks(), info["action_mask"] == 1)
            observation, reward, done, _truncated, info = env.step(int(legal[0]))
            total += reward
        assert total == info["scores"][1]
        results.append(list(info["scores"]))
    assert results[0] == results[1]
    with pytest.raises(ValueError, match="one per other seat"):
        SeatEnv(others=["random", "random"])


def test_the_documented_tables_are_the_layouts() -> None:
    from pathlib import Path

    text = (Path(__file__).parent.parent / "docs" / "env.md").read_text(encoding="utf-8")
    for field in FULL:
        row = f"| {field.offset} | {field.length} | `{field.name}` | {field.meaning} |"
        assert row in text, row


@pytest.mark.examples
def test_the_env_page_examples_run(tmp_path, monkeypatch) -> None:
    import re
    import tempfile
    from pathlib import Path

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # SB3's log folder, not in /tmp

    text = (Path(__file__).parent.parent / "docs" / "env.md").read_text(encoding="utf-8")
    examples = re.findall(r"```python\n(.*?)```", text, re.DOTALL)
    assert len(examples) == 7
    for code in examples:
        if "sb3_contrib" in code and not _installed("sb3_contrib"):
            continue  # the sb3 extra: tests/test_env_sb3.py says whether it is installed
        exec(compile(code, "env.md", "exec"), {})


def _installed(name: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(name) is not None


#: docs/env.md's shell commands, each with a smoke setting (seconds, not minutes), in two
#: parts run side by side: those that train and play the self-play example's policy, and
#: the rest.
ENV_PAGE_SMOKE = {
    "python examples/self_play.py --minutes 4 --out self-play": (
        "--minutes 0.01 --games 32 --arena-games 2"
    ),
    "backalley arena policy:self-play/policy.npz heuristic --option hand_sizes=3,2,1": (
        "--games 4"
    ),
    "python benchmarks/baselines.py --players policy:self-play/policy.npz --games 400": (
        "--games 2 --timing-games 1 --jobs 1"
    ),
    "backalley arena --players expert,openspiel-ismcts --games 200 --option hand_sizes=3,2,1": (
        "--games 2 --repeatable"
    ),
    "python benchmarks/baselines.py --players random,easy,medium,hard,expert --games 400": (
        "--games 2 --timing-games 1 --jobs 1 --lengths short --repeatable"
    ),
    "python benchmarks/baselines.py --players openspiel-ismcts --lengths short --games 400": (
        "--games 2 --timing-games 1 --jobs 1 --repeatable"
    ),
    "python benchmarks/baselines.py --players policy:examples/policies/imitation.npz,"
    "policy:examples/policies/maskable-ppo.npz,policy:examples/policies/ppo.npz --games 400": (
        "--games 2 --timing-games 1 --jobs 1"
    ),
}


def env_page_commands() -> list[str]:
    """docs/env.md's shell commands but its installs and its sections on Ray (which
    tests/test_arena_ray.py and tests/test_env_rllib.py run on two nodes)."""
    import re
    from pathlib import Path

    text = (Path(__file__).parent.parent / "docs" / "env.md").read_text(encoding="utf-8")
    lines = [
        c for block in re.findall(r"```sh\n(.*?)```", text, re.DOTALL) for c in block.splitlines()
    ]
    commands = [line.split("#")[0].strip() for line in lines]
    return [
        c
        for c in commands
        if c
        and not c.startswith("pip install")
        and not (c.startswith("ray ") or "--ray" in c or "arena_ray.py" in c)
        and "rllib_self_play.py" not in c
    ]


#: The learning examples whose commands tests/test_env_learned.py runs, with its own checks.
LEARNED = ("maskable_ppo.py", "ppo_vector.py", "imitation.py")


def runs_elsewhere(command: str) -> bool:
    return any(command.startswith(f"python examples/{name}") for name in LEARNED)


def test_every_env_page_command_has_a_smoke_setting() -> None:
    commands = env_page_commands()
    assert commands, "no commands found in docs/env.md"
    here = [c for c in commands if not runs_elsewhere(c)]
    for command in here:
        assert command in ENV_PAGE_SMOKE, f"docs/env.md has a command no test runs: {command}"
    assert set(ENV_PAGE_SMOKE) == set(here), "a smoke setting for a command the page lost"


@pytest.mark.examples
@pytest.mark.parametrize("part", ["self-play", "the rest"])
def test_the_env_page_commands_run_with_the_extras_they_name(tmp_path, part: str) -> None:
    """Each shell command of docs/env.md, with its smoke setting, in the page's order."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).parent.parent
    ran = []
    for command in env_page_commands():
        if ("self-play" in command) != (part == "self-play") or runs_elsewhere(command):
            continue
        words = command.replace("--games 200", "").replace("--minutes 4", "").split()
        words = [w.replace("self-play", str(tmp_path / "self-play")) for w in words]
        words += ENV_PAGE_SMOKE[command].split()
        if words[0] == "python":
            words[0] = sys.executable
        else:
            words = [str(Path(sys.executable).parent / "backalley"), *words[1:]]
        done = subprocess.run(
            words, cwd=root, capture_output=True, text=True, timeout=600,
            env={**os.environ, "COLUMNS": "120"},
        )  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr
        ran.append(command)
    assert ran, f"no command of docs/env.md in the part {part!r}"
    if part == "self-play":
        assert (tmp_path / "self-play" / "policy.npz").exists()


def test_the_batched_environment_needs_nothing_beyond_the_core_install() -> None:
    import subprocess
    import sys

    code = (
        "import sys\n"
        "for name in ('gymnasium', 'pettingzoo', 'pyspiel'): sys.modules[name] = None\n"
        "import numpy as np\n"
        "from backalley.env import BatchedEnv\n"
        "env = BatchedEnv(2, 'standard', {'hand_sizes': [1]})\n"
        "batch = env.reset(0)\n"
        "batch = env.step(env.sample(np.random.default_rng(0)))\n"
        "print(env.metadata['autoreset_mode'])\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "SameStep"
