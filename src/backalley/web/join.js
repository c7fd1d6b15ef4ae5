// The join page: a table's seats and rules, and the form that takes a seat at it.
import { call, credentialOf, me, remember } from "./api.js";
import { botLabel } from "./cards.js";
import { element, keepName, nameField, toast } from "./dom.js";
import { t } from "./i18n.js";
import { rulesLine } from "./rules.js";

export async function joinPage(main, tableId, params, go) {
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
