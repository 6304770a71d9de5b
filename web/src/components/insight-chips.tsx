import type { InsightWire as WireInsight } from '@setpoint/api-contract';

const short: Record<string, string> = {
  variable_data_size: 'Variable data',
  dormant: 'Dormant',
  sla_at_risk: 'SLA at risk',
  runtime_rising: 'Runtime rising',
  runtime_regression: 'Code change?',
  spot_interruptions: 'Spot loss',
  repeated_failures: 'Failing',
  over_provisioned: 'Over-provisioned',
  external_config_change: 'Changed outside',
};

export function insightLabel(kind: string): string {
  return short[kind] ?? kind.replaceAll('_', ' ');
}

export function InsightChips({ insights }: { insights: WireInsight[] }) {
  return (
    <span className="chips">
      {insights.map((insight) => (
        <span key={insight.kind} className={`chip chip-${insight.severity}`} title={insight.message}>
          {insightLabel(insight.kind)}
        </span>
      ))}
    </span>
  );
}
