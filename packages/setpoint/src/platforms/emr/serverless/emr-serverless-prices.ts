/**
 * EMR Serverless' published on-demand prices, as data: per vCPU-hour, per GB-hour of memory and per GB-hour
 * of ephemeral storage beyond the 20 GB each worker has included, billed per second with a one-minute minimum
 * per worker. AWS publishes them on https://aws.amazon.com/emr/pricing/ ("Amazon EMR Serverless"); the figures
 * below are that page's US East (N. Virginia) prices as quoted by several public cost guides and tools read on
 * 2026-12-06 (x86: $0.052624 per vCPU-hour, $0.0057785 per GB-hour, $0.000111 per storage GB-hour). Only the
 * regions listed here are priced: elsewhere Setpoint says it has no price rather than guess one.
 */
export interface EmrServerlessPrice {
  region: string;
  architecture: 'X86_64' | 'ARM64';
  usdPerVcpuHour: number;
  usdPerMemoryGbHour: number;
  usdPerStorageGbHour: number;
  source: string;
  asOf: string;
}

const published = 'https://aws.amazon.com/emr/pricing/ (Amazon EMR Serverless, US East (N. Virginia))';

export const emrServerlessPrices: readonly EmrServerlessPrice[] = [
  {
    region: 'us-east-1',
    architecture: 'X86_64',
    usdPerVcpuHour: 0.052624,
    usdPerMemoryGbHour: 0.0057785,
    usdPerStorageGbHour: 0.000111,
    source: published,
    asOf: '2026-12-06',
  },
];

/** The price of EMR Serverless in a region for an architecture (x86 unless the application says ARM64). */
export function emrServerlessPrice(
  region: string,
  architecture: 'X86_64' | 'ARM64' = 'X86_64',
): EmrServerlessPrice | null {
  return (
    emrServerlessPrices.find((price) => price.region === region && price.architecture === architecture) ??
    null
  );
}
