import { countOf, summarizeProject } from '@setpoint/insights';
import { useMemo, useState } from 'react';
import { Link, NavLink, useParams } from 'react-router';
import { toInsightRun } from '../../api/insight-runs.js';
import { useApi } from '../../api/use-api.js';
import { LoadView } from '../../components/load-view.js';
import { PhaseBadge } from '../../components/phase-badge.js';
import { useSession } from '../../shell/session.js';
import { emrProjectTab } from '../emr/emr-project-tab.js';
import { AlertsTab } from './alerts-tab.js';
import { AwaitingApproval } from './awaiting-approval.js';
import { MetricsTab } from './metrics-tab.js';
import { loadProjectData, type ProjectData } from './project-data.js';
import { RecommendationTab } from './recommendation-tab.js';
import { RunsTab } from './runs-tab.js';
import { SettingsTab } from './settings-tab.js';
import { SummaryTab } from './summary-tab.js';
import { TimelineTab } from './timeline-tab.js';

const tabs = [
  { id: 'summary', label: 'Summary' },
  { id: 'timeline', label: 'Timeline' },
  { id: 'metrics', label: 'Spark metrics' },
  { id: 'recommendation', label: 'Recommendation' },
  { id: 'runs', label: 'Runs' },
  { id: 'settings', label: 'Settings' },
  { id: 'alerts', label: 'Alerts' },
] as const;

/** Tabs a platform adds to its projects' pages, shown when the project's workspace is of that platform. */
const platformTabs = [emrProjectTab] as const;

type TabId = (typeof tabs)[number]['id'] | (typeof platformTabs)[number]['id'];

const tabsOf = (platform: string | null) => [
  ...tabs,
  ...platformTabs.filter((entry) => entry.platform === platform),
];

/**
 * The project's compute as the job's author named it: Databricks keys a project by `job_cluster:<key>` or
 * `task:<key>`, words nobody reads in the job's own settings.
 */
function clusterWords(clusterKey: string): string {
  const [kind, ...rest] = clusterKey.split(':');
  const name = rest.join(':');
  if (kind === 'job_cluster' && name) return `job cluster ${name}`;
  if (kind === 'task' && name) return `the cluster of task ${name}`;
  if (clusterKey === 'serverless') return 'serverless compute';
  return `cluster ${clusterKey}`;
}

/** The decision of the recommendation that awaits approval, when the page loaded it. */
function waitingDecision({ project, recommendations }: ProjectData) {
  const waiting = project.awaiting_approval?.recommendation_id;
  return recommendations?.find((recommendation) => recommendation.id === waiting)?.decision ?? null;
}

export function ProjectPage() {
  const { id = '', tab = 'summary' } = useParams();
  const { result, reload, setResult } = useApi(`project:${id}`, (signal) => loadProjectData(id, signal));

  return (
    <div className="page">
      <nav className="breadcrumb" aria-label="Breadcrumb">
        <Link to="/projects">Projects</Link> <span aria-hidden="true">/</span>
      </nav>
      <LoadView result={result} what="Project" onRetry={reload}>
        {(data) => (
          <ProjectView
            data={data}
            tab={tab}
            reload={reload}
            replaceProject={(project) => setResult({ state: 'ready', data: { ...data, project } })}
          />
        )}
      </LoadView>
    </div>
  );
}

function ProjectView({
  data,
  tab,
  reload,
  replaceProject,
}: {
  data: ProjectData;
  tab: string;
  reload(): void;
  replaceProject(project: ProjectData['project']): void;
}) {
  const { project, runs } = data;
  const summary = useMemo(
    () =>
      summarizeProject(
        runs.map((run) => toInsightRun(run)),
        { now: Date.now(), slaMinutes: project.settings.slaMinutes ?? null },
      ),
    [runs, project.settings.slaMinutes],
  );
  const base = `/projects/${encodeURIComponent(project.id)}`;
  const shown = tabsOf(data.platform);
  const active: TabId = shown.find((entry) => entry.id === tab)?.id ?? 'summary';
  const PlatformTab = platformTabs.find((entry) => entry.id === active)?.Tab;
  const { canChange } = useSession();
  const [decided, setDecided] = useState<{ message: string; ok: boolean } | null>(null);
  return (
    <>
      <header className="page-header project-header">
        <div>
          <h1>{project.name}</h1>
          <p className="page-sub">
            {[
              project.job_id ? `Job ${project.job_id}` : null,
              project.cluster_key ? clusterWords(project.cluster_key) : null,
              project.app_id ? `app ${project.app_id}` : null,
              countOf(runs.length, 'run'),
            ]
              .filter(Boolean)
              .join(' · ')}
          </p>
        </div>
        <PhaseBadge project={project} />
      </header>
      {project.awaiting_approval && (
        <AwaitingApproval
          approval={project.awaiting_approval}
          decision={waitingDecision(data)}
          canDecide={canChange}
          onDecided={(message, ok) => {
            setDecided({ message, ok });
            reload();
          }}
        />
      )}
      {decided && (
        <p
          className={decided.ok ? 'notice notice-ok' : 'notice notice-error'}
          role="status"
          data-testid="approval-outcome"
        >
          {decided.message}
        </p>
      )}
      <nav className="tabs" aria-label="Project sections">
        {shown.map((entry) => (
          <NavLink
            key={entry.id}
            to={entry.id === 'summary' ? base : `${base}/${entry.id}`}
            end
            className={({ isActive }) => (isActive || entry.id === active ? 'tab tab-active' : 'tab')}
            aria-current={entry.id === active ? 'page' : undefined}
          >
            {entry.label}
          </NavLink>
        ))}
      </nav>
      <section className="tab-panel" aria-label={shown.find((entry) => entry.id === active)?.label}>
        {active === 'summary' && <SummaryTab data={data} summary={summary} />}
        {active === 'timeline' && <TimelineTab data={data} />}
        {active === 'metrics' && <MetricsTab data={data} />}
        {active === 'recommendation' && <RecommendationTab data={data} reload={reload} />}
        {active === 'runs' && <RunsTab data={data} />}
        {active === 'settings' && <SettingsTab project={project} onSaved={replaceProject} />}
        {active === 'alerts' && <AlertsTab project={project} />}
        {PlatformTab && <PlatformTab data={data} reload={reload} />}
      </section>
    </>
  );
}
