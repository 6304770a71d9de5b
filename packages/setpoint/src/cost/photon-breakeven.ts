import { ValidationError } from '@setpoint/foundation/errors';
import type { ClusterCostSpec } from './cluster-spec.js';
import type { CostModel } from './cost-model.js';

/** Nodes of one type: what each costs per hour in machine time and in DBUs, without and with Photon. */
export interface PhotonNodeGroup {
  count: number;
  /** VM + disks (+ EMR-style fees) $/h per node; Photon does not change it. */
  machineUsdPerHour: number;
  dbuUsdPerHour: number;
  photonDbuUsdPerHour: number;
}

export interface PhotonBreakEven {
  /** Minimum speed-up (standard runtime ÷ Photon runtime) for Photon to cost less. */
  threshold: number;
  /** The same as the share of runtime Photon must remove: 1 − 1/threshold. */
  minRuntimeReduction: number;
  standardUsdPerHour: number;
  photonUsdPerHour: number;
  reasoning: string[];
}

/**
 * A run costs its cluster's hourly rate times its runtime: C = R × T. Photon changes only the DBU part of
 * R, so Photon is cheaper when R_photon × T_photon < R_standard × T_standard, i.e. when the speed-up
 * T_standard / T_photon exceeds R_photon / R_standard. That ratio is the break-even threshold.
 */
export function photonBreakEven(groups: readonly PhotonNodeGroup[]): PhotonBreakEven {
  let standard = 0;
  let photon = 0;
  for (const group of groups) {
    standard += group.count * (group.machineUsdPerHour + group.dbuUsdPerHour);
    photon += group.count * (group.machineUsdPerHour + group.photonDbuUsdPerHour);
  }
  if (!(standard > 0)) {
    throw new ValidationError('INVALID_BREAKEVEN', 'the standard cluster must cost more than $0/h');
  }
  const threshold = photon / standard;
  const minRuntimeReduction = 1 - 1 / threshold;
  const fmt = (value: number): string => Number(value.toFixed(6)).toString();
  // a ratio or a share is read at two decimals; prices keep their catalog precision
  const fmtRatio = (value: number): string => Number(value.toFixed(2)).toString();
  const reasoning = [
    'cost = hourly rate × runtime; Photon changes only the DBU part of the hourly rate',
    `standard rate  R_s = Σ nodes × (machine + DBU) = $${fmt(standard)}/h`,
    `Photon rate    R_p = Σ nodes × (machine + Photon DBU) = $${fmt(photon)}/h`,
    `Photon is cheaper when R_p × T_p < R_s × T_s, i.e. when the speed-up T_s / T_p > R_p / R_s = ${fmtRatio(threshold)}×`,
    threshold > 1
      ? `Photon must cut runtime by at least ${fmtRatio(minRuntimeReduction * 100)}% to break even`
      : 'Photon costs no more per hour here, so any speed-up saves money',
  ];
  return {
    threshold,
    minRuntimeReduction,
    standardUsdPerHour: standard,
    photonUsdPerHour: photon,
    reasoning,
  };
}

/** Break-even for a Databricks cluster priced from the catalog, with `workers` workers. */
export function photonBreakEvenForCluster(
  model: CostModel,
  spec: ClusterCostSpec,
  workers: number,
): PhotonBreakEven {
  const { billing } = spec;
  if (billing.platform !== 'databricks') {
    throw new ValidationError(
      'PHOTON_NEEDS_DATABRICKS',
      'Photon break-even applies to Databricks clusters only',
    );
  }
  const standard = model.rateCluster({ ...spec, billing: { ...billing, photon: false } });
  const photon = model.rateCluster({ ...spec, billing: { ...billing, photon: true } });
  const group = (
    count: number,
    standardNode: typeof standard.driver,
    photonNode: typeof photon.driver,
  ): PhotonNodeGroup => ({
    count,
    machineUsdPerHour: standardNode.compute.expected + standardNode.storage + standardNode.emrFee,
    dbuUsdPerHour: standardNode.dbuUnits * standard.usdPerDbu,
    photonDbuUsdPerHour: photonNode.dbuUnits * photon.usdPerDbu,
  });
  return photonBreakEven([
    group(1, standard.driver, photon.driver),
    group(workers, standard.worker, photon.worker),
  ]);
}
