// The table page: laid out, connected and wired here; its state and drawing are in the modules below.
// It is a projection of what the server sends this seat (its view). Messages pass through a
// show queue, so that cards move and a finished trick rests before the next thing is shown;
// the server never waits for the page. The page never works out a rule: legal cards and
// bids, who won a trick and whether a move may be taken back come from the server.
import { about, call, me, remembered } from "./api.js";
import { TableConnection } from "./connection.js";
import { element, toast } from "./dom.js";
import { feltSkeleton, placeOf } from "./felt.js";
import { act } from "./hand.js";
import { language, t } from "./i18n.js";
import { joinPage } from "./join.js";
import { rove, shortcut } from "./keys.js";
import { receive, showMessage } from "./messages.js";
import { drawOverlay } from "./overlays.js";
import { CLOSE } from "./protocol.js";
import { tick } from "./render.js";
import { ShowQueue } from "./show.js";
import { signalTurn } from "./signal.js";
import { nameOf, seatOf, sideName, tableState } from "./state.js";
import { TABS, selectTab, wireTabs } from "./tabs.js";

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
  const state = tableState(tableId, mine, credentials);
  const ctx = {
    state, page, go,
    me: () => seatOf(state),
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
  else if (code === CLOSE.LEFT) bar.textContent = t("you left this table");
  else bar.textContent = code === CLOSE.NO_TABLE ? t("there is no such table") : t("this link does not open this table");
}

function wire(ctx) {
  const { page } = ctx;
  wireTabs(ctx);
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
