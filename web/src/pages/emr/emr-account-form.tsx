import { type FormEvent, useState } from 'react';
import { messageOf } from '../../api/client.js';
import {
  type EmrAccountBody,
  type EmrAccountResource,
  type EmrCredentialsBody,
  type EmrGrouping,
  emrEndpoints,
} from '../../api/emr-endpoints.js';

interface AccountForm {
  name: string;
  region: string;
  kind: EmrCredentialsBody['kind'];
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken: string;
  roleArn: string;
  externalId: string;
  grouping: EmrGrouping['kind'];
  tagKey: string;
  pattern: string;
  endpoint: string;
  s3Endpoint: string;
  logStoreKeyId: string;
  logStoreSecret: string;
}

const emptyForm: AccountForm = {
  name: '',
  region: 'us-east-1',
  kind: 'access-keys',
  accessKeyId: '',
  secretAccessKey: '',
  sessionToken: '',
  roleArn: '',
  externalId: '',
  grouping: 'tag',
  tagKey: 'setpoint:project-id',
  pattern: '',
  endpoint: '',
  s3Endpoint: '',
  logStoreKeyId: '',
  logStoreSecret: '',
};

function credentialsOf(form: AccountForm): EmrCredentialsBody {
  if (form.kind === 'default-chain') return { kind: 'default-chain' };
  if (form.kind === 'access-keys')
    return {
      kind: 'access-keys',
      access_key_id: form.accessKeyId.trim(),
      secret_access_key: form.secretAccessKey,
      ...(form.sessionToken ? { session_token: form.sessionToken } : {}),
    };
  return {
    kind: 'assume-role',
    role_arn: form.roleArn.trim(),
    ...(form.externalId ? { external_id: form.externalId } : {}),
  };
}

function groupingOf(form: AccountForm): EmrGrouping {
  if (form.grouping === 'tag') return { kind: 'tag', key: form.tagKey.trim() || 'setpoint:project-id' };
  if (form.grouping === 'name-pattern') return { kind: 'name-pattern', pattern: form.pattern };
  return { kind: form.grouping };
}

/** The request: secrets travel once, in this body, and are never read back. */
function accountBodyOf(form: AccountForm): EmrAccountBody {
  const optional = (value: string) => value.trim() || undefined;
  const endpoint = optional(form.endpoint);
  const s3Endpoint = optional(form.s3Endpoint);
  return {
    name: form.name.trim(),
    region: form.region.trim(),
    credentials: credentialsOf(form),
    grouping: groupingOf(form),
    ...(endpoint ? { endpoint } : {}),
    ...(s3Endpoint ? { s3_endpoint: s3Endpoint } : {}),
    ...(form.logStoreKeyId.trim() && form.logStoreSecret
      ? {
          log_store_keys: {
            access_key_id: form.logStoreKeyId.trim(),
            secret_access_key: form.logStoreSecret,
          },
        }
      : {}),
  };
}

/** Connect an AWS account and region: sign-in by access keys, an assumed role, or the server's own chain. */
export function EmrAccountForm({
  onCancel,
  onSaved,
}: {
  onCancel(): void;
  onSaved(account: EmrAccountResource): void;
}) {
  const [form, setForm] = useState<AccountForm>(emptyForm);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const set = <K extends keyof AccountForm>(key: K, value: AccountForm[K]) =>
    setForm((current) => ({ ...current, [key]: value }));

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const saved = await emrEndpoints.createAccount(accountBodyOf(form));
      // The typed secrets leave the page's memory with the form.
      setForm(emptyForm);
      onSaved(saved);
    } catch (caught) {
      setError(messageOf(caught));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="card settings-form" onSubmit={submit} aria-label="Add EMR account">
      <h2 className="section-title">Add an AWS account (EMR)</h2>
      <div className="field-row">
        <label className="field">
          <span>Name</span>
          <input required value={form.name} onChange={(event) => set('name', event.target.value)} />
        </label>
        <label className="field">
          <span>Region</span>
          <input
            required
            value={form.region}
            placeholder="us-east-1"
            onChange={(event) => set('region', event.target.value)}
          />
        </label>
      </div>
      <label className="field">
        <span>Sign in with</span>
        <select
          value={form.kind}
          onChange={(event) => set('kind', event.target.value as AccountForm['kind'])}
        >
          <option value="access-keys">Access keys (an IAM user)</option>
          <option value="assume-role">An IAM role Setpoint assumes (role ARN and external id)</option>
          <option value="default-chain">The Setpoint server's own AWS credentials (default chain)</option>
        </select>
      </label>
      {form.kind === 'access-keys' && (
        <div className="field-row">
          <label className="field">
            <span>Access key id</span>
            <input
              required
              autoComplete="off"
              value={form.accessKeyId}
              placeholder="AKIA…"
              onChange={(event) => set('accessKeyId', event.target.value)}
            />
          </label>
          <label className="field">
            <span>Secret access key</span>
            <input
              required
              type="password"
              autoComplete="off"
              value={form.secretAccessKey}
              onChange={(event) => set('secretAccessKey', event.target.value)}
            />
          </label>
          <label className="field">
            <span>Session token</span>
            <input
              type="password"
              autoComplete="off"
              value={form.sessionToken}
              placeholder="only for temporary keys"
              onChange={(event) => set('sessionToken', event.target.value)}
            />
          </label>
        </div>
      )}
      {form.kind === 'assume-role' && (
        <div className="field-row">
          <label className="field">
            <span>Role ARN</span>
            <input
              required
              value={form.roleArn}
              placeholder="arn:aws:iam::123456789012:role/setpoint"
              onChange={(event) => set('roleArn', event.target.value)}
            />
          </label>
          <label className="field">
            <span>External id</span>
            <input
              type="password"
              autoComplete="off"
              value={form.externalId}
              onChange={(event) => set('externalId', event.target.value)}
            />
          </label>
        </div>
      )}
      <small className="muted">
        Secrets are stored encrypted and never shown again: the account shows only how it signs in, the role,
        and the last four characters of the key id.
      </small>
      <div className="field-row">
        <label className="field">
          <span>Group steps into projects by</span>
          <select
            value={form.grouping}
            onChange={(event) => set('grouping', event.target.value as AccountForm['grouping'])}
          >
            <option value="tag">A cluster tag</option>
            <option value="cluster-name">The cluster name</option>
            <option value="name-pattern">A pattern on the cluster name</option>
            <option value="step-name">The step name</option>
          </select>
        </label>
        {form.grouping === 'tag' && (
          <label className="field">
            <span>Tag key</span>
            <input value={form.tagKey} onChange={(event) => set('tagKey', event.target.value)} />
          </label>
        )}
        {form.grouping === 'name-pattern' && (
          <label className="field">
            <span>Pattern</span>
            <input
              required
              value={form.pattern}
              placeholder="^(nightly-[a-z]+)-"
              onChange={(event) => set('pattern', event.target.value)}
            />
            <small>
              The group named <code>project</code>, else the first group, else the whole match names the
              workload.
            </small>
          </label>
        )}
      </div>
      <details>
        <summary>Endpoints and log store (VPC endpoints, an S3-compatible store)</summary>
        <div className="field-row">
          <label className="field">
            <span>EMR endpoint</span>
            <input
              type="url"
              value={form.endpoint}
              placeholder="AWS's endpoint for the region"
              onChange={(event) => set('endpoint', event.target.value)}
            />
          </label>
          <label className="field">
            <span>S3 endpoint</span>
            <input
              type="url"
              value={form.s3Endpoint}
              placeholder="AWS's S3"
              onChange={(event) => set('s3Endpoint', event.target.value)}
            />
          </label>
        </div>
        <div className="field-row">
          <label className="field">
            <span>Log store key id</span>
            <input
              autoComplete="off"
              value={form.logStoreKeyId}
              onChange={(event) => set('logStoreKeyId', event.target.value)}
            />
          </label>
          <label className="field">
            <span>Log store secret</span>
            <input
              type="password"
              autoComplete="off"
              value={form.logStoreSecret}
              onChange={(event) => set('logStoreSecret', event.target.value)}
            />
          </label>
        </div>
      </details>
      {error && (
        <p className="notice notice-error" role="alert">
          {error}
        </p>
      )}
      <div className="form-actions">
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Saving…' : 'Add and check access'}
        </button>
        <button type="button" onClick={onCancel} disabled={busy}>
          Cancel
        </button>
      </div>
    </form>
  );
}
