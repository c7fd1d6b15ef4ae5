// A finished game step by step, every hand open, with each deal's review alongside; the
// frames come from the server's engine, so the page works out nothing itself.
import { call } from "./api.js";
import { bidLabel, cardElement, playedRow, trumpSymbol } from "./cards.js";
import { element } from "./dom.js";
import { t } from "./i18n.js";
import { reviewNodes } from "./review.js";
import { seatName } from "./table.js";

export async function renderReplay(main, tableId) {
  const game = await call("GET", `/api/tables/${tableId}/replay`);
  const names = game.players.map((_, seat) => seatName(game.players, seat));
  let deal = 0;
  let step = 0;
  const root = element("div", { class: "replay" });
  const controls = element("div", { class: "controls", role: "group", "aria-label": t("replay") });
  const board = element("section", { class: "panel board" });
  const review = element("section", { class: "panel review" });
  const buttons = {
    previousDeal: element("button", { type: "button", text: `« ${t("deal")}` }),
    previous: element("button", { type: "button", text: `◀ ${t("card")}` }),
    next: element("button", { type: "button", text: `${t("card")} ▶` }),
    nextDeal: element("button", { type: "button", text: `${t("deal")} »` }),
  };
  const download = element("a", { href: `/api/tables/${tableId}/record`, download: `backalley-${tableId}.json`, text: t("download the record") });
  controls.append(...Object.values(buttons), download);
  root.append(element("h1", { text: t("Replay") }), controls, board, review);
  main.replaceChildren(root);

  const move = (newDeal, newStep) => {
    deal = Math.max(0, Math.min(game.deals.length - 1, newDeal));
    const frames = game.deals[deal].frames.length;
    step = Math.max(0, Math.min(frames - 1, newStep));
    draw();
  };
  buttons.previousDeal.addEventListener("click", () => move(deal - 1, 0));
  buttons.nextDeal.addEventListener("click", () => move(deal + 1, 0));
  buttons.previous.addEventListener("click", () => move(deal, step - 1));
  buttons.next.addEventListener("click", () => move(deal, step + 1));
  root.addEventListener("keydown", (event) => {
    if (event.key === "ArrowRight") move(deal, step + 1);
    if (event.key === "ArrowLeft") move(deal, step - 1);
  });

  function draw() {
    const current = game.deals[deal];
    const frame = current.frames[step];
    board.replaceChildren(
      element("h2", { text: t("deal {n} · card {step} of {total}", { n: deal + 1, step, total: current.frames.length - 1 }) }),
      element("p", { text: `${t("trump")}: ${trumpSymbol(frame.trump)} · ${t("bids")}: ${current.bids.map(([seat, bid]) => `${names[seat]} ${bidLabel(bid)}`).join(", ") || "—"}` }),
    );
    const hands = element("ul", { class: "hands" });
    (frame.hands || []).forEach((hand, seat) => {
      const row = element("li", {}, element("span", { class: "name", text: names[seat] }));
      for (const card of hand) row.append(cardElement(card, { small: true }));
      hands.append(row);
    });
    board.append(hands, element("h3", { text: t("the trick") }), playedRow(frame.trick || [], (seat) => names[seat]));
    if (current.points) board.append(element("p", { text: `${t("points")}: ${current.points.join(" / ")}` }));
    if (deal !== reviewed) drawReview(deal);
  }

  const reviews = {};  // a deal's review, asked once (the answer, or the request under way)
  let reviewed = null;  // the deal whose review is shown
  async function drawReview(number) {
    reviewed = number;
    review.replaceChildren(element("h2", { text: t("Review of deal {n}", { n: number + 1 }) }));
    reviews[number] ??= call("GET", `/api/tables/${tableId}/review/${number}`);
    let answer;
    try {
      answer = await reviews[number];
    } catch (error) {
      delete reviews[number];  // asked again when the deal is shown again
      if (number === deal) review.append(element("p", { text: error.message }));
      return;
    }
    if (number === deal) review.append(...reviewNodes(answer, (seat) => names[seat]));
  }

  move(0, 0);
}
