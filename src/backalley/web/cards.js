// Cards, bids and players as the page draws and names them. A card's name holds what it shows
// ("K♠, king of spades"), so that a voice-control user can say what they see.
import { backSVG, faceSVG } from "./cardart.js";
import { element } from "./dom.js";
import { t } from "./i18n.js";

const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };
const SHOWN = { T: "10" };

function suitName(suit) {
  return { S: t("spades"), H: t("hearts"), D: t("diamonds"), C: t("clubs") }[suit];
}

function rankName(rank) {
  const names = { J: t("jack"), Q: t("queen"), K: t("king"), A: t("ace"), T: "10" };
  return names[rank] ?? rank;
}

/** A card as its corner shows it: "K♠", "10♥", "B★". */
export function cardText(card) {
  if (card === "BJ") return "B★";
  if (card === "LJ") return "L★";
  return `${SHOWN[card[0]] ?? card[0]}${SUITS[card[1]]}`;
}

/** A card's spoken name: "king of spades", "Big Blooper". */
function cardName(card) {
  if (card === "BJ") return t("Big Blooper");
  if (card === "LJ") return t("Little Blooper");
  return t("{rank} of {suit}", { rank: rankName(card[0]), suit: suitName(card[1]) });
}

/** What a card is called on the page: what it shows, then its name. */
export function cardLabel(card) {
  return `${cardText(card)}, ${cardName(card)}`;
}

export function suitLabel(suit) {
  return suit ? suitName(suit) : t("no trump");
}

const RANK_ORDER = "23456789TJQKA";
const RED = new Set(["H", "D"]);

/** The orders of ``suits`` (every permutation: at most 24). */
function orders(suits) {
  if (suits.length <= 1) return [suits];
  return suits.flatMap((suit, i) => orders([...suits.slice(0, i), ...suits.slice(i + 1)]).map((rest) => [suit, ...rest]));
}

/** How many neighbours of ``suits`` (in order) are of one colour. */
function sameColour(suits) {
  let same = 0;
  for (let i = 1; i < suits.length; i++) same += RED.has(suits[i]) === RED.has(suits[i - 1]) ? 1 : 0;
  return same;
}

/** A hand as card sites sort it (and as the terminal game does): every trump at the left-hand
 * end, the Bloopers first, then the trump suit; then the plain suits, their colours
 * alternating as far as the hand allows; high to low within a suit. */
export function sortHand(cards, trump) {
  const bySuit = new Map();
  for (const card of cards) {
    const suit = card.length === 2 && card !== "BJ" && card !== "LJ" ? card[1] : "J";
    if (!bySuit.has(suit)) bySuit.set(suit, []);
    bySuit.get(suit).push(card);
  }
  const plain = ["S", "H", "C", "D"].filter((suit) => suit !== trump && bySuit.has(suit));
  const head = trump && bySuit.has(trump) ? [trump] : [];
  const best = orders(plain).reduce((a, b) => (sameColour([...head, ...b]) < sameColour([...head, ...a]) ? b : a));
  const rank = (card) => RANK_ORDER.indexOf(card[0]);
  const sorted = [...head, ...best].flatMap((suit) => bySuit.get(suit).sort((a, b) => rank(b) - rank(a)));
  const bloopers = ["BJ", "LJ"].filter((card) => cards.includes(card));
  return [...bloopers, ...sorted];
}

/** A card: a button when it may be chosen (its caller says when), a picture otherwise.
 * ``dim``: a card that may not be played now. */
export function cardElement(card, { button = false, dim = false } = {}) {
  const node = document.createElement(button ? "button" : "span");
  node.className = `card${dim ? " dim" : ""}`;
  node.dataset.card = card;
  node.setAttribute("aria-label", cardLabel(card));
  if (button) node.type = "button";
  else node.setAttribute("role", "img");
  node.innerHTML = faceSVG(card);
  return node;
}

/** A card face down. */
export function cardBack() {
  const node = element("span", { class: "card back", "aria-hidden": "true" });
  node.innerHTML = backSVG();
  return node;
}

/** A bid or contract as a player reads it: "pass", "board" in their language, a number as
 * it is, "–" for none. */
export function bidLabel(bid, view = null, level = null) {
  if (bid === null || bid === undefined) return "–";
  const bab = view && view.rules === "bab";  // bab-online's players say 0, B, 2B, 3B, 4B
  if (bid === "pass") return bab ? "0" : t("pass");
  if (bid === "board") return bab ? boardName(level || 1) : t("board");
  return bid;
}

/** A board bid as bab-online's players name it by its level (B4): B, 2B, 3B, 4B. */
export function boardName(level) {
  return level === 1 ? "B" : `${level}B`;
}

/** The level of the board bid ``seat`` made in ``view``'s bidding (B4: the k-th is k). */
export function boardLevelOf(view, seat) {
  let level = 0;
  for (const [s, bid] of view.bids) {
    if (bid === "board") level += 1;
    if (s === seat) return level;
  }
  return level;
}

/** The trump's suit symbol, or "—" for no trump. */
export function trumpSymbol(trump) {
  return trump ? SUITS[trump] : "—";
}

/** A trick on the table as a row: each card with who played it, in the order played; the
 * winner's card marked. */
export function playedRow(trick, nameOf, winner = null) {
  const row = element("ol", { class: "played" });
  for (const [seat, card] of trick) {
    const item = element("li", {}, cardElement(card), element("span", { class: "by", text: nameOf(seat) }));
    if (seat === winner) item.firstChild.dataset.winner = "";
    row.append(item);
  }
  return row;
}

const FACES = {  // a bot's face, by level: the mouth, and what it wears
  easy: '<path d="M9 20q7 6 14 0" fill="none" stroke="#1b1b1b" stroke-width="2" stroke-linecap="round"/>',
  medium: '<path d="M10 21h12" stroke="#1b1b1b" stroke-width="2" stroke-linecap="round"/>',
  hard: '<path d="M10 22q6-4 12 0" fill="none" stroke="#1b1b1b" stroke-width="2" stroke-linecap="round"/><path d="M8 11l5 2M24 11l-5 2" stroke="#1b1b1b" stroke-width="2" stroke-linecap="round"/>',
  expert: '<path d="M9 20q7 5 14 0" fill="none" stroke="#1b1b1b" stroke-width="2" stroke-linecap="round"/><path d="M8 7l3-5 3 4 2-5 2 5 3-4 3 5z" fill="#facc15" stroke="#7c5800" stroke-width="1"/>',
};

/** A seat's name as the page shows it: its player's (with the seat's number when two share
 * a name), "seat 2" while it is empty. ``names``: every seat's name or null. */
export function seatName(names, seat) {
  const name = names[seat];
  if (!name) return t("seat {seat}", { seat: seat + 1 });
  return names.filter((other) => other === name).length > 1 ? `${name} ${seat + 1}` : name;
}

/** What a seat's player is, beside the name: "medium bot", or nothing for a person. */
export function botLabel(entry) {
  return entry.bot ? t("{level} bot", { level: t(entry.bot) }) : "";
}

/** A player's small picture: a bot's face by its level, a person's initial. */
export function avatar(entry) {
  const node = element("span", { class: `avatar${entry.bot ? ` bot lv-${entry.bot}` : ""}`, "aria-hidden": "true" });
  if (entry.bot) {
    node.innerHTML = `<svg viewBox="0 0 32 32"><circle cx="16" cy="17" r="13"/><circle cx="11.5" cy="15" r="2" fill="#1b1b1b"/><circle cx="20.5" cy="15" r="2" fill="#1b1b1b"/>${FACES[entry.bot] ?? ""}</svg>`;
  } else {
    node.textContent = (entry.name || "?").trim().charAt(0).toUpperCase();
    let hash = 0;
    for (const ch of entry.name || "") hash = (hash * 31 + ch.charCodeAt(0)) % 360;
    node.style.setProperty("--hue", hash);
  }
  return node;
}
