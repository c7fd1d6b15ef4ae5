"""The research environment as Gymnasium, PettingZoo and OpenSpiel users meet it: through
their own tools (``check_env``, vector envs, ``api_test``, ``random_sim_test``, ISMCTS,
MCCFR), pickled and copied, and with episodes that always end."""

from __future__ import annotations

import copy
import pickle
import random
import warnings

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")

from backalley import bots  # noqa: E402
from backalley.bots import make_bot, play_game  # noqa: E402
from backalley.engine import PASS, Game, IllegalAction  # noqa: E402
from backalley.env import BatchedEnv, SeatEnv, pettingzoo_env  # noqa: E402
from backalley.env.dealing import MAX_PASSES  # noqa: E402
from backalley.env.registry import BATCHED, IDS  # noqa: E402
from backalley.env.vector import BatchedVectorEnv  # noqa: E402
from backalley.rules import Ruleset  # noqa: E402

TINY = {"hand_sizes": [2], "tie_breaker": False}  # one deal of two cards: draws come often


class Passer:
    """Passes whenever it may; otherwise the first legal action."""

    name = "passer"

    def act(self, view: object, rng: random.Random) -> int:
        legal = [int(a) for a in view.legal_actions]  # type: ignore[attr-defined]
        return PASS if PASS in legal else legal[0]


def masked_random(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return (rng.random(masks.shape) * masks).argmax(axis=-1)


# ---------------------------------------------------------------------- Gymnasium


@pytest.mark.parametrize("name", [name for name, *_ in IDS])
def test_gymnasiums_own_checker_passes_on_every_registered_id(name: str) -> None:
    from gymnasium.utils.env_checker import check_env

    env = gymnasium.make(name)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped)
        check_env(gymnasium.make(name, render_mode="ansi").unwrapped)
    assert not [str(w.message) for w in caught]  # not even a warning
    observation, info = env.reset(seed=3)
    assert env.observation_space.contains(observation)
    assert np.array_equal(observation["action_mask"], info["action_mask"])
    assert np.array_equal(env.unwrapped.action_masks(), observation["action_mask"] == 1)


def test_an_illegal_action_ends_the_episode_with_its_penalty_or_raises_on_request() -> None:
    env = SeatEnv(options={"hand_sizes": [3, 2, 1]}, others="random")
    observation, info = env.reset(seed=1)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    before = str(env.game)
    observation, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated, info["illegal"]) == (-100.0, True, False, True)
    assert str(env.game) == before  # the game did not move
    assert not observation.any() and not env.action_masks().any()
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    win = SeatEnv(options={"hand_sizes": [1]}, others="random", reward="win", illegal_reward=-7)
    _, info = win.reset(seed=1)
    assert win.step(int(np.flatnonzero(info["action_mask"] == 0)[0]))[1] == -7.0
    strict = SeatEnv(options={"hand_sizes": [1]}, others="random", illegal="raise")
    _, info = strict.reset(seed=1)
    with pytest.raises(IllegalAction) as error:
        strict.step(int(np.flatnonzero(info["action_mask"] == 0)[0]))
    assert error.value.rule  # a rule id, as every refusal names one
    with pytest.raises(ValueError, match="illegal must be one of"):
        SeatEnv(illegal="ignore")


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_vector_envs_run_thousands_of_episodes_through_draws(kind: str) -> None:
    def make() -> SeatEnv:
        return SeatEnv(options=TINY, others="random", observation="dict")

    vector = gymnasium.vector.SyncVectorEnv if kind == "sync" else gymnasium.vector.AsyncVectorEnv
    envs = vector([make] * 4)
    rng = np.random.default_rng(0)
    _, infos = envs.reset(seed=7)
    episodes, draws, wins = 0, 0, 0
    while episodes < 2000:
        _, _, terminated, truncated, infos = envs.step(masked_random(infos["action_mask"], rng))
        ended = terminated | truncated
        episodes += int(ended.sum())
        if "winner" in infos:
            winners = infos["winner"][infos["_winner"]]
            draws += int((winners == -1).sum())
            wins += int((winners >= 0).sum())
    envs.close()
    assert draws > 50 and wins > 500  # a draw is the number −1, stacked like any other


def test_the_always_pass_table_ends_in_every_environment(monkeypatch) -> None:
    monkeypatch.setitem(bots.BOTS, "passer", Passer)
    seat = SeatEnv("standard", others="passer")
    seat.reset(seed=2)
    steps, terminated, truncated = 0, False, False
    while not (terminated or truncated):
        _, reward, terminated, truncated, _ = seat.step(PASS)
        steps += 1
    assert (steps, terminated, truncated, reward) == (MAX_PASSES, False, True, 0.0)

    aec = pettingzoo_env("bab")
    aec.reset(seed=2)
    for _agent in aec.agent_iter(max_iter=10_000):
        _, _, terminated, truncated, _ = aec.last()
        aec.step(None if terminated or truncated else PASS)
    assert not aec.agents and aec.game is not None and not aec.game.is_over

    batched = BatchedEnv(4, "standard")
    batched.reset(seed=2)
    for step in range(1, 4 * MAX_PASSES + 1):
        batch = batched.step(np.full(4, PASS))
        assert batch.truncated.all() == (step == 4 * MAX_PASSES) and not batch.done.any()
    assert (batched.final_winner == -2).all()
    assert not BatchedEnv(4, "standard", max_passes=None).reset(seed=2).truncated.any()


# ---------------------------------------------------------------------- the vector env


def test_the_vector_env_is_the_batched_env_step_for_step_in_self_play() -> None:
    envs = gymnasium.make_vec(BATCHED, num_envs=16, options={"hand_sizes": [3, 2, 1]})
    assert isinstance(envs, BatchedVectorEnv)
    assert envs.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.SAME_STEP
    plain = BatchedEnv(16, "standard", {"hand_sizes": [3, 2, 1]})
    observations, infos = envs.reset(seed=4)
    batch = plain.reset(seed=4)
    rng = np.random.default_rng(4)
    ended = 0
    for _ in range(600):
        assert np.array_equal(observations, batch.observations)
        assert np.array_equal(infos["action_mask"], batch.action_masks)
        actions = masked_random(infos["action_mask"], rng)
        mover = batch.to_play.copy()
        observations, rewards, terminated, truncated, infos = envs.step(actions)
        batch = plain.step(actions)
        assert np.array_equal(rewards, batch.rewards[np.arange(16), mover])
        assert np.array_equal(terminated, batch.done) and not truncated.any()
        if terminated.any():
            ended += int(terminated.sum())
            assert np.array_equal(infos["final_scores"][terminated], plain.final_scores[terminated])
    assert ended > 30


def test_the_vector_env_gives_the_policy_its_seats_and_lets_others_play() -> None:
    rules = Ruleset.preset("standard", hand_sizes=[3, 2, 1])
    calls = []

    def lowest(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        calls.append(len(masks))
        return masks.argmax(axis=1)

    envs = BatchedVectorEnv(8, "standard", {"hand_sizes": [3, 2, 1]}, seats=(0, 2), others=lowest)
    _, infos = envs.reset(seed=5)
    rng = np.random.default_rng(5)
    returns, totals = np.zeros(8), []
    while len(totals) < 200:
        assert np.isin(infos["to_play"], (0, 2)).all()
        actions = masked_random(infos["action_mask"], rng)
        _, rewards, terminated, _, infos = envs.step(actions)
        returns += rewards
        for i in np.flatnonzero(terminated):
            assert returns[i] == infos["final_scores"][i, rules.side_of(0)]
            totals.append(returns[i])
            returns[i] = 0
    assert calls and len(set(totals)) > 10
    with pytest.raises(ValueError, match="one side"):
        BatchedVectorEnv(4, seats=(0, 1))


def test_a_cleanrl_style_loop_runs_on_the_vector_env_with_only_its_env_line_changed() -> None:
    # CleanRL's ppo.py, its loop as written there, a numpy policy in place of torch.
    num_envs, num_steps, seed = 8, 64, 1
    envs = gymnasium.make_vec(BATCHED, num_envs=num_envs, options={"hand_sizes": [2, 1]})
    obs_shape = envs.single_observation_space.shape
    n_actions = envs.single_action_space.n
    weights = np.random.default_rng(seed).normal(0, 0.01, (int(np.prod(obs_shape)), n_actions))
    obs = np.zeros((num_steps, num_envs, *obs_shape), dtype=np.float32)
    rewards = np.zeros((num_steps, num_envs))
    dones = np.zeros((num_steps, num_envs))
    next_obs, _ = envs.reset(seed=seed)
    next_done = np.zeros(num_envs)
    rng = np.random.default_rng(seed)
    for _update in range(4):
        penalties = 0
        for step in range(num_steps):
            obs[step], dones[step] = next_obs, next_done
            logits = next_obs @ weights  # no mask: the env must cope with illegal actions
            probs = np.exp(logits - logits.max(1, keepdims=True))
            probs /= probs.sum(1, keepdims=True)
            action = np.array([rng.choice(n_actions, p=p) for p in probs])
            next_obs, reward, terminations, truncations, infos = envs.step(action)
            next_done = np.logical_or(terminations, truncations).astype(float)
            rewards[step] = reward
            penalties += int(infos.get("illegal", np.zeros(num_envs, bool)).sum())
        assert envs.observation_space.contains(next_obs.astype(np.float32))
        assert penalties > 0 and (rewards == -100.0).sum() == penalties
        assert dones[1:].sum() + next_done.sum() >= penalties  # each one ended its game


# ---------------------------------------------------------------------- pickling


def test_rules_games_and_every_environment_pickle_and_copy() -> None:
    # scripts/test.sh runs this with the engine compiled (backalley.COMPILED) and plain.
    rules = Ruleset.preset("bab", hand_sizes=[4, 2])
    game = Game(rules, seed=3)
    for _ in range(9):
        game.apply(game.legal_actions()[0])
    for clone in (lambda o: pickle.loads(pickle.dumps(o)), copy.deepcopy):
        assert clone(rules) == rules
        again = clone(game)
        assert str(again) == str(game) and again.legal_actions() == game.legal_actions()
        four = [make_bot("heuristic")] * 4
        assert play_game(again, four).scores == play_game(game.copy(with_rng=True), four).scores
        for make in (
            lambda: SeatEnv(options={"hand_sizes": [2, 1]}, others="heuristic"),
            lambda: pettingzoo_env("classic3", {"hand_sizes": [2]}),
            lambda: BatchedEnv(3, "standard", {"hand_sizes": [2, 1]}),
            lambda: BatchedVectorEnv(3, options={"hand_sizes": [2, 1]}),
        ):
            env = make()
            env.reset(seed=6)
            twin = clone(env)
            assert _run(twin) == _run(env)  # the copy goes on as the original does


def _run(env: object) -> list[float]:
    """Forty steps of the first legal action, and what they returned."""
    seen: list[float] = []
    for _ in range(40):
        if isinstance(env, SeatEnv):
            result = env.step(int(env.action_masks().argmax()))
            seen.append(result[1])
            if result[2] or result[3]:
                env.reset(seed=1)
        elif isinstance(env, BatchedVectorEnv):
            seen += list(env.step(env.action_masks().argmax(axis=1))[1])
        elif isinstance(env, BatchedEnv):
            batch = env.step(env.observe().action_masks.argmax(axis=1))
            seen += list(batch.rewards.ravel())
        else:
            agent = env.agent_selection  # type: ignore[attr-defined]
            _, reward, terminated, truncated, _ = env.last()  # type: ignore[attr-defined]
            seen.append(reward)
            if terminated or truncated:
                env.step(None)  # type: ignore[attr-defined]
                if not env.agents:  # type: ignore[attr-defined]
                    env.reset(seed=1)  # type: ignore[attr-defined]
                continue
            mask = env.observe(agent)["action_mask"]  # type: ignore[attr-defined]
            env.step(int(mask.argmax()))  # type: ignore[attr-defined]
    return seen


@pytest.mark.parametrize("preset", ["standard", "bab", "classic3"])
def test_our_bots_play_the_other_seats_of_the_compiled_games(preset: str) -> None:
    """Engine games follow the compiled ones action for action, dealt the same decks, and
    the bots play from their views: at every step both agree on the legal actions."""
    seats = (1,) if preset == "classic3" else (0, 2)
    envs = BatchedVectorEnv(6, preset, {"hand_sizes": [3, 2, 1]}, seats=seats, others="heuristic")
    _, infos = envs.reset(seed=9)
    mirror = envs.mirror
    assert mirror is not None
    rng = np.random.default_rng(9)
    ended = 0
    for _ in range(300):
        for i, game in enumerate(mirror.games):
            assert game.to_move == infos["to_play"][i] and game.to_move in seats
            legal = np.zeros(69, dtype=np.int8)
            legal[list(game.legal_actions())] = 1
            assert np.array_equal(legal, infos["action_mask"][i])
        _, _, terminated, truncated, infos = envs.step(masked_random(infos["action_mask"], rng))
        ended += int((terminated | truncated).sum())
    assert ended > 20
    with pytest.raises(ValueError, match="seats="):
        BatchedVectorEnv(2, others="heuristic")
    with pytest.raises(bots.UnknownBot):
        BatchedVectorEnv(2, seats=(0,), others="grandmaster")


def test_a_refused_action_moves_no_game_of_the_vector_env_bots_or_not() -> None:
    for others in ("random", "heuristic"):
        envs = BatchedVectorEnv(
            3, "standard", {"hand_sizes": [2, 1]}, seats=(0, 2), others=others, illegal="raise"
        )
        _, infos = envs.reset(seed=1)
        before = infos["to_play"].copy(), infos["action_mask"].copy()
        actions = infos["action_mask"].argmax(axis=1)
        for bad in (int(np.flatnonzero(infos["action_mask"][1] == 0)[0]), -1, 69):
            wrong = actions.copy()
            wrong[1] = bad
            with pytest.raises(IllegalAction, match="game 1"):
                envs.step(wrong)
            assert np.array_equal(envs.action_masks(), before[1] == 1)
        rng = np.random.default_rng(1)
        for _ in range(60):  # and it goes on as if nothing had been tried
            _, _, _, _, infos = envs.step(masked_random(infos["action_mask"], rng))
            if envs.mirror is not None:
                assert [g.to_move for g in envs.mirror.games] == list(infos["to_play"])
