import { demoLinkUsedNotice } from '@setpoint/api-contract';
import { type FormEvent, useEffect, useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { messageOf } from '../api/client.js';
import { ServerStatus } from '../shell/server-status.js';
import { useSession } from '../shell/session.js';

/** Only same-site paths may follow sign-in, never another origin. */
function safeNext(next: string | null): string {
  return next?.startsWith('/') && !next.startsWith('//') ? next : '/projects';
}

export function LoginPage() {
  const { session, signIn } = useSession();
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const next = safeNext(params.get('next'));
  const linkUsed = params.get('notice') === demoLinkUsedNotice;

  useEffect(() => {
    if (session.state === 'signed-in' || session.state === 'proxy-authenticated')
      navigate(next, { replace: true });
  }, [session.state, next, navigate]);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await signIn(username, password);
    } catch (caught) {
      setError(messageOf(caught));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="login">
      <form className="login-card" onSubmit={submit} aria-label="Sign in">
        <div className="brand">
          <span className="brand-mark" aria-hidden="true">
            ◎
          </span>
          Setpoint
        </div>
        <h1>Sign in</h1>
        {session.state === 'unsupported' && (
          <p className="notice notice-unavailable" role="status">
            {session.message} Use a server version with dashboard sign-in.
          </p>
        )}
        {linkUsed && (
          <p className="notice" role="status" data-testid="link-used">
            This sign-in link was already used: each link signs in once. Sign in with the user and password
            that <code>setpoint demo</code> printed, or restart the demo for a new link.
          </p>
        )}
        {session.state === 'signed-out' && session.reason && (
          <p className="notice" role="status">
            {session.reason}
          </p>
        )}
        <label className="field">
          <span>Username</span>
          <input
            name="username"
            autoComplete="username"
            required
            value={username}
            onChange={(event) => setUsername(event.target.value)}
          />
        </label>
        <label className="field">
          <span>Password</span>
          <input
            name="password"
            type="password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(event) => setPassword(event.target.value)}
          />
        </label>
        {error && (
          <p className="notice notice-error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" className="primary wide" disabled={busy || session.state === 'unsupported'}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        <p className="muted small">
          Accounts are created on the server with <code>setpoint users create</code>.
        </p>
        <ServerStatus />
      </form>
    </div>
  );
}
