import type {
  ApiKeyResource as ApiKey,
  OrganizationSettingsResource as OrganizationSettings,
} from '@setpoint/api-contract';
import { type FormEvent, useEffect, useState } from 'react';
import { messageOf } from '../api/client.js';
import { endpoints } from '../api/endpoints.js';
import { useApi } from '../api/use-api.js';
import { ConfirmDialog } from '../components/confirm-dialog.js';
import { LoadView } from '../components/load-view.js';
import { formatDateTime } from '../lib/format.js';
import { useSession } from '../shell/session.js';

export function SettingsPage() {
  return (
    <div className="page">
      <header className="page-header">
        <h1>Settings</h1>
        <p className="page-sub">
          API keys for the CLI and integrations, and defaults for the whole organization.
        </p>
      </header>
      <ApiKeys />
      <OrganizationDefaults />
    </div>
  );
}

function ApiKeys() {
  const { canChange } = useSession();
  const keys = useApi('api-keys', () => endpoints.apiKeys());
  const [name, setName] = useState('');
  const [created, setCreated] = useState<{ id: string; secret: string; name: string } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);

  const create = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    try {
      setCreated(await endpoints.createApiKey(name.trim()));
      setName('');
      keys.reload();
    } catch (caught) {
      setError(messageOf(caught));
    }
  };

  return (
    <section className="card" aria-labelledby="keys-title">
      <h2 id="keys-title" className="section-title">
        API keys
      </h2>
      <LoadView result={keys.result} what="API keys" onRetry={keys.reload}>
        {(data) => (
          <>
            {canChange && (
              <form className="inline-form" onSubmit={create}>
                <label className="field">
                  <span>New key name</span>
                  <input
                    required
                    value={name}
                    placeholder="e.g. airflow-prod"
                    onChange={(event) => setName(event.target.value)}
                  />
                </label>
                <button type="submit" className="primary">
                  Create key
                </button>
              </form>
            )}
            {error && (
              <p className="notice notice-error" role="alert">
                {error}
              </p>
            )}
            {created && (
              <div className="secret-once" role="status" data-testid="new-key">
                <p>
                  <strong>Copy the secret of “{created.name}” now: it is shown only once.</strong>
                </p>
                <dl className="facts">
                  <dt>Key id</dt>
                  <dd>
                    <code data-testid="new-key-id">{created.id}</code>
                  </dd>
                  <dt>Secret</dt>
                  <dd>
                    <code data-testid="new-key-secret">{created.secret}</code>{' '}
                    <button type="button" onClick={() => void navigator.clipboard?.writeText(created.secret)}>
                      Copy
                    </button>
                  </dd>
                </dl>
                <button type="button" className="link-button" onClick={() => setCreated(null)}>
                  I have stored it
                </button>
              </div>
            )}
            <table className="table" data-testid="api-keys">
              <thead>
                <tr>
                  <th>Name</th>
                  <th>Key id</th>
                  <th>Created</th>
                  <th>Last used</th>
                  <th>Status</th>
                  <th aria-label="Actions" />
                </tr>
              </thead>
              <tbody>
                {data.items.map((key) => (
                  <tr key={key.id}>
                    <td>{key.name}</td>
                    <td>
                      <code>{key.id}</code>
                    </td>
                    <td>{formatDateTime(key.created_at)}</td>
                    <td>{key.last_used_at ? formatDateTime(key.last_used_at) : 'never'}</td>
                    <td>{key.revoked_at ? `revoked ${formatDateTime(key.revoked_at)}` : 'active'}</td>
                    <td>
                      {canChange && !key.revoked_at && (
                        <button type="button" className="danger" onClick={() => setRevoking(key)}>
                          Revoke
                        </button>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </>
        )}
      </LoadView>
      <ConfirmDialog
        open={revoking !== null}
        title={`Revoke ${revoking?.name ?? ''}?`}
        confirmLabel="Revoke key"
        danger
        onClose={() => setRevoking(null)}
        onConfirm={async () => {
          await endpoints.revokeApiKey(revoking!.id);
          keys.reload();
        }}
      >
        <p>Anything using this key stops working at once. This cannot be undone.</p>
      </ConfirmDialog>
    </section>
  );
}

const numberFields = [
  {
    key: 'aws_discount_pct',
    label: 'AWS discount (%)',
    hint: 'off AWS list prices, e.g. a savings plan',
    empty: 0,
    max: 100,
    step: 'any',
  },
  {
    key: 'azure_discount_pct',
    label: 'Azure discount (%)',
    hint: 'off Azure list prices',
    empty: 0,
    max: 100,
    step: 'any',
  },
  {
    key: 'dbu_discount_pct',
    label: 'Databricks DBU discount (%)',
    hint: 'from your Databricks commit',
    empty: 0,
    max: 100,
    step: 'any',
  },
  {
    key: 'default_sla_minutes',
    label: 'Default SLA for new projects (minutes)',
    hint: 'empty for none',
    empty: null,
    max: 10_080,
    step: 'any',
  },
  {
    key: 'run_retention_days',
    label: 'Keep runs for (days)',
    hint: 'older runs and their event logs are deleted, except those a model still learns from; 0 keeps every run',
    empty: 400,
    max: 36_500,
    step: '1',
  },
] as const;

const preferences = [
  { value: 'economy', label: 'Economy: lowest cost within the SLA' },
  { value: 'balanced', label: 'Balanced' },
  { value: 'performance', label: 'Performance: fastest for a modest cost' },
] as const;

type Values = Record<string, string>;

function valuesOf(settings: OrganizationSettings): Values {
  const values: Values = { default_preference: settings.default_preference };
  for (const field of numberFields) {
    const value = settings[field.key];
    values[field.key] = value === null ? '' : String(value);
  }
  return values;
}

function OrganizationDefaults() {
  const { canChange, session } = useSession();
  const isAdmin = session.state === 'signed-in' ? session.user.role === 'admin' : canChange;
  const settings = useApi('org-settings', () => endpoints.organizationSettings());
  const [values, setValues] = useState<Values>({});
  const [status, setStatus] = useState<{ ok: boolean; message: string } | null>(null);

  useEffect(() => {
    if (settings.result.state === 'ready') setValues(valuesOf(settings.result.data));
  }, [settings.result]);

  const save = async (event: FormEvent) => {
    event.preventDefault();
    const patch: Record<string, number | string | null> = {
      default_preference: values.default_preference ?? 'economy',
    };
    for (const field of numberFields) {
      const text = values[field.key]?.trim() ?? '';
      const number = Number(text);
      if (text !== '' && !Number.isFinite(number)) {
        setStatus({ ok: false, message: `${field.label} must be a number.` });
        return;
      }
      patch[field.key] = text === '' ? field.empty : number;
    }
    try {
      const saved = await endpoints.updateOrganizationSettings(patch);
      settings.setResult({ state: 'ready', data: saved });
      setStatus({ ok: true, message: 'Defaults saved.' });
    } catch (error) {
      setStatus({ ok: false, message: messageOf(error) });
    }
  };

  return (
    <section className="card" aria-labelledby="org-title">
      <h2 id="org-title" className="section-title">
        Organization defaults
      </h2>
      <p className="muted">
        Discounts turn list prices into what you pay in the Projects header (spend and savings). Run costs
        stay at list prices so runs compare across time. New projects start with the default SLA and
        preference.
      </p>
      <LoadView result={settings.result} what="Organization settings" onRetry={settings.reload}>
        {(data) => (
          <form className="settings-form" onSubmit={save}>
            <fieldset disabled={!isAdmin}>
              {numberFields.map((field) => (
                <label key={field.key} className="field">
                  <span>{field.label}</span>
                  <input
                    type="number"
                    step={field.step}
                    min={0}
                    max={field.max}
                    value={values[field.key] ?? ''}
                    onChange={(event) =>
                      setValues((current) => ({ ...current, [field.key]: event.target.value }))
                    }
                  />
                  <small>{field.hint}</small>
                </label>
              ))}
              <label className="field">
                <span>Default preference for new projects</span>
                <select
                  value={values.default_preference ?? 'economy'}
                  onChange={(event) =>
                    setValues((current) => ({ ...current, default_preference: event.target.value }))
                  }
                >
                  {preferences.map((preference) => (
                    <option key={preference.value} value={preference.value}>
                      {preference.label}
                    </option>
                  ))}
                </select>
              </label>
            </fieldset>
            {data.updated_by && data.updated_at && (
              <p className="muted" data-testid="org-settings-updated">
                Last changed by {data.updated_by.replace(/^user:/, '')} on {formatDateTime(data.updated_at)}.
              </p>
            )}
            {!isAdmin && <p className="muted">Only admins can change the organization defaults.</p>}
            {status && (
              <p className={status.ok ? 'notice notice-ok' : 'notice notice-error'} role="status">
                {status.message}
              </p>
            )}
            {isAdmin && (
              <button type="submit" className="primary">
                Save defaults
              </button>
            )}
          </form>
        )}
      </LoadView>
    </section>
  );
}
