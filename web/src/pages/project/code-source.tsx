import type { ProjectSourceView, CodeProposalResource as Proposal } from '@setpoint/api-contract';
import { useState } from 'react';
import { messageOf } from '../../api/client.js';
import { codeEndpoints } from '../../api/code-endpoints.js';
import { formatDateTime } from '../../lib/format.js';

/** A project's code as the page shows it: where its configuration lives and the proposals made there. */
export interface ProjectCode {
  view: ProjectSourceView;
  /** Newest first. */
  proposals: Proposal[];
}

const formatNames = { terraform: 'Terraform', bundle: 'Databricks bundle', airflow: 'Airflow DAG' } as const;
const stateWords: Record<Proposal['state'], string> = {
  open: 'open, waiting for review',
  merged: 'merged, waiting for the deploy',
  applied: 'merged and deployed: the job runs it',
  closed: 'closed without merging',
  superseded: 'superseded by a newer proposal',
};

/** What a proposal is called where it lives: "pull request #3", "merge request !3", "branch setpoint/prj_1". */
export function proposalName(proposal: Proposal): string {
  if (proposal.number === null) return `branch ${proposal.branch}`;
  return proposal.forge === 'gitlab'
    ? `merge request !${proposal.number}`
    : `pull request #${proposal.number}`;
}

/**
 * Where the project's configuration lives (linked, or named by the job's `setpoint:source` tag, or a deploy
 * nobody linked), where a change goes, and the latest proposal with its state; "Check now" asks the forge
 * and the platform whether it was merged and deployed since.
 */
export function CodeSourcePanel({ projectId, code }: { projectId: string; code: ProjectCode }) {
  // what "Check now" found, until the page loads the project again
  const [checked, setChecked] = useState<{ from: ProjectCode; proposals: Proposal[] } | null>(null);
  const proposals = checked?.from === code ? checked.proposals : code.proposals;
  const [checking, setChecking] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const { view } = code;
  const source = view.source;
  const latest = proposals[0];

  const check = async () => {
    setChecking(true);
    setError(null);
    try {
      setChecked({ from: code, proposals: (await codeEndpoints.proposals(projectId, true)).items });
    } catch (caught) {
      setError(messageOf(caught));
    } finally {
      setChecking(false);
    }
  };

  return (
    <section
      className="card code-source"
      data-testid="code-source"
      aria-label="Where the configuration lives"
    >
      <h2 className="section-title">Where the configuration lives</h2>
      {source ? (
        <p>
          {formatNames[source.format]} in{' '}
          <code className="wrap">{`${source.repository}//${source.path}`}</code>
          {source.branch ? ` (branch ${source.branch})` : ''}
          {source.origin === 'tag' ? ", named by the job's setpoint:source tag" : ', linked'}
          {source.forge === 'none'
            ? '; proposals are pushed as branches'
            : `; proposals open on ${source.forge}`}
          .
        </p>
      ) : (
        <p>No code is linked to this job.</p>
      )}
      <p className="muted" data-testid="code-route">
        {view.route === 'code'
          ? 'Setpoint proposes each change in this code for review and never writes the job through the API.'
          : view.route === 'refuse'
            ? (view.route_reason ?? 'Setpoint does not change this job.')
            : 'Setpoint also writes the job through the API (the code then drifts from the job).'}
      </p>
      {latest ? (
        <p data-testid="proposal-state">
          Latest proposal:{' '}
          {latest.url ? (
            <a href={latest.url} target="_blank" rel="noreferrer">
              {proposalName(latest)}
            </a>
          ) : (
            proposalName(latest)
          )}{' '}
          — <strong>{stateWords[latest.state]}</strong> (recommendation{' '}
          <code>{latest.recommendation_id}</code>, by {latest.created_by}, {formatDateTime(latest.created_at)}
          )
        </p>
      ) : (
        source && <p className="muted">No proposal yet.</p>
      )}
      {source && (
        <button type="button" onClick={check} disabled={checking}>
          {checking ? 'Checking…' : 'Check now'}
        </button>
      )}
      {error && (
        <p className="notice notice-error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}

/** The unified diff a recommendation makes in the project's code, loaded when the dialog opens. */
export function ProposalDiff({ diff }: { diff: { text: string; files: string[]; notes: string[] } | null }) {
  if (diff === null) return <p className="muted">Reading the code…</p>;
  if (diff.text === '') return <p className="muted">The code already holds this recommendation.</p>;
  return (
    <figure className="export">
      <figcaption>{diff.files.join(', ')}</figcaption>
      <pre data-testid="proposal-diff">{diff.text}</pre>
      {diff.notes.map((note) => (
        <p key={note} className="muted">
          {note}
        </p>
      ))}
    </figure>
  );
}
