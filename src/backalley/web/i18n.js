// The page's words in the reader's language: catalogs come from the server (gettext, Babel),
// English is the source. t(message, {name: value}) translates and fills {name}.
export const LANGUAGES = { en: "English", es: "Español", nl: "Nederlands", ro: "Română", tr: "Türkçe" };
let messages = {};
let current = "en";

export function t(message, params = {}) {
  const text = messages[message] ?? message;
  return text.replace(/\{(\w+)\}/g, (whole, key) => (key in params ? String(params[key]) : whole));
}

export function language() {
  return current;
}

export function chooseLanguage() {
  const saved = localStorage.getItem("backalley.lang");
  if (saved && saved in LANGUAGES) return saved;
  for (const wanted of navigator.languages || [navigator.language || "en"]) {
    const code = wanted.slice(0, 2).toLowerCase();
    if (code in LANGUAGES) return code;
  }
  return "en";
}

export async function useLanguage(lang) {
  current = lang in LANGUAGES ? lang : "en";
  document.documentElement.lang = current;
  messages = {};
  if (current !== "en") {
    const answer = await fetch(`/api/i18n/${current}`);
    if (answer.ok) messages = (await answer.json()).messages;
  }
}
