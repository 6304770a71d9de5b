import type { WorkspaceResource as Workspace, WorkspaceBody } from '@setpoint/api-contract';
import type { AccessCheckLine, WorkspaceAuthBody } from '@setpoint/api-contract/databricks';
import { type FormEvent, useState } from 'react';
import { ApiError, messageOf } from '../api/client.js';
import { endpoints } from '../api/endpoints.js';
import { useApi } from '../api/use-api.js';
import { ConfirmDialog } from '../components/confirm-dialog.js';
import { LoadView, NotAvailable } from '../components/load-view.js';
import { Missing } from '../components/missing.js';
import { formatDateTime } from '../lib/format.js';
import { useSession } from '../shell/session.js';

interface WorkspaceForm {
  name: string;
  cloud: 'aws' | 'azure' | 'gcp';
  region: string;
  host: string;
  plan_type: '' | 'Standard' | 'Premium' | 'Enterprise';
  compute_type: string;
  auth_type: WorkspaceAuthBody['auth_type'];
  token: string;
  client_id: string;
  client_secret: string;
  azure_tenant_id: string;
  azure_authority_host: string;
  /** A new workspace is signed in to first; unticked, it is registered even if that fails. */
  check_sign_in: boolean;
}

const emptyForm: WorkspaceForm = {
  name: '',
  cloud: 'aws',
  region: '',
  host: '',
  plan_type: 'Premium',
  compute_type: 'Jobs Compute',
  auth_type: 'pat',
  token: '',
  client_id: '',
  client_secret: '',
  azure_tenant_id: '',
  azure_authority_host: '',
  check_sign_in: true,
};

/** The sign-in the form asks for, or null when no secret was typed (an edit keeps the stored one). */
function authOf(form: WorkspaceForm): WorkspaceAuthBody | null {
  if (form.auth_type === 'pat') return form.token ? { auth_type: 'pat', token: form.token } : null;
  if (!form.client_secret) return null;
  if (form.auth_type === 'oauth-m2m')
    return { auth_type: 'oauth-m2m', client_id: form.client_id.trim(), client_secret: form.client_secret };
  return {
    auth_type: 'azure-client-secret',
    azure_tenant_id: form.azure_tenant_id.trim(),
    azure_client_id: form.client_id.trim(),
    azure_client_secret: form.client_secret,
    ...(form.azure_authority_host.trim() ? { azure_authority_host: form.azure_authority_host.trim() } : {}),
  };
}

function toBody(form: WorkspaceForm, editing: boolean): WorkspaceBody {
  const body: WorkspaceBody = {
    name: form.name.trim(),
    cloud: form.cloud,
    region: form.region.trim() || null,
    host: form.host.trim() || null,
    plan_type: form.plan_type || null,
    compute_type: form.compute_type.trim() || null,
  };
  // Secrets are write-only; a new workspace gets its sign-in here, an edit rotates it through /auth.
  const auth = authOf(form);
  if (!editing) {
    body.credentials = auth;
    body.check_sign_in = form.check_sign_in;
  }
  return body;
}

export function WorkspacesPage() {
  const { canChange } = useSession();
  // AWS accounts read through EMR are workspaces too; they have their own page (`/emr`).
  const list = useApi('workspaces', (signal) =>
    endpoints
      .workspaces(signal)
      .then((items) => items.filter((workspace) => workspace.platform === 'databricks')),
  );
  const [editing, setEditing] = useState<Workspace | 'new' | null>(null);
  const [checks, setChecks] = useState<{
    workspace: string;
    lines: AccessCheckLine[] | null;
    error: string | null;
    unavailable?: boolean;
  } | null>(null);
  const [removing, setRemoving] = useState<Workspace | null>(null);

  const runCheck = async (workspace: Workspace) => {
    setChecks({ workspace: workspace.name, lines: null, error: null });
    try {
      const result = await endpoints.accessCheck(workspace.id);
      setChecks({ workspace: workspace.name, lines: result.results, error: null });
    } catch (error) {
      const unavailable = error instanceof ApiError && error.notAvailable;
      setChecks({ workspace: workspace.name, lines: null, error: messageOf(error), unavailable });
    }
  };

  return (
    <div className="page">
      <header className="page-header with-action">
        <div>
          <h1>Workspaces</h1>
          <p className="page-sub">
            Databricks workspaces Setpoint reads jobs from and applies configurations to.
          </p>
        </div>
        {canChange && list.result.state === 'ready' && (
          <button type="button" className="primary" onClick={() => setEditing('new')}>
            Add workspace
          </button>
        )}
      </header>
      {editing && (
        <WorkspaceEditor
          workspace={editing === 'new' ? null : editing}
          onCancel={() => setEditing(null)}
          onSaved={(saved) => {
            setEditing(null);
            list.reload();
            void runCheck(saved);
          }}
        />
      )}
      {checks && (
        <section className="card" aria-label="Access check" data-testid="access-check">
          <h2 className="section-title">Access check: {checks.workspace}</h2>
          {checks.unavailable ? (
            <NotAvailable what="The access check" />
          ) : (
            checks.error && <p className="notice notice-error">{checks.error}</p>
          )}
          {!checks.error && !checks.lines && (
            <p className="loading">Checking what Setpoint can do in this workspace…</p>
          )}
          {checks.lines && (
            <ul className="check-lines">
              {checks.lines.map((line) => (
                <li key={line.check} className={line.ok ? 'check-ok' : 'check-fail'}>
                  <span aria-hidden="true">{line.ok ? '✓' : '✗'}</span> <strong>{line.check}</strong>:{' '}
                  {line.detail}
                  {line.fix && <div className="check-fix">Fix: {line.fix}</div>}
                </li>
              ))}
            </ul>
          )}
        </section>
      )}
      <LoadView result={list.result} what="Workspaces" onRetry={list.reload}>
        {(items) =>
          items.length === 0 ? (
            <div className="empty-state">
              <h2>No workspaces</h2>
              <p>
                Add a Databricks workspace with its host and a token; Setpoint checks its access line by line.
              </p>
            </div>
          ) : (
            <table className="table">
              <thead>
                <tr>
                  <th>Name</th>
                  <th>Cloud</th>
                  <th>Host</th>
                  <th>Plan</th>
                  <th>Token</th>
                  <th>Added</th>
                  <th aria-label="Actions" />
                </tr>
              </thead>
              <tbody>
                {items.map((workspace) => (
                  <tr key={workspace.id}>
                    <td>{workspace.name}</td>
                    <td>
                      {workspace.cloud}
                      {workspace.region ? ` · ${workspace.region}` : ''}
                    </td>
                    <td>{workspace.host ?? <Missing reason="No host recorded for this workspace." />}</td>
                    <td>
                      {workspace.plan_type ?? <Missing reason="No plan type was given for this workspace." />}
                    </td>
                    <td>{workspace.has_credentials ? 'stored' : 'missing'}</td>
                    <td>{formatDateTime(workspace.created_at)}</td>
                    <td>
                      <div className="row-actions">
                        <button type="button" onClick={() => void runCheck(workspace)}>
                          Check access
                        </button>
                        {canChange && (
                          <>
                            <button type="button" onClick={() => setEditing(workspace)}>
                              Edit
                            </button>
                            <button type="button" className="danger" onClick={() => setRemoving(workspace)}>
                              Remove
                            </button>
                          </>
                        )}
                      </div>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </LoadView>
      <ConfirmDialog
        open={removing !== null}
        title={`Remove ${removing?.name ?? ''}?`}
        confirmLabel="Remove workspace"
        danger
        onClose={() => setRemoving(null)}
        onConfirm={async () => {
          await endpoints.deleteWorkspace(removing!.id);
          list.reload();
        }}
      >
        <p>
          Setpoint forgets the workspace and its credentials. Its projects stay with their runs and
          recommendations, unlinked: their runs are no longer collected and nothing is applied to their jobs.
          Jobs in Databricks are not changed (detach an imported job first to restore its settings).
        </p>
      </ConfirmDialog>
    </div>
  );
}

function WorkspaceEditor({
  workspace,
  onCancel,
  onSaved,
}: {
  workspace: Workspace | null;
  onCancel(): void;
  onSaved(workspace: Workspace): void;
}) {
  const [form, setForm] = useState<WorkspaceForm>(() =>
    workspace
      ? {
          name: workspace.name,
          cloud: workspace.cloud as WorkspaceForm['cloud'],
          region: workspace.region ?? '',
          host: workspace.host ?? '',
          plan_type: (workspace.plan_type ?? '') as WorkspaceForm['plan_type'],
          compute_type: workspace.compute_type ?? '',
          auth_type: 'pat',
          token: '',
          client_id: '',
          client_secret: '',
          azure_tenant_id: '',
          azure_authority_host: '',
          check_sign_in: false,
        }
      : emptyForm,
  );
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const set = <K extends keyof WorkspaceForm>(key: K, value: WorkspaceForm[K]) =>
    setForm((current) => ({ ...current, [key]: value }));

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const body = toBody(form, workspace !== null);
      const saved = workspace
        ? await endpoints.updateWorkspace(workspace.id, body)
        : await endpoints.createWorkspace(body);
      const auth = authOf(form);
      // rotation replaces the sign-in only: AWS keys for S3 logs stay
      if (workspace && auth) await endpoints.rotateWorkspaceAuth(workspace.id, auth);
      onSaved(saved);
    } catch (caught) {
      setError(messageOf(caught));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form
      className="card settings-form"
      onSubmit={submit}
      aria-label={workspace ? 'Edit workspace' : 'Add workspace'}
    >
      <h2 className="section-title">{workspace ? `Edit ${workspace.name}` : 'Add a Databricks workspace'}</h2>
      <div className="field-row">
        <label className="field">
          <span>Name</span>
          <input required value={form.name} onChange={(event) => set('name', event.target.value)} />
        </label>
        <label className="field">
          <span>Cloud</span>
          <select
            value={form.cloud}
            onChange={(event) => set('cloud', event.target.value as WorkspaceForm['cloud'])}
          >
            <option value="aws">AWS</option>
            <option value="azure">Azure</option>
            <option value="gcp">Google Cloud</option>
          </select>
        </label>
        <label className="field">
          <span>Region</span>
          <input
            value={form.region}
            placeholder="us-east-1"
            onChange={(event) => set('region', event.target.value)}
          />
        </label>
      </div>
      <label className="field">
        <span>Host</span>
        <input
          required
          type="url"
          value={form.host}
          placeholder="https://dbc-1234abcd-5678.cloud.databricks.com"
          onChange={(event) => set('host', event.target.value)}
        />
      </label>
      <div className="field-row">
        <label className="field">
          <span>Plan</span>
          <select
            value={form.plan_type}
            onChange={(event) => set('plan_type', event.target.value as WorkspaceForm['plan_type'])}
          >
            <option value="Standard">Standard</option>
            <option value="Premium">Premium</option>
            <option value="Enterprise">Enterprise</option>
          </select>
        </label>
        <label className="field">
          <span>Compute type</span>
          <input value={form.compute_type} onChange={(event) => set('compute_type', event.target.value)} />
        </label>
      </div>
      <label className="field">
        <span>Sign in with</span>
        <select
          value={form.auth_type}
          onChange={(event) => set('auth_type', event.target.value as WorkspaceForm['auth_type'])}
        >
          <option value="pat">Personal access token</option>
          <option value="oauth-m2m">OAuth M2M (Databricks service principal)</option>
          <option value="azure-client-secret">Microsoft Entra ID service principal</option>
        </select>
        {workspace?.has_credentials && (
          <small>Stored credentials are kept unless a new secret is entered.</small>
        )}
      </label>
      {form.auth_type === 'pat' ? (
        <label className="field">
          <span>Access token</span>
          <input
            type="password"
            autoComplete="off"
            value={form.token}
            placeholder={workspace?.has_credentials ? 'stored — leave empty to keep it' : 'dapi…'}
            onChange={(event) => set('token', event.target.value)}
          />
          <small>Stored encrypted and never shown again.</small>
        </label>
      ) : (
        <>
          <div className="field-row">
            {form.auth_type === 'azure-client-secret' && (
              <label className="field">
                <span>Tenant id</span>
                <input
                  required
                  value={form.azure_tenant_id}
                  onChange={(event) => set('azure_tenant_id', event.target.value)}
                />
              </label>
            )}
            <label className="field">
              <span>Client id</span>
              <input
                required
                value={form.client_id}
                placeholder="application id of the service principal"
                onChange={(event) => set('client_id', event.target.value)}
              />
            </label>
            <label className="field">
              <span>{form.auth_type === 'oauth-m2m' ? 'OAuth secret' : 'Client secret'}</span>
              <input
                type="password"
                autoComplete="off"
                required={!workspace}
                value={form.client_secret}
                placeholder={workspace?.has_credentials ? 'enter a new secret to rotate' : ''}
                onChange={(event) => set('client_secret', event.target.value)}
              />
            </label>
          </div>
          {form.auth_type === 'azure-client-secret' && (
            <label className="field">
              <span>Authority host</span>
              <input
                type="url"
                value={form.azure_authority_host}
                placeholder="https://login.microsoftonline.com"
                onChange={(event) => set('azure_authority_host', event.target.value)}
              />
            </label>
          )}
          <small>
            Tokens are requested with the secret, cached and renewed before they expire; the secret is stored
            encrypted.
          </small>
        </>
      )}
      {!workspace && (
        <>
          <label className="check">
            <input
              type="checkbox"
              checked={!form.check_sign_in}
              onChange={(event) => set('check_sign_in', !event.target.checked)}
            />
            Register without signing in first
          </label>
          <small>
            Unticked, Setpoint signs in before it registers anything: a workspace that does not answer within
            10 s, or refuses the credentials, is not added.
          </small>
        </>
      )}
      {error && (
        <p className="notice notice-error" role="alert">
          {error}
        </p>
      )}
      <div className="form-actions">
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Saving…' : workspace ? 'Save and check access' : 'Add and check access'}
        </button>
        <button type="button" onClick={onCancel} disabled={busy}>
          Cancel
        </button>
      </div>
    </form>
  );
}
