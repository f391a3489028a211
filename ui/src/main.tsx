import "./styles.css";
import { render } from "preact";
import { App } from "./app/App";
import { activate, storedLocale } from "./i18n";
import { loadTenantConfig } from "./lib/tenant";

async function start() {
  await Promise.all([activate(storedLocale()), loadTenantConfig((input, init) => fetch(input, init), location.host)]);
  const root = document.getElementById("app");
  if (root) render(<App />, root);
}

void start();
