// The test case group editor, in a dialog (spec §2 'Settings lists'): name, channel, an
// optional IVR application that narrows the test case grid, and the grid itself (check boxes,
// 100 a page). Save checks the rules first (nothing is sent without a name, a channel and a
// test case); a successful save resets the form, closes the dialog and refreshes the list.
import { useLingui } from "@lingui/react/macro";
import { useEffect, useId, useMemo, useState } from "react";
import { ApiError } from "../../api";
import { useGroup, useIvrs, useSaveGroup } from "../../api/queries/groups";
import type { ChannelId } from "../../api/types";
import { controlProps, Field, FormActions, TextField } from "../../components/Field";
import { Modal } from "../../components/Modal";
import { Pager } from "../../components/Pager";
import { pageCount } from "../../components/paging";
import { showError, showSuccess } from "../../lib/banners";
import {
  CASE_GRID_SIZE,
  caseRows,
  emptyGroupForm,
  type GroupField,
  type GroupForm,
  type GroupProblems,
  groupBody,
  groupProblems,
  MAX_NAME,
  withChannel,
} from "./rules";

export function GroupDialog({ id, onClose }: { id: number; onClose: () => void }) {
  const { t } = useLingui();
  const group = useGroup(id);
  const title = id > 0 ? t`Edit Test Case Group` : t`New Test Case Group`;
  return (
    <Modal open size="large" title={title} onClose={onClose} testId="group-dialog">
      {id > 0 && !group.data ? (
        <p class="muted">{group.isError ? t`The group could not be loaded.` : t`Please wait ...`}</p>
      ) : (
        <GroupEditor
          key={id}
          initial={
            group.data
              ? {
                  id: group.data.id,
                  name: group.data.name,
                  channel: group.data.channel as ChannelId,
                  ivrId: null,
                  testCaseIds: group.data.testCases.map((c) => c.id),
                }
              : emptyGroupForm()
          }
          onDone={onClose}
          onCancel={onClose}
        />
      )}
    </Modal>
  );
}

function GroupEditor({ initial, onDone, onCancel }: { initial: GroupForm; onDone: () => void; onCancel: () => void }) {
  const { t } = useLingui();
  const uid = useId();
  const ivrs = useIvrs();
  const save = useSaveGroup();
  const [form, setForm] = useState<GroupForm>(initial);
  const [problems, setProblems] = useState<GroupProblems>({});
  const [serverText, setServerText] = useState<Partial<Record<GroupField, string>>>({});
  const [page, setPage] = useState(1);
  const all = ivrs.data ?? [];
  const rows = useMemo(() => caseRows(all, form.channel, form.ivrId), [all, form.channel, form.ivrId]);
  const pages = pageCount(rows.length, CASE_GRID_SIZE);
  const shown = rows.slice((Math.min(page, pages) - 1) * CASE_GRID_SIZE, Math.min(page, pages) * CASE_GRID_SIZE);
  const chosen = new Set(form.testCaseIds);
  const allShown = shown.length > 0 && shown.every((r) => chosen.has(r.id));
  useEffect(() => setPage(1), [form.channel, form.ivrId]);

  const change = (next: GroupForm, touched: GroupField[]) => {
    setForm(next);
    setProblems((p) => {
      const q = { ...p };
      for (const f of touched) delete q[f];
      return q;
    });
    setServerText((p) => {
      const q = { ...p };
      for (const f of touched) delete q[f];
      return q;
    });
  };
  const toggle = (caseId: number) =>
    change(
      {
        ...form,
        testCaseIds: chosen.has(caseId) ? form.testCaseIds.filter((x) => x !== caseId) : [...form.testCaseIds, caseId],
      },
      ["testCases"],
    );
  const toggleShown = () => {
    const ids = new Set(form.testCaseIds);
    for (const r of shown) {
      if (allShown) ids.delete(r.id);
      else ids.add(r.id);
    }
    change({ ...form, testCaseIds: [...ids] }, ["testCases"]);
  };

  const message = (f: GroupField): string | undefined => {
    if (serverText[f]) return serverText[f];
    const p = problems[f];
    if (!p) return undefined;
    if (f === "name") return p === "tooLong" ? t`At most ${MAX_NAME} characters.` : t`Please enter a name`;
    if (f === "channel") return t`Please select a channel`;
    return t`Please select at least one test case`;
  };

  const submit = async (e: Event) => {
    e.preventDefault();
    const found = groupProblems(form);
    const body = groupBody(form);
    if (!body) {
      setProblems(found);
      return;
    }
    try {
      await save.mutateAsync(body);
      const name = body.name;
      showSuccess(form.id ? t`Test case group ${name} updated.` : t`Test case group ${name} created.`);
      setForm(emptyGroupForm());
      setProblems({});
      onDone();
    } catch (err) {
      if (err instanceof ApiError && err.fields.length) {
        const texts: Partial<Record<GroupField, string>> = {};
        for (const f of err.fields) {
          if (f.field === "name" && f.rule === "taken") texts.name = t`Another test case group has this name`;
          else if (f.field === "name" || f.field === "channel" || f.field === "testCases") texts[f.field] = f.message;
        }
        setServerText(texts);
      } else if (err instanceof ApiError) {
        showError(err.messages);
      }
    }
  };

  const ivrChoices = all.filter((i) => i.channel === form.channel);
  const count = form.testCaseIds.length;
  const casesError = message("testCases");
  return (
    <form class="group-form" onSubmit={(e) => void submit(e)} noValidate data-testid="group-form">
      <div class="group-form-fields">
        <TextField
          id={`${uid}-name`}
          label={t`Name`}
          required
          value={form.name}
          error={message("name")}
          onValue={(v) => change({ ...form, name: v }, ["name"])}
          testId="group-name"
        />
        <Field id={`${uid}-channel`} label={t`Channel`} required error={message("channel")}>
          <select
            {...controlProps(`${uid}-channel`, true, message("channel"))}
            value={form.channel}
            onChange={(e) =>
              change(withChannel(form, all, e.currentTarget.value as "" | ChannelId), ["channel", "testCases"])
            }
            data-testid="group-channel"
          >
            <option value="">{t`Select a channel`}</option>
            <option value="voice">{t`Voice`}</option>
            <option value="web">{t`Digital`}</option>
          </select>
        </Field>
        <Field id={`${uid}-ivr`} label={t`IVR Application`}>
          <select
            {...controlProps(`${uid}-ivr`, false)}
            value={form.ivrId ?? ""}
            disabled={!form.channel}
            onChange={(e) => {
              const v = e.currentTarget.value;
              setForm({ ...form, ivrId: v === "" ? null : Number(v) });
            }}
            data-testid="group-ivr"
          >
            <option value="">{t`All IVR Applications`}</option>
            {ivrChoices.map((i) => (
              <option key={i.id} value={i.id}>
                {i.name}
              </option>
            ))}
          </select>
        </Field>
      </div>
      <fieldset
        class={casesError ? "case-grid has-error" : "case-grid"}
        aria-describedby={casesError ? `${uid}-cases-error` : undefined}
        data-testid="case-grid"
      >
        <legend class="field-label">
          {t`Test Cases`}
          <span class="required" aria-hidden="true">
            {" *"}
          </span>{" "}
          <span class="muted" data-testid="case-count">
            {t`(${count} selected)`}
          </span>
        </legend>
        {casesError ? (
          <span class="field-error" id={`${uid}-cases-error`} role="alert" data-testid="error-testCases">
            {casesError}
          </span>
        ) : null}
        {!form.channel ? (
          <p class="muted">{t`Select a channel to see its test cases.`}</p>
        ) : ivrs.isLoading ? (
          <p class="muted">{t`Please wait ...`}</p>
        ) : rows.length === 0 ? (
          <p class="muted">{t`No Data`}</p>
        ) : (
          <>
            <div class="case-grid-scroll">
              <table class="case-table">
                <thead>
                  <tr>
                    <th class="check-col">
                      <input
                        type="checkbox"
                        checked={allShown}
                        onChange={toggleShown}
                        aria-label={t`Select every test case on this page`}
                        data-testid="case-select-all"
                      />
                    </th>
                    <th>{t`ID`}</th>
                    <th>{t`Test Case`}</th>
                    <th class="ivr-col">{t`IVR Application`}</th>
                  </tr>
                </thead>
                <tbody>
                  {shown.map((r) => {
                    const name = r.name;
                    return (
                      <tr key={r.id} data-testid="case-row">
                        <td class="check-col">
                          <input
                            type="checkbox"
                            checked={chosen.has(r.id)}
                            onChange={() => toggle(r.id)}
                            aria-label={t`Select ${name}`}
                            data-testid="case-select"
                          />
                        </td>
                        <td>{r.id}</td>
                        <td>{r.name}</td>
                        <td class="ivr-col">{r.ivrName}</td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </div>
            {rows.length > CASE_GRID_SIZE ? (
              <Pager
                page={Math.min(page, pages)}
                size={CASE_GRID_SIZE}
                total={rows.length}
                onPage={setPage}
                onSize={() => {}}
                fixedSize
              />
            ) : null}
          </>
        )}
      </fieldset>
      <FormActions onCancel={onCancel} saving={save.isPending} />
    </form>
  );
}
