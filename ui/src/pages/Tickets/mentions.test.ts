import { describe, expect, it } from "vitest";
import {
  addLabel,
  cleanMentions,
  fromWire,
  insertMention,
  isCsvFile,
  mentionAt,
  remember,
  suggestions,
  toWire,
} from "./mentions";

describe("ticket description mentions", () => {
  it("turns chosen '@Name' into the server's mention and back", () => {
    const wire = toWire("Hi @Ann Lee and @Ann, see @Bob", [
      { id: "a1", name: "Ann Lee" },
      { id: "a2", name: "Ann" },
    ]);
    expect(wire).toBe("Hi @[Ann Lee](a1) and @[Ann](a2), see @Bob");
    expect(fromWire(wire)).toEqual({
      text: "Hi @Ann Lee and @Ann, see @Bob",
      mentions: [
        { id: "a1", name: "Ann Lee" },
        { id: "a2", name: "Ann" },
      ],
    });
  });

  it("drops mentions with a null or undefined id or name", () => {
    expect(
      cleanMentions([
        { id: null, name: "A" },
        { id: undefined, name: "B" },
        { id: "undefined", name: "C" },
        { id: "d", name: null },
        { id: "e", name: "E" },
        { id: "e", name: "E again" },
      ]),
    ).toEqual([{ id: "e", name: "E" }]);
    expect(
      toWire("@A @E", [
        { id: null, name: "A" },
        { id: "e", name: "E" },
      ]),
    ).toBe("@A @[E](e)");
  });

  it("finds the '@' being typed and inserts the choice", () => {
    expect(mentionAt("Hello @an", 9)).toEqual({ start: 6, query: "an" });
    expect(mentionAt("mail a@b", 8)).toBeNull();
    expect(mentionAt("@x\ny", 4)).toBeNull();
    expect(insertMention("Hello @an!", 6, 9, "Ann Lee")).toEqual({ text: "Hello @Ann Lee !", caret: 15 });
  });

  it("remembers the 5 most recent mentions, newest first, each once", () => {
    let recent: { id: string; name: string }[] = [];
    for (const id of ["1", "2", "3", "4", "5", "6", "3"]) recent = remember(recent, { id, name: `P${id}` });
    expect(recent.map((r) => r.id)).toEqual(["3", "6", "5", "4", "2"]);
    const people = [
      { accountId: "1", name: "Ann" },
      { accountId: "4", name: "Anna" },
      { accountId: "9", name: "Bob" },
    ];
    expect(suggestions(people, recent, "an").map((p) => p.accountId)).toEqual(["4", "1"]);
  });

  it("accepts only .csv files and labels without spaces", () => {
    expect(isCsvFile("runs.CSV")).toBe(true);
    expect(isCsvFile("runs.txt")).toBe(false);
    expect(isCsvFile(".csv")).toBe(false);
    expect(addLabel(["ivr"], " two words ")).toEqual(["ivr", "two-words"]);
    expect(addLabel(["ivr"], "ivr")).toEqual(["ivr"]);
    expect(addLabel(["ivr"], "  ")).toEqual(["ivr"]);
  });
});
