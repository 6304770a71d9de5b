/** A Databricks Runtime release the emulated workspace offers, in the variants it is listed in. */
interface Runtime {
  version: string;
  spark: string;
  /** `LTS` or `Beta` in the name, as Databricks writes it; null for a plain release. */
  label: 'LTS' | 'Beta' | null;
  scala: readonly string[];
  /** Listed with its Photon (`-photon-`) and ML (`-cpu-ml-`, `-gpu-ml-`) variants. */
  variants: boolean;
}

const runtimes: readonly Runtime[] = [
  { version: '13.3', spark: '3.4.1', label: 'LTS', scala: ['2.12'], variants: true },
  { version: '14.3', spark: '3.5.0', label: 'LTS', scala: ['2.12'], variants: true },
  { version: '15.4', spark: '3.5.0', label: 'LTS', scala: ['2.12'], variants: true },
  { version: '16.4', spark: '3.5.2', label: 'LTS', scala: ['2.12', '2.13'], variants: true },
  { version: '17.2', spark: '4.0.0', label: null, scala: ['2.13'], variants: false },
  { version: '17.3', spark: '4.0.0', label: 'LTS', scala: ['2.13'], variants: true },
  { version: '18.0', spark: '4.1.0', label: 'Beta', scala: ['2.13'], variants: false },
];

/**
 * `clusters/spark-versions` as Databricks answers it: keys such as `15.4.x-photon-scala2.12` and names
 * such as "15.4 LTS Photon (includes Apache Spark 3.5.0, Scala 2.12)". The SDKs' `select_spark_version`
 * reads `LTS`/`Beta` from the name and the variant from the key.
 */
export function sparkVersionsJson(): { key: string; name: string }[] {
  const listed: { key: string; name: string }[] = [];
  for (const runtime of runtimes)
    for (const scala of runtime.scala) {
      const release = runtime.label ? `${runtime.version} ${runtime.label}` : runtime.version;
      const includes = (extra = '') => `(includes Apache Spark ${runtime.spark},${extra} Scala ${scala})`;
      const key = (variant: string) => `${runtime.version}.x-${variant}scala${scala}`;
      listed.push({ key: key(''), name: `${release} ${includes()}` });
      if (!runtime.variants) continue;
      listed.push({ key: key('photon-'), name: `${release} Photon ${includes()}` });
      listed.push({ key: key('cpu-ml-'), name: `${release} ML ${includes()}` });
      listed.push({ key: key('gpu-ml-'), name: `${release} ML ${includes(' GPU,')}` });
    }
  return listed;
}
