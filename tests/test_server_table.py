"""A table's rules, in this process and in milliseconds: every command against the state
machine (server/table: decide, evolve), with no server, no database and no bots' pool.
What a table refuses, and that a refusal changes nothing; a take-back, a rematch, a leave, a
claim played out; replaying the log (as a restart or another node does) giving the state
live play gave; and, with hypothesis, whole games of random commands."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backalley.engine import IllegalAction
from backalley.record import verify, write_record
from backalley.rules import Phase
from backalley.server.credentials import digest
from backalley.server.protocol import ProtocolError
from backalley.server.settings import Settings, TableError
from backalley.server.table.decide import (
    Act,
    AnswerRematch,
    Command,
    Context,
    DealDue,
    End,
    GiveToBot,
    LapseRematch,
    Leave,
    PlayOut,
    Say,
    TakeSeat,
    Undo,
    decide,
)
from backalley.server.table.events import Event, payload_of
from backalley.server.table.evolve import evolved
from backalley.server.table.state import (
    Actor,
    RematchStatus,
    Secrets,
    TableState,
    TableStatus,
)

SECRETS = Secrets(digest("host"), digest("watch"), tuple(digest(f"invite {s}") for s in range(4)))
NOW = 1_000_000.0


def table(**settings: Any) -> TableState:
    settings = {"options": {"hand_sizes": [2, 1]}, "pace": 0.0, **settings}
    return TableState.new("t1", Settings(**settings), SECRETS)


def context(seed: int = 1, now: float = NOW) -> Context:
    return Context(random.Random(seed), now)


def run(state: TableState, command: Command, seed: int = 1, now: float = NOW) -> TableState:
    """``command`` decided and its events applied: the state after it."""
    return evolved(state, decide(state, command, context(seed, now)))


def seated(state: TableState, people: int = 4, level: str = "easy") -> TableState:
    """The first ``people`` seats taken by P0, P1, … (accounts a0, a1, …), bots in the rest."""
    for seat in range(len(state.seats)):
        if seat < people:
            state = run(state, TakeSeat(seat, f"P{seat}", digest(f"token {seat}"), f"a{seat}"))
        else:
            state = run(state, GiveToBot(seat, level))
    return state


def to_move(state: TableState) -> int:
    assert state.game is not None and state.game.to_move is not None
    return state.game.to_move


def legal(state: TableState) -> list[str]:
    assert state.game is not None
    view = state.game.view(to_move(state))
    return [str(action) for action in view.legal_actions]


def play(state: TableState, rng: random.Random, moves: int | None = None) -> TableState:
    """Random legal actions (each a message of its seat) until the game is over."""
    n = 0
    while state.status == TableStatus.PLAYING and (moves is None or n < moves):
        seat = to_move(state)
        state = run(state, Act(seat, rng.choice(legal(state)), f"{seat}:{n}"), seed=n)
        n += 1
    return state


def refused(state: TableState, command: Command, code: str) -> None:
    """``command`` is refused with ``code`` (a rule id for the engine's refusals), and the
    state it was refused in is as it was."""
    before = (state.version, state.seats, state.status, write_record(state.game)
              if state.game else None, state.rematch)  # fmt: skip
    with pytest.raises((TableError, ProtocolError, IllegalAction)) as error:
        decide(state, command, context())
    found = error.value
    assert getattr(found, "code", None) == code or getattr(found, "rule", None) == code, found
    after = (state.version, state.seats, state.status, write_record(state.game)
             if state.game else None, state.rematch)  # fmt: skip
    assert after == before


# ---------------------------------------------------------------------- seats and starting


def test_the_game_starts_and_is_dealt_when_the_last_seat_is_filled() -> None:
    state = seated(table(), people=2)
    assert state.status == TableStatus.PLAYING and state.game is not None
    assert [seat.name for seat in state.seats] == ["P0", "P1", "Pip", "Dot"]  # easy bots
    assert state.seats[0].person and not state.seats[2].person
    events = [e for e in _log(table(), people=2)]
    assert [e.kind.value for e in events][:6] == ["seat", "seat", "bot", "bot", "start", "deal"]
    assert [e.version for e in events] == list(range(1, len(events) + 1))


def _log(state: TableState, people: int) -> list[Event]:
    log: list[Event] = []
    for seat in range(len(state.seats)):
        command: Command = (
            TakeSeat(seat, f"P{seat}", digest(f"t{seat}")) if seat < people
            else GiveToBot(seat, "easy")
        )  # fmt: skip
        made = decide(state, command, context())
        state, log = evolved(state, made), log + made
    return log


def test_a_taken_seat_an_ended_table_and_a_seated_account_are_refused() -> None:
    state = run(table(), TakeSeat(0, "Ana", digest("a"), "acct"))
    refused(state, TakeSeat(0, "Bo", digest("b")), "seat_taken")
    refused(state, GiveToBot(0, "easy"), "seat_taken")
    refused(state, TakeSeat(1, "Ana again", digest("c"), "acct"), "seated")
    refused(state, TakeSeat(None, "Cy", digest("d")), "forbidden")  # private: no free seat
    ended = run(state, End())
    assert ended.status == TableStatus.ENDED
    refused(ended, TakeSeat(1, "Bo", digest("b")), "ended")
    refused(ended, GiveToBot(1, "easy"), "ended")
    refused(ended, End(), "ended")
    refused(seated(table()), End(), "started")


def test_the_lobby_seats_a_person_at_the_first_free_seat_of_a_public_table() -> None:
    state = run(table(public=True), GiveToBot(0, "easy"))
    state = run(state, TakeSeat(None, "Bo", digest("b")))
    assert state.seats[1].name == "Bo"
    full = seated(table(public=True))
    refused(full, TakeSeat(None, "Cy", digest("c")), "seat_taken")


def test_leaving_frees_the_seat_before_the_game_and_gives_it_to_a_bot_during_it() -> None:
    state = run(table(), TakeSeat(0, "Ana", digest("a"), "acct"))
    state = run(state, Leave(0))
    assert state.seats[0].name is None and state.seats[0].token_hash is None
    playing = play(seated(table(), people=2), random.Random(3), moves=3)
    gone = run(playing, Leave(1))
    assert gone.seats[1].bot == gone.settings.level and gone.seats[1].name not in (None, "P1")
    assert gone.seats[1].token_hash is None and gone.seats[1].account is None
    [departure] = gone.departures
    assert departure.seat == 1 and departure.player == "P1"
    assert gone.seat_of("token 1") is None


# ---------------------------------------------------------------------- play


def test_an_action_is_refused_with_its_rule_and_changes_nothing() -> None:
    refused(run(table(), TakeSeat(0, "A", digest("a"))), Act(0, "pass", "0:1"), "not_started")
    state = seated(table())
    mover = to_move(state)
    other = (mover + 1) % 4
    refused(state, Act(other, "pass", f"{other}:1"), "B1")  # not their turn
    refused(state, Act(mover, "AS", f"{mover}:1"), "B1")  # a card while bids are due
    refused(state, Act(mover, "eleven", f"{mover}:1"), "B1")  # not a bid


def test_a_finished_game_verifies_and_its_status_is_finished() -> None:
    state = play(seated(table()), random.Random(5))
    assert state.status == TableStatus.FINISHED
    assert state.game is not None and state.game.phase == Phase.OVER
    assert verify(write_record(state.game)).exit_code == 0


def test_a_card_that_completes_a_trick_names_its_winner_and_is_kept_as_the_last_trick() -> None:
    state = seated(table())
    rng = random.Random(2)
    while state.game is not None and state.game.phase != Phase.PLAY:
        state = play(state, rng, moves=1)
    events: list[Event] = []
    for n in range(4):
        seat = to_move(state)
        made = decide(state, Act(seat, rng.choice(legal(state)), f"{seat}:x{n}"), context(n))
        state, events = evolved(state, made), events + made
    cards = [e.payload for e in events if e.kind.value == "card"]
    assert [getattr(c, "won_by", None) for c in cards[:3]] == [None] * 3
    assert state.game is not None and cards[3].won_by == state.game.deals[0].winners[0]
    assert state.last_winner == cards[3].won_by and len(state.last_trick or ()) == 4


def test_an_action_carries_its_client_id_into_its_event() -> None:
    state = seated(table())
    seat = to_move(state)
    [move, *_] = decide(state, Act(seat, legal(state)[0], f"{seat}:m1"), context())
    assert move.client_id == f"{seat}:m1" and move.version == state.version + 1


# ---------------------------------------------------------------------- take-backs


def test_a_take_back_undoes_the_last_own_action_and_the_bots_replies() -> None:
    state = seated(table(), people=1)
    while to_move(state) != 0:  # the bots that bid before us
        state = run(state, Act(to_move(state), legal(state)[0], None, Actor.BOT))
    before = write_record(state.game)
    version = state.version
    state = run(state, Act(0, legal(state)[0], "0:mine"))
    replies = 0
    while state.status == TableStatus.PLAYING and to_move(state) != 0:
        after = run(state, Act(to_move(state), legal(state)[0], None, Actor.BOT))
        if not after.undoable(0):  # the trick complete, or the first card down
            break
        state, replies = after, replies + 1
    count = state.undoable(0)
    assert count == 1 + replies
    [event] = decide(state, Undo(0, "0:undo"), context())
    assert list(event.payload.versions) == list(range(version + 1, state.version + 1))
    undone = evolved(state, [event])
    assert write_record(undone.game) == before and undone.takebacks == 1
    assert undone.moves == state.moves + 1  # the driver sees the position changed


def test_nothing_is_taken_back_with_another_person_at_the_table_or_before_one_acts() -> None:
    two = seated(table(), people=2)
    refused(two, Undo(0, "0:u"), "no_undo")
    alone = seated(table(), people=1)
    refused(alone, Undo(0, "0:u"), "no_undo")  # nothing of ours yet this deal


# ---------------------------------------------------------------------- claims


def test_a_claim_proved_is_played_out_and_a_stale_one_refused() -> None:
    state = seated(table(options={"hand_sizes": [3]}))
    rng = random.Random(6)
    while state.game is not None and state.game.phase != Phase.PLAY:
        state = play(state, rng, moves=1)
    assert state.game is not None
    seat = to_move(state)
    line = []
    trial = state.game.copy()  # a line that plays the deal out, as the solver gives one
    while trial.phase == Phase.PLAY:
        card = str(trial.view(trial.to_move).legal_actions[0])
        line.append(card)
        trial.apply(card)
    made = decide(state, PlayOut(seat, f"{seat}:c", tuple(line), state.moves), context())
    assert made[0].kind.value == "claim" and made[0].client_id == f"{seat}:c"
    played = evolved(state, made)
    assert played.status == TableStatus.FINISHED
    assert all(m.by == Actor.CLAIM for m in played.deal_moves[-len(line) :])
    refused(state, PlayOut(seat, f"{seat}:c", tuple(line), state.moves - 1), "stale")


# ---------------------------------------------------------------------- rematches


def test_a_rematch_is_offered_accepted_by_the_bots_and_started_once_all_accept() -> None:
    over = play(seated(table(), people=2), random.Random(7))
    refused(play(seated(table(), people=2), random.Random(7), moves=2),
            AnswerRematch(0, True, "0:r"), "not_finished")  # fmt: skip
    refused(over, AnswerRematch(0, False, "0:r"), "no_rematch")
    offered = run(over, AnswerRematch(0, True, "0:r"))
    offer = offered.rematch
    assert offer is not None and offer.status == RematchStatus.OPEN
    assert offer.accepted == (0, 2, 3) and offer.until == NOW + over.settings.rematch_wait
    waiting = run(offered, AnswerRematch(1, True, "1:r"))  # complete: its table is to be made
    assert waiting.rematch is not None and waiting.rematch.status == RematchStatus.OPEN
    started = run(offered, AnswerRematch(1, True, "1:r", table="t2"))
    assert started.rematch is not None and started.rematch.status == RematchStatus.STARTED
    assert started.rematch.table == "t2"
    assert decide(started, AnswerRematch(1, True, "1:again"), context()) == []


def test_a_rematch_declined_or_lapsed_may_be_offered_again() -> None:
    offered = run(play(seated(table(), people=2), random.Random(8)), AnswerRematch(1, True, "1:r"))
    declined = run(offered, AnswerRematch(0, False, "0:no"))
    assert declined.rematch is not None and declined.rematch.status == RematchStatus.DECLINED
    assert declined.rematch.declined == 0
    assert offered.rematch is not None
    lapsed = run(offered, LapseRematch(offered.rematch.until))
    assert lapsed.rematch is not None and lapsed.rematch.status == RematchStatus.EXPIRED
    assert decide(offered, LapseRematch(offered.rematch.until - 1), context()) == []  # not it
    again = run(lapsed, AnswerRematch(0, True, "0:r2"), now=NOW + 500)
    assert again.rematch is not None and again.rematch.status == RematchStatus.OPEN
    # An offer whose time ran out while the server was down is offered afresh.
    afresh = run(offered, AnswerRematch(0, True, "0:r3"), now=offered.rematch.until + 1)
    assert afresh.rematch is not None and afresh.rematch.by == 0


def test_leaving_a_finished_table_declines_its_open_rematch() -> None:
    offered = run(play(seated(table(), people=2), random.Random(9)), AnswerRematch(0, True, "0:r"))
    left = run(offered, Leave(1))
    assert left.rematch is not None and left.rematch.status == RematchStatus.DECLINED
    assert left.rematch.declined == 1 and left.seats[1].name == "P1"  # still shown


def test_a_game_with_a_take_back_or_a_departure_is_never_rated() -> None:
    from backalley.server.store.writes import Status
    from backalley.server.table.persist import finished_rows

    def rated(state: TableState) -> bool:
        [status] = [row for row in finished_rows(state) if isinstance(row, Status)]
        assert status.summary is not None
        return bool(status.summary["rated"])

    plain = play(seated(table(), people=1), random.Random(10))
    assert rated(plain)
    assert not rated(replace(plain, takebacks=1))
    left = play(run(play(seated(table(), people=2), random.Random(11), moves=1), Leave(1)),
                random.Random(12))  # fmt: skip
    assert left.status == TableStatus.FINISHED and not rated(left)


# ---------------------------------------------------------------------- the log


def test_chat_and_a_due_deal_are_events_too() -> None:
    state = seated(table())
    said = decide(state, Say(0, "hello"), context())
    assert said[0].payload.data() == {"seat": 0, "name": "P0", "text": "hello"}
    assert decide(state, DealDue(), context()) == []  # nothing is due


def replayed(events: list[Event], initial: TableState) -> TableState:
    """The table rebuilt from its log as stored: each event's stored form read back."""
    stored = [Event(e.version, payload_of(e.kind.value, e.payload.data()), e.client_id)
              for e in events]  # fmt: skip
    return evolved(initial, stored)


def comparable(state: TableState) -> tuple[Any, ...]:
    """What live play and a replay must agree on (credentials aside: they live in rows)."""
    seats = tuple(replace(seat, token_hash=None, account=None) for seat in state.seats)
    game = write_record(state.game) if state.game else None
    return (state.version, seats, state.status, game, state.moves, state.deal_moves,
            state.takebacks, state.departures, state.rematch, state.last_trick,
            state.last_winner)  # fmt: skip


COMMANDS = st.sampled_from(["act", "act", "act", "act", "undo", "leave", "say", "rematch",
                            "decline", "bot"])  # fmt: skip


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 4), st.lists(COMMANDS, min_size=1, max_size=120))
def test_random_commands_keep_the_log_whole_and_its_replay_equal_to_live_play(
    seed: int, people: int, commands: list[str]
) -> None:
    """Whatever commands come, in whatever order: a refusal changes nothing, the events are
    numbered without a gap, and the table rebuilt from its log is the table live play made."""
    rng = random.Random(seed)
    initial = table(options={"hand_sizes": [2, 1]})
    state, log = initial, []
    for seat in range(4):
        command: Command = (TakeSeat(seat, f"P{seat}", digest(f"t{seat}"), f"a{seat}")
                            if seat < people else GiveToBot(seat, "easy"))  # fmt: skip
        made = decide(state, command, context(seed))
        state, log = evolved(state, made), log + made
    for n, name in enumerate(commands):
        seat = rng.randrange(4)
        game = state.game
        if name == "act" and game is not None and game.to_move is not None:
            seat = game.to_move
            choices = [str(a) for a in game.view(seat).legal_actions]
            action = rng.choice([*choices, "AS", "pass", "board"])  # some refused
            command = Act(seat, action, f"{seat}:{n}")
        elif name == "undo":
            command = Undo(seat, f"{seat}:{n}")
        elif name == "leave":
            command = Leave(seat)
        elif name == "say":
            command = Say(seat, "hi")
        elif name in ("rematch", "decline"):
            command = AnswerRematch(seat, name == "rematch", f"{seat}:{n}", table=f"r{n}")
        else:
            command = GiveToBot(seat, "easy")
        before = comparable(state)
        try:
            made = decide(state, command, context(seed + n))
        except (TableError, ProtocolError, IllegalAction):
            assert comparable(state) == before  # refused: nothing changed
            continue
        assert comparable(state) == before  # decided: still nothing changed
        state, log = evolved(state, made), log + made
    assert [e.version for e in log] == list(range(1, len(log) + 1))
    assert comparable(replayed(log, initial)) == comparable(state)


def test_a_node_taking_a_table_over_rebuilds_it_as_live_play_left_it() -> None:
    """What a restart or another node does with a table: load it from its stored rows (the
    log, and the seats' credentials from their own rows) — the table it makes is the one
    live play made, its secrets opening the same seats."""
    from backalley.server.store import StoredEvent, StoredTable
    from backalley.server.table import making

    rng = random.Random(13)
    state, log = table(), []
    for seat in range(4):
        command: Command = (TakeSeat(seat, f"P{seat}", digest(f"token {seat}"), f"a{seat}")
                            if seat < 2 else GiveToBot(seat, "easy"))  # fmt: skip
        made = decide(state, command, context())
        state, log = evolved(state, made), log + made
    for n in range(30):
        if state.status != TableStatus.PLAYING:
            break
        seat = to_move(state)
        made = decide(state, Act(seat, rng.choice(legal(state)), f"{seat}:{n}"), context(n))
        state, log = evolved(state, made), log + made
    stored = StoredTable(
        id=state.id, config={"options": {"hand_sizes": [2, 1]}, "pace": 0.0},
        host_hash=SECRETS.host, watch_hash=SECRETS.watch, status=state.status.value,
        invite_hashes=list(SECRETS.invites), token_hashes=[s.token_hash for s in state.seats],
        events=[StoredEvent(e.version, e.kind.value, e.payload.data(), e.client_id)
                for e in log],
        away_at=[None] * 4, account_ids=[s.account for s in state.seats],
    )  # fmt: skip
    taken = making.load(stored, None, None)  # type: ignore[arg-type]  # neither is used to load
    assert comparable(taken.state) == comparable(state)
    assert taken.state.seats == state.seats  # credentials included
    assert taken.state.seat_of("token 1") == 1 and taken.state.seat_of(None, "a0") == 0
    assert len(taken.log) == state.version
    assert taken.applied == {e.client_id: e.version for e in log if e.client_id is not None}
