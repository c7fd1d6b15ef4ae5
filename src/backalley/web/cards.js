// Cards as the page draws them: text and CSS, crisp at any size, named for screen readers.
import { t } from "./i18n.js";

export const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };
const RANKS = { T: "10", J: "J", Q: "Q", K: "K", A: "A" };

function suitName(suit) {
  return { S: t("spades"), H: t("hearts"), D: t("diamonds"), C: t("clubs") }[suit];
}

function rankName(rank) {
  const names = { J: t("jack"), Q: t("queen"), K: t("king"), A: t("ace"), T: "10" };
  return names[rank] ?? rank;
}

/** A card's name for a screen reader: "queen of spades", "Big Blooper". */
export function cardLabel(card) {
  if (card === "BJ") return t("Big Blooper");
  if (card === "LJ") return t("Little Blooper");
  return t("{rank} of {suit}", { rank: rankName(card[0]), suit: suitName(card[1]) });
}

export function suitLabel(suit) {
  return suit ? suitName(suit) : t("no trump");
}

/** A card element: a button when it can be chosen (its caller says when), a picture
 * otherwise; ``dim`` for a card that may not be played now. */
export function cardElement(card, { button = false, dim = false, small = false } = {}) {
  const element = document.createElement(button ? "button" : "span");
  const joker = card === "BJ" || card === "LJ";
  element.className = `card s-${joker ? "J" : card[1]}${small ? " small" : ""}${dim ? " dim" : ""}`;
  element.dataset.card = card;
  element.setAttribute("aria-label", cardLabel(card));
  if (button) element.type = "button";
  else element.setAttribute("role", "img");
  const rank = document.createElement("span");
  rank.className = "rank";
  rank.textContent = joker ? (card === "BJ" ? "B★" : "L★") : RANKS[card[0]] ?? card[0];
  const suit = document.createElement("span");
  suit.className = "suit";
  suit.textContent = joker ? "" : SUITS[card[1]];
  element.append(rank, suit);
  return element;
}

/** A bid or contract as a player reads it: "pass", "board" in their language, a number as
 * it is, "–" for none. */
export function bidLabel(bid) {
  if (bid === null || bid === undefined) return "–";
  if (bid === "pass") return t("pass");
  if (bid === "board") return t("board");
  return bid;
}

/** The trump's suit symbol, or "—" for no trump. */
export function trumpSymbol(trump) {
  return trump ? SUITS[trump] : "—";
}

/** A trick on the table: each card with who played it, in the order played. */
export function playedRow(trick, nameOf) {
  const row = document.createElement("ol");
  row.className = "played";
  for (const [seat, card] of trick) {
    const item = document.createElement("li");
    const by = document.createElement("span");
    by.className = "by";
    by.textContent = nameOf(seat);
    item.append(cardElement(card), by);
    row.append(item);
  }
  return row;
}
