import type { createDatabricksClient } from 'setpoint/platforms/databricks/api/client';

/** The id of the workspace's job with this name (the emulator ships its jobs under their workload names). */
export async function jobIdByName(
  client: Pick<ReturnType<typeof createDatabricksClient>, 'listJobs'>,
  name: string,
): Promise<string> {
  for await (const job of client.listJobs()) if (job.settings.name === name) return job.job_id;
  throw new Error(`no job named ${name}`);
}
