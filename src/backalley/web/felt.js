// The card table itself, drawn from the view being shown: you at the bottom, your partner
// across, the opponents left and right; each seat with its name, bid, tricks, cards left,
// the dealer's button and whose turn it is; the trick in the middle, in front of the players
// who played it; trump and the turn-up in a corner, the sides' scores in the other.
import { avatar, bidLabel, boardLevelOf, botLabel, cardBack, cardElement, cardLabel, suitLabel, trumpSymbol } from "./cards.js";
import { element } from "./dom.js";
import { t } from "./i18n.js";
import { reducedMotion } from "./settings.js";
import { scoreText } from "./sheet.js";

const PLACES = { 4: ["south", "west", "north", "east"], 3: ["south", "west", "east"] };

/** Where ``seat`` sits as seen from ``base`` (the page's own seat, or seat 1 for a
 * spectator): the next seat clockwise, which bids and plays after you, is on your left. */
export function placeOf(seat, base, players) {
  return PLACES[players][(seat - base + players) % players];
}

/** The felt's regions: the seats' places, the trick's slots, the corners, the banner. */
export function feltSkeleton(attributes = { id: "table", tabindex: "-1" }) {
  const felt = element("section", { class: "felt", ...attributes });
  felt.innerHTML = `
    <div class="corner nw" data-region="trumpBox"></div>
    <div class="corner ne" data-region="scoreBox"></div>
    <div class="place north" data-place="north"></div>
    <div class="place west" data-place="west"></div>
    <div class="place east" data-place="east"></div>
    <div class="centre">
      <div class="trick" data-trick data-region="trick" role="group">
        <div class="slot north"></div><div class="slot west"></div><div class="slot east"></div><div class="slot south"></div>
      </div>
      <p class="banner" data-region="banner"></p>
      <div class="overlay" data-region="overlay" hidden></div>
    </div>
    <div class="place south" data-place="south"></div>`;
  return felt;
}

/** How fast things move: nothing moves for a reader who asked for less motion, or while the
 * page catches up. */
function duration(ctx, ms) {
  return reducedMotion() || ctx.hurry() ? 0 : ms;
}

// ---------------------------------------------------------------------- the seats

export function drawPods(ctx) {
  const { table } = ctx.state;
  const view = ctx.state.shown;
  for (const place of Object.values(ctx.page.places)) place.replaceChildren();
  table.seats.forEach((entry, seat) => ctx.page.places[ctx.placeOf(seat)].append(pod(ctx, entry, seat, view)));
}

function pod(ctx, entry, seat, view) {
  const me = seat === ctx.me();
  const node = element("div", { class: `pod${me ? " me" : ""}${entry.name ? "" : " empty"}`, "data-seat": String(seat), role: "group" });
  const words = [ctx.nameOf(seat)];
  node.append(avatar(entry));
  const text = element("div", { class: "pod-text" }, element("span", { class: "name", text: ctx.nameOf(seat) }));
  const sub = podSubtitle(entry, me);
  if (sub) {
    text.append(element("span", { class: "sub", text: sub }));
    words.push(sub);
  }
  node.append(text);
  const chips = element("div", { class: "chips" });
  if (view && view.dealer === seat) {
    chips.append(element("span", { class: "chip dealer", title: t("dealer"), text: "D" }));
    words.push(t("dealer"));
  }
  const bid = view ? view.bids.find(([s]) => s === seat) : null;
  if (bid) {
    const named = bidLabel(bid[1], view, boardLevelOf(view, seat));
    const said = bid[1] === "pass" || bid[1] === "board" ? named : t("bid {bid}", { bid: bid[1] });
    chips.append(element("span", { class: `chip bid${bid[1] === "board" ? " board" : ""}`, text: said }));
    words.push(t("bid {bid}", { bid: named }));
  }
  if (view && (view.phase === "play" || view.trick_winners.length)) {
    const won = view.trick_winners.filter((winner) => winner === seat).length;
    const stacks = element("span", { class: "chip won", "data-won": String(won), title: t("tricks won") });
    for (let i = 0; i < Math.min(won, 7); i++) stacks.append(element("i"));
    stacks.append(element("span", { text: t("took {n}", { n: won }) }));
    chips.append(stacks);
    words.push(t("tricks won {n}", { n: won }));
  }
  const timer = element("span", { class: "chip timer", hidden: "" });
  chips.append(timer);
  node.append(chips);
  if (view && !me && view.hand_counts[seat] > 0) {
    const backs = element("div", { class: "backs" });
    for (let i = 0; i < Math.min(view.hand_counts[seat], 7); i++) backs.append(cardBack());
    backs.append(element("span", { class: "count", text: String(view.hand_counts[seat]) }));
    node.append(backs);
    words.push(t("cards: {n}", { n: view.hand_counts[seat] }));
  }
  if (view && view.phase !== "over" && view.to_move === seat) {
    node.dataset.turn = "";
    node.setAttribute("aria-current", "true");
    words.push(t("to play"));
  }
  node.setAttribute("aria-label", words.join(", "));
  return node;
}

function podSubtitle(entry, me) {
  if (!entry.name) return t("empty seat");
  if (entry.bot) return botLabel(entry);
  if (entry.stand_in) return t("a bot stands in");
  if (!entry.connected) return t("away");
  return me ? t("you") : "";
}

/** The turn timer's seconds left on the pod of the person to move (bots have none). */
export function drawTimer(ctx, left) {
  for (const chip of ctx.page.felt.querySelectorAll(".chip.timer")) chip.hidden = true;
  if (left === null) return;
  const pod = ctx.page.felt.querySelector(`.pod[data-seat="${ctx.state.shown.to_move}"] .chip.timer`);
  if (!pod) return;
  pod.hidden = false;
  pod.textContent = `${left} s`;
  pod.classList.toggle("warn", left <= 10);
}

// ---------------------------------------------------------------------- the trick

function slotOf(ctx, seat) {
  return ctx.page.trick.querySelector(`.slot.${ctx.placeOf(seat)}`);
}

/** Lay ``cards`` ([seat, card] pairs) in the slots of ``trick``, each in front of its player
 * (``placeOf(seat)``); ``winner`` marks the card that took a completed trick. For the table
 * and the replay. */
export function layTrick(trick, cards, placeOf, winner = null) {
  const wanted = new Map(cards.map(([seat, card]) => [placeOf(seat), [seat, card]]));
  for (const slot of trick.children) {
    const place = [...slot.classList].find((name) => name !== "slot");
    const [seat, card] = wanted.get(place) ?? [null, null];
    const node = slot.firstChild;
    if (card === null) slot.replaceChildren();
    else if (node && node.dataset.card === card) {  // kept: a card moving in moves on
      if (seat === winner) node.dataset.winner = "";
      else delete node.dataset.winner;
    } else {
      const fresh = cardElement(card);
      if (seat === winner) fresh.dataset.winner = "";
      slot.replaceChildren(fresh);
    }
  }
}

/** The trick on the table, named for a screen reader with who played what. */
export function drawTrick(ctx, cards) {
  layTrick(ctx.page.trick, cards, ctx.placeOf);
  const names = cards.map(([seat, card]) => `${ctx.nameOf(seat)} ${cardLabel(card)}`);
  ctx.page.trick.setAttribute("aria-label", names.length ? `${t("the trick")}: ${names.join("; ")}` : t("the trick"));
}

/** The card of ``seat``, which took the trick, marked as the winner's. */
export function markWinner(ctx, seat) {
  const card = slotOf(ctx, seat).firstChild;
  if (card) card.dataset.winner = "";
}

function centreOf(node) {
  const box = node.getBoundingClientRect();
  return [box.left + box.width / 2, box.top + box.height / 2];
}

/** ``seat``'s card moves from the player to its place in the trick. */
export async function flyIn(ctx, seat) {
  const card = slotOf(ctx, seat).firstChild;
  const from = seat === ctx.me() ? ctx.page.hand : ctx.page.felt.querySelector(`.pod[data-seat="${seat}"]`);
  const ms = duration(ctx, 260);
  if (!card || !from || !ms) return;
  const [x0, y0] = centreOf(from);
  const [x1, y1] = centreOf(card);
  await card.animate(
    [{ transform: `translate(${x0 - x1}px, ${y0 - y1}px) scale(.7)`, opacity: 0.4 }, { transform: "none", opacity: 1 }],
    { duration: ms, easing: "cubic-bezier(.2,.7,.3,1)" },
  ).finished.catch(() => {});  // cut short (the card drawn again, the page left): no matter
}

/** The completed trick goes to its winner's side of the table. */
export async function collect(ctx, winner) {
  const to = ctx.page.felt.querySelector(`.pod[data-seat="${winner}"]`);
  const cards = [...ctx.page.trick.querySelectorAll(".card")];
  const ms = duration(ctx, 320);
  if (to && ms) {
    const [x1, y1] = centreOf(to);
    await Promise.all(cards.map((card) => {
      const [x0, y0] = centreOf(card);
      return card.animate(
        [{ transform: "none", opacity: 1 }, { transform: `translate(${x1 - x0}px, ${y1 - y0}px) scale(.35)`, opacity: 0 }],
        { duration: ms, easing: "ease-in", fill: "forwards" },
      ).finished;
    }));
  }
  drawTrick(ctx, []);
}

/** The new deal's cards come from the dealer. */
export async function dealIn(ctx, dealer) {
  const from = ctx.page.felt.querySelector(`.pod[data-seat="${dealer}"]`);
  const ms = duration(ctx, 380);
  if (!from || !ms) return;
  const [x0, y0] = centreOf(from);
  const cards = [...ctx.page.hand.querySelectorAll(".card"), ...ctx.page.felt.querySelectorAll(".backs .card")];
  await Promise.all(cards.map((card, i) => {
    const [x1, y1] = centreOf(card);
    return card.animate(
      [{ transform: `translate(${x0 - x1}px, ${y0 - y1}px) scale(.5)`, opacity: 0 }, { transform: "none", opacity: 1 }],
      { duration: ms, delay: Math.min(i * 12, 200), easing: "ease-out", fill: "backwards" },
    ).finished;
  }));
}

// ---------------------------------------------------------------------- corners

/** The trump's corner: its badge and name, and the turn-up beside them (the table's and the
 * replay's). */
export function trumpCorner(box, { trump, turned_up: turnedUp, lone_joker: loneJoker = null }) {
  const suit = element("span", { class: `trump-suit s-${trump || "none"}`, "aria-hidden": "true", text: trumpSymbol(trump) });
  const none = loneJoker ? t("only {card} is trump", { card: loneJoker }) : t("no trump");
  const label = element("span", { class: "trump-name", text: trump ? t("trump: {suit}", { suit: suitLabel(trump) }) : none });
  const up = element("div", { class: "turned-up", role: "group", "aria-label": t("turn-up") });
  for (const card of turnedUp) up.append(cardElement(card));
  box.replaceChildren(element("div", { class: "trump-line" }, suit, label), up);
}

export function drawTrump(ctx) {
  const view = ctx.state.shown;
  const box = ctx.page.trumpBox;
  box.replaceChildren();
  if (!view) return;
  trumpCorner(box, view);
  if (view.joker_shown) {
    const line = element("p", { class: "joker-line" }, t("{name} discarded", { name: ctx.nameOf(view.joker_shown.seat) }), " ", cardElement(view.joker_shown.card));
    if (view.drawn) line.append(` ${t("and drew")} `, cardElement(view.drawn));
    box.append(line);
  }
}

export function drawScores(ctx) {
  const view = ctx.state.shown;
  const box = ctx.page.scoreBox;
  box.replaceChildren();
  if (!view) return;
  const counted = view.counted_deals + (view.phase === "over" ? 0 : 1);
  const total = ctx.state.table.hand_sizes.length;
  const said = { n: Math.min(counted, total), total, cards: view.hand_size };
  const line = view.hand_size === 1 ? t("deal {n} of {total} · 1 card", said) : t("deal {n} of {total} · {cards} cards", said);
  box.append(element("p", { class: "deal-line", text: line }));
  const list = element("ul", { class: "side-scores" });
  view.scores.forEach((score, side) => {
    const item = element("li", { class: view.sides[side].includes(ctx.me()) ? "ours" : "" },
      element("span", { class: "who", text: ctx.sideName(side) }), element("strong", { text: scoreText(score) }));
    if (view.phase === "play" || view.phase === "bid") {
      item.append(element("span", { class: "deal-state", text: t("bid {contract} · took {tricks}", { contract: bidLabel(view.contracts[side]), tricks: view.tricks_won[side] }) }));
    }
    list.append(item);
  });
  box.append(list);
}

export function drawBanner(ctx, text, tone = "") {
  ctx.page.banner.textContent = text;
  ctx.page.banner.className = `banner${tone ? ` ${tone}` : ""}`;
}
