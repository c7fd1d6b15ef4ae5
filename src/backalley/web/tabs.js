// The side's tabs: the score sheet, the review of the last deal, and the table's links.
import { credentialOf, reviewOf } from "./api.js";
import { element } from "./dom.js";
import { t } from "./i18n.js";
import { copyButton, leaveTable } from "./overlays.js";
import { reviewNodes } from "./review.js";
import { rulesLine } from "./rules.js";
import { scoreSheet } from "./sheet.js";

export const TABS = [["sheet", () => t("Score sheet")], ["review", () => t("Review")], ["info", () => t("Table")]];

/** The tabs answer a click, and the arrows move between them. */
export function wireTabs(ctx) {
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
}

export function selectTab(ctx, name) {
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

export function drawSheet(ctx) {
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

export function drawInfo(ctx) {
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

export function drawReview(ctx) {
  const { state, page } = ctx;
  const view = state.shown;
  if (!view) return;
  const finished = view.history.length - 1;  // the last deal over (all of them at the end)
  if (finished < 0 || state.reviewed.has(finished)) return;
  state.reviewed.add(finished);
  const panel = page.panels.review;
  const heading = () => element("h2", { text: t("Review of deal {n}", { n: view.history.slice(0, finished + 1).filter((d) => !d.thrown_in).length }) });
  panel.replaceChildren(heading(), element("p", { class: "quiet", text: t("the solver is reading the deal…") }));
  page.tabButtons.review.classList.add("fresh");
  reviewOf(state.tableId, finished, state.credentials.token || state.credentials.watch || credentialOf(state.tableId))
    .then((review) => {
      if (finished !== state.shown.history.length - 1) return;  // a later deal's is shown
      panel.replaceChildren(heading(),
        ...reviewNodes(review, ctx.nameOf, ctx.sideName, state.shown.history[finished]));
    })
    .catch((error) => panel.replaceChildren(heading(), element("p", { text: error.message })));
}
