"""The rule book: the text of every rule, by id, for ``backalley rules --explain ID``.

Each rule of the game has an id (``C1`` … ``E3``) that the engine cites when it refuses an
action; this module holds the id's short title and its full text, in English, marked with
:func:`~backalley.cards.N_` so that Babel extracts them into the message catalogs and they are
shown in the reader's language. ``docs/rules.md`` carries the same texts word for word (a test
compares them), with the option table, the order of refusals and worked examples around them.

>>> RULES["P3"].title
'Leading trump'
>>> [title for title, ids in SECTIONS][0], SECTIONS[0][1]
('Cards and seats', ('C1', 'C2', 'C3', 'C4'))
"""

from __future__ import annotations

from dataclasses import dataclass

from backalley.cards import N_  # the marker the engine and rules use too


@dataclass(frozen=True)
class Rule:
    """One rule of the rule book: its id, a short title and its text (English, for gettext)."""

    id: str
    title: str
    text: str


_RULES = (
    # 1. Cards and seats
    Rule(
        "C1",
        N_("The pack"),
        N_(
            "The game uses 54 cards: the 52 of an ordinary pack, A K Q J 10 9 8 7 6 5 4 3 2 in "
            "each of spades, hearts, diamonds and clubs, and two jokers that can be told apart, "
            "the Big Blooper (the big joker, BJ) and the Little Blooper (the little joker, LJ)."
        ),
    ),
    Rule(
        "C2",
        N_("Card notation"),
        N_(
            "A card is written as its rank, one of A K Q J T 9 8 7 6 5 4 3 2, then its suit, "
            "one of S H D C: AS, TD, 2C. The jokers are BJ and LJ. On input 10 may stand for T "
            "and letters may be in either case (10h, as and bj are read as TH, AS and BJ); "
            "output always uses the canonical form. Anything else is not a card."
        ),
    ),
    Rule(
        "C3",
        N_("Trumps and jokers"),
        N_(
            "When the deal has a trump suit, both jokers belong to it and the trumps rank BJ, "
            "LJ, A, K, Q and so on down to 2. A joker is a trump for every rule: following "
            "suit, leading, breaking trump and renig. Every other suit ranks A, K, Q and so on "
            "down to 2. In a deal with no trump suit the jokers belong to no suit, except a "
            "lone joker (D8), which is that deal's one trump."
        ),
    ),
    Rule(
        "C4",
        N_("Seats and sides"),
        N_(
            "Four players sit in seats 0 to 3, numbered clockwise, and partners sit opposite: "
            "seats 0 and 2 are side 0, seats 1 and 3 are side 1. The seat left of a seat is "
            "the next one clockwise. In classic3 there are three seats, 0 to 2, and no "
            "partnerships: each player is a side alone, numbered as their seat."
        ),
    ),
    # 2. The deals
    Rule(
        "D1",
        N_("The dealer"),
        N_(
            "The first dealer is chosen at random. After every deal the deal passes to the next "
            "seat clockwise, also after a deal thrown in because everyone passed (D7), unless "
            "all_pass is redeal_same: then the same dealer deals again. After a renig (D6) the "
            "same dealer deals again."
        ),
    ),
    Rule(
        "D2",
        N_("Hand sizes"),
        N_(
            "Every counted deal has its hand size. standard plays 25 deals: 13 down to 1, then "
            "2 back up to 13. classic plays 26 deals: 1 up to 13, then 13 down to 1. classic3 "
            "plays 24 deals: 2 up to 13, then 13 down to 2. bab plays 13 deals: 12, 10, 8, 6, "
            "4, 2, 1, then 3, 5, 7, 9, 11, 13. The option hand_sizes replaces the preset's "
            "list, for a shorter game such as 7 down to 1 and back up to 7. A deal that is "
            "thrown in does not count: it is dealt again with the same hand size."
        ),
    ),
    Rule(
        "D3",
        N_("Dealing and the turn-up"),
        N_(
            "The dealer shuffles all 54 cards and deals n cards to each player, n being the "
            "hand size. The cards left over are the stock, face down. Its top card, the "
            "turn-up, is turned face up for all to see, and its suit is trump; D4, D5 and D8 "
            "say what happens when it is a joker."
        ),
    ),
    Rule(
        "D4",
        N_("Joker turned up: no trump"),
        N_(
            "With joker_turnup set to no_trump, a joker turned up means the deal has no trump "
            "suit. If a player holds the other joker, that player shows it, discards it face "
            "up and draws the next card of the stock, the one under the turn-up, which only "
            "that player sees. Either way no joker is in play in that deal."
        ),
    ),
    Rule(
        "D5",
        N_("Joker turned up: turn again"),
        N_(
            "With joker_turnup set to turn_again, a joker turned up is set aside and the next "
            "card of the stock is turned, and so on until a card that is not a joker comes "
            "up: its suit is trump. If the stock holds nothing but jokers, the deal has no "
            "trump suit."
        ),
    ),
    Rule(
        "D6",
        N_("Renig"),
        N_(
            "When renig_min_hand is a number and the hand size is at least that number, a deal "
            "in which some player holds no ace, king, queen or jack, of any suit, and no trump "
            "(jokers count as trumps) is thrown in, and the same dealer deals again. The check "
            "comes after D4 or D5 and is made automatically, without a player calling it (an "
            "interpretation). There is no renig in a tie-breaker."
        ),
    ),
    Rule(
        "D7",
        N_("All pass"),
        N_(
            "When every player passes (B1), all_pass decides. With redeal the deal is thrown in "
            "and the next dealer deals again; with redeal_same it is thrown in and the same "
            "dealer deals again. With play the deal is played out and no side has a contract. "
            "With all_pass_limit set to a number k and all_pass redeal or redeal_same, once k "
            "deals in a row at the same hand size have been thrown in because everyone passed, "
            "the next deal at that size in which everyone passes is played out as under play; a "
            "deal played out, or a renig, ends the run."
        ),
    ),
    Rule(
        "D8",
        N_("Joker turned up: lone joker"),
        N_(
            "With joker_turnup set to lone_joker, a joker turned up stays face up and out of "
            "play, and nobody exchanges anything: the deal has no trump suit, and the other "
            "joker is its lone joker, the one trump of the deal wherever it lies, for every "
            "rule (following suit, leading, the Bloopers, winning a trick and renig), though "
            "for a rainbow (S5) it is of no suit. "
            "If the lone joker is in the stock, the deal has no trump at all. By P3 it may be "
            "led only once a trump has been played, which only it can be, or as its holder's "
            "last card; it may be played whenever its holder cannot follow suit."
        ),
    ),
    # 3. Bidding
    Rule(
        "B1",
        N_("Bids"),
        N_(
            "Bidding starts left of the dealer and goes clockwise, and each player bids exactly "
            "once: pass (which counts 0, and may be written 0), a number of tricks from 1 up to "
            "the limit, or board, which says this player's side will take every trick. With "
            "max_bid set to hand_minus_one the limit is n minus 1, so that with a single card "
            "only pass and board remain; with max_bid set to hand it is n; with hand_cap_12 it "
            "is n but never more than 12, so that a 13-card deal allows 1 to 12."
        ),
    ),
    Rule(
        "B2",
        N_("Open bidding"),
        N_(
            "A bid need not be higher than the bids before it, and every bid is made openly, "
            "for all players to see."
        ),
    ),
    Rule(
        "B3",
        N_("Contracts"),
        N_(
            "A side's contract is the sum of the numbers its players bid. If one of its players "
            "bid board, the side's contract is board and the partner's number no longer counts. "
            "A side whose players all passed has no contract. With contract_cap true, a sum "
            "above the hand size n is cut to n and stays a numeric contract: bids of 7 and 8 on "
            "12 cards make a contract of 12."
        ),
    ),
    Rule(
        "B4",
        N_("Board level"),
        N_(
            "Every board bid raises the deal's board level by one, whichever side makes it: the "
            "first board bid makes a board (level 1), the second a double board (level 2), the "
            "third a triple board and the fourth a quadruple board (level 4). bab-online's "
            "players call them B, 2B, 3B and 4B, and a bab record may spell them so, in either "
            "case, each only as the board bid of its level."
        ),
    ),
    # 4. Play
    Rule(
        "P1",
        N_("The first lead"),
        N_(
            "The player with the highest bid leads to the first trick, and board is higher "
            "than any number. When two players bid the same highest number, the one who bid "
            "first leads. When several players bid board, board_tie_leader decides: with last "
            "the last of them leads, with first the first. If everyone passed and the deal is "
            "played (D7), the player left of the dealer leads."
        ),
    ),
    Rule(
        "P2",
        N_("Following suit"),
        N_(
            "Players play in turn, clockwise, each one card from their own hand. A player who "
            "can follow the suit led must do so; a player who cannot may play any card. When "
            "a trump or a joker is led, following suit means playing a trump, and the jokers "
            "are trumps."
        ),
    ),
    Rule(
        "P3",
        N_("Leading trump"),
        N_(
            "A player may lead a trump only if (a) a trump was played, by anyone, in an earlier "
            "trick of this deal, (b) the player holds nothing but trumps, or (c) the board "
            "exception allows it. board_leads_trump sets that exception: with bidder a player "
            "who bid board may lead trump, with side any player of a side that bid board may, "
            "with off nobody may. In a deal with no trump suit any card may be led, except a "
            "lone joker (D8)."
        ),
    ),
    Rule(
        "P4",
        N_("Bloopers"),
        N_(
            "With blooper_forces true, a player who holds a trump must play their highest trump "
            "when BJ is led, and their lowest trump when LJ is led; a player with no trump may "
            "play any card. With big_opponents only BJ forces, and only the leader's opponents: "
            "each of them who holds a trump must play their highest, while the leader's partner "
            "only follows suit (P2), and an LJ lead is an ordinary trump lead. A card that "
            "breaks this rule is refused as P4, even when it also fails to follow suit. With "
            "blooper_forces false, a Blooper lead is an ordinary trump lead."
        ),
    ),
    Rule(
        "P5",
        N_("Winning a trick"),
        N_(
            "The highest trump in a trick wins it; a trick with no trump in it is won by the "
            "highest card of the suit led. The winner of a trick leads to the next one."
        ),
    ),
    Rule(
        "P6",
        N_("The end of the deal"),
        N_(
            "A trick is complete when every player in the deal has played one card to it, and "
            "the deal ends when the hands are empty. Tricks are counted for each side, not for "
            "each player."
        ),
    ),
    # 5. Scoring
    Rule(
        "S1",
        N_("Numeric contracts"),
        N_(
            "A side with a contract of b tricks, b at least 1, that takes t tricks scores p × b "
            "plus 1 for each trick over the contract, p × b + (t − b), when t is at least b, "
            "and loses p × b when t is less, p being contract_points: 5, or 10 in bab. With p = "
            "5 a contract of 3 scores 17 with 5 tricks and loses 15 with 2."
        ),
    ),
    Rule(
        "S2",
        N_("No contract"),
        N_(
            "A side with no contract, because every one of its players passed, scores 0 for the "
            "deal with zero_contract nothing, however many tricks it takes; with zero_contract "
            "tricks it scores 1 for each trick it takes, and cannot be set."
        ),
    ),
    Rule(
        "S3",
        N_("Board"),
        N_(
            "A side whose contract is board scores 10 × n × m when it takes all n tricks and "
            "loses 10 × n × m when it does not, where m is the deal's board level (B4) with "
            "board_multiplier true, 1 with board_multiplier false, and with doubling 2 to the "
            "power of the highest level among the side's own board bids, so 2, 4, 8 or 16, each "
            "side its own. A single board that fails on 5 cards loses 50 under true. Under "
            "doubling, on a 13-card deal a side whose two bids are a level-1 board and a pass "
            "scores as a numeric contract of 13 (S1), with no m: bab-online's own arithmetic."
        ),
    ),
    Rule(
        "S4",
        N_("The score sheet"),
        N_(
            "Every side is scored for every deal that is played, rainbows (S5) included, and "
            "the points add up over the game. A deal that is thrown in scores nothing, and so "
            "does a tie-breaker."
        ),
    ),
    Rule(
        "S5",
        N_("Rainbows"),
        N_(
            "When rainbow_hand is a hand size and a deal of that size is played, each player "
            "whose hand at the end of the bidding holds a card of each of the four suits has a "
            "rainbow, which adds 10 to the side's points for the deal, whether the side made "
            "its contract, was set or had none. A joker counts as a card of the trump suit; in "
            "a deal with no trump suit it counts as no suit."
        ),
    ),
    # 6. End of the game
    Rule(
        "E1",
        N_("The winner"),
        N_(
            "After the last counted deal (D2) the side with the most points wins. Without "
            "tie_breaker, a tie for the most points is a draw."
        ),
    ),
    Rule(
        "E2",
        N_("Tie-breaker"),
        N_(
            "With tie_breaker and four players, a tie is settled by one more deal. The next "
            "dealer deals 13 cards each and the trump is turned up as usual; there is no "
            "bidding, and the player left of the dealer leads. Trump may be led only as P3 "
            "allows, with no board exception. The first side to take 7 tricks wins the game, "
            "and play stops there."
        ),
    ),
    Rule(
        "E3",
        N_("Three-player tie-breaker"),
        N_(
            "In classic3 with tie_breaker (an interpretation: the sources are silent): when two "
            "players tie for the most points, the next dealer, counting all three seats, deals "
            "13 cards to each of them and none to the third, who sits out; the first tied "
            "player clockwise after the dealer leads, tricks have two cards, and the first to "
            "7 tricks wins, play stopping there. When all three tie, each gets 13 cards, the "
            "player left of the dealer leads, all 13 tricks are played and the most tricks "
            "wins; if two tie for the most, they play the two-player tie-breaker, dealt by "
            "the next dealer."
        ),
    ),
)

#: Every rule, in rule-book order, keyed by its id.
RULES: dict[str, Rule] = {rule.id: rule for rule in _RULES}

#: The rule book's sections, in order: a title and the ids of its rules.
SECTIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (N_("Cards and seats"), ("C1", "C2", "C3", "C4")),
    (N_("The deals"), ("D1", "D2", "D3", "D4", "D5", "D6", "D7", "D8")),
    (N_("Bidding"), ("B1", "B2", "B3", "B4")),
    (N_("Play"), ("P1", "P2", "P3", "P4", "P5", "P6")),
    (N_("Scoring"), ("S1", "S2", "S3", "S4", "S5")),
    (N_("End of the game"), ("E1", "E2", "E3")),
)
