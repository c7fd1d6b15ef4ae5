// The table page: a projection of what the server sends this seat (its view). Messages pass
// through a show queue, so that cards move and a finished trick rests before the next thing
// is shown; the server never waits for the page. The page never works out a rule: legal
// cards and bids, who won a trick and whether a move may be taken back come from the server.
import { about, call, credentialOf, forget, me, remember, remembered, reviewOf } from "./api.js";
import { bidLabel, botLabel, cardElement, cardLabel, cardText, playedRow, seatName, suitLabel } from "./cards.js";
import { TableConnection } from "./connection.js";
import { element, keepName, nameField, toast } from "./dom.js";
import {
  collect, dealIn, drawBanner, drawPods, drawScores, drawTimer, drawTrick, drawTrump, feltSkeleton, flyIn, markWinner,
  placeOf,
} from "./felt.js";
import { language, t } from "./i18n.js";
import { reviewNodes } from "./review.js";
import { PAUSES, setting } from "./settings.js";
import { scoreSheet, signed, thrownInLabel } from "./sheet.js";
import { ShowQueue } from "./show.js";
import { signalTurn } from "./signal.js";
import { sound } from "./sound.js";

export async function renderTable(main, tableId, params, go) {
  const mine = remembered()[tableId];
  if (params.has("watch")) return open(main, tableId, { watch: params.get("watch") || "" }, null, go);
  if (mine && mine.token) return open(main, tableId, { token: mine.token }, mine, go);
  const { account } = await me();
  if (account && !params.has("invite")) {  // a seat of the account's, taken on another device
    const { seats } = await call("GET", "/api/account/seats");
    const held = seats.find((entry) => entry.table === tableId);
    if (held) return open(main, tableId, {}, { seat: held.seat, name: account.name, account: true }, go);
  }
  joinPage(main, tableId, params, go);
  return null;
}

// ---------------------------------------------------------------------- joining

/** Who sits where and what is played, for a join page or the lobby: "standard · 3, 2, 1". */
export function rulesLine(table) {
  const options = Object.entries(table.options || {}).filter(([key]) => key !== "hand_sizes");
  const parts = [table.rules, t("deals of {sizes} cards", { sizes: table.hand_sizes.join(", ") })];
  for (const [key, value] of options) parts.push(`${key} ${JSON.stringify(value)}`);
  if (table.turn_timer) parts.push(t("turn timer {n} s", { n: table.turn_timer }));
  return parts.join(" · ");
}

async function joinPage(main, tableId, params, go) {
  const invite = params.get("invite");
  const seat = invite ? Number(params.get("seat")) : null;
  const form = element("form", { class: "panel join" });
  main.replaceChildren(form);
  let table;
  try {
    table = await call("GET", `/api/tables/${tableId}`, undefined, invite || credentialOf(tableId));
  } catch (error) {
    form.append(element("h1", { text: t("there is no such table") }), element("p", { text: error.message }));
    return;
  }
  const title = invite ? t("Take seat {seat} at this table", { seat: seat + 1 }) : t("Sit down at this table");
  form.append(element("h1", { text: title }), element("p", { class: "rules-line", text: rulesLine(table) }));
  const seats = element("ul", { class: "join-seats" });
  for (const entry of table.seats) {
    const who = entry.name ? `${entry.name}${entry.bot ? ` (${botLabel(entry)})` : ""}` : t("empty seat");
    seats.append(element("li", { class: entry.seat === seat ? "yours" : "" }, element("strong", { text: t("seat {seat}", { seat: entry.seat + 1 }) }), ` ${who}`));
  }
  form.append(seats);
  if (!invite && !table.public) {
    form.append(element("p", { text: t("To sit at this table you need its invite link; to watch, its watch link.") }));
    return;
  }
  if (table.status !== "open") {
    form.append(element("p", { text: table.status === "ended" ? t("this table was closed by its host") : t("every seat at this table is taken") }));
    if (table.public) form.append(element("a", { href: `/t/${tableId}?watch`, text: t("watch the game") }));
    return;
  }
  const name = nameField((await me()).account);
  const sit = element("button", { type: "submit", class: "primary", text: t("Sit down") });
  form.append(name.label, sit);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    sit.disabled = true;
    try {
      const kept = keepName(name.input.value);
      const taken = invite
        ? await call("POST", `/api/tables/${tableId}/seats/${seat}`, { invite, name: name.input.value })
        : await call("POST", `/api/tables/${tableId}/join`, { name: name.input.value });
      remember(tableId, { seat: taken.seat, token: taken.token, name: kept });
      go(`/t/${tableId}`);
    } catch (error) {
      toast(error.message);
      sit.disabled = false;
    }
  });
}

// ---------------------------------------------------------------------- the page

const TABS = [["sheet", () => t("Score sheet")], ["review", () => t("Review")], ["info", () => t("Table")]];

function skeleton() {
  const root = element("div", { class: "table-page" });
  const felt = feltSkeleton();
  const heading = element("h1", { class: "sr" });
  const mine = element("section", { class: "mine" });
  mine.innerHTML = `
    <div class="bids" data-region="bids" role="toolbar"></div>
    <div class="hand" data-region="hand" role="toolbar"></div>
    <div class="actions" data-region="actions"></div>`;
  const side = element("aside", { class: "side" });
  const tabs = element("div", { class: "tabs", role: "tablist" });
  side.append(tabs);
  const page = { root, felt, heading, tabs, panels: {}, tabButtons: {} };
  for (const [name, label] of TABS) {
    const button = element("button", { type: "button", role: "tab", id: `tab-${name}`, "aria-controls": `panel-${name}`, "data-tab": name, text: label() });
    const panel = element("section", { class: "panel tab-panel", role: "tabpanel", id: `panel-${name}`, "aria-labelledby": `tab-${name}`, "data-panel": name });
    tabs.append(button);
    side.append(panel);
    page.tabButtons[name] = button;
    page.panels[name] = panel;
  }
  const talk = element("section", { class: "panel talk", "aria-labelledby": "talk-title" });
  talk.innerHTML = `<h2 id="talk-title"></h2><ol class="log" data-region="log" tabindex="0"></ol>
    <form data-region="chatForm"><input data-region="chatInput" maxlength="300" autocomplete="off"><button type="submit" data-region="chatSend"></button></form>`;
  side.append(talk);
  root.append(heading, felt, mine, side);
  for (const node of root.querySelectorAll("[data-region]")) page[node.dataset.region] = node;
  page.places = Object.fromEntries([...felt.querySelectorAll("[data-place]")].map((node) => [node.dataset.place, node]));
  page.hand.setAttribute("aria-label", t("your hand"));
  page.bids.setAttribute("aria-label", t("your bid"));
  talk.querySelector("h2").textContent = t("Table talk");
  page.chatSend.textContent = t("send");
  page.chatInput.setAttribute("aria-label", t("a message to the table"));
  page.log.setAttribute("aria-label", t("what happened at the table"));
  return page;
}

/** Connect and keep the page drawn from the server's messages; returns a way to leave. */
function open(main, tableId, credentials, mine, go) {
  const page = skeleton();
  main.replaceChildren(page.root);
  const state = {
    tableId, mine, credentials, table: null, view: null, shown: null, shownTrick: [], levels: null,
    turnSince: Date.now(), reviewed: new Set(), tab: "sheet", myTurn: false, warned: false,
    sent: false, overlay: null, keysOpen: false, claiming: false, left: false, moving: false, sheetKey: null, sheetRows: -1,
    saidBelowLevel: false,
  };
  const ctx = {
    state, page, go,
    me: () => (state.view ? state.view.seat : mine ? mine.seat : null),
    nameOf: (seat) => nameOf(state, seat),
    sideName: (side) => sideName(state, side),
    placeOf: (seat) => placeOf(seat, ctx.me() ?? 0, state.table.seats.length),
    hurry: () => document.hidden || queue.backlog > 6,
  };
  const queue = new ShowQueue((message) => showMessage(ctx, message));
  ctx.queue = queue;
  const connection = new TableConnection(
    tableId,
    { ...credentials, lang: language() },
    (message) => receive(ctx, message),
    (status, code) => showStatus(ctx, status, code),
  );
  ctx.connection = connection;
  about().then((facts) => {  // the bot levels a seat may be given to, in the waiting room
    state.levels = facts.levels;
    if (state.table && !state.shown) drawOverlay(ctx);
  }).catch(() => {});
  wire(ctx);
  selectTab(ctx, "sheet");
  const timer = setInterval(() => tick(ctx), 500);
  return () => {
    state.left = true;
    queue.stop();
    clearInterval(timer);
    connection.close();
    signalTurn(false);
    showStatus(ctx, "open");
  };
}

function showStatus(ctx, status, code) {
  const bar = document.getElementById("status");
  if (status === "open") bar.textContent = "";
  else if (status === "lost") bar.textContent = t("connection lost: coming back…");
  else if (status === "waiting") toast(t("not connected: your move will be sent when the connection is back"));
  else if (status === "retrying") toast(t("the server could not take your move just now: sending it again"));
  else if (status === "guessing") bar.textContent = t("too many wrong links were tried from this address: trying again in 30 s");
  else if (code === 4410) bar.textContent = t("you left this table");
  else bar.textContent = code === 4404 ? t("there is no such table") : t("this link does not open this table");
}

// ---------------------------------------------------------------------- input

function wire(ctx) {
  const { page, state } = ctx;
  page.tabs.addEventListener("click", (event) => {
    const tab = event.target.closest("[data-tab]");
    if (tab) selectTab(ctx, tab.dataset.tab);
  });
  page.tabs.addEventListener("keydown", (event) => {
    const names = TABS.map(([name]) => name);
    const step = { ArrowRight: 1, ArrowLeft: -1 }[event.key];
    if (!step) return;
    const next = names[(names.indexOf(state.tab) + step + names.length) % names.length];
    selectTab(ctx, next);
    page.tabButtons[next].focus();
  });
  page.chatForm.addEventListener("submit", (event) => {
    event.preventDefault();
    const text = page.chatInput.value.trim();
    if (!text) return;
    if (ctx.connection.send({ type: "chat", text }) === null) toast(t("not connected: the message was not sent"));
    else page.chatInput.value = "";
  });
  for (const group of [page.hand, page.bids]) {
    group.addEventListener("click", (event) => {  // a card or a bid, unless it waits
      const choice = event.target.closest("button[data-card], button[data-bid]");
      if (choice && choice.getAttribute("aria-disabled") !== "true") act(ctx, choice.dataset.card || choice.dataset.bid);
    });
  }
  for (const group of [page.hand, page.bids]) group.addEventListener("keydown", (event) => rove(group, event));
  page.felt.addEventListener("click", () => ctx.queue.skip());  // a tap ends a trick's pause
  page.root.addEventListener("keydown", (event) => shortcut(ctx, event));
}

/** One Tab stop a group (the hand, the bids): the arrows move within it, Home and End to its
 * ends (roving tabindex). */
function rove(group, event) {
  const items = [...group.querySelectorAll("button")];
  const at = items.indexOf(document.activeElement);
  if (at < 0) return;
  const to = { ArrowRight: at + 1, ArrowDown: at + 1, ArrowLeft: at - 1, ArrowUp: at - 1, Home: 0, End: items.length - 1 }[event.key];
  if (to === undefined) return;
  event.preventDefault();
  focusItem(group, items[Math.max(0, Math.min(items.length - 1, to))]);
}

function focusItem(group, item) {
  for (const other of group.querySelectorAll("button")) other.tabIndex = other === item ? 0 : -1;
  if (item) item.focus();
}

const SHORTCUTS = { u: "undo", l: "last", c: "claim", k: "keys" };

function shortcut(ctx, event) {
  if (event.target.closest("input, select, textarea, dialog") || event.ctrlKey || event.metaKey || event.altKey) return;
  if (event.key === "Escape" || event.key === " " && ctx.queue.pausing) {
    ctx.queue.skip();
    closeOverlay(ctx, "last");
    if (event.key === " ") event.preventDefault();
    return;
  }
  const action = SHORTCUTS[event.key.toLowerCase()];
  const button = action && ctx.page.actions.querySelector(`[data-action=${action}]`);
  if (button && !button.disabled) {
    event.preventDefault();
    button.click();
  }
}

function act(ctx, action) {
  if (!ctx.connection.send({ type: "act", action })) return;
  // One action a turn: the hand and bids wait for the server's answer, which redraws them;
  // the turn is spent, so the next one is seen as new even with no view between them (the
  // last card of a deal and our first bid of the next).
  ctx.state.sent = true;
  ctx.state.myTurn = false;
  for (const button of ctx.page.root.querySelectorAll(".bids button, .hand button")) button.setAttribute("aria-disabled", "true");
}

function selectTab(ctx, name) {
  ctx.state.tab = name;
  for (const [tab, button] of Object.entries(ctx.page.tabButtons)) {
    const on = tab === name;
    button.setAttribute("aria-selected", String(on));
    button.tabIndex = on ? 0 : -1;
    ctx.page.panels[tab].hidden = !on;
  }
  if (name === "review") ctx.page.tabButtons.review.classList.remove("fresh");
  if (name === "sheet") scrollSheet(ctx);
}

// ---------------------------------------------------------------------- messages

function receive(ctx, message) {
  const { state } = ctx;
  switch (message.type) {
    case "state":
    case "resync":
      state.table = message.table;
      if (message.type === "state") {  // the chat kept by the server, instead of ours
        for (const line of ctx.page.log.querySelectorAll("li.chat")) line.remove();
      }
      for (const event of message.type === "state" ? message.chat : message.events) {
        if (event.kind === "chat") addLine(ctx, { name: event.name, text: event.text });
      }
      // The server restarts its turn timer at every change; back from a lost connection, the
      // count goes on unless the turn has moved on meanwhile.
      const before = state.view;
      const view = message.view;
      if (!before || !view || before.to_move !== view.to_move || before.deal !== view.deal) state.turnSince = Date.now();
      state.view = message.view;
      ctx.queue.replace({ jump: true, view: message.view });
      drawInfo(ctx);
      break;
    case "event": {
      const event = message.event;
      if (event.kind === "chat") {
        addLine(ctx, { name: event.name, text: event.text });
        break;
      }
      if (message.table) takeTable(ctx, message.table);
      if (message.view) {
        state.view = message.view;
        state.turnSince = Date.now();  // the server restarts its turn timer at every change
      }
      ctx.queue.push(message);
      break;
    }
    case "presence":
      if (!state.table) break;
      state.table.seats = message.seats;
      drawPods(ctx);
      drawInfo(ctx);
      break;
    case "pending":  // a claim taken: its answer follows once the solver settles it
      if (!message.solver_ready) toast(t("Your claim waits for the solver, which is being prepared: it is settled in a moment"));
      break;
    case "error":
      toast(message.message);
      state.sent = false;
      if (state.shown) drawMine(ctx);
      break;
    default:  // an ack: the events it made came before it
      break;
  }
}

/** A new description of the table: drawn at once where it shows (the queue is for the game),
 * and a rematch that has started takes everyone to its table. */
function takeTable(ctx, table) {
  const { state } = ctx;
  state.table = table;
  const rematch = table.rematch;
  if (rematch && rematch.status === "started" && rematch.table && !state.moving) {
    state.moving = true;  // once, however many events say so
    const mine = state.mine;
    if (mine && mine.token) remember(rematch.table, { seat: mine.seat, token: mine.token, name: mine.name, host: mine.host, watch: mine.watch });
    const watching = "watch" in state.credentials;
    const to = watching ? `/t/${rematch.table}?watch=${encodeURIComponent(state.credentials.watch)}` : `/t/${rematch.table}`;
    setTimeout(() => state.left || ctx.go(to), 600);
  }
  drawInfo(ctx);
  if (state.shown && state.shown.phase === "over") drawOverlay(ctx);
}

/** Show one message of the queue: a card moves in (a completed trick rests, marked, then
 * goes to its winner), a deal comes from its dealer, the rest is drawn at once. */
async function showMessage(ctx, message) {
  const { state } = ctx;
  if (message.jump) {
    render(ctx, message.view);
    return;
  }
  const event = message.event;
  const view = message.view;
  if (event.below_level && !state.saidBelowLevel) {  // once: the solver is being prepared
    state.saidBelowLevel = true;
    note(ctx, t("The solver is still being prepared: {name} plays as a medium bot meanwhile, and this game will not be rated", { name: ctx.nameOf(event.seat) }));
  }
  switch (event.kind) {
    case "card":
      await showCard(ctx, event, view);
      break;
    case "deal":
      announceDeal(ctx, event, view);
      if (view) render(ctx, view);
      sound("deal");
      await dealIn(ctx, event.dealer);
      break;
    case "bid":
      if (event.seat !== ctx.me()) note(ctx, t("{name} bids {bid}", { name: ctx.nameOf(event.seat), bid: bidLabel(event.action, view, view && view.board_level) }));
      if (event.by === "timer") timedOut(ctx, event);
      if (view) render(ctx, view);
      break;
    default:
      describeEvent(ctx, event);
      if (view) render(ctx, view);
      else drawAll(ctx);
  }
}

async function showCard(ctx, event, view) {
  const { state } = ctx;
  const played = [...state.shownTrick, [event.seat, event.action]];
  if (event.seat === ctx.me()) takeFromHand(ctx, event.action);
  state.shownTrick = played;
  sound("card");
  if (event.by === "timer") timedOut(ctx, event);
  if (event.won_by === undefined) {
    if (view) render(ctx, view, { keepTrick: true });
    else drawTrick(ctx, played);
    await flyIn(ctx, event.seat);
    return;
  }
  // A completed trick: every card in view together, the winner's marked, for the pause.
  drawTrick(ctx, played);
  await flyIn(ctx, event.seat);
  markWinner(ctx, event.won_by);
  const summary = played.map(([seat, card]) => `${ctx.nameOf(seat)} ${cardLabel(card)}`).join("; ");
  const won = t("{name} won the trick", { name: ctx.nameOf(event.won_by) });
  note(ctx, won);
  speak(`${summary}. ${won}.`);
  drawBanner(ctx, won, "won");
  markWinnerPod(ctx, event.won_by);
  const speed = setting("speed");
  const wait = ctx.hurry() || state.claiming ? 150 : PAUSES[speed] === undefined ? PAUSES.normal : PAUSES[speed];
  if (wait === null) drawBanner(ctx, `${won} · ${t("tap to go on")}`, "won");
  await ctx.queue.pause(wait);
  sound("trick");
  await collect(ctx, event.won_by);
  state.shownTrick = [];
  if (view) render(ctx, view);
}

/** Our card leaves the hand as it lands in the trick (the rest of the hand is redrawn with
 * the next view, after any pause); the focus goes to its neighbour. */
function takeFromHand(ctx, card) {
  const hand = ctx.page.hand;
  const node = hand.querySelector(`[data-card="${card}"]`);
  if (!node) return;
  const next = node.nextElementSibling || node.previousElementSibling;
  const focused = node === document.activeElement;
  node.remove();
  for (const other of hand.querySelectorAll("button.card")) {
    other.classList.remove("legal");
    other.setAttribute("aria-disabled", "true");
  }
  hand.style.setProperty("--cards", String(hand.children.length));
  if (focused && next) focusItem(hand, next);
  else if (focused) ctx.page.felt.focus();
  else if (next && !hand.querySelector("[tabindex='0']")) next.tabIndex = 0;
}

/** While a finished trick rests, its winner's seat is lit, and nobody's turn is shown. */
function markWinnerPod(ctx, seat) {
  for (const pod of ctx.page.felt.querySelectorAll(".pod")) {
    delete pod.dataset.turn;
    pod.removeAttribute("aria-current");
    pod.classList.toggle("takes", pod.dataset.seat === String(seat));
  }
}

function timedOut(ctx, event) {
  const card = event.kind === "card" ? cardText(event.action) : bidLabel(event.action);
  const text = event.seat === ctx.me()
    ? t("Time ran out: {action} was played for you", { action: card })
    : t("{name} ran out of time: {action} was played for them", { name: ctx.nameOf(event.seat), action: card });
  note(ctx, text);
  speak(text);
}

// ---------------------------------------------------------------------- announcements

/** A line in the table's log (and, if ``speak``, read out by screen readers). */
function note(ctx, text) {
  addLine(ctx, { text });
}

function addLine(ctx, line) {
  const log = ctx.page.log;
  const item = element("li", { class: line.name ? "chat" : "note" });
  if (line.name) item.append(element("strong", { text: `${line.name}: ` }), line.text);
  else item.textContent = line.text;
  log.append(item);
  while (log.children.length > 150) log.firstChild.remove();
  log.scrollTop = log.scrollHeight;
}

function speak(text) {
  const region = document.getElementById("announcer");
  if (region) region.textContent = text;
}

function announceDeal(ctx, event, view) {
  const { state } = ctx;
  const last = view && view.history.length ? view.history[view.history.length - 1] : null;
  if (last && last.thrown_in && view.history.length > (state.shown?.history.length ?? 0)) {
    let run = 0;
    for (let i = view.history.length - 1; i >= 0 && view.history[i].thrown_in === last.thrown_in; i--) run++;
    note(ctx, run > 1 ? `${thrownInLabel(last.thrown_in)} (${t("{n} in a row", { n: run })})` : thrownInLabel(last.thrown_in));
  } else if (last && last.points && state.shown && state.shown.history.length < view.history.length) {
    noteResult(ctx, last);
  }
  if (!view) return;
  const number = view.counted_deals + 1;
  const said = { n: number, cards: view.hand_size, name: ctx.nameOf(event.dealer) };
  note(ctx, view.hand_size === 1 ? t("Deal {n}: 1 card, dealt by {name}", said) : t("Deal {n}: {cards} cards, dealt by {name}", said));
  const up = view.turned_up.map(cardText).join(" ");
  note(ctx, view.trump ? t("Turn-up {cards}: {suit} are trump", { cards: up, suit: suitLabel(view.trump) }) : t("Turn-up {cards}: no trump", { cards: up }));
  if (view.joker_shown) note(ctx, t("{name} shows {card}, discards it and draws a card", { name: ctx.nameOf(view.joker_shown.seat), card: cardText(view.joker_shown.card) }));
  if (view.phase === "bid" && view.to_move !== null) note(ctx, t("{name} bids first", { name: ctx.nameOf(view.to_move) }));
}

/** A played deal's result in the log: each side's contract, tricks and points. */
function noteResult(ctx, deal) {
  const parts = deal.points.map((points, side) => t("{side} bid {contract}, took {tricks}: {points}", {
    side: ctx.sideName(side), contract: bidLabel(deal.contracts[side]), tricks: deal.tricks[side], points: signed(points),
  }));
  note(ctx, parts.join(" · "));
}

function describeEvent(ctx, event) {
  const name = event.seat === undefined ? "" : ctx.nameOf(event.seat);
  if (event.kind === "claim") {
    ctx.state.claiming = true;
    const text = t("{name} claimed every remaining trick: the claim holds", { name });
    note(ctx, text);
    toast(text);
  } else if (event.kind === "takeback") {
    note(ctx, t("{name} took back a move", { name }));
  } else if (event.kind === "left") {
    note(ctx, event.bot ? t("{name} left the table; {bot} takes the seat", { name: event.name, bot: event.bot }) : t("{name} left the table", { name: event.name }));
  } else if (event.kind === "ended") {
    note(ctx, t("The host closed this table."));
  } else if (event.kind === "rematch") {
    const by = ctx.nameOf(event.by);
    const text = {
      open: t("{name} offers a rematch", { name: by }),
      declined: t("{name} declined the rematch", { name: event.declined === null ? by : ctx.nameOf(event.declined) }),
      expired: t("The rematch was not accepted in time."),
      started: t("The rematch begins."),
    }[event.status];
    if (text) note(ctx, text);
  } else if (event.kind === "start") {
    note(ctx, t("Every seat is taken: the game begins."));
  } else if (event.kind === "seat" || event.kind === "bot") {
    note(ctx, t("{name} sits down in seat {seat}", { name: event.name, seat: event.seat + 1 }));
  }
}

// ---------------------------------------------------------------------- drawing

function nameOf(state, seat) {
  return seatName(state.table.seats.map((entry) => entry.name), seat);
}

function sideName(state, side) {
  const view = state.shown || state.view;
  const seats = view ? view.sides[side] : [side];
  return seats.map((seat) => nameOf(state, seat)).join(" & ");
}

/** Show ``view``: every region drawn from it. */
function render(ctx, view, { keepTrick = false } = {}) {
  const { state } = ctx;
  const before = state.shown;
  state.shown = view;
  if (before && view && before.phase !== "over" && view.phase === "over") {
    const last = view.history[view.history.length - 1];
    if (last && last.points) noteResult(ctx, last);
    note(ctx, view.winner === null ? t("A draw.") : t("{side} win.", { side: ctx.sideName(view.winner) }));
  }
  if (view && view.phase !== "play" || !view) state.claiming = false;
  if (!keepTrick) state.shownTrick = view ? view.trick : [];
  if (!before || !view || before.to_move !== view.to_move) state.warned = false;
  state.sent = false;
  drawAll(ctx);
}

function drawAll(ctx) {
  const { state, page } = ctx;
  if (!state.table) return;
  const view = state.shown;
  page.heading.textContent = view ? t("Back Alley table, deal {n}", { n: view.counted_deals + 1 }) : t("Back Alley table");
  drawPods(ctx);
  drawTrump(ctx);
  drawScores(ctx);
  drawTrick(ctx, state.shownTrick);
  drawPrompt(ctx);
  drawMine(ctx);
  drawSheet(ctx);
  drawOverlay(ctx);
  drawReview(ctx);
  page.chatForm.hidden = !view || view.seat === null;
  turnChanged(ctx);
}

function myTurn(view) {
  return Boolean(view) && view.phase !== "over" && view.to_move === view.seat && view.legal.length > 0;
}

function drawPrompt(ctx) {
  const view = ctx.state.shown;
  let text = "";
  if (!view) text = t("Waiting for every seat to be filled.");
  else if (view.phase === "over") text = t("The game is over");
  else if (myTurn(view)) text = view.phase === "bid" ? t("Your bid") : view.trick.length ? t("Your card") : t("Your lead");
  else if (view.to_move !== null) {
    const name = ctx.nameOf(view.to_move);
    if (view.phase === "bid") text = t("{name} to bid", { name });
    else text = view.trick.length ? t("{name} to play", { name }) : t("{name} leads", { name });
  }
  drawBanner(ctx, text, myTurn(view) ? "yours" : "");
}

/** The hand and the bids (legal ones lit, the rest dimmed), and the buttons under them. */
function drawMine(ctx) {
  const { state, page } = ctx;
  const view = state.shown;
  const focusIn = page.hand.contains(document.activeElement) ? "hand" : page.bids.contains(document.activeElement) ? "bids" : null;
  const focused = document.activeElement?.dataset?.card || document.activeElement?.dataset?.bid;
  page.bids.replaceChildren();
  page.hand.replaceChildren();
  const turn = myTurn(view) && !state.sent;
  if (view && view.phase === "bid" && turn) {
    for (const bid of view.legal) {
      page.bids.append(element("button", { type: "button", "data-bid": bid, class: "bid-button", text: bidLabel(bid, view, view.board_level + 1), tabindex: "-1" }));
    }
  }
  if (view && view.hand) {
    const playing = turn && view.phase === "play";
    const legal = new Set(playing ? view.legal : []);
    for (const card of view.hand) {
      const button = cardElement(card, { button: true, dim: playing && !legal.has(card) });
      if (!legal.has(card)) button.setAttribute("aria-disabled", "true");
      else button.classList.add("legal");
      button.tabIndex = -1;
      page.hand.append(button);
    }
    page.hand.style.setProperty("--cards", String(view.hand.length));
  }
  page.bids.hidden = !page.bids.children.length;
  rovingStart(page.bids, focused);
  rovingStart(page.hand, focused, true);
  if (focusIn) {
    const group = focusIn === "bids" && page.bids.children.length ? page.bids : page.hand;
    const item = group.querySelector("[tabindex='0']");
    if (item) item.focus();
    else page.felt.focus();
  }
  drawActions(ctx);
}

/** The group's one Tab stop: the item focused before the redraw if it is still there (and
 * playable, when some are), else the first playable one. */
function rovingStart(group, focused, preferLegal = false) {
  const items = [...group.querySelectorAll("button")];
  const legal = items.filter((b) => b.classList.contains("legal"));
  const choices = preferLegal && legal.length ? legal : items;
  const pick = choices.find((b) => (b.dataset.card || b.dataset.bid) === focused) || choices[0];
  if (pick) pick.tabIndex = 0;
}

function drawActions(ctx) {
  const { state, page } = ctx;
  const view = state.shown;
  page.actions.replaceChildren();
  const add = (action, label, onClick, { hidden = false, disabled = false } = {}) => {
    if (hidden) return null;
    const button = element("button", { type: "button", "data-action": action, text: label });
    button.disabled = disabled;
    button.addEventListener("click", onClick);
    page.actions.append(button);
    return button;
  };
  const seated = view && view.seat !== null;
  const latest = state.view;  // what the server says now, even while a trick rests on the table
  add("undo", t("Undo"), () => ctx.connection.send({ type: "undo" }), { hidden: !(latest && latest.undo && !state.sent) });
  add("claim", t("Claim the rest"), () => ctx.connection.send({ type: "claim" }), {
    hidden: !seated || view.phase !== "play", disabled: !(myTurn(view) && view.phase === "play"),
  });
  add("last", t("Last trick"), () => toggleLast(ctx), { hidden: !view, disabled: !(view && view.last_trick) });
  const keys = add("keys", t("Keys"), () => toggleKeys(ctx));
  keys.setAttribute("aria-expanded", String(Boolean(state.keysOpen)));
  if (state.keysOpen) {
    page.actions.append(element("p", { class: "keys", id: "keys-help", text: t("Arrows move in your hand and in the bids; Enter or Space plays; U takes back; L shows the last trick; C claims the rest; Space or a tap goes on after a trick.") }));
    keys.setAttribute("aria-controls", "keys-help");
  }
}

function toggleKeys(ctx) {
  ctx.state.keysOpen = !ctx.state.keysOpen;
  drawActions(ctx);
  ctx.page.actions.querySelector("[data-action=keys]").focus();
}

function toggleLast(ctx) {
  const { state } = ctx;
  state.overlay = state.overlay === "last" ? null : "last";
  drawOverlay(ctx);
}

function closeOverlay(ctx, name) {
  if (ctx.state.overlay === name) {
    ctx.state.overlay = null;
    drawOverlay(ctx);
  }
}

/** When the turn comes to this seat: focus to the hand or bids, the tab's title, the sound,
 * and a lone legal card played by itself if the player asked for that. */
function turnChanged(ctx) {
  const { state, page } = ctx;
  const view = state.shown;
  const now = myTurn(view);
  const what = !now ? "" : view.phase === "bid" ? t("Your bid") : t("Your card");
  signalTurn(now, what);
  if (now && !state.myTurn) {
    sound("turn");
    const trick = view.trick.map(([seat, card]) => `${ctx.nameOf(seat)} ${cardLabel(card)}`).join("; ");
    speak(trick ? `${what}. ${t("the trick")}: ${trick}` : what);
    const active = document.activeElement;
    if (!active || active === document.body || page.root.contains(active) && !active.closest("input, select, .tabs, .actions, .side")) {
      const group = view.phase === "bid" ? page.bids : page.hand;
      const item = group.querySelector("[tabindex='0']");
      if (item) item.focus();
    }
    if (setting("autoplay") && view.phase === "play" && view.legal.length === 1) {
      const card = view.legal[0];
      setTimeout(() => {
        if (state.shown === view && !state.left) act(ctx, card);
      }, 500);
    }
  }
  state.myTurn = now;
}

/** Every half second: the turn timer's count on the pod of the person to move, and its
 * warning at 10 s. */
function tick(ctx) {
  const { state } = ctx;
  const view = state.shown;
  if (!state.table || !view) return;
  const entry = view.to_move === null ? null : state.table.seats[view.to_move];
  const person = entry && !entry.bot && !entry.stand_in;
  if (!state.table.turn_timer) return;  // no timer at this table: its chips stay hidden
  if (view.phase === "over" || !person) {
    drawTimer(ctx, null);
    return;
  }
  const left = Math.max(0, Math.ceil(state.table.turn_timer - (Date.now() - state.turnSince) / 1000));
  drawTimer(ctx, left);
  if (left <= 10 && !state.warned && myTurn(view)) {
    state.warned = true;
    sound("warn");
    const text = t("10 seconds left to play");
    drawBanner(ctx, text, "warn");
    speak(text);
  }
}

// ---------------------------------------------------------------------- the centre: waiting, the end, the last trick

function drawOverlay(ctx) {
  const { state, page } = ctx;
  const view = state.shown;
  const box = page.overlay;
  box.replaceChildren();
  box.hidden = false;
  box.className = "overlay";
  if (!view) {
    waitingRoom(ctx, box);
  } else if (view.phase === "over") {
    endOfGame(ctx, box);
  } else if (state.overlay === "last" && view.last_trick) {
    box.classList.add("last");
    box.append(element("h2", { text: t("Last trick") }));
    box.append(playedRow(view.last_trick, ctx.nameOf, view.last_winner), element("p", { text: t("{name} won the trick", { name: ctx.nameOf(view.last_winner) }) }));
    const close = element("button", { type: "button", text: t("close") });
    close.addEventListener("click", () => closeOverlay(ctx, "last"));
    box.append(close);
  } else {
    box.hidden = true;
  }
}

function waitingRoom(ctx, box) {
  const { state } = ctx;
  const table = state.table;
  const seated = table.seats.filter((s) => s.name).length;
  box.classList.add("waiting");
  box.append(element("h2", { text: table.status === "ended" ? t("This table was closed by its host.") : t("Waiting for players: {n} of {total} seated", { n: seated, total: table.seats.length }) }),
    element("p", { class: "rules-line", text: rulesLine(table) }));
  if (table.status === "ended") return;
  const mine = state.mine;
  if (mine && (mine.host || mine.token)) {
    const list = element("ul", { class: "invites" });
    for (const entry of table.seats.filter((s) => !s.name)) {
      const item = element("li", {}, element("span", { text: t("seat {seat}", { seat: entry.seat + 1 }) }));
      if (mine.invites) item.append(copyButton(mine.invites[entry.seat], t("copy the invite link")));
      const level = element("select", { "aria-label": t("bot level for seat {seat}", { seat: entry.seat + 1 }) });
      for (const l of state.levels || [table.level]) level.append(element("option", { value: l, text: t(l) }));
      level.value = table.level;
      const bot = element("button", { type: "button", text: t("give to a bot") });
      bot.addEventListener("click", () => call("POST", `/api/tables/${state.tableId}/seats/${entry.seat}/bot`, { level: level.value }, mine.host || mine.token).catch((e) => toast(e.message)));
      item.append(level, bot);
      list.append(item);
    }
    box.append(list);
  }
  if (mine && mine.host) {
    const end = element("button", { type: "button", class: "quiet-button", text: t("End this table") });
    end.addEventListener("click", () => call("POST", `/api/tables/${state.tableId}/end`, {}, mine.host).catch((e) => toast(e.message)));
    box.append(end);
  }
}

function endOfGame(ctx, box) {
  const { state } = ctx;
  const view = state.shown;
  box.classList.add("end");
  const winner = view.winner === null ? t("A draw.") : t("{side} win.", { side: ctx.sideName(view.winner) });
  box.append(element("h2", { text: t("The game is over") }), element("p", { class: "winner", text: winner }));
  const totals = element("ul", { class: "final" });
  view.scores.forEach((score, side) => totals.append(element("li", { class: side === view.winner ? "top" : "" }, element("span", { text: ctx.sideName(side) }), element("strong", { text: String(score) }))));
  box.append(totals);
  const buttons = element("div", { class: "end-buttons" });
  const rematch = state.table.rematch;
  const me = ctx.me();
  const open = rematch && rematch.status === "open";  // the server says when it lapses
  if (me !== null) {
    if (open && !rematch.accepted.includes(me)) {
      buttons.append(endButton(t("Accept the rematch"), () => ctx.connection.send({ type: "rematch", accept: true }), { rematch: true, primary: true }));
      buttons.append(endButton(t("Decline"), () => ctx.connection.send({ type: "rematch", accept: false })));
    } else if (open) {
      const waiting = state.table.seats.filter((s) => !rematch.accepted.includes(s.seat)).map((s) => ctx.nameOf(s.seat));
      buttons.append(element("p", { class: "rematch-state", text: t("Rematch offered: waiting for {names}", { names: waiting.join(", ") }) }));
    } else if (!rematch || rematch.status !== "started") {
      buttons.append(endButton(t("Rematch"), () => ctx.connection.send({ type: "rematch", accept: true }), { rematch: true, primary: true }));
      if (rematch && rematch.status === "declined") buttons.append(element("p", { class: "rematch-state", text: t("{name} declined the rematch", { name: ctx.nameOf(rematch.declined) }) }));
    }
  }
  const fresh = element("a", { href: "/?new", class: "button", text: t("New game") });
  const watch = "watch" in state.credentials && state.credentials.watch ? `?watch=${encodeURIComponent(state.credentials.watch)}` : "";
  const replay = element("a", { href: `/replay/${state.tableId}${watch}`, class: "button", text: t("Replay the game") });
  buttons.append(fresh, replay);
  if (me !== null) buttons.append(endButton(t("Leave the table"), () => leaveTable(ctx)));
  box.append(buttons);
}

function endButton(label, onClick, { rematch = false, primary = false } = {}) {
  const button = element("button", { type: "button", class: primary ? "primary" : "", text: label });
  if (rematch) button.dataset.rematch = "";
  button.addEventListener("click", onClick);
  return button;
}

async function leaveTable(ctx) {
  const { state } = ctx;
  const playing = state.shown && state.shown.phase !== "over";
  if (playing && !window.confirm(t("Leave this game? A bot takes your seat at once, and you cannot come back."))) return;
  try {
    await call("POST", `/api/tables/${state.tableId}/leave`, {}, state.mine.token);
    forget(state.tableId);
    ctx.go("/");
  } catch (error) {
    toast(error.message);
  }
}

function copyButton(url, label) {
  const button = element("button", { type: "button", class: "copy", text: label, "data-url": url });
  button.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(url);
      toast(t("copied"));
    } catch {
      window.prompt(label, url);
    }
  });
  return button;
}

// ---------------------------------------------------------------------- the side: sheet, review, table

function drawSheet(ctx) {
  const { state, page } = ctx;
  const view = state.shown;
  const panel = page.panels.sheet;
  // Drawn again only when what it shows changed (a card played elsewhere changes nothing
  // here), so that a reader scrolled back in it stays where they are.
  const key = view && JSON.stringify([view.history.length, view.phase, view.contracts, view.tricks_won, state.table.seats.map((s) => s.name)]);
  if (key === state.sheetKey && panel.children.length) return;
  const grew = Boolean(view) && view.history.length !== state.sheetRows;  // a deal over
  state.sheetKey = key;
  state.sheetRows = view ? view.history.length : -1;
  panel.replaceChildren(element("h2", { text: t("Score sheet") }));
  if (!view) {
    panel.append(element("p", { class: "quiet", text: t("The sheet starts with the first deal.") }));
    return;
  }
  panel.append(element("div", { class: "sheet-scroll", tabindex: "0", role: "region", "aria-label": t("Score sheet") }, scoreSheet(view, ctx.sideName)));
  if (grew) scrollSheet(ctx);
}

function scrollSheet(ctx) {
  const box = ctx.page.panels.sheet.querySelector(".sheet-scroll");
  if (box) box.scrollTop = box.scrollHeight;  // the latest deal in view
}

function drawInfo(ctx) {
  const { state, page } = ctx;
  const table = state.table;
  const panel = page.panels.info;
  if (!table) return;
  panel.replaceChildren(element("h2", { text: t("This table") }), element("p", { class: "rules-line", text: rulesLine(table) }));
  const mine = state.mine;
  if (mine && mine.watch) panel.append(element("p", {}, copyButton(mine.watch, t("copy the watch link"))));
  if (mine && mine.invites && table.seats.some((s) => !s.name)) {
    const list = element("ul", { class: "invites" });
    for (const entry of table.seats.filter((s) => !s.name)) list.append(element("li", {}, element("span", { text: t("seat {seat}", { seat: entry.seat + 1 }) }), copyButton(mine.invites[entry.seat], t("copy the invite link"))));
    panel.append(list);
  }
  if (mine && mine.token && table.status !== "finished") {
    const leave = element("button", { type: "button", class: "quiet-button", text: t("Leave the table") });
    leave.addEventListener("click", () => leaveTable(ctx));
    panel.append(leave);
  }
}

function drawReview(ctx) {
  const { state, page } = ctx;
  const view = state.shown;
  if (!view) return;
  const finished = view.history.length - 1;  // the last deal over (all of them at the end)
  if (finished < 0 || state.reviewed.has(finished)) return;
  state.reviewed.add(finished);
  const panel = page.panels.review;
  panel.replaceChildren(element("h2", { text: t("Review of deal {n}", { n: finished + 1 }) }), element("p", { class: "quiet", text: t("the solver is reading the deal…") }));
  page.tabButtons.review.classList.add("fresh");
  reviewOf(state.tableId, finished, state.credentials.token || state.credentials.watch || credentialOf(state.tableId))
    .then((review) => {
      if (finished !== state.shown.history.length - 1) return;  // a later deal's is shown
      panel.replaceChildren(element("h2", { text: t("Review of deal {n}", { n: finished + 1 }) }),
        ...reviewNodes(review, ctx.nameOf, ctx.sideName, state.shown.history[finished]));
    })
    .catch((error) => panel.replaceChildren(element("h2", { text: t("Review of deal {n}", { n: finished + 1 }) }), element("p", { text: error.message })));
}
