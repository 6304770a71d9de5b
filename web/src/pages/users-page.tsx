import type { UserResource as User } from '@setpoint/api-contract';
import { type FormEvent, useState } from 'react';
import { messageOf } from '../api/client.js';
import { endpoints } from '../api/endpoints.js';
import { useApi } from '../api/use-api.js';
import { ConfirmDialog } from '../components/confirm-dialog.js';
import { LoadView } from '../components/load-view.js';
import { formatDateTime } from '../lib/format.js';
import { useSession } from '../shell/session.js';

const roles: ReadonlyArray<User['role']> = ['admin', 'editor', 'viewer'];

/** A password shown once: after a create or a reset that generated it. */
function OncePassword({
  username,
  password,
  onDone,
}: {
  username: string;
  password: string;
  onDone(): void;
}) {
  return (
    <div className="secret-once" role="status" data-testid="new-password">
      <p>
        <strong>Give {username} this password now: it is shown only once.</strong>
      </p>
      <code data-testid="new-password-value">{password}</code>{' '}
      <button type="button" onClick={() => void navigator.clipboard?.writeText(password)}>
        Copy
      </button>{' '}
      <button type="button" className="link-button" onClick={onDone}>
        Done
      </button>
    </div>
  );
}

/** Dashboard users (admins only): create, change role, disable or enable, reset password, delete. */
export function UsersPage() {
  const { user: me } = useSession();
  const users = useApi('users', (signal) => endpoints.users(signal));
  const [username, setUsername] = useState('');
  const [role, setRole] = useState<User['role']>('viewer');
  const [shown, setShown] = useState<{ username: string; password: string } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<User | null>(null);

  const act = async (what: () => Promise<unknown>) => {
    setError(null);
    try {
      await what();
      users.reload();
    } catch (caught) {
      setError(messageOf(caught));
    }
  };
  const create = (event: FormEvent) => {
    event.preventDefault();
    void act(async () => {
      const created = await endpoints.createUser({ username: username.trim(), role });
      if (created.password) setShown({ username: created.user.username, password: created.password });
      setUsername('');
    });
  };
  const reset = (user: User) =>
    act(async () => {
      const answer = await endpoints.resetPassword(user.id);
      if (answer.password) setShown({ username: user.username, password: answer.password });
    });

  return (
    <div className="page">
      <header className="page-header">
        <h1>Users</h1>
        <p className="page-sub">
          Who can sign in to the dashboard and what their role lets them do: admins manage users, keys and the
          audit trail; editors change projects; viewers look.
        </p>
      </header>
      <section className="card" aria-labelledby="new-user-title">
        <h2 id="new-user-title" className="section-title">
          Add a user
        </h2>
        <form className="inline-form" onSubmit={create}>
          <label className="field">
            <span>Username</span>
            <input
              required
              value={username}
              pattern="[A-Za-z0-9._\-]{2,64}"
              onChange={(e) => setUsername(e.target.value)}
            />
          </label>
          <label className="field">
            <span>Role</span>
            <select aria-label="Role" value={role} onChange={(e) => setRole(e.target.value as User['role'])}>
              {roles.map((item) => (
                <option key={item}>{item}</option>
              ))}
            </select>
          </label>
          <button type="submit" className="primary">
            Add user
          </button>
        </form>
        <p className="muted">A password is generated and shown once; they change it under Account.</p>
      </section>
      {shown && <OncePassword {...shown} onDone={() => setShown(null)} />}
      {error && (
        <p className="notice notice-error" role="alert">
          {error}
        </p>
      )}
      <LoadView result={users.result} what="Users" onRetry={users.reload}>
        {(data) => (
          <table className="table" data-testid="users">
            <thead>
              <tr>
                <th>Username</th>
                <th>Role</th>
                <th>Status</th>
                <th>Created</th>
                <th aria-label="Actions" />
              </tr>
            </thead>
            <tbody>
              {data.items.map((user) => (
                <tr key={user.id} data-username={user.username}>
                  <td>
                    {user.username}
                    {user.username === me?.username && <span className="muted"> (you)</span>}
                  </td>
                  <td>
                    <select
                      aria-label={`Role of ${user.username}`}
                      value={user.role}
                      onChange={(e) =>
                        void act(() =>
                          endpoints.updateUser(user.id, { role: e.target.value as User['role'] }),
                        )
                      }
                    >
                      {roles.map((item) => (
                        <option key={item}>{item}</option>
                      ))}
                    </select>
                  </td>
                  <td>{user.disabled_at ? `disabled ${formatDateTime(user.disabled_at)}` : 'active'}</td>
                  <td>{formatDateTime(user.created_at)}</td>
                  <td>
                    <div className="row-actions">
                      <button
                        type="button"
                        onClick={() =>
                          void act(() => endpoints.updateUser(user.id, { disabled: !user.disabled_at }))
                        }
                      >
                        {user.disabled_at ? 'Enable' : 'Disable'}
                      </button>
                      <button type="button" onClick={() => void reset(user)}>
                        Reset password
                      </button>
                      <button type="button" className="danger" onClick={() => setDeleting(user)}>
                        Delete
                      </button>
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </LoadView>
      <ConfirmDialog
        open={deleting !== null}
        title={`Delete ${deleting?.username ?? ''}?`}
        confirmLabel="Delete user"
        danger
        onConfirm={async () => {
          if (deleting) await endpoints.deleteUser(deleting.id);
          setDeleting(null);
          users.reload();
        }}
        onClose={() => setDeleting(null)}
      >
        <p>They can no longer sign in. The audit trail keeps what they did.</p>
      </ConfirmDialog>
    </div>
  );
}
