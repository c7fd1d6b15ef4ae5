// The centre of the felt, over the game: the waiting room, the end of the game, the last trick; and leaving the table.
import { call, forget } from "./api.js";
import { playedRow } from "./cards.js";
import { element, toast } from "./dom.js";
import { t } from "./i18n.js";
import { rulesLine } from "./rules.js";
import { scoreText } from "./sheet.js";

export function drawOverlay(ctx) {
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
  view.scores.forEach((score, side) => totals.append(element("li", { class: side === view.winner ? "top" : "" }, element("span", { text: ctx.sideName(side) }), element("strong", { text: scoreText(score) }))));
  box.append(totals);
  const buttons = element("div", { class: "end-buttons" });
  const rematch = state.table.rematch;
  const me = ctx.me();
  const open = rematch && rematch.status === "open";  // the server says when it lapses
  if (state.table.daily) {  // played once: the day's results are next, for all who hold it
    const results = element("a", { href: `/daily/${state.table.daily}?table=${state.tableId}`, class: "button primary", "data-daily-results": "", text: t("See today's results") });
    buttons.append(results);
  } else if (state.table.match) {  // the other table's deals decide: the match's page
    buttons.append(element("a", { href: `/m/${state.table.match.split("/")[0]}`, class: "button primary", "data-match": "", text: t("The team match") }));
  } else if (me !== null) {
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

export async function leaveTable(ctx) {
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

export function copyButton(url, label) {
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

export function toggleLast(ctx) {
  const { state } = ctx;
  state.overlay = state.overlay === "last" ? null : "last";
  drawOverlay(ctx);
}

export function closeOverlay(ctx, name) {
  if (ctx.state.overlay === name) {
    ctx.state.overlay = null;
    drawOverlay(ctx);
  }
}
