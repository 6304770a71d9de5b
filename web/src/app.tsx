import { useEffect, useState } from 'react';
import { fetchJson, type SystemInfo } from './api-client.js';

type Load =
  | { state: 'loading' }
  | { state: 'ready'; info: SystemInfo }
  | { state: 'failed'; message: string };

export function App() {
  const [load, setLoad] = useState<Load>({ state: 'loading' });

  useEffect(() => {
    fetchJson<SystemInfo>('/api/v1/system')
      .then((info) => setLoad({ state: 'ready', info }))
      .catch((error: unknown) => setLoad({ state: 'failed', message: String(error) }));
  }, []);

  return (
    <div className="shell">
      <header className="topbar">
        <span className="brand">Setpoint</span>
        <span className="tagline">closed-loop cluster optimization for Spark jobs</span>
      </header>
      <main className="content">
        {load.state === 'loading' && <p aria-busy="true">Connecting to the Setpoint server…</p>}
        {load.state === 'failed' && (
          <p role="alert" className="error">
            Cannot reach the Setpoint API: {load.message}
          </p>
        )}
        {load.state === 'ready' && (
          <section aria-label="Server status" className="card">
            <h1>Server status</h1>
            <dl>
              <dt>Version</dt>
              <dd data-testid="server-version">{load.info.version}</dd>
              <dt>Database</dt>
              <dd data-testid="server-database">{load.info.database}</dd>
              <dt>Projects</dt>
              <dd data-testid="project-count">{load.info.projects}</dd>
            </dl>
          </section>
        )}
      </main>
    </div>
  );
}
