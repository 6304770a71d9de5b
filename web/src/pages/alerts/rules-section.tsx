import type {
  AlertDestinationResource as Destination,
  AlertRuleResource as Rule,
} from '@setpoint/api-contract';
import { countOf } from '@setpoint/insights';
import { type FormEvent, useState } from 'react';
import { Link } from 'react-router';
import { messageOf } from '../../api/client.js';
import { endpoints } from '../../api/endpoints.js';
import { ConfirmDialog } from '../../components/confirm-dialog.js';
import { eventLabels } from './alert-labels.js';

type Event = Rule['event'];
const events = Object.keys(eventLabels) as Event[];
const everyProject = '';

interface RuleForm {
  projectId: string;
  event: Event;
  destinationId: string;
  thresholdPct: string;
  windowRuns: string;
  atRiskPct: string;
  enabled: boolean;
}

const formOf = (rule: Rule): RuleForm => ({
  projectId: rule.project_id ?? everyProject,
  event: rule.event,
  destinationId: rule.destination_id,
  thresholdPct: String(rule.params.threshold_pct),
  windowRuns: String(rule.params.window_runs),
  atRiskPct: String(Math.round(rule.params.at_risk_fraction * 100)),
  enabled: rule.enabled,
});

/** The parameters the rule's event reads; the others keep their values. */
function paramsOf(form: RuleForm): Partial<Rule['params']> {
  if (form.event === 'cost_spike')
    return { threshold_pct: Number(form.thresholdPct), window_runs: Number(form.windowRuns) };
  if (form.event === 'sla_at_risk') return { at_risk_fraction: Number(form.atRiskPct) / 100 };
  return {};
}

/** What a rule's parameters mean for its event, in words. */
function conditionOf(rule: Rule): string {
  if (rule.event === 'cost_spike')
    return `≥ ${rule.params.threshold_pct}% above the mean of the last ${countOf(rule.params.window_runs, 'run')}`;
  if (rule.event === 'sla_at_risk')
    return `under ${Math.round(rule.params.at_risk_fraction * 100)}% of the last 10 runs met the SLA`;
  return '—';
}

/**
 * Alert rules for the organization or one project: add, edit, turn on or off, delete. With `project`
 * (on a project's page) it lists the rules that cover that project; new rules are scoped to it and
 * the organization-wide ones are shown but changed on the Notifications page.
 */
export function RulesSection({
  rules,
  destinations,
  projects,
  canEdit,
  onChanged,
  project,
}: {
  rules: Rule[];
  destinations: Destination[];
  projects: Array<{ id: string; name: string }>;
  canEdit: boolean;
  onChanged(): void;
  project?: { id: string; name: string };
}) {
  const [editing, setEditing] = useState<{ id: string | null; form: RuleForm } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<Rule | null>(null);
  const projectName = new Map(projects.map((project) => [project.id, project.name]));
  const destinationName = new Map(destinations.map((destination) => [destination.id, destination.name]));

  const act = async (what: () => Promise<unknown>) => {
    setError(null);
    try {
      await what();
      onChanged();
      return true;
    } catch (caught) {
      setError(messageOf(caught));
      return false;
    }
  };
  const startNew = () =>
    setEditing({
      id: null,
      form: {
        projectId: project?.id ?? everyProject,
        event: 'sla_missed',
        destinationId: destinations[0]?.id ?? '',
        thresholdPct: '20',
        windowRuns: '5',
        atRiskPct: '90',
        enabled: true,
      },
    });
  const update = (patch: Partial<RuleForm>) =>
    setEditing((previous) => previous && { ...previous, form: { ...previous.form, ...patch } });
  const save = async (event: FormEvent) => {
    event.preventDefault();
    if (!editing) return;
    const { id, form } = editing;
    const saved = await act(() =>
      id === null
        ? endpoints.createAlertRule({
            project_id: form.projectId === everyProject ? null : form.projectId,
            event: form.event,
            destination_id: form.destinationId,
            params: paramsOf(form),
            enabled: form.enabled,
          })
        : endpoints.updateAlertRule(id, {
            enabled: form.enabled,
            destination_id: form.destinationId,
            params: paramsOf(form),
          }),
    );
    if (saved) setEditing(null);
  };

  const form = editing?.form;
  /** On a project's page only its own rules are changed there; organization-wide ones are shown. */
  const editable = (rule: Rule) => canEdit && (project === undefined || rule.project_id === project.id);
  return (
    <section className="card" aria-labelledby="rules-title">
      <h2 id="rules-title" className="section-title">
        {project ? `Alert rules that cover ${project.name}` : 'Alert rules'}
      </h2>
      {project && (
        <p className="muted">
          Rules for every project apply here too; change those on the{' '}
          <Link to="/notifications">Notifications</Link> page.
        </p>
      )}
      {destinations.length === 0 && canEdit && (
        <p className="muted" data-testid="no-destination-hint">
          {project ? (
            <>
              Add a destination on the <Link to="/notifications">Notifications</Link> page first: rules send
              to one.
            </>
          ) : (
            <>
              Add a destination under <a href="#destinations-title">Destinations</a> below first: rules send
              to one.
            </>
          )}
        </p>
      )}
      {rules.length === 0 ? (
        <p className="muted">No rules yet.</p>
      ) : (
        <table className="table" data-testid="alert-rules">
          <thead>
            <tr>
              <th>Scope</th>
              <th>Event</th>
              <th>Condition</th>
              <th>Sends to</th>
              <th>State</th>
              {canEdit && <th aria-label="Actions" />}
            </tr>
          </thead>
          <tbody>
            {rules.map((rule) => (
              <tr key={rule.id} data-rule-id={rule.id}>
                <td>
                  {rule.project_id === null
                    ? 'Every project'
                    : (projectName.get(rule.project_id) ?? rule.project_id)}
                </td>
                <td>{eventLabels[rule.event]}</td>
                <td>{conditionOf(rule)}</td>
                <td>{destinationName.get(rule.destination_id) ?? rule.destination_id}</td>
                <td>{rule.enabled ? 'On' : 'Off'}</td>
                {canEdit && !editable(rule) && (
                  <td>
                    <small className="muted">Organization-wide</small>
                  </td>
                )}
                {editable(rule) && (
                  <td>
                    <div className="row-actions">
                      <button type="button" onClick={() => setEditing({ id: rule.id, form: formOf(rule) })}>
                        Edit
                      </button>
                      <button
                        type="button"
                        onClick={() =>
                          void act(() => endpoints.updateAlertRule(rule.id, { enabled: !rule.enabled }))
                        }
                      >
                        {rule.enabled ? 'Disable' : 'Enable'}
                      </button>
                      <button type="button" className="danger" onClick={() => setDeleting(rule)}>
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
      {error && (
        <p className="notice notice-error" role="alert">
          {error}
        </p>
      )}
      {canEdit && !editing && (
        <button type="button" disabled={destinations.length === 0} onClick={startNew}>
          Add rule
        </button>
      )}
      {canEdit && editing && form && (
        <form
          className="stack-form"
          aria-label={editing.id === null ? 'New rule' : 'Edit rule'}
          onSubmit={(event) => void save(event)}
        >
          <label className="field">
            <span>Scope</span>
            <select
              value={form.projectId}
              disabled={editing.id !== null || project !== undefined}
              onChange={(e) => update({ projectId: e.target.value })}
            >
              {project === undefined && <option value={everyProject}>Every project</option>}
              {(project ? [project] : projects).map((entry) => (
                <option key={entry.id} value={entry.id}>
                  {entry.name}
                </option>
              ))}
            </select>
          </label>
          <label className="field">
            <span>Event</span>
            <select
              value={form.event}
              disabled={editing.id !== null}
              onChange={(e) => update({ event: e.target.value as Event })}
            >
              {events.map((event) => (
                <option key={event} value={event}>
                  {eventLabels[event]}
                </option>
              ))}
            </select>
            {editing.id !== null && <small>To watch another event or scope, add a new rule.</small>}
          </label>
          <label className="field">
            <span>Send to</span>
            <select
              required
              value={form.destinationId}
              onChange={(e) => update({ destinationId: e.target.value })}
            >
              {destinations.map((destination) => (
                <option key={destination.id} value={destination.id}>
                  {destination.name}
                </option>
              ))}
            </select>
          </label>
          {form.event === 'cost_spike' && (
            <div className="field-row">
              <label className="field">
                <span>Threshold (%)</span>
                <input
                  required
                  type="number"
                  min={1}
                  max={1000}
                  step="any"
                  value={form.thresholdPct}
                  onChange={(e) => update({ thresholdPct: e.target.value })}
                />
              </label>
              <label className="field">
                <span>Runs in the mean</span>
                <input
                  required
                  type="number"
                  min={1}
                  max={50}
                  value={form.windowRuns}
                  onChange={(e) => update({ windowRuns: e.target.value })}
                />
              </label>
            </div>
          )}
          {form.event === 'sla_at_risk' && (
            <label className="field">
              <span>SLA-hit target (% of the last 10 runs)</span>
              <input
                required
                type="number"
                min={1}
                max={99}
                value={form.atRiskPct}
                onChange={(e) => update({ atRiskPct: e.target.value })}
              />
            </label>
          )}
          <label>
            <input
              type="checkbox"
              checked={form.enabled}
              onChange={(e) => update({ enabled: e.target.checked })}
            />{' '}
            Enabled
          </label>
          <div className="form-actions">
            <button type="submit" className="primary">
              Save rule
            </button>
            <button type="button" onClick={() => setEditing(null)}>
              Cancel
            </button>
          </div>
        </form>
      )}
      <ConfirmDialog
        open={deleting !== null}
        title="Delete this rule?"
        confirmLabel="Delete rule"
        danger
        onConfirm={async () => {
          if (deleting) await endpoints.deleteAlertRule(deleting.id);
          setDeleting(null);
          onChanged();
        }}
        onClose={() => setDeleting(null)}
      >
        <p>It stops sending. Notifications it already sent stay listed.</p>
      </ConfirmDialog>
    </section>
  );
}
