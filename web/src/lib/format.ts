const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', maximumFractionDigits: 2 });
const usdWhole = new Intl.NumberFormat('en-US', {
  style: 'currency',
  currency: 'USD',
  maximumFractionDigits: 0,
});

export const dash = '—';

export function formatUsd(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return dash;
  return Math.abs(value) >= 1000 ? usdWhole.format(value) : usd.format(value);
}

export function formatMinutes(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return dash;
  if (value < 1) return `${Math.round(value * 60)} s`;
  if (value < 120) return `${value.toFixed(1)} min`;
  return `${Math.floor(value / 60)} h ${Math.round(value % 60)} min`;
}

/** A runtime as exactly as it is compared with an SLA: "4.02 min", "2 h 5 min 30 s". */
export function formatExactMinutes(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return dash;
  if (value < 120) return `${Number(value.toFixed(2))} min`;
  const seconds = Math.round(value * 60);
  // "4 h", not "4 h 0 min 0 s": a part that is zero says nothing, but the hours always lead
  const parts = [
    `${Math.floor(seconds / 3600)} h`,
    seconds % 3600 >= 60 ? `${Math.floor((seconds % 3600) / 60)} min` : null,
    seconds % 60 > 0 ? `${seconds % 60} s` : null,
  ];
  return parts.filter(Boolean).join(' ');
}

export function formatPercent(fraction: number | null | undefined, digits = 0): string {
  if (fraction === null || fraction === undefined || !Number.isFinite(fraction)) return dash;
  return `${(fraction * 100).toFixed(digits)}%`;
}

const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];

export function formatBytes(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return dash;
  let scaled = value;
  let unit = 0;
  while (Math.abs(scaled) >= 1024 && unit < units.length - 1) {
    scaled /= 1024;
    unit += 1;
  }
  return `${scaled.toFixed(unit === 0 ? 0 : 1)} ${units[unit]}`;
}

export function formatDateTime(epochMs: number | null | undefined): string {
  if (epochMs === null || epochMs === undefined) return dash;
  return new Date(epochMs).toLocaleString('en-GB', {
    year: 'numeric',
    month: 'short',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
  });
}

export function formatDate(epochMs: number | null | undefined): string {
  if (epochMs === null || epochMs === undefined) return dash;
  return new Date(epochMs).toLocaleDateString('en-GB', { month: 'short', day: '2-digit' });
}
