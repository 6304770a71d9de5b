/**
 * An EMR cluster's node groups in one readable form, from either side of a recommendation: the run's
 * recorded shape (`shape.groups` / `shape.fleets`) and the recommended RunJobFlow `Instances` block
 * (`InstanceGroups` / `InstanceFleets`). Both arrive as JSON records on the wire, so each field is read
 * with a check and an unknown shape yields no rows rather than a wrong one.
 */
export interface NodeGroupRow {
  /** MASTER, CORE or TASK. */
  role: string;
  /** "r5.2xlarge × 6", or a fleet's types and targets. */
  nodes: string;
  market: string;
}

const roleOrder = ['MASTER', 'CORE', 'TASK'];
const roleNames: Record<string, string> = { MASTER: 'primary', CORE: 'core', TASK: 'task' };

export const roleName = (role: string): string => roleNames[role] ?? role.toLowerCase();

const record = (value: unknown): Record<string, unknown> | null =>
  value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
const list = (value: unknown): Record<string, unknown>[] =>
  Array.isArray(value) ? value.map(record).filter((entry) => entry !== null) : [];
const text = (value: unknown): string =>
  typeof value === 'string' || typeof value === 'number' ? String(value) : '?';

const byRole = (rows: NodeGroupRow[]) =>
  rows.sort((a, b) => roleOrder.indexOf(a.role) - roleOrder.indexOf(b.role) || a.role.localeCompare(b.role));

/** The node groups a run's cluster had, from its recorded report's shape. */
export function groupsOfRunReport(report: Record<string, unknown> | null): NodeGroupRow[] {
  const shape = record(report?.shape);
  if (!shape) return [];
  if (shape.kind === 'instance-groups')
    return byRole(
      list(shape.groups).map((group) => ({
        role: text(group.role),
        nodes: `${text(group.instanceType)} × ${text(group.count)}`,
        market: text(group.market),
      })),
    );
  return byRole(
    list(shape.fleets).map((fleet) => ({
      role: text(fleet.role),
      nodes: list(fleet.types)
        .map((type) => text(type.instanceType))
        .join(', '),
      market: `${text(fleet.targetOnDemand)} on-demand + ${text(fleet.targetSpot)} spot units`,
    })),
  );
}

/** The node groups a recommendation launches, from its RunJobFlow `Instances` block. */
export function groupsOfRunJobFlow(configuration: Record<string, unknown> | null): NodeGroupRow[] {
  const instances = record(configuration?.Instances);
  if (!instances) return [];
  const groups = list(instances.InstanceGroups);
  if (groups.length > 0)
    return byRole(
      groups.map((group) => ({
        role: text(group.InstanceRole),
        nodes: `${text(group.InstanceType)} × ${text(group.InstanceCount)}`,
        market: typeof group.Market === 'string' ? group.Market : 'ON_DEMAND',
      })),
    );
  return byRole(
    list(instances.InstanceFleets).map((fleet) => ({
      role: text(fleet.InstanceFleetType),
      nodes: list(fleet.InstanceTypeConfigs)
        .map((type) => text(type.InstanceType))
        .join(', '),
      market: `${text(fleet.TargetOnDemandCapacity ?? 0)} on-demand + ${text(fleet.TargetSpotCapacity ?? 0)} spot units`,
    })),
  );
}

export interface NodeGroupChange {
  role: string;
  current: NodeGroupRow | null;
  recommended: NodeGroupRow | null;
  changed: boolean;
}

/** Both sides by role, the roles in primary, core, task order. */
export function compareGroups(current: NodeGroupRow[], recommended: NodeGroupRow[]): NodeGroupChange[] {
  const roles = byRole(
    [...new Set([...current, ...recommended].map((row) => row.role))].map((role) => ({
      role,
      nodes: '',
      market: '',
    })),
  ).map((row) => row.role);
  return roles.map((role) => {
    const before = current.find((row) => row.role === role) ?? null;
    const after = recommended.find((row) => row.role === role) ?? null;
    return {
      role,
      current: before,
      recommended: after,
      changed: before?.nodes !== after?.nodes || before?.market !== after?.market,
    };
  });
}
