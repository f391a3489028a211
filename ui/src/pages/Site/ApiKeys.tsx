// The test engines' API keys: made (read-write administrators), listed with when each was last
// used (a key no engine uses any more is one to revoke) and revoked. A key is shown once, when
// it is made, with how the engine sends it; only its SHA-256 is kept.
import { useLingui } from "@lingui/react/macro";
import { useState } from "react";
import { ApiError } from "../../api";
import { useApiKeys, useCreateApiKey, useRevokeApiKey } from "../../api/queries/site";
import type { ApiKey, ApiKeyCreated } from "../../api/types";
import { ConfirmDialog } from "../../components/ConfirmDialog";
import { type Column, DataTable } from "../../components/DataTable";
import { TextField } from "../../components/Field";
import { showSuccess } from "../../lib/banners";
import { formatSiteTime, lastTime } from "../../lib/siteTime";
import { useSiteTimeZone } from "../../lib/tenant";

export function ApiKeys({ writable }: { writable: boolean }) {
  const { t, i18n } = useLingui();
  const zone = useSiteTimeZone();
  const keys = useApiKeys();
  const create = useCreateApiKey();
  const revoke = useRevokeApiKey();
  const [name, setName] = useState("");
  const [error, setError] = useState<string>();
  const [made, setMade] = useState<ApiKeyCreated>();
  const [copied, setCopied] = useState(false);
  const [revoking, setRevoking] = useState<string>();

  const submit = async (e: Event) => {
    e.preventDefault();
    setError(undefined);
    const trimmed = name.trim();
    if (!trimmed) {
      setError(t`Name is required.`);
      return;
    }
    try {
      const key = await create.mutateAsync(trimmed);
      setMade(key);
      setCopied(false);
      setName("");
    } catch (err) {
      const field = err instanceof ApiError ? err.fields.find((f) => f.field === "name") : undefined;
      setError(
        field?.rule === "taken"
          ? t`A key named ${trimmed} already exists, with these capitals or others: key names are compared without case.`
          : field
            ? t`A name has 1 to 100 characters.`
            : err instanceof Error
              ? err.message
              : String(err),
      );
    }
  };

  const copy = async () => {
    if (!made) return;
    try {
      await navigator.clipboard.writeText(made.key);
      setCopied(true);
    } catch {
      // No clipboard (an insecure origin): the key stays selectable on the page.
      setCopied(false);
    }
  };

  const columns: Column<ApiKey>[] = [
    { key: "name", label: t`Name`, render: (k) => k.name },
    { key: "created", label: t`Created on`, render: (k) => formatSiteTime(k.createdTime, zone, i18n.locale) },
    {
      key: "lastUsed",
      label: t`Last used`,
      // Written once a minute per key at most. null: never used; absent (an API that does not
      // keep it): nothing to say.
      render: (k) => lastTime(k.lastUsedTime, zone, i18n.locale, t`Never`),
    },
  ];
  const ingestUrl = `${window.location.origin}/api/ingest/v1/runs`;

  return (
    <section id="api-keys" class="site-card" aria-labelledby="api-keys-title" data-testid="site-api-keys">
      <h2 id="api-keys-title" class="site-card-title">
        {t`Test engine keys`}
      </h2>
      <p class="page-intro">
        {t`A test engine sends its runs to ${ingestUrl} with its key in the X-API-Key header. Revoking a key refuses that engine at once.`}
      </p>
      {writable ? (
        <form class="site-key-form" onSubmit={submit} noValidate data-testid="api-key-form">
          <TextField
            id="api-key-name"
            label={t`Key name`}
            required
            value={name}
            onValue={setName}
            error={error}
            testId="api-key-name"
          />
          <button type="submit" class="button primary" disabled={create.isPending} data-testid="api-key-create">
            {t`Create key`}
          </button>
        </form>
      ) : null}
      {made ? (
        <div class="site-new-key" role="status" data-testid="api-key-made">
          <p>
            <strong>{t`Key ${made.name} is made. Copy it now: it is shown only this once.`}</strong>
          </p>
          <div class="site-key-row">
            <code class="site-key" data-testid="api-key-value">
              {made.key}
            </code>
            <button type="button" class="button secondary" onClick={copy} data-testid="api-key-copy">
              {copied ? t`Copied` : t`Copy`}
            </button>
          </div>
          <pre class="site-snippet">
            {`curl -X POST ${ingestUrl} \\\n  -H "X-API-Key: ${made.key}" \\\n  -H "Content-Type: application/json" \\\n  --data-binary @runs.json`}
          </pre>
          <button type="button" class="button secondary" onClick={() => setMade(undefined)} data-testid="api-key-done">
            {t`I have copied it`}
          </button>
        </div>
      ) : null}
      <DataTable
        columns={columns}
        rows={keys.data}
        rowId={(k) => k.name}
        rowLabel={(k) => k.name}
        loading={keys.isLoading}
        error={keys.error ? keys.error.message : null}
        testId="api-key-table"
        actions={
          writable
            ? (k) => (
                <button
                  type="button"
                  class="button danger"
                  onClick={() => setRevoking(k.name)}
                  aria-label={t`Revoke key ${k.name}`}
                  data-testid="api-key-revoke"
                >
                  {t`Revoke`}
                </button>
              )
            : undefined
        }
      />
      <ConfirmDialog
        open={revoking !== undefined}
        item={revoking ? t`the key ${revoking}` : ""}
        busy={revoke.isPending}
        onCancel={() => setRevoking(undefined)}
        onConfirm={async () => {
          if (!revoking) return;
          const gone = revoking;
          await revoke.mutateAsync(gone);
          setRevoking(undefined);
          showSuccess(t`Key ${gone} is revoked: engines using it are refused.`);
        }}
      />
    </section>
  );
}
