// The table page: a projection of what the server sends this seat (its view), one function
// per region of the table. It never works out a rule: the legal cards and bids come in the
// view, and a refusal comes back from the server with its rule id.
import { about, call, remember, remembered } from "./api.js";
import { bidLabel, cardElement, playedRow, suitLabel, trumpSymbol } from "./cards.js";
import { TableConnection } from "./connection.js";
import { element, keepName, nameField, toast } from "./dom.js";
import { language, t } from "./i18n.js";
import { reviewNodes } from "./review.js";

export function renderTable(main, tableId, params, go) {
  const mine = remembered()[tableId];
  if (params.get("watch")) return open(main, tableId, { watch: params.get("watch") }, null);
  if (params.get("invite") && !(mine && mine.token)) return joinForm(main, tableId, params, go);
  if (mine && mine.token) return open(main, tableId, { token: mine.token }, mine);
  main.replaceChildren(
    element("section", { class: "panel" }, element("p", { text: t("To sit at this table you need its invite link; to watch, its watch link.") })),
  );
  return null;
}

function joinForm(main, tableId, params, go) {
  const seat = Number(params.get("seat"));
  const form = element("form", { class: "panel" }, element("h1", { text: t("Take seat {seat}", { seat: seat + 1 }) }));
  const name = nameField();
  form.append(name.label);
  form.append(element("button", { type: "submit", class: "primary", text: t("Sit down") }));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      const kept = keepName(name.input.value);
      const taken = await call("POST", `/api/tables/${tableId}/seats/${seat}`, { invite: params.get("invite"), name: name.input.value });
      remember(tableId, { seat, token: taken.token, name: kept });
      go(`/t/${tableId}`);
    } catch (error) {
      toast(error.message);
    }
  });
  main.replaceChildren(form);
  return null;
}

/** Connect and keep the page drawn from the server's messages; returns a way to leave. */
function open(main, tableId, credentials, mine) {
  const page = skeleton();
  main.replaceChildren(page.root);
  const state = {
    tableId, mine, table: null, view: null, chat: [], turnSince: Date.now(), reviewed: new Set(), levels: null,
  };
  const connection = new TableConnection(
    tableId,
    { ...credentials, lang: language() },
    (message) => receive(state, page, message),
    (status, code) => showStatus(status, code),
  );
  about().then((facts) => {  // the bot levels a host may choose from
    state.levels = facts.levels;
    if (state.table) drawInvites(state, page);
  }).catch(() => {});
  page.claim.addEventListener("click", () => connection.send({ type: "claim" }));
  page.lastButton.addEventListener("click", () => {
    page.last.hidden = !page.last.hidden;
    page.lastButton.setAttribute("aria-expanded", String(!page.last.hidden));
  });
  page.chatForm.addEventListener("submit", (event) => {
    event.preventDefault();
    const text = page.chatInput.value.trim();
    if (text) connection.send({ type: "chat", text });
    page.chatInput.value = "";
  });
  const act = (action) => {
    if (!connection.send({ type: "act", action })) return;
    // One action a turn: the buttons wait for the server's answer, which redraws them.
    for (const button of page.root.querySelectorAll(".bids button, .hand button")) button.disabled = true;
  };
  page.hand.addEventListener("click", (event) => {
    const card = event.target.closest("button.card");
    if (card && !card.disabled) act(card.dataset.card);
  });
  page.bids.addEventListener("click", (event) => {
    const bid = event.target.closest("button[data-bid]");
    if (bid) act(bid.dataset.bid);
  });
  const timer = setInterval(() => {
    if (state.table && state.table.turn_timer) drawCountdown(state, page);
  }, 1000);
  return () => {
    clearInterval(timer);
    connection.close();
    showStatus("open");  // no banner of this table's connection on the next page
  };
}

function showStatus(status, code) {
  const bar = document.getElementById("status");
  if (status === "open") bar.textContent = "";
  else if (status === "lost") bar.textContent = t("connection lost: coming back…");
  else bar.textContent = code === 4404 ? t("there is no such table") : t("this link does not open this table");
}

function skeleton() {
  const html = `
  <section class="play" aria-label="">
    <div class="info" data-region="info"></div>
    <ol class="seats" data-region="seats"></ol>
    <div class="trick" data-region="trick" role="group"></div>
    <p class="prompt"><span data-region="prompt" aria-live="polite"></span><span data-region="countdown"></span></p>
    <div class="bids" data-region="bids" role="group"></div>
    <div class="hand" data-region="hand" role="group"></div>
    <div class="actions">
      <button type="button" data-region="lastButton" aria-expanded="false"></button>
      <button type="button" data-region="claim"></button>
    </div>
    <div class="last" data-region="last" hidden></div>
    <div class="end" data-region="end" hidden></div>
  </section>
  <aside class="side">
    <section class="panel review" data-region="review" hidden></section>
    <section class="panel" data-region="sheet"></section>
    <section class="panel" data-region="invites" hidden></section>
    <section class="panel chat">
      <h2 data-region="chatTitle"></h2>
      <ol class="messages" data-region="messages"></ol>
      <form data-region="chatForm"><input data-region="chatInput" maxlength="300"><button type="submit" data-region="chatSend"></button></form>
    </section>
  </aside>`;
  const root = element("div", { class: "table-page" });
  root.innerHTML = html;
  const page = { root };
  for (const node of root.querySelectorAll("[data-region]")) page[node.dataset.region] = node;
  page.trick.setAttribute("aria-label", t("the trick"));
  page.hand.setAttribute("aria-label", t("your hand"));
  page.bids.setAttribute("aria-label", t("your bid"));
  page.lastButton.textContent = t("last trick");
  page.claim.textContent = t("claim the rest");
  page.chatTitle.textContent = t("Chat");
  page.chatSend.textContent = t("send");
  page.chatInput.setAttribute("aria-label", t("a message to the table"));
  return page;
}

// ------------------------------------------------------------------ messages

function receive(state, page, message) {
  switch (message.type) {
    case "state":
      state.table = message.table;
      state.chat = message.chat;
      setView(state, message.view, false);
      draw(state, page);
      break;
    case "resync":
      state.table = message.table;
      for (const event of message.events) if (event.kind === "chat") state.chat.push(event);
      setView(state, message.view, false);
      draw(state, page);
      break;
    case "event": {
      const event = message.event;
      if (event.kind === "chat") {
        state.chat.push({ version: message.version, ...event });
        drawChat(state, page);
      }
      if (event.kind === "claim") {  // the cards that play the deal out come next
        toast(t("{name} claimed every remaining trick: the claim holds", { name: nameOf(state, event.seat) }));
      }
      if (message.table) state.table = message.table;
      if (message.view) setView(state, message.view, true);
      if (message.view || message.table) draw(state, page);  // a game change, or a seat filled
      break;
    }
    case "presence":
      if (!state.table) break;
      state.table.seats = message.seats;
      drawSeats(state, page);
      drawInvites(state, page);
      break;
    case "error":
      toast(message.message);
      if (state.table) {  // the buttons back, as they were before the refused action
        drawBids(state, page);
        drawHand(state, page);
      }
      break;
    default:  // an ack: the events it made came first, and redrew the page
      break;
  }
}

/** Take a new view. The server restarts a turn timer at every change of the game, which is
 * what an event's view follows (``changed``); a state or resync after a reconnection keeps
 * the count unless the turn moved on meanwhile. */
function setView(state, view, changed) {
  const before = state.view;
  if (changed || !before || !view || before.to_move !== view.to_move || before.deal !== view.deal) state.turnSince = Date.now();
  state.view = view;
}

function draw(state, page) {
  if (!state.table) return;
  drawInfo(state, page);
  drawSeats(state, page);
  drawTrick(state, page);
  drawPrompt(state, page);
  drawBids(state, page);
  drawHand(state, page);
  drawActions(state, page);
  drawSheet(state, page);
  drawInvites(state, page);
  drawChat(state, page);
  drawEnd(state, page);
  drawReview(state, page);
}

// ------------------------------------------------------------------ regions

function nameOf(state, seat) {
  const names = state.table.seats.map((s) => (s.bot ? t("{level} bot", { level: t(s.bot) }) : s.name));
  return seatName(names, seat);
}

/** A seat's name as shown: its player's (with the seat's number when two share a name). */
export function seatName(names, seat) {
  const name = names[seat];
  if (!name) return t("seat {seat}", { seat: seat + 1 });
  return names.filter((other) => other === name).length > 1 ? `${name} ${seat + 1}` : name;
}

function sideName(state, side) {
  return state.view.sides[side].map((seat) => nameOf(state, seat)).join(" & ");
}

function drawInfo(state, page) {
  const view = state.view;
  const box = page.info;
  box.replaceChildren();
  if (!view) {
    box.append(element("p", { text: t("Waiting for every seat to be filled.") }));
    return;
  }
  const deal = element("span", { class: "deal", text: t("deal {n} · hand size {cards}", { n: view.deal + 1, cards: view.hand_size }) });
  const trump = element("span", { class: "trump" }, `${t("trump")}: `);
  trump.append(element("strong", { class: view.trump ? `s-${view.trump}` : "", text: trumpSymbol(view.trump) }));
  trump.setAttribute("aria-label", `${t("trump")}: ${suitLabel(view.trump)}`);
  const up = element("span", { class: "turned" }, `${t("turn-up")} `);
  for (const card of view.turned_up) up.append(cardElement(card, { small: true }));
  box.append(deal, trump, up);
  if (view.joker_shown) {
    const shown = element("span", { class: "joker" }, `${t("{name} discarded", { name: nameOf(state, view.joker_shown.seat) })} `);
    shown.append(cardElement(view.joker_shown.card, { small: true }));
    if (view.drawn) shown.append(` ${t("and drew")} `, cardElement(view.drawn, { small: true }));
    box.append(shown);
  }
  const sides = element("ul", { class: "sides" });
  view.contracts.forEach((contract, side) => {
    const label = bidLabel(contract);
    sides.append(
      element("li", {}, element("span", { class: "who", text: sideName(state, side) }),
        element("span", { text: ` ${t("contract")} ${label} · ${t("tricks")} ${view.tricks_won[side]} · ${t("score")} ${view.scores[side]}` })),
    );
  });
  box.append(sides);
}

function drawSeats(state, page) {
  const view = state.view;
  page.seats.replaceChildren();
  state.table.seats.forEach((entry, seat) => {
    const bid = view ? view.bids.find(([s]) => s === seat) : null;
    const item = element("li", { class: `seat${view && view.to_move === seat ? " turn" : ""}${seat === view?.seat ? " me" : ""}` });
    item.append(element("span", { class: "name", text: nameOf(state, seat) }));
    if (entry.bot) item.append(element("span", { class: "tag", text: t("bot") }));
    if (entry.stand_in) item.append(element("span", { class: "tag", text: t("a bot stands in") }));
    else if (!entry.connected && entry.name) item.append(element("span", { class: "tag", text: t("away") }));
    if (bid) item.append(element("span", { class: "bid", text: `${t("bid")} ${bidLabel(bid[1])}` }));
    if (view) item.append(element("span", { class: "count", text: t("cards: {n}", { n: view.hand_counts[seat] }) }));
    if (view && view.to_move === seat) item.setAttribute("aria-current", "true");
    page.seats.append(item);
  });
}

function drawTrick(state, page) {
  const view = state.view;
  page.trick.replaceChildren();
  const named = (seat) => nameOf(state, seat);
  if (view && view.trick.length) page.trick.append(playedRow(view.trick, named));
  else if (view && view.phase === "play") page.trick.append(element("p", { class: "quiet", text: t("{name} leads", { name: nameOf(state, view.to_move) }) }));
  page.last.replaceChildren();
  if (view && view.last_trick) page.last.append(element("h3", { text: t("last trick") }), playedRow(view.last_trick, named));
}

function drawPrompt(state, page) {
  const view = state.view;
  let text = "";
  if (view && view.phase !== "over") {
    if (view.to_move === view.seat) text = view.phase === "bid" ? t("Your bid") : t("Your card");
    else if (view.to_move !== null) {
      const name = nameOf(state, view.to_move);
      text = view.phase === "bid" ? t("{name} to bid", { name }) : t("{name} to play", { name });
    }
  }
  page.prompt.textContent = text;
  drawCountdown(state, page);
}

/** The turn timer's seconds left, apart from the prompt so that a screen reader is not read
 * the count every second. */
function drawCountdown(state, page) {
  const view = state.view;
  let text = "";
  if (state.table.turn_timer && view && view.phase !== "over" && view.to_move !== null) {
    const left = Math.max(0, Math.ceil(state.table.turn_timer - (Date.now() - state.turnSince) / 1000));
    text = ` · ${t("{n} s left", { n: left })}`;
  }
  page.countdown.textContent = text;
}

function drawBids(state, page) {
  const view = state.view;
  page.bids.replaceChildren();
  if (!view || view.phase !== "bid" || !view.legal.length) return;
  for (const bid of view.legal) {
    page.bids.append(element("button", { type: "button", "data-bid": bid, class: "bid-button", text: bidLabel(bid) }));
  }
}

/** Whether it is this page's seat's turn to play a card. */
function myCardTurn(view) {
  return Boolean(view) && view.phase === "play" && view.to_move === view.seat;
}

function drawHand(state, page) {
  const view = state.view;
  page.hand.replaceChildren();
  if (!view || !view.hand) return;
  const playing = myCardTurn(view);
  const legal = new Set(playing ? view.legal : []);
  for (const card of view.hand) {
    const button = cardElement(card, { button: true, dim: playing && !legal.has(card) });
    button.disabled = !legal.has(card);  // dimmed only when it is this seat's card to play
    page.hand.append(button);
  }
}

function drawActions(state, page) {
  const view = state.view;
  page.claim.hidden = !view || view.seat === null || view.phase === "over";
  page.claim.disabled = !myCardTurn(view);
  page.lastButton.disabled = !(view && view.last_trick);
}

function drawSheet(state, page) {
  const view = state.view;
  page.sheet.replaceChildren(element("h2", { text: t("Score sheet") }));
  if (!view) return;
  const sides = view.scores.length;
  const table = element("table", { class: "sheet" });
  const head = element("tr", {}, element("th", { text: t("deal") }), element("th", { text: t("cards") }), element("th", { text: t("trump") }));
  for (let side = 0; side < sides; side++) head.append(element("th", { text: sideName(state, side) }));
  table.append(element("thead", {}, head));
  const body = element("tbody");
  const totals = new Array(sides).fill(0);
  view.history.forEach((deal, index) => {  // once the game is over, its last deal too
    const row = element("tr", {}, element("td", { text: String(index + 1) }), element("td", { text: String(deal.hand_size) }), element("td", { text: trumpSymbol(deal.trump) }));
    for (let side = 0; side < sides; side++) {
      const points = deal.points ? deal.points[side] : 0;
      totals[side] += points;
      const contract = bidLabel(deal.contracts[side]);
      row.append(element("td", { text: deal.thrown_in ? t("thrown in") : `${contract}/${deal.tricks[side]}: ${points} (${totals[side]})` }));
    }
    body.append(row);
  });
  const total = element("tr", { class: "total" }, element("td", { text: t("total") }), element("td"), element("td"));
  for (const score of view.scores) total.append(element("td", { text: String(score) }));
  body.append(total);
  table.append(body);
  page.sheet.append(element("div", { class: "scroll" }, table), element("small", { class: "quiet", text: t("each side: contract/tricks: points (running total)") }));
}

function drawInvites(state, page) {
  const mine = state.mine;
  const open = state.table.seats.filter((s) => !s.name);
  page.invites.hidden = !mine || (!open.length && !mine.host);
  if (page.invites.hidden) return;
  page.invites.replaceChildren(element("h2", { text: t("Invite") }));
  const list = element("ul", { class: "invites" });
  for (const entry of open) {
    const item = element("li", {}, element("span", { text: t("seat {seat}", { seat: entry.seat + 1 }) }));
    if (mine.invites) item.append(copyButton(mine.invites[entry.seat], t("copy the invite link")));
    const level = element("select", { "aria-label": t("bot level") });
    for (const l of state.levels || [state.table.level]) level.append(element("option", { value: l, text: t(l) }));
    level.value = state.table.level;
    const bot = element("button", { type: "button", text: t("give to a bot") });
    bot.addEventListener("click", async () => {
      try {
        await call("POST", `/api/tables/${state.tableId}/seats/${entry.seat}/bot`, { level: level.value }, mine.host || mine.token);
      } catch (error) {
        toast(error.message);
      }
    });
    item.append(level, bot);
    list.append(item);
  }
  if (mine.watch) list.append(element("li", {}, element("span", { text: t("spectators") }), copyButton(mine.watch, t("copy the watch link"))));
  page.invites.append(list);
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

function drawChat(state, page) {
  page.messages.replaceChildren(...state.chat.slice(-50).map((m) => element("li", {}, element("strong", { text: `${m.name}: ` }), m.text)));
  page.chatForm.hidden = !state.view || state.view.seat === null;
}

function drawEnd(state, page) {
  const view = state.view;
  page.end.hidden = !view || view.phase !== "over";
  if (page.end.hidden) return;
  const winner = view.winner === null ? t("A draw.") : t("{side} win.", { side: sideName(state, view.winner) });
  page.end.replaceChildren(
    element("h2", { text: t("The game is over") }),
    element("p", { class: "winner", text: winner }),
    element("p", { text: view.scores.map((s, side) => `${sideName(state, side)}: ${s}`).join(" · ") }),
    element("a", { href: `/replay/${state.tableId}`, text: t("replay the game") }),
  );
}

// ------------------------------------------------------------------ the review after a deal

function drawReview(state, page) {
  const view = state.view;
  if (!view) return;
  const finished = view.history.length - 1;  // the last deal over (all of them at the end)
  if (finished < 0 || state.reviewed.has(finished)) return;
  state.reviewed.add(finished);
  page.review.hidden = false;
  page.review.replaceChildren(element("h2", { text: t("Review of deal {n}", { n: finished + 1 }) }), element("p", { class: "quiet", text: t("the solver is reading the deal…") }));
  call("GET", `/api/tables/${state.tableId}/review/${finished}`)
    .then((review) => showReview(state, page, finished, review))
    .catch((error) => page.review.replaceChildren(element("p", { text: error.message })));
}

function showReview(state, page, number, review) {
  page.review.replaceChildren(
    element("h2", { text: t("Review of deal {n}", { n: number + 1 }) }),
    ...reviewNodes(review, (seat) => nameOf(state, seat), (side) => sideName(state, side)),
  );
}
