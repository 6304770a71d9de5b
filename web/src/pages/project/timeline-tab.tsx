import type { RunResource as Run } from '@setpoint/api-contract';
import { costByKind, countOf } from '@setpoint/insights';
import { useMemo, useState } from 'react';
import { clusterKey, clusterLabel } from '../../api/insight-runs.js';
import { type ChartOption, EChart } from '../../components/echart.js';
import { roundValueAxis } from '../../lib/chart-axis.js';
import { costKindColors, costKindLabel, kindsWithCost } from '../../lib/cost-kinds.js';
import { formatDateTime, formatMinutes, formatUsd } from '../../lib/format.js';
import { runAxisLabels } from '../../lib/run-axis.js';
import { useThemeName } from '../../shell/theme.js';
import type { ProjectData } from './project-data.js';

const runtimeOf = (run: Run) =>
  run.started_at !== null && run.ended_at !== null ? (run.ended_at - run.started_at) / 60_000 : null;

/** Indexes of runs whose cluster differs from the run before. */
export function configChanges(runs: Run[]): number[] {
  const changes: number[] = [];
  for (let index = 1; index < runs.length; index += 1) {
    const before = clusterKey(runs[index - 1]!);
    const after = clusterKey(runs[index]!);
    if (before !== null && after !== null && before !== after) changes.push(index);
  }
  return changes;
}

const defaultWindow = 60;

const rangeColor = 'rgba(100, 116, 139, 0.22)';
const slaColor = '#ef4444';

export function TimelineTab({ data }: { data: ProjectData }) {
  const theme = useThemeName();
  const runs = data.runs;
  const [focus, setFocus] = useState<number | null>(null);
  const [zoom, setZoom] = useState<{ start: number; end: number }>(() => ({
    start: Math.max(0, runs.length - defaultWindow),
    end: Math.max(0, runs.length - 1),
  }));
  const sla = data.project.settings.slaMinutes ?? null;
  const changes = useMemo(() => configChanges(runs), [runs]);
  const axisLabels = useMemo(
    () => runAxisLabels(runs.map((run) => run.started_at ?? run.created_at)),
    [runs],
  );
  const costs = useMemo(
    () =>
      runs.map((run) =>
        run.cost
          ? { byKind: costByKind(run.cost.components), lowUsd: run.cost.low_usd, highUsd: run.cost.high_usd }
          : null,
      ),
    [runs],
  );
  const kinds = useMemo(() => kindsWithCost(costs.flatMap((cost) => (cost ? [cost.byKind] : []))), [costs]);

  const zoomTo = (start: number, end: number) => setZoom({ start, end });
  const focusRun = (index: number) => {
    setFocus(index);
    zoomTo(index, index);
  };
  const dataZoom = [
    { type: 'inside', startValue: zoom.start, endValue: zoom.end, minValueSpan: 0 },
    { type: 'slider', startValue: zoom.start, endValue: zoom.end, height: 18, bottom: 6 },
  ];
  const changeLines = changes.map((index) => ({
    xAxis: index,
    label: { formatter: 'config', position: 'insideEndTop' },
    lineStyle: { type: 'dashed', color: '#8b5cf6' },
  }));
  const grid = { left: 64, right: 24, top: 44, bottom: 72 };
  const xAxis = {
    type: 'category',
    data: axisLabels,
    axisLabel: { hideOverlap: true, lineHeight: 14 },
  };

  const costOption: ChartOption = {
    grid,
    tooltip: { trigger: 'axis', valueFormatter: (value: number) => formatUsd(value) },
    legend: {
      top: 0,
      // The range's swatch is drawn like its band (a translucent area), not like a line.
      data: [
        ...kinds.map(costKindLabel),
        { name: 'Cost range', icon: 'rect', itemStyle: { color: rangeColor } },
      ],
    },
    xAxis,
    yAxis: { type: 'value', name: 'USD', axisLabel: { formatter: (value: number) => `$${value}` } },
    dataZoom,
    series: [
      ...kinds.map((kind, index) => ({
        name: costKindLabel(kind),
        type: 'bar',
        stack: 'cost',
        itemStyle: { color: costKindColors[kind] },
        data: costs.map((cost) => cost?.byKind[kind] ?? null),
        ...(index === 0 ? { markLine: { symbol: 'none', silent: true, data: changeLines } } : {}),
      })),
      {
        name: 'Range low',
        type: 'line',
        stack: 'range',
        symbol: 'none',
        lineStyle: { opacity: 0 },
        tooltip: { show: false },
        data: costs.map((cost) => cost?.lowUsd ?? null),
      },
      {
        name: 'Cost range',
        type: 'line',
        stack: 'range',
        symbol: 'none',
        lineStyle: { opacity: 0 },
        color: rangeColor,
        itemStyle: { color: rangeColor },
        areaStyle: { color: rangeColor },
        data: costs.map((cost) =>
          cost && cost.lowUsd !== null && cost.highUsd !== null ? cost.highUsd - cost.lowUsd : null,
        ),
      },
    ],
  };

  const runtimes = useMemo(() => runs.map(runtimeOf), [runs]);
  // Headroom above the SLA line keeps its label inside the plot; the top stays on a tick.
  const runtimeAxis = roundValueAxis(
    runtimes.reduce<number>((top, minutes) => Math.max(top, minutes ?? 0), sla ?? 0) * 1.2,
  );
  const runtimeOption: ChartOption = {
    grid,
    tooltip: { trigger: 'axis', valueFormatter: (value: number) => formatMinutes(value) },
    legend: { top: 0, data: ['Runtime'] },
    xAxis,
    yAxis: {
      type: 'value',
      name: 'minutes',
      min: 0,
      max: runtimeAxis.max,
      interval: runtimeAxis.interval,
    },
    dataZoom,
    series: [
      {
        name: 'Runtime',
        type: 'line',
        showSymbol: true,
        symbolSize: 7,
        itemStyle: { color: '#10b981' },
        data: runtimes.map((minutes, index) => ({
          value: minutes,
          itemStyle:
            runs[index]!.status && !/SUCC/i.test(runs[index]!.status!) ? { color: '#ef4444' } : undefined,
        })),
        markLine: {
          symbol: 'none',
          silent: true,
          data: [
            ...(sla === null
              ? []
              : [
                  {
                    yAxis: sla,
                    name: 'SLA',
                    // At the start of the line: the end is where the newest runs and the config marks are.
                    label: {
                      formatter: `SLA ${formatMinutes(sla)}`,
                      position: 'insideStartTop',
                      color: slaColor,
                      fontWeight: 'bold',
                    },
                    lineStyle: { color: slaColor, type: 'solid', width: 2 },
                  },
                ]),
            ...changeLines,
          ],
        },
      },
    ],
  };

  if (runs.length === 0) return <p className="muted">No runs yet: the timeline fills in as runs arrive.</p>;
  const focused = focus === null ? null : runs[focus];
  return (
    <div className="timeline">
      <div className="chart-toolbar">
        <span className="muted">
          {zoom.start === zoom.end
            ? `Run ${zoom.start + 1} of ${runs.length}`
            : `Runs ${zoom.start + 1}–${zoom.end + 1} of ${runs.length}`}
          {changes.length > 0 && ` · ${countOf(changes.length, 'configuration change')} (dashed lines)`}
        </span>
        <span className="toolbar-spacer" />
        <button type="button" onClick={() => zoomTo(0, runs.length - 1)}>
          All runs
        </button>
        <button type="button" onClick={() => zoomTo(Math.max(0, runs.length - 10), runs.length - 1)}>
          Last 10
        </button>
        <button type="button" onClick={() => focusRun(runs.length - 1)}>
          Latest run
        </button>
      </div>
      <h2 className="section-title">Cost per run</h2>
      <EChart
        option={costOption}
        theme={theme}
        label={`Cost per run by kind (${kinds.map(costKindLabel).join(', ') || 'none'}), ${countOf(runs.length, 'run')}`}
        data={{
          testid: 'cost-chart',
          points: costs.filter(Boolean).length,
          changes: changes.length,
          kinds: kinds.join(' '),
        }}
        onClickIndex={focusRun}
      />
      <h2 className="section-title">Runtime per run</h2>
      <EChart
        option={runtimeOption}
        theme={theme}
        label={`Runtime per run${sla === null ? '' : ` against the ${sla} minute SLA`}, ${countOf(runs.length, 'run')}`}
        data={{
          testid: 'runtime-chart',
          points: runtimes.filter((value) => value !== null).length,
          sla: sla ?? '',
        }}
        onClickIndex={focusRun}
      />
      {focused && (
        <div className="focus-card" data-testid="focused-run">
          <strong>{formatDateTime(focused.started_at)}</strong> · {focused.status ?? 'status unknown'} ·{' '}
          {formatMinutes(runtimeOf(focused))} · {formatUsd(focused.cost?.total_usd)} · {clusterLabel(focused)}
          {focused.on_recommendation_id ? ' · on a Setpoint recommendation' : ''}
        </div>
      )}
    </div>
  );
}
