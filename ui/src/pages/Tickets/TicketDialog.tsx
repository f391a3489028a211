// The ticket dialog (spec §2 'Ticket dialog', §4, §5, §8), shared by every screen that
// tickets something: create mode when the item has no ticket, edit mode when it has one.
// Project, summary and assignee are marked required but not checked; labels are chips;
// the description offers people after '@'; an optional CSV file; the status on edit; the
// issue type is always Bug.
import { useLingui } from "@lingui/react/macro";
import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useId, useRef, useState } from "react";
import { ApiError } from "../../api";
import {
  createIssue,
  jiraKeys,
  keepTicketKey,
  updateAutoTicket,
  updateIssue,
  useJiraIssue,
  useJiraProjects,
  useJiraStatuses,
  useJiraUsers,
} from "../../api/queries/jira";
import type { JiraUser } from "../../api/types";
import { Field } from "../../components/Field";
import { CloseIcon } from "../../components/icons";
import { Modal } from "../../components/Modal";
import { showError, showSuccess } from "../../lib/banners";
import { draftKey, forgetDraft, loadDraft, saveDraft } from "./drafts";
import {
  addLabel,
  fromWire,
  insertMention,
  isCsvFile,
  loadRecent,
  type Mention,
  mentionAt,
  remember,
  saveRecent,
  suggestions,
  toWire,
} from "./mentions";
import "./Tickets.css";

/** What is ticketed: a report, an alert event, or a ticket the alert engine opened (edit only). */
export interface TicketTarget {
  reportId?: number;
  /** An alert event (alert details): its key is stored on the event. */
  alertId?: number;
  /** An auto ticket (`PUT autojiraticket/{id}`): its edit also keeps the alert's description. */
  autoTicketId?: number;
  /** The existing ticket's key: edit mode. */
  ticket?: string | null;
  /** Shown in the title. */
  name: string;
}

export interface TicketDialogProps {
  open: boolean;
  target: TicketTarget | null;
  /** The console user the ticket is made for (`username` of the calls). */
  username: string;
  onClose: () => void;
  /** After a create, with the new key. */
  onCreated?: (key: string) => void;
}

export function TicketDialog(props: TicketDialogProps) {
  const { t } = useLingui();
  const target = props.target;
  if (!props.open || !target) return null;
  const edit = !!target.ticket;
  const name = target.name;
  const key = target.ticket ?? "";
  return (
    <Modal
      open
      onClose={props.onClose}
      size="large"
      title={edit ? t`Edit ticket ${key}` : t`Create ticket for ${name}`}
      testId="ticket-dialog"
    >
      <TicketForm {...props} target={target} edit={edit} />
    </Modal>
  );
}

function TicketForm({
  target,
  username,
  onClose,
  onCreated,
  edit,
}: TicketDialogProps & { target: TicketTarget; edit: boolean }) {
  const { t } = useLingui();
  const ids = useId();
  const queryClient = useQueryClient();
  const users = useJiraUsers(username);
  const projects = useJiraProjects(username);
  const statuses = useJiraStatuses(username, edit);
  const issue = useJiraIssue(edit ? target.ticket : null, username);
  const [project, setProject] = useState("");
  const [summary, setSummary] = useState("");
  const [assignee, setAssignee] = useState("");
  const [labels, setLabels] = useState<string[]>([]);
  const [labelText, setLabelText] = useState("");
  const [description, setDescription] = useState("");
  const [mentions, setMentions] = useState<Mention[]>([]);
  const [status, setStatus] = useState("");
  const [file, setFile] = useState<File | null>(null);
  const [fileError, setFileError] = useState("");
  const [recent, setRecent] = useState(loadRecent);
  const [typing, setTyping] = useState<{ start: number; query: string; caret: number } | null>(null);
  const [saving, setSaving] = useState(false);
  const [loaded, setLoaded] = useState(false);
  const area = useRef<HTMLTextAreaElement>(null);
  // What was typed before Jira refused the save, restored.
  const key = draftKey(target);
  const [restored, setRestored] = useState(false);
  const restore = () => {
    const draft = loadDraft(key);
    if (!draft) return;
    setProject(draft.project);
    setSummary(draft.summary);
    setAssignee(draft.assignee);
    setLabels(draft.labels);
    setDescription(draft.description);
    setMentions(draft.mentions);
    if (draft.status !== undefined) setStatus(draft.status);
    setRestored(true);
  };

  // Create mode: a refused save's draft at once.
  useEffect(() => {
    if (!edit) restore();
  }, []);

  // Edit mode: the ticket's fields once read, then a refused save's draft over them.
  useEffect(() => {
    if (!edit || loaded || !issue.data) return;
    const d = issue.data;
    const wire = fromWire(d.description);
    setProject(d.project);
    setSummary(d.summary);
    setAssignee(d.assigneeId ?? "");
    setLabels(d.labels);
    setDescription(wire.text);
    setMentions(wire.mentions);
    setStatus(d.status);
    restore();
    setLoaded(true);
  }, [edit, loaded, issue.data]);

  const people: JiraUser[] = users.data ?? [];
  const offered = typing ? suggestions(people, recent, typing.query).slice(0, 8) : [];

  const onDescription = (e: Event) => {
    const el = e.currentTarget as HTMLTextAreaElement;
    setDescription(el.value);
    const at = mentionAt(el.value, el.selectionStart ?? el.value.length);
    setTyping(at ? { ...at, caret: el.selectionStart ?? el.value.length } : null);
  };

  const choose = (p: JiraUser) => {
    if (!typing) return;
    const next = insertMention(description, typing.start, typing.caret, p.name);
    setDescription(next.text);
    setMentions((m) => [...m, { id: p.accountId, name: p.name }]);
    const r = remember(recent, { id: p.accountId, name: p.name });
    setRecent(r);
    saveRecent(r);
    setTyping(null);
    requestAnimationFrame(() => {
      const el = area.current;
      if (!el) return;
      el.focus();
      // The caret after the name, unless a key typed meanwhile has moved it on already
      // (setting it then would send the next keys before the first one).
      if (el.value === next.text) el.setSelectionRange(next.caret, next.caret);
    });
  };

  const onFile = (e: Event) => {
    const input = e.currentTarget as HTMLInputElement;
    const f = input.files?.[0] ?? null;
    if (f && !isCsvFile(f.name)) {
      // Spec §5: refused, and no file is sent.
      console.error("Please upload a CSV file");
      setFileError(t`Please upload a CSV file`);
      setFile(null);
      input.value = "";
      return;
    }
    setFileError("");
    setFile(f);
  };

  const submit = async (e: Event) => {
    e.preventDefault();
    setSaving(true);
    const data = {
      reportId: target.reportId,
      alertId: target.alertId,
      project,
      summary,
      issueType: "Bug",
      assignee,
      labels,
      username,
      description: toWire(description, mentions),
      ...(edit ? { status, isAutoJiraTicket: target.autoTicketId !== undefined } : {}),
    };
    const draft = { project, summary, assignee, labels, description, mentions, ...(edit ? { status } : {}) };
    try {
      if (edit && target.ticket) {
        if (target.autoTicketId !== undefined) await updateAutoTicket(target.autoTicketId, data, file);
        else await updateIssue(target.ticket, username, data, file);
        showSuccess(t`Updated successfully.`);
        await queryClient.invalidateQueries({ queryKey: jiraKeys.issue(target.ticket) });
      } else {
        const created = await createIssue(data, file);
        showSuccess(t`Created successfully`);
        // A vendor's API keeps no key: store it on the report or alert (flavour "spec" only).
        await keepTicketKey(target, created.key).catch(() => undefined);
        onCreated?.(created.key);
      }
      forgetDraft(key);
    } catch (err) {
      // Spec §8: the joined messages as a notification, then the dialog closes; what was
      // typed is kept for the next opening.
      saveDraft(key, draft);
      const messages = err instanceof ApiError ? err.messages : [];
      showError(messages.length ? messages.join(", ") : t`The ticket could not be saved.`);
    } finally {
      setSaving(false);
      onClose();
    }
  };

  if (edit && !loaded) {
    return (
      <p data-testid="ticket-loading">{issue.isError ? t`The ticket could not be loaded.` : t`Please wait ...`}</p>
    );
  }

  const f = (n: string) => `${ids}-${n}`;
  const cancel = () => {
    // Cancel gives the draft up; a close by Escape or the close button keeps it.
    forgetDraft(key);
    onClose();
  };
  return (
    <form class="ticket-form" onSubmit={(e) => void submit(e)} data-testid="ticket-form">
      {restored ? (
        <p class="muted" role="status" data-testid="ticket-draft-restored">
          {t`What you typed before the ticket was refused is back. Attach the CSV file again if you need it.`}
        </p>
      ) : null}
      <div class="ticket-grid">
        <Field id={f("project")} label={t`Project`} required>
          <select
            id={f("project")}
            value={project}
            disabled={edit}
            onChange={(e) => setProject(e.currentTarget.value)}
            data-testid="ticket-project"
          >
            <option value="">{t`Select a project`}</option>
            {(projects.data ?? []).map((p) => (
              <option key={p.key} value={p.key}>
                {`${p.name} (${p.key})`}
              </option>
            ))}
          </select>
        </Field>
        <Field id={f("type")} label={t`Issue Type`}>
          <input id={f("type")} value={t`Bug`} readOnly data-testid="ticket-type" />
        </Field>
        <Field id={f("summary")} label={t`Summary`} required>
          <input
            id={f("summary")}
            value={summary}
            onInput={(e) => setSummary(e.currentTarget.value)}
            data-testid="ticket-summary"
          />
        </Field>
        <Field id={f("assignee")} label={t`Assignee`} required>
          <select
            id={f("assignee")}
            value={assignee}
            onChange={(e) => setAssignee(e.currentTarget.value)}
            data-testid="ticket-assignee"
          >
            <option value="">{t`Unassigned`}</option>
            {people.map((p) => (
              <option key={p.accountId} value={p.accountId}>
                {p.name}
              </option>
            ))}
          </select>
        </Field>
        {edit ? (
          <Field id={f("status")} label={t`Status`}>
            <select
              id={f("status")}
              value={status}
              onChange={(e) => setStatus(e.currentTarget.value)}
              data-testid="ticket-status"
            >
              {(statuses.data ?? [status]).map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </select>
          </Field>
        ) : null}
      </div>
      <Field id={f("labels")} label={t`Labels`}>
        <div class="chips" data-testid="ticket-labels">
          {labels.map((l) => (
            <span class="chip" key={l} data-testid="ticket-label">
              {l}
              <button
                type="button"
                class="chip-remove"
                onClick={() => setLabels(labels.filter((x) => x !== l))}
                aria-label={t`Remove label ${l}`}
              >
                <CloseIcon size={12} />
              </button>
            </span>
          ))}
          <input
            id={f("labels")}
            value={labelText}
            placeholder={t`Type a label and press Enter`}
            onInput={(e) => setLabelText(e.currentTarget.value)}
            onKeyDown={(e) => {
              if (e.key === "Enter") {
                e.preventDefault();
                setLabels(addLabel(labels, labelText));
                setLabelText("");
              }
            }}
            data-testid="ticket-label-input"
          />
        </div>
      </Field>
      <Field id={f("description")} label={t`Description`}>
        <div class="mention-box">
          <textarea
            ref={area}
            id={f("description")}
            rows={6}
            value={description}
            onInput={onDescription}
            onKeyDown={(e) => {
              if (e.key === "Escape" && typing) {
                e.stopPropagation();
                setTyping(null);
              }
            }}
            aria-describedby={f("mention-hint")}
            data-testid="ticket-description"
          />
          <span id={f("mention-hint")} class="field-hint">{t`Type @ to mention someone.`}</span>
          {typing && offered.length ? (
            <ul class="mention-list" aria-label={t`People to mention`} data-testid="mention-list">
              {offered.map((p) => (
                <li key={p.accountId}>
                  <button type="button" class="mention-option" onClick={() => choose(p)} data-testid="mention-option">
                    {p.name}
                  </button>
                </li>
              ))}
            </ul>
          ) : null}
        </div>
      </Field>
      <Field id={f("file")} label={t`CSV file (optional)`} error={fileError}>
        <input id={f("file")} type="file" accept=".csv,text/csv" onChange={onFile} data-testid="ticket-file" />
      </Field>
      <div class="form-actions">
        <button type="button" class="button secondary" onClick={cancel} data-testid="ticket-cancel">
          {t`Cancel`}
        </button>
        <button type="submit" class="button primary" disabled={saving} data-testid="ticket-save">
          {edit ? t`Save Changes` : t`Create`}
        </button>
      </div>
    </form>
  );
}
