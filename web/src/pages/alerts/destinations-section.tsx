import type { AlertDestinationResource as Destination } from '@setpoint/api-contract';
import { type FormEvent, useState } from 'react';
import { messageOf } from '../../api/client.js';
import { endpoints } from '../../api/endpoints.js';
import { ConfirmDialog } from '../../components/confirm-dialog.js';
import { formatDateTime } from '../../lib/format.js';

type Kind = Destination['kind'];

const kindLabels: Record<Kind, string> = {
  webhook: 'Webhook (signed)',
  slack: 'Slack incoming webhook',
  email: 'Email (SMTP)',
};

const emptyForm = {
  kind: 'webhook' as Kind,
  name: '',
  url: '',
  signingSecret: '',
  smtpHost: '',
  smtpPort: '587',
  tls: 'starttls',
  username: '',
  password: '',
  from: '',
  to: '',
  maxPerHour: '30',
  /** Editing an email destination that signs in: forget its credentials. */
  dropSignIn: false,
};
type Form = typeof emptyForm;

/** The form for editing a destination: what is shown again, with every credential left blank. */
function formOf(destination: Destination): Form {
  const email = destination.email;
  return {
    ...emptyForm,
    kind: destination.kind,
    name: destination.name,
    maxPerHour: String(destination.max_per_hour),
    ...(email
      ? {
          smtpHost: email.smtp_host,
          smtpPort: String(email.smtp_port),
          tls: email.tls,
          from: email.from,
          to: email.to.join(', '),
        }
      : {}),
  };
}

const addressesOf = (text: string) =>
  text
    .split(',')
    .map((address) => address.trim())
    .filter(Boolean);

/**
 * The PATCH body for an edit: the settings that differ from the destination's, and each credential
 * only when a new one was typed (a blank one is kept as it is).
 */
function patchOf(destination: Destination, form: Form): Record<string, unknown> {
  const patch: Record<string, unknown> = {};
  const was = formOf(destination);
  if (form.name.trim() !== was.name) patch.name = form.name.trim();
  if (form.maxPerHour !== was.maxPerHour) patch.max_per_hour = Number(form.maxPerHour);
  if (form.url.trim()) patch.url = form.url.trim();
  if (form.signingSecret) patch.signing_secret = form.signingSecret;
  if (destination.kind === 'email') {
    if (form.smtpHost.trim() !== was.smtpHost) patch.smtp_host = form.smtpHost.trim();
    if (form.smtpPort !== was.smtpPort) patch.smtp_port = Number(form.smtpPort);
    if (form.tls !== was.tls) patch.tls = form.tls;
    if (form.from.trim() !== was.from) patch.from = form.from.trim();
    if (addressesOf(form.to).join(',') !== addressesOf(was.to).join(',')) patch.to = addressesOf(form.to);
    if (form.dropSignIn) patch.username = null;
    else if (form.username) {
      patch.username = form.username;
      if (form.password) patch.password = form.password;
    }
  }
  return patch;
}

/** The request body for the destination the form describes (the API checks every field). */
function bodyOf(form: Form): Record<string, unknown> {
  const common = { kind: form.kind, name: form.name.trim(), max_per_hour: Number(form.maxPerHour) };
  if (form.kind === 'slack') return { ...common, url: form.url.trim() };
  if (form.kind === 'webhook') return { ...common, url: form.url.trim(), signing_secret: form.signingSecret };
  return {
    ...common,
    smtp_host: form.smtpHost.trim(),
    smtp_port: Number(form.smtpPort),
    tls: form.tls,
    ...(form.username ? { username: form.username, password: form.password } : {}),
    from: form.from.trim(),
    to: addressesOf(form.to),
  };
}

/** Where notifications go: list, add, edit (URLs and secrets are write-only), delete. */
export function DestinationsSection({
  destinations,
  canEdit,
  onChanged,
}: {
  destinations: Destination[];
  canEdit: boolean;
  onChanged(): void;
}) {
  const [form, setForm] = useState(emptyForm);
  const [adding, setAdding] = useState(false);
  /** The destination being edited (the form then changes it rather than adding one). */
  const [editing, setEditing] = useState<Destination | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<Destination | null>(null);
  const set = (field: keyof Form) => (value: string | boolean) =>
    setForm((previous) => ({ ...previous, [field]: value }));
  const open = (destination: Destination | null) => {
    setError(null);
    setEditing(destination);
    setForm(destination ? formOf(destination) : emptyForm);
    setAdding(true);
  };
  const close = () => {
    setAdding(false);
    setEditing(null);
    setError(null);
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    try {
      if (editing) {
        const patch = patchOf(editing, form);
        if (Object.keys(patch).length === 0) return close();
        await endpoints.updateAlertDestination(editing.id, patch);
      } else await endpoints.createAlertDestination(bodyOf(form));
      setForm(emptyForm);
      close();
      onChanged();
    } catch (caught) {
      setError(messageOf(caught));
    }
  };
  const keepBlank = editing ? 'Leave blank to keep the current one.' : null;

  return (
    <section className="card" aria-labelledby="destinations-title">
      <h2 id="destinations-title" className="section-title">
        Destinations
      </h2>
      {destinations.length === 0 ? (
        <p className="muted">No destinations yet: add one, then point rules at it.</p>
      ) : (
        <table className="table" data-testid="alert-destinations">
          <thead>
            <tr>
              <th>Name</th>
              <th>Kind</th>
              <th>Target</th>
              <th>Per hour</th>
              <th>Added</th>
              {canEdit && <th aria-label="Actions" />}
            </tr>
          </thead>
          <tbody>
            {destinations.map((destination) => (
              <tr key={destination.id} data-destination-id={destination.id}>
                <td>{destination.name}</td>
                <td>{kindLabels[destination.kind]}</td>
                <td>{destination.target}</td>
                <td>{destination.max_per_hour}</td>
                <td>
                  {formatDateTime(destination.created_at)} by {destination.created_by}
                  {destination.updated_at !== null && (
                    <small className="muted">
                      {' '}
                      (changed {formatDateTime(destination.updated_at)} by {destination.updated_by})
                    </small>
                  )}
                </td>
                {canEdit && (
                  <td>
                    <div className="row-actions">
                      <button type="button" onClick={() => open(destination)}>
                        Edit
                      </button>
                      <button type="button" className="danger" onClick={() => setDeleting(destination)}>
                        Delete
                      </button>
                    </div>
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {canEdit && !adding && (
        <button type="button" onClick={() => open(null)}>
          Add destination
        </button>
      )}
      {canEdit && adding && (
        <form
          className="stack-form"
          aria-label={editing ? 'Edit destination' : 'New destination'}
          onSubmit={(event) => void submit(event)}
        >
          <label className="field">
            <span>Kind</span>
            <select
              value={form.kind}
              disabled={editing !== null}
              onChange={(e) => set('kind')(e.target.value)}
            >
              {(Object.keys(kindLabels) as Kind[]).map((kind) => (
                <option key={kind} value={kind}>
                  {kindLabels[kind]}
                </option>
              ))}
            </select>
          </label>
          <label className="field">
            <span>Destination name</span>
            <input required maxLength={100} value={form.name} onChange={(e) => set('name')(e.target.value)} />
          </label>
          {form.kind !== 'email' && (
            <label className="field">
              <span>URL</span>
              <input
                required={!editing}
                type="url"
                value={form.url}
                placeholder={editing ? `${editing.target}/…` : undefined}
                onChange={(e) => set('url')(e.target.value)}
              />
              <small>Stored encrypted; only its origin is shown again. {keepBlank}</small>
            </label>
          )}
          {form.kind === 'webhook' && (
            <label className="field">
              <span>Signing secret</span>
              <input
                required={!editing}
                type="password"
                minLength={16}
                autoComplete="off"
                value={form.signingSecret}
                onChange={(e) => set('signingSecret')(e.target.value)}
              />
              <small>Key of the x-setpoint-signature HMAC (16 characters or more). {keepBlank}</small>
            </label>
          )}
          {form.kind === 'email' && (
            <>
              <div className="field-row">
                <label className="field">
                  <span>SMTP host</span>
                  <input required value={form.smtpHost} onChange={(e) => set('smtpHost')(e.target.value)} />
                </label>
                <label className="field">
                  <span>SMTP port</span>
                  <input
                    required
                    type="number"
                    min={1}
                    max={65535}
                    value={form.smtpPort}
                    onChange={(e) => set('smtpPort')(e.target.value)}
                  />
                </label>
                <label className="field">
                  <span>TLS</span>
                  <select value={form.tls} onChange={(e) => set('tls')(e.target.value)}>
                    <option value="starttls">STARTTLS</option>
                    <option value="tls">Implicit TLS</option>
                    <option value="none">None (trusted relay)</option>
                  </select>
                </label>
              </div>
              <div className="field-row">
                <label className="field">
                  <span>SMTP user</span>
                  <input
                    value={form.username}
                    disabled={form.dropSignIn}
                    placeholder={editing?.email?.signs_in ? 'set (not shown)' : undefined}
                    onChange={(e) => set('username')(e.target.value)}
                  />
                  {editing && <small>{keepBlank}</small>}
                </label>
                <label className="field">
                  <span>SMTP password</span>
                  <input
                    type="password"
                    autoComplete="off"
                    value={form.password}
                    disabled={form.dropSignIn}
                    onChange={(e) => set('password')(e.target.value)}
                  />
                </label>
              </div>
              {editing?.email?.signs_in && (
                <label>
                  <input
                    type="checkbox"
                    checked={form.dropSignIn}
                    onChange={(e) => set('dropSignIn')(e.target.checked)}
                  />{' '}
                  Send without signing in (forget the SMTP user and password)
                </label>
              )}
              <label className="field">
                <span>From</span>
                <input
                  required
                  type="email"
                  value={form.from}
                  onChange={(e) => set('from')(e.target.value)}
                />
              </label>
              <label className="field">
                <span>To</span>
                <input required value={form.to} onChange={(e) => set('to')(e.target.value)} />
                <small>Addresses separated by commas.</small>
              </label>
            </>
          )}
          <label className="field">
            <span>At most per hour</span>
            <input
              required
              type="number"
              min={1}
              max={1000}
              value={form.maxPerHour}
              onChange={(e) => set('maxPerHour')(e.target.value)}
            />
          </label>
          {error && (
            <p className="notice notice-error" role="alert">
              {error}
            </p>
          )}
          <div className="form-actions">
            <button type="submit" className="primary">
              Save destination
            </button>
            <button type="button" onClick={close}>
              Cancel
            </button>
          </div>
        </form>
      )}
      <ConfirmDialog
        open={deleting !== null}
        title={`Delete ${deleting?.name ?? ''}?`}
        confirmLabel="Delete destination"
        danger
        onConfirm={async () => {
          if (deleting) await endpoints.deleteAlertDestination(deleting.id);
          setDeleting(null);
          onChanged();
        }}
        onClose={() => setDeleting(null)}
      >
        <p>The rules that send to it are deleted too. Notifications already sent stay listed.</p>
      </ConfirmDialog>
    </section>
  );
}
