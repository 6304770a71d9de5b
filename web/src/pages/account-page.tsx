import { type FormEvent, useState } from 'react';
import { messageOf } from '../api/client.js';
import { endpoints } from '../api/endpoints.js';
import { useSession } from '../shell/session.js';

const minLength = 12;

/** The signed-in user's own account: a password change that proves the current password. */
export function AccountPage() {
  const { user } = useSession();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [repeat, setRepeat] = useState('');
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (next !== repeat) return setMessage({ ok: false, text: 'The new passwords differ.' });
    setBusy(true);
    setMessage(null);
    try {
      await endpoints.changePassword(current, next);
      setCurrent('');
      setNext('');
      setRepeat('');
      setMessage({ ok: true, text: 'Password changed. Your other sessions were signed out.' });
    } catch (caught) {
      setMessage({ ok: false, text: messageOf(caught) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="page">
      <header className="page-header">
        <h1>Account</h1>
        <p className="page-sub">
          Signed in as {user?.username ?? 'a user'} ({user?.role ?? 'unknown role'}).
        </p>
      </header>
      <section className="card" aria-labelledby="password-title">
        <h2 id="password-title" className="section-title">
          Change password
        </h2>
        {user === null ? (
          <p>This server signs you in through a proxy; change your password there.</p>
        ) : (
          <form className="stack-form" onSubmit={(event) => void submit(event)}>
            <label className="field">
              <span>Current password</span>
              <input
                type="password"
                aria-label="Current password"
                autoComplete="current-password"
                required
                value={current}
                onChange={(e) => setCurrent(e.target.value)}
              />
            </label>
            <label className="field">
              <span>New password</span>
              <input
                type="password"
                autoComplete="new-password"
                required
                minLength={minLength}
                aria-label="New password"
                value={next}
                onChange={(e) => setNext(e.target.value)}
              />
              <small>At least {minLength} characters.</small>
            </label>
            <label className="field">
              <span>New password again</span>
              <input
                type="password"
                autoComplete="new-password"
                required
                minLength={minLength}
                aria-label="New password again"
                value={repeat}
                onChange={(e) => setRepeat(e.target.value)}
              />
            </label>
            <button type="submit" className="primary" disabled={busy}>
              Change password
            </button>
          </form>
        )}
        {message && (
          <p
            className={`notice ${message.ok ? 'notice-ok' : 'notice-error'}`}
            role={message.ok ? 'status' : 'alert'}
          >
            {message.text}
          </p>
        )}
      </section>
    </div>
  );
}
