import "./styles.css";
import { render } from "preact";
import { loadTenantConfig } from "./lib/tenant";
import { App } from "./app/App";
import { activate, storedLocale } from "./i18n";

async function start() {
  await Promise.all([
    activate(storedLocale()),
    loadTenantConfig((input, init) => fetch(input, init), location.host),
  ]);
  render(<App />, document.getElementById("app")!);
}

void start();
