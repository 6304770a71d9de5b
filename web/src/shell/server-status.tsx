import { ApiError } from '../api/client.js';
import { endpoints } from '../api/endpoints.js';
import { useApi } from '../api/use-api.js';

/** Version and storage of the server the dashboard talks to. */
export function ServerStatus() {
  // Signed out, the server tells nothing about itself; that is not an error worth showing.
  const { result } = useApi('system', () =>
    endpoints.system({ expectUnauthorized: true }).catch((error: unknown) => {
      if (error instanceof ApiError && error.unauthorized) return null;
      throw error;
    }),
  );
  if (result.state === 'loading') return <p className="server-status muted">Connecting…</p>;
  if (result.state !== 'ready') {
    return (
      <p className="server-status error" role="alert">
        Cannot reach the Setpoint API: {result.message}
      </p>
    );
  }
  const info = result.data;
  if (!info) return null;
  return (
    <dl className="server-status" aria-label="Server status">
      <dt>Version</dt>
      <dd data-testid="server-version">{info.version}</dd>
      <dt>Database</dt>
      <dd data-testid="server-database">{info.database}</dd>
      <dt>Projects</dt>
      <dd data-testid="project-count">{info.projects}</dd>
    </dl>
  );
}
