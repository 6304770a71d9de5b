/** One configuration of a shipped job: instance type index, nodes, runs, failures, mean and scatter of ln(runtime). */
export type ShippedConfiguration = [number, number, number, number, number, number];

export interface ShippedJob {
  workload: string;
  configurations: ShippedConfiguration[];
}

/**
 * One measured sweep: its instance types (configuration name as the sweep writes it, `c5.xlarge+ebs-hdd-1x500`:
 * read with `hardwareOfName`; vCPUs, memory GiB, $/node-hour) and its workloads.
 */
export interface ShippedSource {
  name: string;
  instanceTypes: Array<[string, number, number, number]>;
  jobs: ShippedJob[];
}
