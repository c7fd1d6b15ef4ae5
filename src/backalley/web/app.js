// The page's entry: language, the four-colour deck, messages, and the route from the address.
import { toast } from "./dom.js";
import { LANGUAGES, chooseLanguage, t, useLanguage } from "./i18n.js";
import { renderHome } from "./home.js";
import { renderReplay } from "./replay.js";
import { renderTable } from "./table.js";

let leave = null;

function go(path) {
  history.pushState(null, "", path);
  route();
}

async function route() {
  if (leave) leave();
  leave = null;
  const main = document.getElementById("main");
  const path = location.pathname;
  try {
    const table = path.match(/^\/t\/([\w-]+)$/);
    const replay = path.match(/^\/replay\/([\w-]+)$/);
    if (table) leave = renderTable(main, table[1], new URLSearchParams(location.search), go);
    else if (replay) await renderReplay(main, replay[1]);
    else await renderHome(main, go);
  } catch (error) {
    toast(error.message);
  }
}

async function start() {
  await useLanguage(chooseLanguage());
  const select = document.getElementById("lang");
  for (const [code, name] of Object.entries(LANGUAGES)) select.append(new Option(name, code));
  select.value = document.documentElement.lang;
  select.addEventListener("change", async () => {
    localStorage.setItem("backalley.lang", select.value);
    await useLanguage(select.value);
    labels();
    route();
  });
  const four = document.getElementById("four-colour");
  four.checked = localStorage.getItem("backalley.four") === "1";
  document.body.classList.toggle("four-colour", four.checked);
  four.addEventListener("change", () => {
    localStorage.setItem("backalley.four", four.checked ? "1" : "0");
    document.body.classList.toggle("four-colour", four.checked);
  });
  document.addEventListener("click", (event) => {
    const link = event.target.closest("a[href^='/']");
    if (link && !link.hasAttribute("download")) {
      event.preventDefault();
      go(link.getAttribute("href"));
    }
  });
  window.addEventListener("popstate", route);
  labels();
  route();
}

function labels() {
  document.getElementById("lang-label").textContent = t("Language");
  document.getElementById("four-colour-label").textContent = t("four colours");
}

start();
