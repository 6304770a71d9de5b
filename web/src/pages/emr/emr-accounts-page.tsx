import { countOf } from '@setpoint/insights';
import { useState } from 'react';
import { messageOf } from '../../api/client.js';
import {
  type EmrAccessCheck,
  type EmrAccountResource,
  type EmrDiscoverResource,
  type EmrImportResource,
  type EmrServerlessDiscoverResource,
  emrEndpoints,
} from '../../api/emr-endpoints.js';
import { useApi } from '../../api/use-api.js';
import { ConfirmDialog } from '../../components/confirm-dialog.js';
import { LoadView } from '../../components/load-view.js';
import { formatDateTime } from '../../lib/format.js';
import { useSession } from '../../shell/session.js';
import { EmrAccountForm } from './emr-account-form.js';
import { ServerlessDiscoverCard } from './emr-serverless-discover.js';
import {
  ImportControls,
  ImportedNotice,
  importSettings,
  ProjectCell,
  useSelection,
} from './import-selection.js';

const signInLabels: Record<EmrAccountResource['credential_kind'], string> = {
  'access-keys': 'access keys',
  'assume-role': 'assumed role',
  'default-chain': "server's default chain",
};

/** How the account signs in, from what the server shows: never a secret, only its kind and hints. */
function signInOf(account: EmrAccountResource): string {
  const parts = [signInLabels[account.credential_kind]];
  if (account.access_key_id_hint) parts.push(`key ${account.access_key_id_hint}`);
  if (account.role_arn) parts.push(account.role_arn);
  if (account.has_external_id) parts.push('external id set');
  return parts.join(' · ');
}

function groupingOf(account: EmrAccountResource): string {
  const rule = account.grouping;
  if (rule.kind === 'tag') return `tag ${rule.key}`;
  if (rule.kind === 'name-pattern') return `cluster name /${rule.pattern}/`;
  return rule.kind === 'cluster-name' ? 'cluster name' : 'step name';
}

type Panel =
  | { kind: 'check'; account: EmrAccountResource; result: EmrAccessCheck | null; error: string | null }
  | {
      kind: 'discover';
      account: EmrAccountResource;
      result: EmrDiscoverResource | null;
      error: string | null;
    }
  | {
      kind: 'serverless';
      account: EmrAccountResource;
      result: EmrServerlessDiscoverResource | null;
      error: string | null;
    };

/** AWS accounts Setpoint reads EMR clusters from: connect, check, discover and import workloads, remove. */
export function EmrAccountsPage() {
  const { canChange } = useSession();
  const list = useApi('emr-accounts', (signal) =>
    emrEndpoints.accounts(signal).then((answer) => answer.items),
  );
  const [adding, setAdding] = useState(false);
  const [panel, setPanel] = useState<Panel | null>(null);
  const [removing, setRemoving] = useState<EmrAccountResource | null>(null);

  const check = async (account: EmrAccountResource) => {
    setPanel({ kind: 'check', account, result: null, error: null });
    try {
      setPanel({ kind: 'check', account, result: await emrEndpoints.check(account.id), error: null });
    } catch (error) {
      setPanel({ kind: 'check', account, result: null, error: messageOf(error) });
    }
  };
  const discover = async (account: EmrAccountResource) => {
    setPanel({ kind: 'discover', account, result: null, error: null });
    try {
      const result = await emrEndpoints.discover(account.id, discoverDays);
      setPanel({ kind: 'discover', account, result, error: null });
    } catch (error) {
      setPanel({ kind: 'discover', account, result: null, error: messageOf(error) });
    }
  };
  const discoverServerless = async (account: EmrAccountResource) => {
    setPanel({ kind: 'serverless', account, result: null, error: null });
    try {
      const result = await emrEndpoints.serverlessDiscover(account.id, discoverDays);
      setPanel({ kind: 'serverless', account, result, error: null });
    } catch (error) {
      setPanel({ kind: 'serverless', account, result: null, error: messageOf(error) });
    }
  };

  return (
    <div className="page">
      <header className="page-header with-action">
        <div>
          <h1>EMR accounts</h1>
          <p className="page-sub">
            AWS accounts and regions Setpoint reads EMR clusters and their Spark steps from, and resizes
            long-running clusters in; EMR Serverless jobs are monitored and advised.
          </p>
        </div>
        {canChange && list.result.state === 'ready' && (
          <button type="button" className="primary" onClick={() => setAdding(true)}>
            Add account
          </button>
        )}
      </header>
      {adding && (
        <EmrAccountForm
          onCancel={() => setAdding(false)}
          onSaved={(saved) => {
            setAdding(false);
            list.reload();
            void check(saved);
          }}
        />
      )}
      {panel?.kind === 'check' && <AccessCheckCard panel={panel} />}
      {panel?.kind === 'discover' && (
        <DiscoverCard panel={panel} canImport={canChange} onImported={() => void discover(panel.account)} />
      )}
      {panel?.kind === 'serverless' && (
        <ServerlessDiscoverCard
          key={panel.account.id}
          account={panel.account}
          sinceDays={discoverDays}
          result={panel.result}
          error={panel.error}
          canImport={canChange}
          onImported={() => void discoverServerless(panel.account)}
        />
      )}
      <LoadView result={list.result} what="EMR accounts" onRetry={list.reload}>
        {(items) =>
          items.length === 0 ? (
            <div className="empty-state">
              <h2>No EMR accounts</h2>
              <p>
                Add an AWS account with access keys or a role to assume; Setpoint checks each permission it
                needs, then finds the recurring Spark workloads on its clusters.
              </p>
            </div>
          ) : (
            <table className="table" aria-label="EMR accounts">
              <thead>
                <tr>
                  <th>Name</th>
                  <th>Region</th>
                  <th>Sign-in</th>
                  <th>Projects from</th>
                  <th>Last reconciled</th>
                  <th aria-label="Actions" />
                </tr>
              </thead>
              <tbody>
                {items.map((account) => (
                  <tr key={account.id}>
                    <td>{account.name}</td>
                    <td>{account.region}</td>
                    <td>
                      <code className="wrap">{signInOf(account)}</code>
                    </td>
                    <td>{groupingOf(account)}</td>
                    <td>
                      {account.last_reconciled_at ? formatDateTime(account.last_reconciled_at) : 'never'}
                    </td>
                    <td>
                      <div className="row-actions">
                        <button type="button" onClick={() => void check(account)}>
                          Check access
                        </button>
                        <button type="button" onClick={() => void discover(account)}>
                          Discover
                        </button>
                        <button type="button" onClick={() => void discoverServerless(account)}>
                          Serverless jobs
                        </button>
                        {canChange && (
                          <button type="button" className="danger" onClick={() => setRemoving(account)}>
                            Remove
                          </button>
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
        confirmLabel="Remove account"
        danger
        onClose={() => setRemoving(null)}
        onConfirm={async () => {
          await emrEndpoints.removeAccount(removing!.id);
          if (panel?.account.id === removing?.id) setPanel(null);
          list.reload();
        }}
      >
        <p>
          Setpoint forgets the account and its credentials. Its projects and runs stay, unlinked; clusters in
          AWS are not changed.
        </p>
      </ConfirmDialog>
    </div>
  );
}

/** Days of cluster history discovery lists. */
const discoverDays = 30;

function AccessCheckCard({ panel }: { panel: Extract<Panel, { kind: 'check' }> }) {
  return (
    <section className="card" aria-label="Access check" data-testid="emr-access-check">
      <h2 className="section-title">Access check: {panel.account.name}</h2>
      {panel.error && <p className="notice notice-error">{panel.error}</p>}
      {!panel.error && !panel.result && <p className="loading">Checking each permission Setpoint needs…</p>}
      {panel.result && (
        <>
          <p className={panel.result.ok ? 'notice notice-ok' : 'notice notice-error'} role="status">
            {panel.result.ok
              ? 'Setpoint can collect from this account.'
              : 'A permission collection needs is missing: see the lines marked ✗.'}
          </p>
          <ul className="check-lines">
            {panel.result.checks.map((line) => (
              <li
                key={`${line.permission} ${line.resource ?? ''}`}
                className={
                  line.status === 'missing' ? 'check-fail' : line.status === 'held' ? 'check-ok' : ''
                }
              >
                <span aria-hidden="true">
                  {line.status === 'held' ? '✓' : line.status === 'missing' ? '✗' : '?'}
                </span>{' '}
                <strong>{line.permission}</strong> ({line.needed_for}
                {line.resource ? ` on ${line.resource}` : ''}): {line.detail}
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

function DiscoverCard({
  panel,
  canImport,
  onImported,
}: {
  panel: Extract<Panel, { kind: 'discover' }>;
  canImport: boolean;
  onImported(): void;
}) {
  const { selected, toggle, clear } = useSelection();
  const [slaMinutes, setSlaMinutes] = useState('');
  const [imported, setImported] = useState<EmrImportResource | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const result = panel.result;

  const importSelected = async () => {
    setBusy(true);
    setError(null);
    try {
      const answer = await emrEndpoints.importWorkloads(panel.account.id, {
        workloads: [...selected],
        since_days: discoverDays,
        ...importSettings(slaMinutes),
      });
      setImported(answer);
      clear();
      onImported();
    } catch (caught) {
      setError(messageOf(caught));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="card" aria-label="Discovered workloads" data-testid="emr-discover">
      <h2 className="section-title">Workloads in {panel.account.name}</h2>
      {panel.error && <p className="notice notice-error">{panel.error}</p>}
      {!panel.error && !result && <p className="loading">Listing clusters and their steps…</p>}
      {imported && (
        <ImportedNotice
          testId="emr-imported"
          projects={imported.projects.map((project) => ({
            id: project.id,
            name: project.workload,
            queuedRuns: project.queued_runs,
          }))}
          missing={imported.missing}
        />
      )}
      {error && (
        <p className="notice notice-error" role="alert">
          {error}
        </p>
      )}
      {result && (
        <>
          <p className="muted">
            {result.clusters} cluster{result.clusters === 1 ? '' : 's'} in the last {discoverDays} days,{' '}
            {result.workloads.length} workload{result.workloads.length === 1 ? '' : 's'}
            {result.ungrouped.length > 0
              ? `, ${countOf(result.ungrouped.length, 'step')} the rule could not group`
              : ''}
            .
          </p>
          {result.workloads.length > 0 && (
            <table className="table" aria-label="EMR workloads">
              <thead>
                <tr>
                  <th aria-label="Select" />
                  <th>Workload</th>
                  <th className="num">Runs</th>
                  <th>Clusters</th>
                  <th>Newest run</th>
                  <th>Project</th>
                </tr>
              </thead>
              <tbody>
                {result.workloads.map((workload) => {
                  const newest = workload.runs.at(-1);
                  return (
                    <tr key={workload.key}>
                      <td>
                        {workload.project_id === null && canImport && (
                          <input
                            type="checkbox"
                            aria-label={`Select ${workload.key}`}
                            checked={selected.has(workload.key)}
                            onChange={() => toggle(workload.key)}
                          />
                        )}
                      </td>
                      <td>
                        {workload.key}
                        {!workload.recurring && (
                          <div className="muted small">ran once: nothing to learn yet</div>
                        )}
                      </td>
                      <td className="num">{workload.runs.length}</td>
                      <td>
                        {workload.long_running_cluster_id
                          ? `long-running ${workload.long_running_cluster_id}`
                          : `${workload.cluster_ids.length} transient`}
                      </td>
                      <td>{newest?.started_at ? formatDateTime(newest.started_at) : '—'}</td>
                      <td>
                        <ProjectCell projectId={workload.project_id} />
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          )}
          {result.ungrouped.length > 0 && (
            <details>
              <summary>Steps the rule could not group</summary>
              <ul>
                {result.ungrouped.map((step) => (
                  <li key={`${step.cluster_id}:${step.step_id}`}>
                    <code>
                      {step.cluster_id}:{step.step_id}
                    </code>
                    : {step.reason}
                  </li>
                ))}
              </ul>
            </details>
          )}
          {canImport && result.workloads.some((workload) => workload.project_id === null) && (
            <ImportControls
              slaMinutes={slaMinutes}
              onSlaMinutes={setSlaMinutes}
              busy={busy}
              count={selected.size}
              onImport={() => void importSelected()}
            />
          )}
        </>
      )}
    </section>
  );
}
