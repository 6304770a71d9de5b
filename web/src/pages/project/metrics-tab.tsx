import type { RunDetailResource as RunDetail } from '@setpoint/api-contract';
import { countOf } from '@setpoint/insights';
import { useEffect, useMemo, useState } from 'react';
import { messageOf } from '../../api/client.js';
import { endpoints } from '../../api/endpoints.js';
import { type ChartOption, EChart } from '../../components/echart.js';
import { ErrorNotice, Loading } from '../../components/load-view.js';
import { Missing, ValueOr } from '../../components/missing.js';
import { coreTimeMeasures } from '../../lib/core-time.js';
import { formatBytes, formatDateTime, formatPercent } from '../../lib/format.js';
import { useThemeName } from '../../shell/theme.js';
import type { ProjectData } from './project-data.js';

const shownRuns = 60;
const noProfile = 'No Spark event log was read for this run, so it has no Spark metrics.';
const gib = 1024 ** 3;

async function loadDetails(projectId: string, runIds: string[]): Promise<RunDetail[]> {
  const details: RunDetail[] = new Array(runIds.length);
  let next = 0;
  const worker = async () => {
    while (next < runIds.length) {
      const index = next;
      next += 1;
      details[index] = await endpoints.run(projectId, runIds[index]!);
    }
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
  return details;
}

const gcShare = (detail: RunDetail) => {
  const profile = detail.profile_summary;
  if (!profile || profile.gcTimeMs === undefined || !profile.executorRunTimeMs) return null;
  return profile.gcTimeMs / profile.executorRunTimeMs;
};

export function MetricsTab({ data }: { data: ProjectData }) {
  const theme = useThemeName();
  const runIds = useMemo(() => data.runs.slice(-shownRuns).map((run) => run.id), [data.runs]);
  const [details, setDetails] = useState<RunDetail[] | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let cancelled = false;
    setDetails(null);
    loadDetails(data.project.id, runIds).then(
      (loaded) => !cancelled && setDetails(loaded),
      (caught: unknown) => !cancelled && setError(messageOf(caught)),
    );
    return () => {
      cancelled = true;
    };
  }, [data.project.id, runIds]);

  if (error) return <ErrorNotice message={`Run metrics: ${error}`} />;
  if (!details)
    return <Loading label={`Loading Spark metrics of the last ${countOf(runIds.length, 'run')}…`} />;
  if (details.length === 0) return <p className="muted">No runs yet.</p>;

  const labels = details.map((detail) => formatDateTime(detail.started_at ?? detail.created_at));
  const profiles = details.map((detail) => detail.profile_summary);
  const hasGc = details.some((detail) => gcShare(detail) !== null);
  const hasCpu = profiles.some((profile) => profile?.coreTimeOnCpu != null);
  const grid = { left: 64, right: 24, top: 36, bottom: 40 };
  const xAxis = {
    type: 'category',
    data: labels,
    axisLabel: { hideOverlap: true, formatter: (value: string) => value.split(',')[0] },
  };

  const utilization: ChartOption = {
    grid,
    tooltip: { trigger: 'axis', valueFormatter: (value: number) => `${value}%` },
    legend: { top: 0 },
    xAxis,
    yAxis: { type: 'value', max: 100, axisLabel: { formatter: '{value}%' } },
    series: [
      {
        name: coreTimeMeasures.inTasks.label,
        type: 'line',
        itemStyle: { color: '#10b981' },
        data: profiles.map((profile) => (profile ? Math.round(profile.utilization * 1000) / 10 : null)),
      },
      ...(hasCpu
        ? [
            {
              name: coreTimeMeasures.onCpu.label,
              type: 'line',
              itemStyle: { color: '#3b82f6' },
              data: profiles.map((profile) =>
                profile?.coreTimeOnCpu == null ? null : Math.round(profile.coreTimeOnCpu * 1000) / 10,
              ),
            },
          ]
        : []),
      ...(hasGc
        ? [
            {
              name: 'GC time share',
              type: 'line',
              itemStyle: { color: '#ef4444' },
              data: details.map((detail) => {
                const share = gcShare(detail);
                return share === null ? null : Math.round(share * 1000) / 10;
              }),
            },
          ]
        : []),
    ],
  };

  const volumes: ChartOption = {
    grid,
    tooltip: { trigger: 'axis', valueFormatter: (value: number) => formatBytes(value * gib) },
    legend: { top: 0 },
    xAxis,
    yAxis: { type: 'value', name: 'GiB' },
    series: [
      {
        name: 'Input',
        type: 'line',
        itemStyle: { color: '#3b82f6' },
        data: profiles.map((p) => (p ? p.inputBytes / gib : null)),
      },
      {
        name: 'Shuffle read',
        type: 'bar',
        itemStyle: { color: '#8b5cf6' },
        data: profiles.map((p) => (p ? p.shuffleReadBytes / gib : null)),
      },
      {
        name: 'Shuffle write',
        type: 'bar',
        itemStyle: { color: '#a78bfa' },
        data: profiles.map((p) => (p ? p.shuffleWriteBytes / gib : null)),
      },
      {
        name: 'Spill',
        type: 'bar',
        itemStyle: { color: '#f97316' },
        data: profiles.map((p) => (p ? p.spillBytes / gib : null)),
      },
    ],
  };

  return (
    <div className="metrics">
      <p className="muted">
        Spark metrics of the last {countOf(details.length, 'run')}, from each run's event log.
        {!hasGc && ' GC time is not reported by this server.'}
      </p>
      <h2 className="section-title">Executor core time{hasGc ? ' and GC' : ''}</h2>
      <p className="muted">
        {coreTimeMeasures.inTasks.label}: {coreTimeMeasures.inTasks.help} {coreTimeMeasures.onCpu.label}:{' '}
        {coreTimeMeasures.onCpu.help}
      </p>
      <EChart
        option={utilization}
        theme={theme}
        label="Executor core time in tasks and on CPU per run"
        data={{ testid: 'utilization-chart' }}
      />
      <h2 className="section-title">Input, shuffle and spill</h2>
      <EChart
        option={volumes}
        theme={theme}
        label="Input, shuffle and spill per run"
        data={{ testid: 'volume-chart' }}
      />
      <table className="table compact">
        <thead>
          <tr>
            <th>Run</th>
            <th className="num" title={coreTimeMeasures.inTasks.help}>
              In tasks
            </th>
            {hasCpu && (
              <th className="num" title={coreTimeMeasures.onCpu.help}>
                On CPU
              </th>
            )}
            {hasGc && <th className="num">GC</th>}
            <th className="num">Input</th>
            <th className="num">Shuffle read</th>
            <th className="num">Shuffle write</th>
            <th className="num">Spill</th>
            <th className="num">Executors</th>
          </tr>
        </thead>
        <tbody>
          {[...details].reverse().map((detail) => {
            const profile = detail.profile_summary;
            return (
              <tr key={detail.id}>
                <td>{formatDateTime(detail.started_at ?? detail.created_at)}</td>
                <td className="num">
                  <ValueOr text={formatPercent(profile?.utilization, 1)} reason={noProfile} />
                </td>
                {hasCpu && (
                  <td className="num">
                    <ValueOr
                      text={formatPercent(profile?.coreTimeOnCpu, 1)}
                      reason={profile ? 'The event log of this run names no executor cores.' : noProfile}
                    />
                  </td>
                )}
                {hasGc && (
                  <td className="num">
                    <ValueOr
                      text={formatPercent(gcShare(detail), 1)}
                      reason="The event log of this run reports no GC time."
                    />
                  </td>
                )}
                <td className="num">
                  <ValueOr text={formatBytes(profile?.inputBytes)} reason={noProfile} />
                </td>
                <td className="num">
                  <ValueOr text={formatBytes(profile?.shuffleReadBytes)} reason={noProfile} />
                </td>
                <td className="num">
                  <ValueOr text={formatBytes(profile?.shuffleWriteBytes)} reason={noProfile} />
                </td>
                <td className="num">
                  <ValueOr text={formatBytes(profile?.spillBytes)} reason={noProfile} />
                </td>
                <td className="num">
                  {profile ? (
                    `${profile.executorsMax} × ${countOf(profile.coresPerExecutor, 'core')}`
                  ) : (
                    <Missing reason={noProfile} />
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
