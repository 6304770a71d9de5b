import type { SessionUser } from '@setpoint/api-contract';
import { createContext, type ReactNode, useCallback, useContext, useEffect, useState } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { ApiError, messageOf, onUnauthorized } from '../api/client.js';
import { endpoints } from '../api/endpoints.js';

export type SessionState =
  | { state: 'checking' }
  | { state: 'signed-in'; user: SessionUser }
  /** The server has no dashboard sign-in but accepts our requests (a proxy in front of it authenticates). */
  | { state: 'proxy-authenticated' }
  | { state: 'signed-out'; reason: string | null }
  | { state: 'unsupported'; message: string };

interface SessionValue {
  session: SessionState;
  user: SessionUser | null;
  /** Viewers see data only; the API refuses their changes too. */
  canChange: boolean;
  signIn(username: string, password: string): Promise<void>;
  signOut(): Promise<void>;
}

async function probeWithoutSession(): Promise<SessionState> {
  try {
    await endpoints.system({ expectUnauthorized: true });
    return { state: 'proxy-authenticated' };
  } catch {
    return {
      state: 'unsupported',
      message: 'This Setpoint server does not offer dashboard sign-in (no /api/v1/session).',
    };
  }
}

const SessionContext = createContext<SessionValue | null>(null);

export function useSession(): SessionValue {
  const value = useContext(SessionContext);
  if (!value) throw new Error('useSession outside SessionProvider');
  return value;
}

export function SessionProvider({ children }: { children: ReactNode }) {
  const [session, setSession] = useState<SessionState>({ state: 'checking' });
  const navigate = useNavigate();
  const location = useLocation();

  useEffect(() => {
    // The fallback probe runs alongside the session check so a server without sessions costs no extra round trip.
    const probe = probeWithoutSession();
    endpoints.session().then(
      ({ user }) => setSession({ state: 'signed-in', user }),
      (error: unknown) => {
        if (error instanceof ApiError && error.unauthorized)
          setSession({ state: 'signed-out', reason: null });
        else if (error instanceof ApiError && error.notAvailable) void probe.then(setSession);
        else setSession({ state: 'signed-out', reason: messageOf(error) });
      },
    );
  }, []);

  useEffect(() => {
    onUnauthorized(() =>
      setSession((current) =>
        current.state === 'signed-in' || current.state === 'proxy-authenticated'
          ? { state: 'signed-out', reason: 'Your session ended; sign in again.' }
          : current,
      ),
    );
    return () => onUnauthorized(null);
  }, []);

  const signedOut = session.state === 'signed-out' || session.state === 'unsupported';
  useEffect(() => {
    if (signedOut && location.pathname !== '/login') {
      const next = `${location.pathname}${location.search}`;
      navigate(`/login?next=${encodeURIComponent(next)}`, { replace: true });
    }
  }, [signedOut, location.pathname, location.search, navigate]);

  const signIn = useCallback(async (username: string, password: string) => {
    const { user } = await endpoints.signIn(username, password);
    setSession({ state: 'signed-in', user });
  }, []);

  const signOut = useCallback(async () => {
    await endpoints.signOut().catch(() => undefined);
    setSession({ state: 'signed-out', reason: null });
  }, []);

  const user = session.state === 'signed-in' ? session.user : null;
  const value: SessionValue = {
    session,
    user,
    // Without a session the server's own authentication decides; the buttons stay available.
    canChange: session.state === 'proxy-authenticated' || (user !== null && user.role !== 'viewer'),
    signIn,
    signOut,
  };
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}
