"""``backalley play`` and ``backalley replay``, driven headlessly with Textual's pilot."""

from __future__ import annotations

import asyncio
import functools
import json
import os
from datetime import datetime
from pathlib import Path

import pytest
from textual.widgets import DataTable, OptionList, Select, Static

from backalley.cards import Card
from backalley.cli import main
from backalley.record import verify
from backalley.rules import PASS, Phase, Ruleset
from backalley.tui.app import PlayApp
from backalley.tui.replay import ReplayApp
from backalley.tui.saves import KEEP, keep, kept_saves, unfinished_saves
from backalley.tui.screens import (
    BidButton,
    CardButton,
    DealReviewScreen,
    SavedGamesScreen,
    StartScreen,
)
from backalley.tui.session import SEATING, Session, hand_order
from backalley.tui.table import TableScreen
from support import deal, game_of

pytestmark = pytest.mark.terminal

SIZE = (110, 34)


def run_async(test):
    """Run an async test on its own event loop (the pilot needs one)."""

    @functools.wraps(test)
    def wrapper(*args, **kwargs):
        return asyncio.run(test(*args, **kwargs))

    return wrapper


def short_session(tmp_path: Path, sizes=(3, 2, 1), seed: int = 3) -> Session:
    rules = Ruleset.preset("standard", hand_sizes=list(sizes))
    return Session.new(
        rules, seed=seed, partner="easy", opponents="medium", save_path=tmp_path / "game.json"
    )


async def settle(pilot, app: PlayApp, session: Session) -> None:
    """Wait until the person is to act, a deal's review is up, or the game is over."""
    for _ in range(500):
        await pilot.pause(0.01)
        if isinstance(app.screen, DealReviewScreen) or session.game.is_over:
            return
        if session.human_to_move and not app.workers:
            return
    raise AssertionError("the bots never handed the turn back")


def passing_bots(session: Session) -> Session:
    """The bots of ``session`` pass every bid and play their lowest legal card."""
    game = session.game
    session.bot_action = lambda: PASS if game.phase == Phase.BID else min(game.legal_actions())
    return session


def status(app: PlayApp) -> str:
    return str(app.screen.query_one("#status", Static).render())


def sheet_rows(app: PlayApp) -> int:
    return app.screen.query_one("#sheet", DataTable).row_count


@run_async
async def test_a_whole_short_game_by_keys_and_clicks(tmp_path):
    session = short_session(tmp_path)
    app = PlayApp(session, pace=0)
    refused = typed = clicked = reviews = typed_bids = clicked_bids = 0
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(200):
            await settle(pilot, app, session)
            game = session.game
            if isinstance(app.screen, DealReviewScreen):
                reviews += 1
                text = str(app.screen.query_one("#review-text", Static).render())
                assert "is over" in text and "contract" in text
                await pilot.press("enter")
                await pilot.pause()
                assert sheet_rows(app) == reviews  # a row a deal, as on paper
                continue
            if game.is_over:
                break
            view = game.view(session.seat)
            legal = set(view.legal_actions)
            if game.phase == Phase.BID:
                buttons = list(app.screen.query(BidButton))
                assert {b.bid for b in buttons} == legal
                if clicked_bids <= typed_bids:
                    await pilot.click(next(b for b in buttons if str(b.label) == "board"))
                    clicked_bids += 1
                else:
                    await pilot.press("b")  # board: always a legal bid
                    typed_bids += 1
                continue
            cards = list(app.screen.query(CardButton))
            assert [b.card for b in cards] == hand_order(list(view.hand), view.trump)
            assert {b.card for b in cards if not b.disabled} == legal  # the others dimmed
            illegal = [b.card for b in cards if b.disabled]
            if illegal and not refused:
                before = json.dumps(session.record())
                await pilot.press(*str(Card(illegal[0])).lower())
                await pilot.pause()
                assert any(rule in status(app) for rule in ("P2:", "P3:", "P4:"))
                assert json.dumps(session.record()) == before  # nothing changed
                refused += 1
                continue
            if typed <= clicked:
                await pilot.press(*str(min(legal)).lower())
                typed += 1
            else:
                await pilot.click(next(b for b in cards if not b.disabled))
                clicked += 1
        assert session.game.is_over
        assert "The game is over" in status(app)
        assert sheet_rows(app) == 3 and reviews == 3
    assert typed and clicked and typed_bids and clicked_bids
    assert verify(session.save_path.read_text()).exit_code == 0


@run_async
async def test_the_last_trick_key_works_on_our_turn_too(tmp_path):
    session = short_session(tmp_path, sizes=(5,))
    app = PlayApp(session, pace=0)
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(30):  # board, then the lowest card, until a trick is done and we are on
            await settle(pilot, app, session)
            game = session.game
            assert not isinstance(app.screen, DealReviewScreen) and not game.is_over
            if game.phase == Phase.PLAY and game.completed_tricks:
                break
            if game.phase == Phase.BID:
                await pilot.press("b")
            else:
                await pilot.press(*str(Card(min(game.legal_actions()))).lower())
        await settle(pilot, app, session)
        assert session.human_to_move and not app.screen.show_last
        await pilot.press("v")  # a key of its own, not a card being typed
        await pilot.pause()
        assert app.screen.show_last and "typed" not in status(app)


@run_async
async def test_the_hint_key_shows_the_expert_bots_choice(tmp_path):
    session = short_session(tmp_path)
    app = PlayApp(session, pace=0)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app, session)
        await pilot.press("question_mark")
        for _ in range(300):
            await pilot.pause(0.02)
            if "Hint:" in status(app):
                break
        assert "Hint: the expert bot would choose" in status(app)
        legal = {str(a) for a in session.game.view(session.seat).legal_actions}
        chosen = status(app).split("would choose ")[1].split()[0]
        assert chosen in legal


@run_async
async def test_save_quit_and_resume_to_the_same_position(tmp_path):
    session = short_session(tmp_path, sizes=(4, 3), seed=5)
    app = PlayApp(session, pace=0)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app, session)
        await pilot.press("b")
        await settle(pilot, app, session)
        if session.game.phase == Phase.PLAY and session.human_to_move:
            await pilot.press("enter")  # the first legal card has the focus
            await settle(pilot, app, session)
        position = session.game.view(session.seat)
        await pilot.press("escape")
    again = Session.resume(session.save_path)
    assert again.game.view(again.seat) == position
    assert (again.seat, again.partner, again.opponents) == (0, "easy", "medium")
    resumed = PlayApp(again, pace=0)
    async with resumed.run_test(size=SIZE) as pilot:
        await settle(pilot, resumed, again)
        assert len(again.game.current_deal.play) >= len(position.played)


@pytest.mark.parametrize(
    ("seating", "fragment"),
    [
        ({"seed": "x"}, "seat and seed must be whole numbers"),
        ({"seat": 7}, "there is no seat 7"),
        ({"partner": "godlike"}, "unknown bot level 'godlike'"),
    ],
)
def test_a_save_with_bad_seating_is_refused_in_one_line(tmp_path, capsys, seating, fragment):
    session = short_session(tmp_path)
    document = json.loads(session.save_path.read_text())
    document[SEATING].update(seating)
    session.save_path.write_text(json.dumps(document))
    assert main(["play", "--resume", str(session.save_path)]) == 2
    err = capsys.readouterr().err
    assert fragment in err and err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.parametrize(
    ("length", "sizes", "limit"),
    [
        ("short", (3, 2, 1), 3),
        ("longer", (7, 6, 5, 4, 3, 2, 1, 2, 3, 4, 5, 6, 7), 3),
        ("full", None, None),
    ],
)
@run_async
async def test_the_start_screen_starts_the_chosen_length(tmp_path, length, sizes, limit):
    app = PlayApp(new_game={"seed": 2, "save_path": tmp_path / "g.json"}, pace=0)
    async with app.run_test(size=SIZE) as pilot:
        assert isinstance(app.screen, StartScreen)
        lengths = app.screen.query_one("#length", Select)
        assert lengths.value == "short"  # the default: three deals of 3, 2 and 1 cards
        lengths.value = length
        await pilot.pause()
        note = str(app.screen.query_one("#length-note", Static).render())
        if limit is None:
            assert note == "If everyone passes, the deal is dealt again (D7)."
        else:
            assert "happened 3 times in a row, it is played with no contract (D7)" in note
        await pilot.click("#start")
        await pilot.pause()
        assert app.session is not None
        rules = app.session.game.rules
        assert rules.name == "standard" and rules.all_pass_limit == limit
        assert rules.hand_sizes == (sizes or Ruleset.preset("standard").hand_sizes)
        assert app.session.partner == "medium" and (tmp_path / "g.json").exists()


@run_async
async def test_the_lengths_say_what_they_are_for_each_preset(tmp_path):
    app = PlayApp(new_game={"save_path": tmp_path / "g.json"}, pace=0)
    async with app.run_test(size=SIZE) as pilot:
        labels = {value: str(prompt) for prompt, value in app.screen.lengths("standard")}
        assert labels == {
            "short": "short game (3, 2 and 1 cards)",
            "longer": "longer game (up to 7 cards, 13 deals)",
            "full": "full game (up to 13 cards, 25 deals)",
        }
        app.screen.query_one("#preset", Select).value = "classic"
        await pilot.pause()
        length = app.screen.query_one("#length", Select)
        assert length.value == "short"  # kept across the change of preset
        length.value = "longer"
        await pilot.pause()
        shown = str(length.query_one("#label", Static).render())
        assert shown == "longer game (up to 7 cards, 14 deals)"  # relabelled for classic
        note = str(app.screen.query_one("#length-note", Static).render())
        assert note == "If everyone passes, the deal is played with no contract (D7)."


@run_async
async def test_a_terminal_too_small_asks_for_room(tmp_path):
    app = PlayApp(short_session(tmp_path), pace=0)
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.pause()
        assert "too small" in str(app.screen.query_one("#too-small", Static).render())
        await pilot.resize_terminal(*SIZE)
        await pilot.pause()
        assert not app.screen.query("#too-small")
        assert app.screen.query("#hand")


@run_async
async def test_replay_steps_through_deals_and_cards(tmp_path):
    session = short_session(tmp_path)
    game = session.game
    while not game.is_over:
        game.apply(game.legal_actions()[-1])
    app = ReplayApp(game)
    async with app.run_test(size=SIZE) as pilot:
        where = app.query_one("#where", Static)
        assert "deal 1 of 3 · card 0 of 12" in str(where.render())
        await pilot.press("right", "right")
        assert "card 2 of 12" in str(where.render())
        await pilot.press("left")
        assert "card 1 of 12" in str(where.render())
        await pilot.press("shift+right")
        assert "card 4 of 12" in str(where.render())  # the second trick
        await pilot.press("shift+right", "shift+left", "shift+left")
        assert "card 0 of 12" in str(where.render())
        await pilot.press("down")
        assert "deal 2 of 3 · card 0 of 8" in str(where.render())
        await pilot.press("end")
        assert "card 8 of 8" in str(where.render())
        text = str(app.query_one("#position", Static).render())
        assert "seat 0" in text and "seat 3" in text and "contract" in text


@pytest.mark.parametrize("screen", ["start", "saved", "bidding", "play", "review", "final"])
def test_snapshots(snap_compare, tmp_path, screen):
    if screen == "saved":  # a game left unfinished, saved at a set time
        saved = unfinished_save(tmp_path, "g.json").save_path
        when = datetime(2025, 5, 12, 14, 3).timestamp()
        os.utime(saved, (when, when))
    session = None if screen in ("start", "saved") else short_session(tmp_path, seed=3)
    app = PlayApp(session, new_game={"seed": 1, "save_path": tmp_path / "g.json"}, pace=0)

    async def act(pilot) -> None:
        if isinstance(app.screen, DealReviewScreen):
            await pilot.press("enter")
        elif session.game.phase == Phase.BID:
            await pilot.press("b")
        else:
            await pilot.click(next(b for b in app.screen.query(CardButton) if not b.disabled))
        await settle(pilot, app, session)

    async def reach(pilot) -> None:
        if session is None:
            return
        await settle(pilot, app, session)
        if screen == "bidding":
            return
        await act(pilot)
        if screen == "play":
            return
        while not isinstance(app.screen, DealReviewScreen):
            await act(pilot)
        if screen == "review":
            return
        while not session.game.is_over or isinstance(app.screen, DealReviewScreen):
            await act(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=reach)


def built_session(tmp_path: Path, hands: list[str]) -> Session:
    """A one-card deal dealt by hand (hearts trump), the person in seat 0 to lead."""
    game = game_of(hand_sizes=[1])
    deal(game, 3, hands, top="2H")
    return Session(game, 0, "easy", "easy", tmp_path / "g.json", 0)


@run_async
async def test_a_claim_the_solver_proves_completes_the_deal(tmp_path):
    session = built_session(tmp_path, ["BJ", "2S", "3S", "4S"])
    app = PlayApp(session, pace=0)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app, session)
        await pilot.press("b")  # board: seat 0 leads
        await settle(pilot, app, session)
        await pilot.press("exclamation_mark")
        await settle(pilot, app, session)
        assert session.game.is_over and session.game.deals[0].tricks == [1, 0]
    assert verify(session.save_path.read_text()).exit_code == 0


@run_async
async def test_a_claim_that_does_not_hold_is_refused_and_changes_nothing(tmp_path):
    session = built_session(tmp_path, ["2S", "AS", "3S", "4S"])
    app = PlayApp(session, pace=0)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app, session)
        await pilot.press("b")
        await settle(pilot, app, session)
        before = json.dumps(session.record())
        await pilot.press("exclamation_mark")
        await pilot.pause()
        assert "Claim refused" in status(app)
        assert json.dumps(session.record()) == before


# ---------------------------------------------------------------- the arrows


def focused_name(app: PlayApp) -> str | None:
    return getattr(app.focused, "name", None)


@run_async
async def test_the_arrows_move_along_the_bids_and_stop_at_the_ends(tmp_path):
    session = short_session(tmp_path, sizes=(3,))
    app = PlayApp(session, pace=0)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app, session)
        assert session.game.phase == Phase.BID
        await pilot.pause()
        assert [b.name for b in app.screen.query(BidButton)] == ["pass", "1", "2", "board"]
        assert focused_name(app) == "pass"
        await pilot.press("left")  # the first: it stays
        assert focused_name(app) == "pass"
        await pilot.press("right", "right")
        assert focused_name(app) == "2"
        await pilot.press("end", "right")  # the last: it stays
        assert focused_name(app) == "board"
        await pilot.press("home", "right", "right", "enter")
        await settle(pilot, app, session)
    mine = dict(session.game.view(0).bids)[0]
    assert str(mine) == "2"


@run_async
async def test_the_arrows_skip_the_cards_that_may_not_be_played(tmp_path):
    # seat 0 leads; hearts are trumps and none is played yet, so AH may not lead (P3)
    game = game_of(hand_sizes=[3])
    deal(game, 3, ["AH 2S 3D", "4S 5S 6S", "4D 5D 6D", "4C 5C 6C"], top="2H")
    session = passing_bots(Session(game, 0, "easy", "easy", tmp_path / "g.json", 0))
    app = PlayApp(session, pace=0)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app, session)
        await pilot.press("1")  # the bots pass: seat 0 leads, with no free trump lead
        await settle(pilot, app, session)
        await pilot.pause()
        cards = [(b.name, b.disabled) for b in app.screen.query(CardButton)]
        assert cards == [("AH", True), ("2S", False), ("3D", False)]
        assert focused_name(app) == "2S"
        await pilot.press("left")  # AH is dimmed: 2S is the first card that may go
        assert focused_name(app) == "2S"
        await pilot.press("right", "enter")
        await pilot.pause()
    assert game.current_deal.play[0] == Card("3D")


# ---------------------------------------------------------------- saves


def unfinished_save(tmp_path: Path, name: str = "game.json") -> Session:
    """A four-deal game saved in ``name`` a few cards in, the person to play."""
    rules = Ruleset.preset("standard", hand_sizes=[4, 3, 2, 1])
    session = Session.new(
        rules, seed=8, partner="hard", opponents="easy", save_path=tmp_path / name
    )
    game = session.game
    while not (session.human_to_move and game.phase == Phase.PLAY and game.trick):
        session.act(game.legal_actions()[-1])
    return session


def saved_games(app: PlayApp) -> OptionList:
    assert isinstance(app.screen, SavedGamesScreen)
    return app.screen.query_one("#saved-games", OptionList)


@run_async
async def test_a_new_game_keeps_the_unfinished_save_and_offers_it_again(tmp_path):
    old = unfinished_save(tmp_path)
    saved = old.save_path.read_text()
    app = PlayApp(new_game={"seed": 2, "save_path": old.save_path}, pace=0)
    async with app.run_test(size=SIZE) as pilot:
        offers = saved_games(app)
        first = str(offers.get_option_at_index(0).prompt)
        assert first.startswith("Resume the game saved ")
        assert "standard · hand sizes 4, 3, 2, 1 · deal 1 of 4, 4 cards" in first
        assert "us 0 · them 0" in first and "game.json" in first
        await pilot.press("down", "enter")  # the last choice: a new game
        await pilot.pause()
        assert old.save_path.read_text() == saved  # not yet touched: the start screen asks
        await pilot.click("#start")
        await pilot.pause()
        assert app.session is not None and app.session.game.rules.hand_sizes == (3, 2, 1)
    kept = tmp_path / "game.1.json"
    assert kept.read_text() == saved  # the old game, whole
    assert json.loads(old.save_path.read_text())["options"]["hand_sizes"] == [3, 2, 1]
    again = PlayApp(new_game={"save_path": old.save_path}, pace=0)
    async with again.run_test(size=SIZE):
        offers = saved_games(again)
        prompts = [str(offers.get_option_at_index(i).prompt) for i in range(offers.option_count)]
        assert len(prompts) == 3  # the new game, the kept one, and a new game again
        assert "short game (3, 2 and 1 cards)" in prompts[0] and "game.json" in prompts[0]
        assert "hand sizes 4, 3, 2, 1" in prompts[1] and "game.1.json" in prompts[1]


@run_async
async def test_resume_offered_at_the_start_goes_on_with_the_same_deal_and_hand(tmp_path):
    old = unfinished_save(tmp_path)
    position = old.game.view(old.seat)
    app = PlayApp(new_game={"save_path": old.save_path}, pace=0)
    async with app.run_test(size=SIZE) as pilot:
        saved_games(app)
        await pilot.press("enter")  # the first choice, highlighted: the saved game
        await pilot.pause()
        assert isinstance(app.screen, TableScreen)
        session = app.session
        assert session is not None and session.save_path == old.save_path
        assert session.game.view(session.seat) == position  # the same deal, bids and hand
        assert (session.partner, session.opponents) == ("hard", "easy")
        shown = [b.card for b in app.screen.query(CardButton)]
        assert shown == hand_order(list(position.hand), position.trump)
    assert not (tmp_path / "game.1.json").exists()  # resumed in place, nothing moved


@run_async
async def test_a_save_chosen_on_the_command_line_is_not_written_over_silently(tmp_path):
    old = unfinished_save(tmp_path, "mine.json")
    saved = old.save_path.read_text()
    rules = Ruleset.preset("standard", hand_sizes=[2, 1])
    app = PlayApp(new_game={"save_path": old.save_path, "rules": rules, "seed": 1}, pace=0)
    async with app.run_test(size=SIZE) as pilot:
        saved_games(app)
        assert old.save_path.read_text() == saved
        await pilot.press("down", "enter")  # the game the command line asked for
        await pilot.pause()
        assert isinstance(app.screen, TableScreen)
    assert (tmp_path / "mine.1.json").read_text() == saved
    assert json.loads(old.save_path.read_text())["options"]["hand_sizes"] == [2, 1]


def test_only_the_newest_saves_are_kept(tmp_path):
    path = tmp_path / "current-game.json"
    for number in range(1, KEEP + 3):
        path.write_text(f"game {number}")
        os.utime(path, (number * 100, number * 100))
        assert keep(path) == tmp_path / f"current-game.{number}.json"
    assert not path.exists() and keep(path) is None
    kept = kept_saves(path)
    assert [p.read_text() for p in kept] == [f"game {n}" for n in range(KEEP + 2, 2, -1)]


def test_resume_with_another_save_file_keeps_what_that_file_held(tmp_path, monkeypatch):
    started = []
    monkeypatch.setattr("backalley.tui.app.run_play", lambda *args: started.append(args))
    old = unfinished_save(tmp_path, "a.json")
    other = unfinished_save(tmp_path, "b.json")
    held = other.save_path.read_text()
    assert main(["play", "--resume", str(old.save_path), "--save", str(other.save_path)]) == 0
    session, _new_game, _pace = started[0]
    assert session.save_path == other.save_path
    assert (tmp_path / "b.1.json").read_text() == held


@pytest.mark.parametrize(
    ("arguments", "sizes", "limit"),
    [
        (["--length", "short"], (3, 2, 1), 3),
        (["--length", "longer", "--option", "all_pass_limit=null"], None, None),
        (["--length", "full"], Ruleset.preset("standard").hand_sizes, None),
        (["--option", "hand_sizes=2,1"], (2, 1), None),
    ],
)
def test_the_command_line_chooses_the_length_and_its_all_pass_limit(
    tmp_path, monkeypatch, arguments, sizes, limit
):
    started = []
    monkeypatch.setattr("backalley.tui.app.run_play", lambda *args: started.append(args))
    assert main(["play", "--save", str(tmp_path / "g.json"), *arguments]) == 0
    session, new_game, _pace = started[0]
    rules = new_game["rules"]
    assert session is None and rules.all_pass_limit == limit
    assert rules.hand_sizes == (sizes or (7, 6, 5, 4, 3, 2, 1, 2, 3, 4, 5, 6, 7))
    assert not (tmp_path / "g.json").exists()  # the app deals it, after asking about saves


def test_a_length_and_hand_sizes_together_are_refused(capsys):
    assert main(["play", "--length", "short", "--option", "hand_sizes=2,1"]) == 2
    assert "--length and --option hand_sizes" in capsys.readouterr().err


# ---------------------------------------------------------------- the log


def log_lines(app: PlayApp) -> list[str]:
    """The log as the table shows it (under a deal's review too)."""
    table = next(s for s in app.screen_stack if isinstance(s, TableScreen))
    return str(table.query_one("#log", Static).render()).splitlines()


@run_async
async def test_the_log_says_who_dealt_who_bids_first_and_who_won_the_trick(tmp_path):
    session = passing_bots(built_session(tmp_path, ["2S", "AS", "3S", "4S"]))
    app = PlayApp(session, pace=0)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app, session)
        assert log_lines(app) == ["deal 1, 1 card, dealt by East (easy)", "You bid first"]
        await pilot.press("b")
        await settle(pilot, app, session)
        assert log_lines(app)[-1] == "You lead"
        await pilot.press("2", "s")
        await settle(pilot, app, session)
        assert session.game.is_over
        assert log_lines(app)[-1] == "trick won by West (easy)"  # AS, the engine says


@run_async
async def test_deals_thrown_in_are_logged_with_their_reason_and_count(tmp_path):
    rules = Ruleset.preset("standard", hand_sizes=[1], all_pass_limit=3)
    session = passing_bots(
        Session.new(rules, seed=4, partner="easy", opponents="easy", save_path=tmp_path / "g")
    )
    app = PlayApp(session, pace=0)
    expected = [
        ["deal thrown in: everyone passed (D7)"],
        ["deal thrown in: everyone passed again, 2 times in a row (D7)"],
        [
            "deal thrown in: everyone passed again, 3 times in a row (D7)",
            "if everyone passes again, the deal is played with no contract (D7)",
        ],
    ]
    async with app.run_test(size=SIZE) as pilot:
        for number, said in enumerate(expected, start=2):
            await settle(pilot, app, session)
            assert session.game.phase == Phase.BID and session.human_to_move
            await pilot.press("p")
            await settle(pilot, app, session)
            lines = app.screen.news
            start = lines.index(said[0])
            assert lines[start + len(said)].startswith(f"deal {number}, 1 card, dealt by ")
        await pilot.press("p")  # a fourth time: D7 plays it
        await settle(pilot, app, session)
        assert session.game.phase == Phase.PLAY and len(session.game.deals) == 4
        assert "everyone passed: the deal is played with no contract (D7)" in log_lines(app)


@run_async
async def test_a_renig_is_logged_with_its_count_when_the_table_opens(tmp_path):
    game = game_of("classic", hand_sizes=[7])
    renig = ["2S 5S 9D 3D 4C 6C 8C", "AS KS QS JS TS 9S 8S", "AD KD QD JD TD 8D 7D"]
    for _ in range(2):  # seat 0 holds no honour and no trump (hearts): thrown in (D6)
        deal(game, 0, [*renig, "AC KC QC JC TC 9C 7C"], top="2H")
    deal(game, 0, ["AH 2S 5S 9D 3D 4C 6C", *renig[1:], "AC KC QC JC TC 9C 7C"], top="2H")
    session = Session(game, 0, "easy", "easy", tmp_path / "g.json", 0)
    app = PlayApp(session, pace=0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.screen.news[:5] == [
            "deal 1, 7 cards, dealt by you",
            "deal thrown in: renig (D6)",
            "deal 2, 7 cards, dealt by you",
            "deal thrown in: renig again, 2 times in a row (D6)",
            "deal 3, 7 cards, dealt by you",
        ]
        assert app.screen.news[5] == "West (easy) bids first"


def test_a_save_that_cannot_be_read_is_not_offered_but_kept(tmp_path):
    path = tmp_path / "current-game.json"
    path.write_text("{not a record")
    assert unfinished_saves(path) == []
    assert keep(path) == tmp_path / "current-game.1.json"
    assert (tmp_path / "current-game.1.json").read_text() == "{not a record"


@run_async
async def test_thirteen_cards_and_every_bid_fit_in_the_smallest_terminal(tmp_path):
    session = short_session(tmp_path, sizes=(13,), seed=3)
    app = PlayApp(session, pace=0)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app, session)
        await pilot.pause()
        cards, bids = list(app.screen.query(CardButton)), list(app.screen.query(BidButton))
        assert len(cards) == 13 and [b.name for b in bids][-2:] == ["12", "board"]
        for button in [*cards, *bids]:
            assert button.region.right <= 80 and button.region.bottom <= 24, button.name


@run_async
async def test_while_the_solver_is_prepared_strong_bots_play_as_medium_and_hints_wait(tmp_path):
    """``backalley play`` starts at once on a machine that has never compiled the solver:
    until it is ready, a hard bot's move is the medium bot's (said once in the status), and
    a hint, a claim and a deal's review say that the solver is still being prepared."""
    from backalley.tui import session as sessions

    sessions.solver_ready[0] = lambda: False
    try:
        await _play_while_the_solver_is_prepared(tmp_path)
    finally:
        sessions.solver_ready[0] = sessions.always_ready


async def _play_while_the_solver_is_prepared(tmp_path: Path) -> None:
    rules = Ruleset.preset("standard", hand_sizes=[2, 1])
    session = Session.new(rules, seed=5, partner="hard", opponents="hard",
                          save_path=tmp_path / "game.json")  # fmt: skip
    app = PlayApp(session, pace=0)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app, session)
        if session.below_level:  # a bot moved first: it said why it plays as it does
            assert "the strong bots play as medium ones meanwhile" in status(app)
        await pilot.press("question_mark")
        await pilot.pause()
        assert "ask again in a few seconds" in status(app)
        assert session.human_to_move  # nothing was asked of the solver
        while not isinstance(app.screen, DealReviewScreen):
            if session.human_to_move:
                game = session.game
                keys = (
                    ["b"]
                    if game.phase == Phase.BID
                    else [*str(Card(min(game.legal_actions()))).lower()]
                )
                await pilot.press(*keys)
            await settle(pilot, app, session)
        review = str(app.screen.query_one("#review-text", Static).render())
        assert "the solver was still being prepared" in review
    assert session.below_level >= 2  # the bots' moves, every one the stand-in's
