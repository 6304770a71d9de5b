import { ValidationError } from '@setpoint/foundation/errors';
import type { ClusterCostSpec } from '../../../cost/cluster-spec.js';
import type { CostModel } from '../../../cost/cost-model.js';
import type { NodeHourlyRate } from '../../../cost/node-rate.js';
import { databricksBilling, dbuFee } from './billing.js';

/** Nodes of one type: what each costs per hour in machine time and in DBUs, without and with Photon. */
export interface PhotonNodeGroup {
  count: number;
  /** VM + disks $/h per node; Photon does not change it. */
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

/** A node's DBU $/h, and everything else it costs per hour. */
function split(node: NodeHourlyRate): { machine: number; dbu: number } {
  let dbu = 0;
  for (const fee of node.fees) if (fee.fee.fee === dbuFee) dbu += fee.unitsPerHour * fee.usdPerUnit;
  let machine = node.compute.expected + node.storage;
  for (const fee of node.fees) if (fee.fee.fee !== dbuFee) machine += fee.unitsPerHour * fee.usdPerUnit;
  return { machine, dbu };
}

/** Break-even for a Databricks cluster priced from the catalog (its plan and compute type), with `workers` workers. */
export function photonBreakEvenForCluster(
  model: CostModel,
  spec: ClusterCostSpec,
  workers: number,
): PhotonBreakEven {
  const price = spec.billing.nodeFees.find((fee) => fee.price.list === 'dbu')?.price;
  if (price?.list !== 'dbu') {
    throw new ValidationError(
      'PHOTON_NEEDS_DATABRICKS',
      'Photon break-even applies to Databricks clusters only',
    );
  }
  const terms = { plan: price.plan, compute: price.compute };
  const standard = model.rateCluster({ ...spec, billing: databricksBilling({ ...terms, photon: false }) });
  const photon = model.rateCluster({ ...spec, billing: databricksBilling({ ...terms, photon: true }) });
  const group = (
    count: number,
    standardNode: NodeHourlyRate,
    photonNode: NodeHourlyRate,
  ): PhotonNodeGroup => {
    const { machine, dbu } = split(standardNode);
    return {
      count,
      machineUsdPerHour: machine,
      dbuUsdPerHour: dbu,
      photonDbuUsdPerHour: split(photonNode).dbu,
    };
  };
  return photonBreakEven([
    group(1, standard.driver, photon.driver),
    group(workers, standard.worker, photon.worker),
  ]);
}
