// @vitest-environment jsdom
import { h, render } from "preact";
import { act } from "preact/test-utils";
import { describe, expect, it } from "vitest";
import { type Form, fromRefusals, refusedFields, useForm, without } from "./form";

describe("the form's pieces", () => {
  it("drops the named errors, and keeps the object when there is none to drop", () => {
    const errors = { name: "required", group: "required" } as const;
    expect(without(errors, ["name"])).toEqual({ group: "required" });
    expect(without(errors, ["other" as "name"])).toBe(errors);
  });

  it("reads the fields of a failure that names them, and nothing of another", () => {
    const fields = [{ field: "name", message: "name is taken." }];
    expect(refusedFields({ fields })).toEqual(fields);
    expect(refusedFields({ fields: [{ field: 3 }] })).toEqual([]);
    expect(refusedFields(new Error("down"))).toEqual([]);
    expect(refusedFields(null)).toEqual([]);
  });

  it("marks refused fields under the form's names and keeps the server's sentence", () => {
    const out = fromRefusals(
      [{ field: "testCases", message: "Test case 9 does not exist." }],
      () => "invalid",
      (f) => (f === "testCases" ? "testCaseGroups" : f),
    );
    expect(out.errors).toEqual({ testCaseGroups: "invalid" });
    expect(out.texts).toEqual({ testCaseGroups: "Test case 9 does not exist." });
  });
});

interface V {
  name: string;
  count: number;
}
type F = "name" | "count";

function mount(refused?: (m: string) => string) {
  const root = document.createElement("div");
  let form!: Form<V, F, string>;
  function Probe() {
    form = useForm<V, F, string>({
      initial: { name: "", count: 0 },
      validate: (v) => (v.name ? {} : { name: "required" }),
      refused,
    });
    return null;
  }
  act(() => render(h(Probe, null), root));
  return () => form;
}

const submitEvent = () => new Event("submit", { cancelable: true });

describe("useForm", () => {
  it("checks before it sends, clears an error with its change, and is dirty once changed", async () => {
    const form = mount();
    const sent: V[] = [];
    let invalid = {};
    await act(() => form().submit(async (v) => void sent.push(v), { onInvalid: (e) => (invalid = e) })(submitEvent()));
    expect(sent).toEqual([]);
    expect(invalid).toEqual({ name: "required" });
    expect(form().errors).toEqual({ name: "required" });
    expect(form().dirty).toBe(false);
    act(() => form().set({ count: 2 }));
    expect(form().errors).toEqual({ name: "required" });
    act(() => form().set({ name: "Billing" }, "name"));
    expect(form().errors).toEqual({});
    expect(form().dirty).toBe(true);
    await act(() => form().submit(async (v) => void sent.push(v))(submitEvent()));
    expect(sent).toEqual([{ name: "Billing", count: 2 }]);
    act(() => form().load({ name: "Saved", count: 1 }));
    expect(form().dirty).toBe(false);
    expect(form().values.name).toBe("Saved");
  });

  it("puts the server's refusals beside their fields, or hands the failure on", async () => {
    const refusal = { fields: [{ field: "count", message: "count is too big." }] };
    const marked = mount(() => "invalid");
    let failed: unknown = null;
    const fill = (form: () => Form<V, F, string>) => act(() => form().set({ name: "x" }));
    fill(marked);
    await act(() => marked().submit(() => Promise.reject(refusal), { onFailure: (f) => (failed = f) })(submitEvent()));
    expect(marked().errors).toEqual({ count: "invalid" });
    expect(marked().serverText("count")).toBe("count is too big.");
    expect(failed).toBeNull();
    // Without `refused` (a form that shows the server's messages as a whole) the failure is the caller's.
    const plain = mount();
    fill(plain);
    await act(() => plain().submit(() => Promise.reject(refusal), { onFailure: (f) => (failed = f) })(submitEvent()));
    expect(failed).toBe(refusal);
    expect(plain().errors).toEqual({});
    // A new check forgets the server's sentences.
    act(() => void marked().check());
    expect(marked().serverText("count")).toBeUndefined();
  });
});
