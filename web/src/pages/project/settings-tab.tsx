import type { ProjectResource as Project } from '@setpoint/api-contract';
import { type FormEvent, useState } from 'react';
import { useNavigate } from 'react-router';
import { messageOf } from '../../api/client.js';
import { endpoints } from '../../api/endpoints.js';
import { ConfirmDialog } from '../../components/confirm-dialog.js';
import { useSession } from '../../shell/session.js';
import { type Form, toForm, toSettings } from './settings-form.js';

/** The apply modes as the settings form offers them, each with what it means for the job. */
const applyModeChoices: { value: Form['applyMode']; label: string; help: string }[] = [
  {
    value: 'manual',
    label: 'Manual',
    help: 'Setpoint recommends; a person applies each change.',
  },
  {
    value: 'approve-learning',
    label: 'Approve learning runs',
    help: "Learning runs wait for a person's approval (here, the CLI or the API) and are dropped if the next run starts first; optimizing changes apply on their own.",
  },
  {
    value: 'auto',
    label: 'Auto',
    help: "Setpoint changes the job's cluster after every run without asking anyone.",
  },
];

export function SettingsTab({ project, onSaved }: { project: Project; onSaved(project: Project): void }) {
  const { canChange } = useSession();
  const navigate = useNavigate();
  const [form, setForm] = useState<Form>(() => toForm(project.settings));
  const [status, setStatus] = useState<{ kind: 'ok' | 'error'; message: string } | null>(null);
  const [saving, setSaving] = useState(false);
  const [askAutoApply, setAskAutoApply] = useState(false);
  const [askDelete, setAskDelete] = useState(false);
  const [askReset, setAskReset] = useState(false);
  const set = <K extends keyof Form>(key: K, value: Form[K]) =>
    setForm((current) => ({ ...current, [key]: value }));

  const save = async (event: FormEvent) => {
    event.preventDefault();
    const parsed = toSettings(form);
    if ('problem' in parsed) {
      setStatus({ kind: 'error', message: parsed.problem });
      return;
    }
    setSaving(true);
    setStatus(null);
    try {
      const saved = await endpoints.updateProject(project.id, { settings: parsed.settings });
      onSaved(saved);
      setForm(toForm(saved.settings));
      setStatus({
        kind: 'ok',
        message: saved.decided_again
          ? 'Settings saved. The recommendation in force is decided again under them.'
          : 'Settings saved.',
      });
    } catch (error) {
      setStatus({ kind: 'error', message: messageOf(error) });
    } finally {
      setSaving(false);
    }
  };

  const disabled = !canChange;
  return (
    <form className="settings-form" onSubmit={save} aria-label="Project settings">
      {!canChange && (
        <p className="notice">You can view these settings; changing them needs the editor or admin role.</p>
      )}
      <fieldset disabled={disabled}>
        <legend>Goal</legend>
        <label className="field">
          <span>Runtime SLA (minutes)</span>
          <input
            type="number"
            min="0"
            step="any"
            name="slaMinutes"
            value={form.sla}
            placeholder="none"
            onChange={(event) => set('sla', event.target.value)}
          />
          <small>
            Setpoint picks the cheapest cluster that still finishes within this time. Empty means no SLA.
          </small>
        </label>
        <div className="field">
          <span>Preference</span>
          <div className="segmented" role="radiogroup" aria-label="Preference">
            {(['economy', 'balanced', 'performance'] as const).map((value) => (
              <label key={value} className={form.preference === value ? 'segment segment-on' : 'segment'}>
                <input
                  type="radio"
                  name="preference"
                  value={value}
                  checked={form.preference === value}
                  onChange={() => set('preference', value)}
                />
                {value}
              </label>
            ))}
          </div>
        </div>
        <div className="field">
          <span>Apply mode</span>
          <div className="segmented" role="radiogroup" aria-label="Apply mode">
            {applyModeChoices.map(({ value, label }) => (
              <label key={value} className={form.applyMode === value ? 'segment segment-on' : 'segment'}>
                <input
                  type="radio"
                  name="applyMode"
                  value={value}
                  checked={form.applyMode === value}
                  onChange={() => (value === 'auto' ? setAskAutoApply(true) : set('applyMode', value))}
                />
                {label}
              </label>
            ))}
          </div>
          <small>{applyModeChoices.find((choice) => choice.value === form.applyMode)?.help}</small>
        </div>
      </fieldset>
      <fieldset disabled={disabled}>
        <legend>Cluster limits</legend>
        <label className="check">
          <input
            type="checkbox"
            checked={form.maintainScalingType}
            onChange={(event) => set('maintainScalingType', event.target.checked)}
          />
          Keep the scaling type (autoscaling stays autoscaling, fixed stays fixed)
        </label>
        <div className="field-row">
          <label className="field">
            <span>Minimum workers</span>
            <input
              type="number"
              min="0"
              value={form.minWorkers}
              onChange={(event) => set('minWorkers', event.target.value)}
            />
          </label>
          <label className="field">
            <span>Maximum workers</span>
            <input
              type="number"
              min="1"
              value={form.maxWorkers}
              onChange={(event) => set('maxWorkers', event.target.value)}
            />
          </label>
        </div>
        <label className="field">
          <span>Allowed instance families</span>
          <input
            value={form.families}
            placeholder="any, e.g. m5, r5, i3"
            onChange={(event) => set('families', event.target.value)}
          />
        </label>
        <label className="field">
          <span>Allowed instance types</span>
          <input
            value={form.types}
            placeholder="any, e.g. m5.xlarge"
            onChange={(event) => set('types', event.target.value)}
          />
        </label>
        <label className="field">
          <span>Spot policy</span>
          <select
            value={form.spotPolicy}
            onChange={(event) => set('spotPolicy', event.target.value as Form['spotPolicy'])}
          >
            <option value="on-demand-only">On-demand only</option>
            <option value="spot-with-fallback">Spot with on-demand fallback</option>
            <option value="spot-allowed">Spot allowed</option>
          </select>
        </label>
        <label className="check">
          <input
            type="checkbox"
            checked={form.forceOnDemandDriver}
            onChange={(event) => set('forceOnDemandDriver', event.target.checked)}
          />
          Always run the driver on demand
        </label>
        <label className="check">
          <input
            type="checkbox"
            checked={form.photonAllowed}
            onChange={(event) => set('photonAllowed', event.target.checked)}
          />
          Photon may be recommended
        </label>
        <label className="field">
          Learning: SLA misses risked
          <input
            type="number"
            min={0}
            max={7}
            step={1}
            data-testid="learning-miss-budget"
            value={form.learningMissBudget}
            onChange={(event) => set('learningMissBudget', event.target.value)}
          />
          <small>
            0 (the default): safe learning — every learning run is held to a 90% chance of meeting the SLA (or
            is a smaller cluster that a run which met the SLA bounds by its slack), may not overrun it badly
            and is expected to cost at most 1.5× the best configuration known; on the Scout sweep 3% of the
            runs after the first recommendation missed. 1–7: the standard search may miss the SLA this many
            times while it learns — a faster search that finds more of the saving, but about 22% of the runs
            after the first recommendation missed on Scout, the worst 1% by 2.4× the SLA (docs/benchmarks.md).
          </small>
        </label>
      </fieldset>
      <fieldset disabled={disabled}>
        <legend>Optimization window</legend>
        <div className="field-row">
          <label className="field">
            <span>Starts (cron)</span>
            <input
              value={form.windowCron}
              placeholder="always, e.g. 0 2 * * 1"
              onChange={(event) => set('windowCron', event.target.value)}
            />
          </label>
          <label className="field">
            <span>Lasts (minutes)</span>
            <input
              type="number"
              min="1"
              value={form.windowMinutes}
              onChange={(event) => set('windowMinutes', event.target.value)}
            />
          </label>
        </div>
        <small className="muted">
          Outside the window Setpoint keeps the current configuration. Leave both empty to optimize on every
          run.
        </small>
      </fieldset>
      {status && (
        <p
          className={status.kind === 'ok' ? 'notice notice-ok' : 'notice notice-error'}
          role={status.kind === 'ok' ? 'status' : 'alert'}
        >
          {status.message}
        </p>
      )}
      {canChange && (
        <div className="form-actions">
          <button type="submit" className="primary" disabled={saving}>
            {saving ? 'Saving…' : 'Save settings'}
          </button>
          <button type="button" onClick={() => setForm(toForm(project.settings))} disabled={saving}>
            Discard changes
          </button>
          <span className="toolbar-spacer" />
          <button type="button" onClick={() => setAskReset(true)}>
            Reset learning
          </button>
          <button type="button" className="danger" onClick={() => setAskDelete(true)}>
            Delete project
          </button>
        </div>
      )}
      <ConfirmDialog
        open={askAutoApply}
        title="Turn on auto-apply?"
        confirmLabel="Turn on auto-apply"
        onClose={() => setAskAutoApply(false)}
        onConfirm={async () => set('applyMode', 'auto')}
      >
        <p>
          Setpoint will change this job's cluster after every run without asking anyone. While it is learning
          it tries different configurations, so cost and runtime can swing from run to run, and a
          recommendation can occasionally miss the SLA.
        </p>
        <p>
          Use an optimization window to limit when changes happen. The change takes effect when you save the
          settings.
        </p>
      </ConfirmDialog>
      {project.learning_reset_at ? (
        <p className="muted" data-testid="learning-reset-at">
          Learning restarted {new Date(project.learning_reset_at).toLocaleString()}: earlier runs are kept as
          history but no longer teach the optimizer.
        </p>
      ) : null}
      <ConfirmDialog
        open={askReset}
        title={`Reset learning for ${project.name}?`}
        confirmLabel="Reset learning"
        onClose={() => setAskReset(false)}
        onConfirm={async () => {
          const reset = await endpoints.resetProject(project.id);
          onSaved(reset);
          setStatus({ kind: 'ok', message: 'Learning restarts with the next run.' });
        }}
      >
        <p>
          Use this after the job's code or data changed a lot. Every run so far stays in the history, but only
          runs from now on teach the optimizer: the project goes back to learning and tries a few
          configurations again. Pending recommendations are withdrawn.
        </p>
      </ConfirmDialog>
      <ConfirmDialog
        open={askDelete}
        title={`Delete ${project.name}?`}
        confirmLabel="Delete project"
        danger
        onClose={() => setAskDelete(false)}
        onConfirm={async () => {
          await endpoints.deleteProject(project.id);
          navigate('/projects');
        }}
      >
        <p>Its runs, recommendations and history are deleted. The Databricks job itself is not changed.</p>
      </ConfirmDialog>
    </form>
  );
}
