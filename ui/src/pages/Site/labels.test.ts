// Every kind and action the server writes to the audit log has words in the console: the codes
// are read from the server's sources (each `audit::record(…)` and `record_by_user(…)` call's
// string literals), so a new action recorded without a label here fails this test instead of
// showing as 'sign_in' on a French screen.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ACTION_LABELS, KIND_LABELS, labelOf } from "./labels";

const SERVER = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../../src");

function rustFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    return statSync(p).isDirectory() ? rustFiles(p) : name.endsWith(".rs") ? [p] : [];
  });
}

/** The string literals of each audit call's arguments: the kind first, then the action(s). */
function auditCalls(): { file: string; kind: string; actions: string[] }[] {
  const out: { file: string; kind: string; actions: string[] }[] = [];
  for (const file of rustFiles(SERVER)) {
    if (file.endsWith(path.join("store", "audit.rs"))) continue;
    const text = readFileSync(file, "utf8");
    for (const m of text.matchAll(/audit::record(?:_by_user)?\(/g)) {
      let depth = 1;
      let i = (m.index ?? 0) + m[0].length;
      const start = i;
      for (; i < text.length && depth > 0; i++) {
        if (text[i] === "(") depth++;
        else if (text[i] === ")") depth--;
      }
      const literals = [...text.slice(start, i).matchAll(/"([a-z_]+)"/g)].map((x) => x[1]);
      if (literals.length)
        out.push({ file: path.relative(SERVER, file), kind: literals[0], actions: literals.slice(1) });
    }
  }
  return out;
}

describe("the audit log's words", () => {
  const calls = auditCalls();
  it("finds the server's audit calls", () => {
    expect(calls.length).toBeGreaterThan(20);
  });
  it("has a label for every kind and action the server records", () => {
    const missing = calls.flatMap((c) => [
      ...(c.kind in KIND_LABELS ? [] : [`kind ${c.kind} (${c.file})`]),
      ...c.actions.filter((a) => !(a in ACTION_LABELS)).map((a) => `action ${a} (${c.file})`),
    ]);
    expect(missing).toEqual([]);
  });
  it("has a label for the actions named in a variable (a comment, an update)", () => {
    for (const code of ["comment", "update", "create"]) expect(code in ACTION_LABELS).toBe(true);
  });
  it("shows an unknown code as it is", () => {
    expect(labelOf(ACTION_LABELS, "nothing_known", (m) => m.id ?? "")).toBe("nothing_known");
  });
});
