import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface MotoServer {
  endpoint: string;
  /**
   * Sets what moto leaves out of an EMR Serverless job run (its timeline, what it billed, a state other than
   * SUCCESS) on moto's own record of it: moto still answers GetJobRun and ListJobRuns, serialized by botocore's
   * service model. Times are epoch milliseconds.
   */
  setJobRun(run: {
    applicationId: string;
    jobRunId: string;
    createdAt?: number;
    startedAt?: number;
    endedAt?: number;
    state?: string;
    billed?: { vCPUHour: number; memoryGBHour: number; storageGBHour: number };
    totalExecutionDurationSeconds?: number;
  }): Promise<void>;
  close(): Promise<void>;
}

/** The Python that has moto (CI's virtualenv exports it as SETPOINT_PYTHON). */
export const pythonForMoto = process.env.SETPOINT_PYTHON ?? 'python3';

const motoMain = `
import json, sys
from datetime import datetime, timezone
from moto.server import ThreadedMotoServer
server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
server.start()
print(json.dumps({"port": server.get_host_and_port()[1]}), flush=True)

def naive_utc(ms):
    # moto keeps its times as naive UTC datetimes (utcnow())
    return datetime.fromtimestamp(ms / 1000, timezone.utc).replace(tzinfo=None)

def set_job_run(command):
    from moto.emrserverless.models import emrserverless_backends
    for account_id in list(emrserverless_backends.keys()):
        for region in list(emrserverless_backends[account_id].keys()):
            backend = emrserverless_backends[account_id][region]
            for run in backend.job_runs.get(command["applicationId"], []):
                if run.id != command["jobRunId"]:
                    continue
                for key, attribute in (("createdAt", "created_at"), ("startedAt", "started_at"), ("endedAt", "ended_at")):
                    if key in command:
                        setattr(run, attribute, naive_utc(command[key]))
                if "endedAt" in command:
                    run.updated_at = naive_utc(command["endedAt"])
                if "state" in command:
                    run.state = command["state"]
                if "billed" in command:
                    run.billed_resource_utilization = command["billed"]
                if "totalExecutionDurationSeconds" in command:
                    run.total_execution_duration_seconds = command["totalExecutionDurationSeconds"]
                return
    raise KeyError("no job run " + command["jobRunId"])

for line in sys.stdin:
    try:
        set_job_run(json.loads(line))
        print(json.dumps({"ok": True}), flush=True)
    except Exception as error:
        print(json.dumps({"error": repr(error)}), flush=True)
server.stop()
`;

/**
 * moto in server mode (PyPI `moto[server]`) on 127.0.0.1, a free port: one endpoint for every AWS service
 * it implements (EMR, EMR Serverless, S3, STS). It stops when its stdin closes, so it never outlives the test
 * process.
 */
export async function startMotoServer(): Promise<MotoServer> {
  const child: ChildProcess = spawn(pythonForMoto, ['-c', motoMain], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const nextLine = () => new Promise<string>((resolve) => lines.once('line', resolve));
  const port = await new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) =>
      reject(new Error(`moto server exited with ${code} (is moto[server] installed for ${pythonForMoto}?)`)),
    );
    nextLine().then((line) => resolve((JSON.parse(line) as { port: number }).port), reject);
  });
  return {
    endpoint: `http://127.0.0.1:${port}`,
    async setJobRun(run) {
      const answered = nextLine();
      child.stdin?.write(`${JSON.stringify(run)}\n`);
      const answer = JSON.parse(await answered) as { ok?: boolean; error?: string };
      if (!answer.ok) throw new Error(`moto could not set job run ${run.jobRunId}: ${answer.error}`);
    },
    async close() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.stdin?.end();
      await exited;
    },
  };
}
