"""Back Alley as an OpenSpiel game, and OpenSpiel's search bots as players at our table.

Importing this module registers ``python_backalley`` with OpenSpiel (``pyspiel``, from the
``bench`` extra), so OpenSpiel's own algorithms run on it unchanged::

    import pyspiel, backalley.env.openspiel
    game = pyspiel.load_game("python_backalley", {"rules": "standard", "hand_sizes": "3,2,1"})

Its states wrap the engine (:class:`~backalley.engine.Game`): the deal is dealt by chance
nodes, one card at a time (the hands, seat by seat, then the stock's first three cards —
enough for any turn-up; the rest of the stock plays no part and lies in order); every
player action is the engine's; observations are :mod:`backalley.env.encoding`'s tensors —
``information_state_tensor`` the full encoding, ``observation_tensor`` the compact one —
built from the seat's view. A player's return is its side's score less the mean of the
other sides' (zero-sum), over the game or the one deal (``episode``).

:class:`OpenSpielPlayer` makes OpenSpiel's ``ISMCTSBot`` (information-set MCTS) or
``MCTSBot`` a bot of ours: ``backalley arena expert openspiel-ismcts``. From the seat's view
it builds the deal in play as a one-deal OpenSpiel state, the hidden hands dealt at random
consistently with what the seat has seen (voids, P4's forced trumps): ISMCTS deals them
again for every simulation (its resampler), MCTS searches the one world it was given — so
neither sees a card it should not.
"""

from __future__ import annotations

import json
import random
from typing import Any

import numpy as np
import pyspiel

from backalley.bots.pimc import deal_hidden, exclusions
from backalley.cards import BIG_BLOOPER, LITTLE_BLOOPER, NUM_CARDS
from backalley.engine import Game, Phase
from backalley.env.encoding import COMPACT_SIZE, FULL_SIZE, encode_view
from backalley.env.kernel import NUM_ACTIONS
from backalley.knowledge import Knowledge
from backalley.rules import DealKind, Ruleset, action_name, parse_option_value
from backalley.view import SeatView

SHORT_NAME = "python_backalley"
_DEFAULTS = {"rules": "standard", "hand_sizes": "", "options": "", "episode": "game"}
_STOCK_DEALT = 3  #: stock cards dealt by chance: the turn-up, and what D4 and D5 may need


def rules_of(params: dict[str, Any]) -> Ruleset:
    """The rule set an OpenSpiel game's parameters name (one deal's under ``episode="deal"``)."""
    rules = base_rules_of(params)
    if params.get("episode") == "deal":
        rules = rules.with_options({"hand_sizes": [rules.hand_sizes[0]], "tie_breaker": False})
    return rules


def base_rules_of(params: dict[str, Any]) -> Ruleset:
    """The game's rule set before ``episode``: the preset, ``options`` (written as
    :func:`options_text` writes them, or a JSON object) and ``hand_sizes`` (``"3,2,1"``,
    ``"3-2-1"`` or ``"3 2 1"``; empty for the options' or the preset's)."""
    text = str(params.get("options") or "").strip()
    if text.startswith("{"):
        options = json.loads(text)
    else:
        options = {}
        for item in filter(None, text.split(";")):
            key, _, value = item.partition(":")
            if key == "hand_sizes":
                value = value.replace("-", ",")
            options[key] = parse_option_value(key, value)
    sizes = str(params.get("hand_sizes") or "").strip()
    if sizes:
        options["hand_sizes"] = [
            int(s) for s in sizes.replace("-", ",").replace(" ", ",").split(",") if s
        ]
    return Ruleset.preset(params.get("rules") or "standard", **options)


def options_text(rules: Ruleset) -> str:
    """``rules``' options other than the preset's, as the parameter ``options`` holds them in
    a game string: ``name:value`` joined by ``;``, hand sizes by ``-`` (``hand_sizes:3-2-1``).
    OpenSpiel's game strings split on commas and read a lone number as an int, so that the
    game string has neither."""
    items = []
    for key, value in sorted(rules.changed_options().items()):
        if key == "hand_sizes":
            text = "-".join(map(str, value))
        elif isinstance(value, bool):
            text = "true" if value else "false"
        elif value is None:
            text = "null"
        else:
            text = str(value)
        items.append(f"{key}:{text}")
    return ";".join(items)


def _game_type(players: int) -> Any:
    return pyspiel.GameType(
        short_name=SHORT_NAME,
        long_name="Back Alley (backalley)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=4,
        min_num_players=3,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=dict(_DEFAULTS),
    )


class BackAlleyGame(pyspiel.Game):  # type: ignore[misc]
    """The OpenSpiel game: parameters ``rules`` (a preset), ``hand_sizes`` (``"3,2,1"``;
    empty for the preset's), ``options`` (a JSON object of other options) and ``episode``
    (``"game"``, or ``"deal"``: the first hand size's deal alone)."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = {**_DEFAULTS, **(params or {})}
        if params["episode"] not in ("game", "deal"):
            raise ValueError(f"episode is 'game' or 'deal', not {params['episode']!r}")
        self.rules = rules_of(params)
        base = base_rules_of(params)
        params = {  # as the game string gives them back: every configuration round-trips
            "rules": base.name,
            "hand_sizes": "",
            "options": options_text(base),
            "episode": params["episode"],
        }
        n = self.rules.num_players
        bound = sum(2 * 10 * size * 16 + 40 * n for size in self.rules.hand_sizes)
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_ACTIONS,
            max_chance_outcomes=NUM_CARDS,
            num_players=n,
            min_utility=-float(bound),
            max_utility=float(bound),
            utility_sum=0.0,
            max_game_length=100_000,
        )
        super().__init__(_game_type(n), info, params)

    def new_initial_state(self) -> BackAlleyState:
        return BackAlleyState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> Observer:
        full = iig_obs_type is None or iig_obs_type.perfect_recall
        return Observer("full" if full else "compact")


class _Engine:
    """The engine's game, held so that OpenSpiel's ``clone`` (a deep copy of the state's
    attributes) copies it the engine's way."""

    __slots__ = ("game",)

    def __init__(self, game: Game) -> None:
        self.game = game

    def __deepcopy__(self, memo: dict[int, Any]) -> _Engine:
        return _Engine(self.game.copy())


class BackAlleyState(pyspiel.State):  # type: ignore[misc]
    """A game in progress: the engine's game, and the cards of the deal being dealt."""

    def __init__(self, game: BackAlleyGame, engine: Game | None = None) -> None:
        super().__init__(game)
        self._engine = _Engine(engine if engine is not None else Game(game.rules))
        self.dealing: list[int] = []  #: cards dealt so far by chance, hands first
        self._dealer = 0

    @property
    def engine(self) -> Game:
        """The engine's game (every hand in it: for OpenSpiel's algorithms, not players)."""
        return self._engine.game

    @property
    def rules(self) -> Ruleset:
        return self.engine.rules

    # --- OpenSpiel's API

    def current_player(self) -> int:
        if self.engine.is_over:
            return int(pyspiel.PlayerId.TERMINAL)
        if self.engine.phase == Phase.DEAL:
            return int(pyspiel.PlayerId.CHANCE)
        seat = self.engine.to_move
        assert seat is not None
        return seat

    def _legal_actions(self, player: int) -> list[int]:
        return sorted(self.engine.legal_actions())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        left = sorted(set(range(NUM_CARDS)) - set(self.dealing))
        if not self.dealing and self.engine.expected_dealer() is None:
            # the first dealer is drawn first (D1): outcomes 0 … players − 1
            return [(seat, 1.0 / self.rules.num_players) for seat in range(self.rules.num_players)]
        return [(card, 1.0 / len(left)) for card in left]

    def _apply_action(self, action: int) -> None:
        engine = self.engine
        if engine.phase != Phase.DEAL:
            engine.apply(action)
            return
        if not self.dealing and engine.expected_dealer() is None and not engine.deals:
            self._dealer = action
            self.dealing.append(-1)  # the dealer drawn; no card yet
            return
        self.dealing.append(action)
        cards = [c for c in self.dealing if c >= 0]
        _kind, size, seats = engine.next_deal()
        if len(cards) < min(size * len(seats) + _STOCK_DEALT, NUM_CARDS):
            return
        hands: list[list[int]] = [[] for _ in range(self.rules.num_players)]
        for number, seat in enumerate(seats):
            hands[seat] = cards[number * size : (number + 1) * size]
        stock = cards[size * len(seats) :] + sorted(set(range(NUM_CARDS)) - set(cards))
        dealer = engine.expected_dealer()
        engine.start_deal(self._dealer if dealer is None else dealer, hands, stock)
        self.dealing = []

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {action_name(action) if action < NUM_CARDS else action}"
        return action_name(action)

    def is_terminal(self) -> bool:
        return bool(self.engine.is_over)

    def returns(self) -> list[float]:
        """At the end, each player's side's score less the mean of the other sides' (the
        game's one reward: zero until then)."""
        if not self.engine.is_over:
            return [0.0] * self.rules.num_players
        scores = self.engine.scores
        sides = len(scores)
        total = sum(scores)
        return [
            float(scores[s] - (total - scores[s]) / (sides - 1))
            for s in (self.rules.side_of(seat) for seat in range(self.rules.num_players))
        ]

    def information_state_string(self, player: int | None = None) -> str:
        return info_key(self, self.current_player() if player is None else player)

    def observation_string(self, player: int | None = None) -> str:
        return self.information_state_string(player)

    def __str__(self) -> str:
        return str(self.engine.public_view()) if self.engine.deals else "dealing"

    # --- ISMCTS: the hidden cards dealt again, consistently with a seat's view

    def resample(self, player: int, rng: random.Random) -> BackAlleyState:
        """This state with the cards ``player`` cannot see dealt again at random, consistently
        with its view: a state of this game, at this deal, with the scores and everything
        else the game carries from earlier deals (a one-deal game's, in one)."""
        view = self.engine.view(player)
        if self.get_game().get_parameters()["episode"] == "deal":
            return from_view(view, rng)
        known = Knowledge.of(view)
        for _attempt in range(200):
            hands, stock, moves = _world(view, rng)
            engine = known.taken_up()
            engine.start_deal(view.dealer, hands, stock)
            if engine.phase != Phase.DEAL:  # a deal with a renig hand would be thrown in (D6)
                break
        else:  # the deal in play was not thrown in, so no hand in it was a renig hand
            raise ValueError("no deal without a renig hand fits this view (D6)")
        for move in moves:
            engine.apply(move)
        return BackAlleyState(self.get_game(), engine)

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> BackAlleyState:
        """OpenSpiel's resampling, as ``ISMCTSBot`` asks for it: :meth:`resample`, from a
        generator seeded by one draw of ``probability_sampler``."""
        return self.resample(player_id, random.Random(int(probability_sampler() * 2**53)))


def info_key(state: BackAlleyState, player: int) -> str:
    """What ``player`` knows, as a string: equal for two states it cannot tell apart."""
    engine = state.engine
    if not engine.deals or player < 0:
        return f"p{player} dealing {len(engine.deals)} {len([c for c in state.dealing if c >= 0])}"
    view = engine.view(player)
    return "|".join(
        map(
            str,
            (
                player,
                view.deal_number,
                view.dealer,
                view.hand,
                view.turned_up,
                view.joker_shown,
                view.drawn,
                view.bids,
                view.completed_tricks,
                view.trick,
                view.scores,
                view.phase.name,
            ),
        )
    )


class Observer:
    """OpenSpiel's observer protocol: ``tensor`` and ``dict`` written by ``set_from``."""

    def __init__(self, encoding: str) -> None:
        self.encoding = encoding
        self.tensor = np.zeros(FULL_SIZE if encoding == "full" else COMPACT_SIZE, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: BackAlleyState, player: int) -> None:
        engine = state.engine
        if not engine.deals or (engine.phase == Phase.DEAL and not engine.is_over):
            self.tensor.fill(0)
            return
        self.tensor[:] = encode_view(engine.view(player), self.encoding)

    def string_from(self, state: BackAlleyState, player: int) -> str:
        return info_key(state, player)


pyspiel.register_game(_game_type(4), BackAlleyGame)


# ---------------------------------------------------------------------- the deal from a view


def from_view(view: SeatView, rng: random.Random) -> BackAlleyState:
    """A one-deal state of the deal in ``view``, its hidden hands dealt at random
    consistently with the view, every bid and card so far applied.

    :raises ValueError: for a tie-breaker deal (no bidding: not a one-deal game) or a view
        no deal fits.
    """
    if view.deal_kind != DealKind.NORMAL:
        raise ValueError("a tie-breaker deal is not a one-deal game")
    assert view.dealer is not None
    hands, stock, moves = _world(view, rng)
    rules = view.rules.with_options(
        {"hand_sizes": [view.hand_size], "tie_breaker": False, "renig_min_hand": None}
    )
    engine = Game(rules)
    engine.start_deal(view.dealer, hands, stock)
    for move in moves:
        engine.apply(move)
    params = {"rules": rules.name, "options": options_text(rules), "episode": "deal"}
    return BackAlleyState(pyspiel.load_game(SHORT_NAME, params), engine)


def _world(view: SeatView, rng: random.Random) -> tuple[list[list[int]], list[int], list[int]]:
    """The deal in ``view`` with its hidden hands dealt at random consistently with it: each
    seat's hand as dealt, the stock (the turn-up on top), and the bids and cards so far.

    :raises ValueError: for a view no deal fits.
    """
    assert view.seat is not None
    banned = exclusions(view)
    turned = view.turned_up
    no_trump = view.rules.joker_turnup == "no_trump"
    if no_trump and turned[0] >= LITTLE_BLOOPER and view.joker_shown is None:
        # D4: nobody showed the other joker, so nobody holds it
        other = 1 << (LITTLE_BLOOPER + BIG_BLOOPER - turned[0])
        banned = [mask | other for mask in banned]
    banned = [
        mask | only_trumps for mask, only_trumps in zip(banned, _trump_leads(view), strict=True)
    ]
    hands = deal_hidden(view, rng, banned)
    if hands is None:
        raise ValueError("no deal fits this view")
    played: dict[int, list[int]] = {seat: [] for seat in range(view.rules.num_players)}
    moves: list[int] = [int(bid) for _, bid in view.bids]
    for leader, cards in _rounds(view):
        seat = leader
        for card in cards:
            played[seat].append(int(card))
            moves.append(int(card))
            seats = view.seats_in_deal
            seat = seats[(seats.index(seat) + 1) % len(seats)]
    dealt = [hands[s] | sum(1 << c for c in played[s]) for s in range(view.rules.num_players)]
    top = [int(c) for c in view.turned_up]
    if view.joker_shown is not None:  # D4: the seat held the joker, and drew the next card
        seat, joker = view.joker_shown
        candidates = [c for c in range(LITTLE_BLOOPER) if dealt[seat] >> c & 1]
        drawn = int(view.drawn) if view.drawn is not None else rng.choice(candidates)
        dealt[seat] = dealt[seat] & ~(1 << drawn) | (1 << int(joker))
        top.append(drawn)
    used = set(top)
    for mask in dealt:
        used |= {c for c in range(NUM_CARDS) if mask >> c & 1}
    stock = top + sorted(set(range(NUM_CARDS)) - used)
    held = [[c for c in range(NUM_CARDS) if mask >> c & 1] for mask in dealt]
    return held, stock, moves


def _rounds(view: SeatView) -> list[tuple[int, tuple[int, ...]]]:
    """The deal's tricks so far, the one in progress last: (leader, cards in order)."""
    rounds = [(leader, tuple(map(int, cards))) for leader, cards in view.completed_tricks]
    if view.trick:
        rounds.append((view.trick[0][0], tuple(int(card) for _, card in view.trick)))
    return rounds


def _trump_leads(view: SeatView) -> list[int]:
    """Per seat, the cards it cannot hold for having led a trump before trumps were broken
    without the board exception (P3 (b): it held nothing else): every card but the trumps."""
    trumps = int(view.trump_cards)
    banned = [0] * view.rules.num_players
    broken = False
    for leader, cards in _rounds(view):
        if trumps >> cards[0] & 1 and not broken and not view.free_trump_lead[leader]:
            banned[leader] |= ((1 << NUM_CARDS) - 1) & ~trumps
        broken = broken or any(trumps >> card & 1 for card in cards)
    return banned


# ---------------------------------------------------------------------- arena players


class OpenSpielPlayer:
    """OpenSpiel's ``ISMCTSBot`` (``"ismcts"``) or ``MCTSBot`` (``"mcts"``) as a bot of ours,
    with random rollouts: ``simulations`` per decision, ``uct_c`` its exploration constant
    (in points: a deal's outcomes spread over tens of points)."""

    def __init__(self, kind: str = "ismcts", simulations: int = 200, uct_c: float = 30.0) -> None:
        if kind not in ("ismcts", "mcts"):
            raise ValueError(f"kind is 'ismcts' or 'mcts', not {kind!r}")
        self.kind, self.simulations, self.uct_c = kind, simulations, uct_c
        self.name = f"openspiel-{kind}"

    def act(self, view: SeatView, rng: random.Random) -> int:
        legal = [int(a) for a in view.legal_actions]
        if len(legal) == 1:
            return legal[0]
        if view.deal_kind != DealKind.NORMAL:
            from backalley.bots.heuristic import HeuristicBot

            return HeuristicBot().act(view, rng)  # a tie-breaker is no one-deal game
        from open_spiel.python.algorithms import ismcts, mcts

        state = from_view(view, rng)
        game = state.get_game()
        seed = rng.getrandbits(32)
        evaluator = mcts.RandomRolloutEvaluator(1, np.random.RandomState(seed))
        if self.kind == "ismcts":
            bot: Any = ismcts.ISMCTSBot(
                game,
                evaluator,
                self.uct_c,
                self.simulations,
                random_state=np.random.RandomState(seed),
            )  # fmt: skip  (it resamples through BackAlleyState.resample_from_infostate)
        else:
            bot = mcts.MCTSBot(
                game, self.uct_c, self.simulations, evaluator,
                random_state=np.random.RandomState(seed), solve=False,
            )  # fmt: skip
        action = int(bot.step(state))
        assert action in legal
        return action
