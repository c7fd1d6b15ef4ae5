// A finished game step by step, every hand open, at the table as it was played: the trick in
// front of its players with its winner marked, the tricks each side has taken, a deal's points
// once its last card is down, and each deal's review alongside. It plays itself, or card by
// card. The frames come from the server's engine, so the page works out nothing itself.
import { call, credentialOf, reviewOf } from "./api.js";
import { bidLabel, cardElement, seatName } from "./cards.js";
import { element } from "./dom.js";
import { feltSkeleton, layTrick, placeOf, trumpCorner } from "./felt.js";
import { t } from "./i18n.js";
import { reviewNodes } from "./review.js";
import { thrownInLabel } from "./sheet.js";

const STEP = 900;  // ms a card while the replay plays itself

export async function renderReplay(main, tableId, params) {
  // ``via``: another's try at the daily deals, read through one's own finished try of them
  const via = params && params.get("via");
  const credential = via ? credentialOf(via) : credentialOf(tableId, params && params.get("watch"));
  const suffix = via ? `?via=${encodeURIComponent(via)}` : "";
  const game = await call("GET", `/api/tables/${tableId}/replay${suffix}`, undefined, credential);
  const players = game.players.length;
  const names = game.players.map((_, seat) => seatName(game.players, seat));
  const where = (seat) => placeOf(seat, 0, players);
  const sideName = (seats) => seats.map((seat) => names[seat]).join(" & ");
  let deal = 0;
  let step = 0;
  let playing = null;
  const root = element("div", { class: "replay" });
  const controls = element("div", { class: "controls", role: "toolbar", "aria-label": t("replay") });
  const heading = element("h2", { class: "replay-title" });
  const facts = element("p", { class: "replay-facts" });
  const felt = feltSkeleton({ class: "felt replay-felt" });
  const tally = element("ul", { class: "side-scores replay-tally" });
  const review = element("section", { class: "panel review" });
  const button = (label, name) => element("button", { type: "button", "data-step": name, text: label });
  const buttons = {
    previousDeal: button(`« ${t("deal")}`, "previous-deal"),
    previous: button(`◀ ${t("card")}`, "previous"),
    play: button(t("play"), "play"),
    next: button(`${t("card")} ▶`, "next"),
    nextDeal: button(`${t("deal")} »`, "next-deal"),
  };
  // The record asked with this browser's credential (a private table's needs one), then saved.
  const download = element("a", { href: `/api/tables/${tableId}/record`, download: `backalley-${tableId}.json`, class: "button", text: t("download the record") });
  download.addEventListener("click", (event) => {
    event.preventDefault();
    call("GET", `/api/tables/${tableId}/record${suffix}`, undefined, credential).then((record) => {
      const file = URL.createObjectURL(new Blob([JSON.stringify(record, null, 1)], { type: "application/json" }));
      const save = element("a", { href: file, download: download.getAttribute("download") });
      document.body.append(save);
      save.click();
      save.remove();
      setTimeout(() => URL.revokeObjectURL(file), 1000);
    });
  });
  controls.append(...Object.values(buttons), download);
  root.append(element("h1", { text: t("Replay") }), controls, heading, facts, felt, tally, review);
  main.replaceChildren(root);

  const last = (d) => game.deals[d].frames.length - 1;
  // A deal thrown in is dealt again: it is not one of the game's deals, which are counted
  // (and numbered) as the score sheet counts them.
  const counted = game.deals.filter((d) => !d.thrown_in).length;
  const numberOf = (d) => game.deals.slice(0, d + 1).filter((x) => !x.thrown_in).length;
  const move = (newDeal, newStep) => {
    deal = Math.max(0, Math.min(game.deals.length - 1, newDeal));
    step = Math.max(0, Math.min(last(deal), newStep));
    draw();
  };
  const forward = () => {
    if (step < last(deal)) move(deal, step + 1);
    else if (deal < game.deals.length - 1) move(deal + 1, 0);
    else stop();
  };
  const stop = () => {
    clearInterval(playing);
    playing = null;
    buttons.play.textContent = t("play");
    buttons.play.setAttribute("aria-pressed", "false");
  };
  const toggle = () => {
    if (playing) return stop();
    playing = setInterval(forward, STEP);
    buttons.play.textContent = t("pause");
    buttons.play.setAttribute("aria-pressed", "true");
  };
  buttons.previousDeal.addEventListener("click", () => move(deal - 1, 0));
  buttons.nextDeal.addEventListener("click", () => move(deal + 1, 0));
  buttons.previous.addEventListener("click", () => move(deal, step - 1));
  buttons.next.addEventListener("click", () => move(deal, step + 1));
  buttons.play.addEventListener("click", toggle);
  buttons.play.setAttribute("aria-pressed", "false");
  root.addEventListener("keydown", (event) => {
    if (event.key === "ArrowRight") move(deal, step + 1);
    else if (event.key === "ArrowLeft") move(deal, step - 1);
    else return;
    event.preventDefault();
  });

  function draw() {
    const current = game.deals[deal];
    const frame = current.frames[step];
    const over = step === last(deal);
    heading.textContent = current.thrown_in
      ? `${thrownInLabel(current.thrown_in)} · ${t("dealt again as deal {n}", { n: numberOf(deal) + 1 })}`
      : t("deal {n} of {total} · card {step} of {cards}", { n: numberOf(deal), total: counted, step, cards: last(deal) });
    const bids = current.bids.map(([seat, bid]) => `${names[seat]} ${bidLabel(bid)}`).join(", ") || "—";
    facts.replaceChildren(`${t("bids")}: ${bids}`);
    trumpCorner(felt.querySelector("[data-region=trumpBox]"), frame);
    const shown = frame.trick.length ? frame.trick : frame.tricks.length ? frame.tricks[frame.tricks.length - 1] : [];
    const winner = frame.trick.length || !frame.tricks.length ? null : frame.trick_winners[frame.trick_winners.length - 1];
    for (const place of felt.querySelectorAll("[data-place]")) place.replaceChildren();
    frame.hands.forEach((hand, seat) => {
      const won = frame.trick_winners.filter((w) => w === seat).length;
      const box = element("div", { class: "pod open", "data-seat": String(seat) },
        element("div", { class: "pod-text" }, element("span", { class: "name", text: names[seat] }), element("span", { class: "sub", text: t("tricks won {n}", { n: won }) })));
      const cards = element("div", { class: "open-hand" });
      for (const card of hand) cards.append(cardElement(card));
      box.append(cards);
      if (frame.to_move === seat) box.dataset.turn = "";
      felt.querySelector(`[data-place=${where(seat)}]`).append(box);
    });
    layTrick(felt.querySelector("[data-trick]"), shown, where, winner);
    felt.querySelector(".banner").textContent = winner === null ? "" : t("{name} won the trick", { name: names[winner] });
    tally.replaceChildren();
    game.sides.forEach((seats, side) => {
      const points = over && current.points ? ` · ${t("points")} ${current.points[side]}` : "";
      tally.append(element("li", {}, element("span", { class: "who", text: sideName(seats) }),
        element("strong", { text: `${t("bid {contract} · took {tricks}", { contract: bidLabel(frame.contracts[side]), tricks: frame.tricks_won[side] })}${points}` })));
    });
    if (deal !== reviewed) drawReview(deal);
  }

  const reviews = {};  // a deal's review, asked once (the answer, or the request under way)
  let reviewed = null;  // the deal whose review is shown
  async function drawReview(number) {
    reviewed = number;
    review.replaceChildren(element("h2", { text: t("Review of deal {n}", { n: number + 1 }) }));
    reviews[number] ??= reviewOf(tableId, number, credential, suffix);
    let answer;
    try {
      answer = await reviews[number];
    } catch (error) {
      delete reviews[number];  // asked again when the deal is shown again
      if (number === deal) review.append(element("p", { text: error.message }));
      return;
    }
    const summary = { contracts: game.deals[number].frames[0].contracts };
    if (number === deal) review.append(...reviewNodes(answer, (seat) => names[seat], (side) => sideName(game.sides[side]), summary));
  }

  const first = Number(params && params.get("deal"));  // a deal asked for (the daily results')
  move(Number.isInteger(first) && first > 0 ? first : 0, 0);
  return stop;
}
