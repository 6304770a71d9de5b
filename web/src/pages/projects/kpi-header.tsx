import { type CostTotals, type ProjectResource as Project, projectPhases } from '@setpoint/api-contract';
import { countOf, feeLabel, platformLabel, spendWindow, spendWindowDays } from '@setpoint/insights';
import { afterNextPaint, endpoints } from '../../api/endpoints.js';
import { useApi } from '../../api/use-api.js';
import { phaseName } from '../../components/phase-badge.js';
import { costKindColors, costKindLabel, kindsWithCost } from '../../lib/cost-kinds.js';
import { formatUsd } from '../../lib/format.js';

function Kpi({ label, children, testId }: { label: string; children: React.ReactNode; testId: string }) {
  return (
    <section className="kpi" aria-label={label} data-testid={testId}>
      <h2 className="kpi-label">{label}</h2>
      <div className="kpi-value">{children}</div>
    </section>
  );
}

/** The period's spend by kind (platform fees by fee) and by platform: each sums to the total. */
function SpendSplit({ spend }: { spend: CostTotals }) {
  const fees = spend.platform_fees.map((fee) => `${feeLabel(fee.fee)} ${formatUsd(fee.usd)}`).join(', ');
  return (
    <>
      <span className="kpi-split" data-testid="kpi-spend-kinds">
        {kindsWithCost([spend.by_kind]).map((kind) => (
          <span key={kind} className="kpi-kind" data-kind={kind}>
            <span className="swatch" style={{ background: costKindColors[kind] }} aria-hidden="true" />
            {costKindLabel(kind)} {formatUsd(spend.by_kind[kind])}
            {kind === 'platform_fee' && fees && ` (${fees})`}
          </span>
        ))}
      </span>
      {spend.platforms.length > 1 && (
        <span className="kpi-split" data-testid="kpi-spend-platforms">
          {spend.platforms
            .map((entry) => `${platformLabel(entry.platform)} ${formatUsd(entry.usd)}`)
            .join(' · ')}
        </span>
      )}
    </>
  );
}

const methodText = (methods: Record<string, number>) =>
  Object.entries(methods)
    .filter(([, count]) => count > 0)
    .map(
      ([method, count]) =>
        `${countOf(count, 'project')} by ${method === 'cost_change' ? 'cost change' : 'cost/GB change'}`,
    )
    .join(', ');

/**
 * Spend and ROI for the organization (computed by the server), and projects per phase (from the list).
 * The summary is asked for once the first project rows are on screen (`rowsShown`): it sums every
 * project, and on a busy server it would otherwise delay them.
 */
export function KpiHeader({ projects, rowsShown }: { projects: Project[] | null; rowsShown: boolean }) {
  const { from, to } = spendWindow(Date.now());
  const { result } = useApi(`summary:${from}:${rowsShown}`, () =>
    rowsShown
      ? afterNextPaint().then(() => endpoints.organizationSummary(from, to))
      : new Promise<never>(() => undefined),
  );
  const unavailable = <span className="kpi-missing">not available on this server</span>;
  const pending = <span className="kpi-missing">…</span>;
  const failed = result.state === 'failed' ? <span className="kpi-missing">{result.message}</span> : null;
  const summary = result.state === 'ready' ? result.data : null;
  const fallback = result.state === 'unavailable' ? unavailable : (failed ?? pending);

  const accuracy = useApi(`billing-accuracy:${rowsShown}`, () =>
    rowsShown
      ? afterNextPaint().then(() => endpoints.billingAccuracy())
      : new Promise<never>(() => undefined),
  ).result;
  const accuracyData = accuracy.state === 'ready' ? accuracy.data : null;

  const perPhase = new Map<string, number>();
  for (const project of projects ?? []) perPhase.set(project.phase, (perPhase.get(project.phase) ?? 0) + 1);

  return (
    <div className="kpis">
      <Kpi label={`Spend, last ${spendWindowDays} days`} testId="kpi-spend">
        {summary ? (
          <>
            <strong>{formatUsd(summary.spend.total_usd)}</strong>
            <SpendSplit spend={summary.spend} />
            <span className="kpi-note">
              after your discounts (<a href="/settings">Settings</a>)
            </span>
          </>
        ) : (
          fallback
        )}
      </Kpi>
      <Kpi label="Savings to date" testId="kpi-savings">
        {summary ? (
          <>
            <strong>{formatUsd(summary.roi.savings_to_date_usd)}</strong>
            <span className="kpi-note">{methodText(summary.roi.methods) || 'no optimized runs yet'}</span>
            {summary.roi.savings_at_risk_usd > 0 && (
              <span className="kpi-note over-sla" data-testid="kpi-savings-at-risk">
                {formatUsd(summary.roi.savings_at_risk_usd)} at risk: projects below their SLA target
              </span>
            )}
          </>
        ) : (
          fallback
        )}
      </Kpi>
      <Kpi label="Projected 12-month savings" testId="kpi-projected">
        {summary ? (
          <>
            <strong>{formatUsd(summary.roi.projected_12_month_savings_usd)}</strong>
            <span className="kpi-note">at the current run cadence</span>
          </>
        ) : (
          fallback
        )}
      </Kpi>
      <Kpi label="Projects per phase" testId="kpi-phases">
        {projects === null ? (
          pending
        ) : (
          <ul className="phase-counts">
            {projectPhases.map((phase) => (
              <li key={phase}>
                <span className={`phase-dot phase-${phase.toLowerCase()}`} aria-hidden="true" />
                {phaseName(phase)} <strong>{perPhase.get(phase) ?? 0}</strong>
              </li>
            ))}
          </ul>
        )}
      </Kpi>
      <Kpi label="Estimate accuracy" testId="kpi-estimate-accuracy">
        {accuracyData ? (
          accuracyData.median_abs_error === null ? (
            <span className="kpi-note">no billed runs yet (system tables)</span>
          ) : (
            <>
              {`±${(accuracyData.median_abs_error * 100).toFixed(1)}%`}
              <span className="kpi-note">
                median |estimated − billed| DBU cost over {accuracyData.billed_runs} billed runs
                {accuracyData.restated_runs > 0 ? `, ${accuracyData.restated_runs} restated` : ''}
              </span>
            </>
          )
        ) : accuracy.state === 'unavailable' || accuracy.state === 'failed' ? (
          unavailable
        ) : (
          pending
        )}
      </Kpi>
    </div>
  );
}
