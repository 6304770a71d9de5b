/**
 * Finds the peers `npm run bench:peers` compares Setpoint's engine with, and says why one is missing:
 * Spark's own replay (pyspark's jars: EventLogFileReader + ReplayListenerBus into ReplayAggregate.java,
 * compiled here with the JDK) and NVIDIA's RAPIDS profiling tool (the tools jar that the
 * `spark-rapids-user-tools` package from PyPI carries, run on the Spark 3 jars of the pyspark it
 * installs, as that package runs it on a local log).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchCodec } from '../eventlog/scaled-event-log.js';

export interface PeerCommand {
  command: string;
  args: string[];
}

export interface Peer {
  name: string;
  version: string;
  /** The codecs it reads (Spark takes the codec from the file's extension; it has no gzip codec). */
  reads: ReadonlySet<BenchCodec>;
  command(file: string, scratch: string, log: LogTraits): PeerCommand;
  /** What the tool read, from its output; throws when it did not read the log. */
  summary(stdout: string): string;
}

/** The last line a tool printed: Setpoint's and the replay's counts, as JSON. */
export function lastJsonLine(stdout: string): string {
  const line = stdout.trim().split('\n').pop() ?? '';
  if (!line.startsWith('{')) throw new Error(`no summary in the output: ${stdout.slice(-500)}`);
  return line;
}

/** What a tool must be told about a log: the RAPIDS profiler reads a Databricks (Photon) log only as one. */
export interface LogTraits {
  databricks: boolean;
}

export type PeerLookup = { peer: Peer } | { missing: string };

/** What Spark's launcher opens to its code on Java 17 (JavaModuleOptions); the peers get the same. */
const javaModuleOptions = [
  'java.lang',
  'java.lang.invoke',
  'java.lang.reflect',
  'java.io',
  'java.net',
  'java.nio',
  'java.util',
  'java.util.concurrent',
  'java.util.concurrent.atomic',
  'sun.nio.ch',
  'sun.nio.cs',
  'sun.security.action',
  'sun.util.calendar',
].map((name) => `--add-opens=java.base/${name}=ALL-UNNAMED`);

/** Only the peers' warnings and errors reach the terminal. */
const quietLogging = ['-Dlog4j2.level=warn', '-Dlog4j.rootCategory=WARN'];

function run(command: string, args: string[]): { ok: boolean; out: string } {
  const result = spawnSync(command, args, { encoding: 'utf8' });
  return {
    ok: result.status === 0,
    out: `${result.stdout ?? ''}${result.stderr ?? ''}`.trim(),
  };
}

export function javaVersion(): string | undefined {
  const java = run('java', ['-version']);
  if (!java.ok) return undefined;
  return /version "([^"]+)"/.exec(java.out)?.[1] ?? java.out.split('\n')[0];
}

/** pyspark's version and its jars directory, from the Python at `python`. */
function pysparkOf(python: string): { version: string; jars: string } | undefined {
  if (!existsSync(python)) return undefined;
  const probe = run(python, [
    '-c',
    'import os, pyspark; print(pyspark.__version__); print(os.path.join(os.path.dirname(pyspark.__file__), "jars"))',
  ]);
  if (!probe.ok) return undefined;
  const [version, jars] = probe.out.split('\n');
  return version && jars && existsSync(jars) ? { version, jars } : undefined;
}

export function findSparkReplay(python: string, scratch: string): PeerLookup {
  if (javaVersion() === undefined) return { missing: 'no `java` on PATH' };
  const pyspark = pysparkOf(python);
  if (!pyspark)
    return {
      missing: `no pyspark at ${python} (\`python3 -m venv .venv && .venv/bin/pip install 'pyspark>=4,<5'\`)`,
    };
  const classes = join(scratch, 'replay-classes');
  mkdirSync(classes, { recursive: true });
  // the source stays in src/ (tsc copies no Java): the same path from src/peers and dist/peers
  const source = join(import.meta.dirname, '../../src/peers/ReplayAggregate.java');
  const javac = run('javac', ['-nowarn', '-d', classes, '-cp', join(pyspark.jars, '*'), source]);
  if (!javac.ok)
    return { missing: `javac could not compile ReplayAggregate.java: ${javac.out.split('\n')[0]}` };
  const classpath = `${classes}:${join(pyspark.jars, '*')}`;
  return {
    peer: {
      name: 'Spark replay',
      version: `pyspark ${pyspark.version}`,
      reads: new Set(['plain', 'zstd', 'lz4', 'snappy']),
      command: (file) => ({
        command: 'java',
        args: [...javaModuleOptions, ...quietLogging, '-cp', classpath, 'ReplayAggregate', file],
      }),
      summary: lastJsonLine,
    },
  };
}

export function findRapidsProfiler(python: string): PeerLookup {
  if (javaVersion() === undefined) return { missing: 'no `java` on PATH' };
  const install = `\`python3 -m venv .venv-rapids && .venv-rapids/bin/pip install spark-rapids-user-tools\``;
  if (!existsSync(python)) return { missing: `no ${python} (${install})` };
  const probe = run(python, [
    '-c',
    'import os, importlib.metadata as m, spark_rapids_pytools as t; print(m.version("spark-rapids-user-tools")); print(os.path.join(os.path.dirname(t.__file__), "resources", "generated_files", "core", "jars"))',
  ]);
  const [version, jarDir] = probe.ok ? probe.out.split('\n') : [];
  if (!version || !jarDir)
    return { missing: `spark-rapids-user-tools is not installed for ${python} (${install})` };
  const jar = existsSync(jarDir)
    ? readdirSync(jarDir).find((name) => /^rapids-4-spark-tools_2\.12-.*\.jar$/.test(name))
    : undefined;
  if (!jar)
    return {
      missing: `spark-rapids-user-tools ${version} carries no tools jar (releases from 25.x do; older ones fetch it from Maven Central)`,
    };
  // The tools jar is built for Spark 3 (Scala 2.12): the package's own pyspark 3.5 provides it.
  const pyspark = pysparkOf(python);
  if (!pyspark?.version.startsWith('3.'))
    return {
      missing: `the profiler needs Spark 3 jars; ${python} has pyspark ${pyspark?.version ?? 'none'}`,
    };
  const classpath = `${join(jarDir, jar)}:${join(pyspark.jars, '*')}`;
  let outputs = 0;
  return {
    peer: {
      name: 'RAPIDS profiler',
      version: `spark-rapids-user-tools ${version} (${jar.replace(/\.jar$/, '')}, pyspark ${pyspark.version})`,
      reads: new Set(['plain', 'gzip', 'zstd', 'lz4', 'snappy']),
      command: (file, scratch, log) => ({
        command: 'java',
        args: [
          ...javaModuleOptions,
          ...quietLogging,
          '-cp',
          classpath,
          'com.nvidia.spark.rapids.tool.profiling.ProfileMain',
          // as `spark_rapids profiling --platform …` runs it (profiling-conf.yaml: enableAutoTuner); on
          // onprem it skips a Photon log ("does not support the runtime 'PHOTON'") after reading it
          '--platform',
          log.databricks ? 'databricks-aws' : 'onprem',
          '--auto-tuner',
          '--output-directory',
          join(scratch, `rapids-output-${outputs++}`),
          file,
        ],
      }),
      summary: (stdout) => {
        const counts = [...stdout.matchAll(/process\.(success|failure|skipped)\.count = (\d+)/g)];
        const summary = counts.map(([, name, count]) => `${name} ${count}`).join(', ');
        if (!/success 1\b/.test(summary))
          throw new Error(`the profiler did not process the log (${summary})`);
        return `applications: ${summary}`;
      },
    },
  };
}
