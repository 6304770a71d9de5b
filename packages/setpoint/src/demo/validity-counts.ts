/**
 * Writes a platform would refuse, counted where they would show: what the emulated platform refused
 * (both its Databricks and EMR faces check every write with the validity contracts and remember each
 * refusal, `GET /emulator/admin/refusals`) and the applies Setpoint refused itself before writing (its
 * writers' check, parked visibly). Both are 0 when every configuration Setpoint writes is one the
 * platform accepts. The demo's headless summary and `bench jobbank` report them.
 */
export interface ValidityCounts {
  refusedByPlatform: number;
  refusedBySetpoint: number;
  /** The first few, for a reader: "<where>: <rule or error>". */
  examples: string[];
}

const maxExamples = 5;

/** What of a closed loop the counts read: the emulator's remembered refusals and the service's parked jobs. */
export interface CountedLoop {
  emulator: {
    context: { state: { refusals: readonly { endpoint: string; rule: string; message: string }[] } };
  };
  server: {
    services: {
      parkedJobs: {
        list(page: {
          limit: number;
          offset: number;
        }): Promise<{ items: readonly { kind: string; error: string }[] }>;
      };
    };
  };
}

export async function validityCounts(loop: CountedLoop): Promise<ValidityCounts> {
  const refusals = loop.emulator.context.state.refusals;
  const examples = refusals
    .slice(0, maxExamples)
    .map((refusal) => `${refusal.endpoint}: ${refusal.rule}: ${refusal.message}`);
  const parked = (await loop.server.services.parkedJobs.list({ limit: 10_000, offset: 0 })).items.filter(
    (job) => job.kind.startsWith('project.') && /would refuse it/.test(job.error),
  );
  for (const job of parked.slice(0, maxExamples - examples.length))
    examples.push(`${job.kind}: ${job.error}`);
  return { refusedByPlatform: refusals.length, refusedBySetpoint: parked.length, examples };
}

/** Counts of several seeds added up (examples: the first few). */
export function addValidityCounts(total: ValidityCounts, more: ValidityCounts): ValidityCounts {
  return {
    refusedByPlatform: total.refusedByPlatform + more.refusedByPlatform,
    refusedBySetpoint: total.refusedBySetpoint + more.refusedBySetpoint,
    examples: [...total.examples, ...more.examples].slice(0, maxExamples),
  };
}
