const second = 1000;
const minute = 60 * second;

/** 850 ms, 12.3 s, 4.5 min, 1.25 h */
export function formatDuration(milliseconds: number): string {
  if (milliseconds < second) return `${Math.round(milliseconds)} ms`;
  if (milliseconds < minute) return `${(milliseconds / second).toFixed(1)} s`;
  if (milliseconds < 60 * minute) return `${(milliseconds / minute).toFixed(1)} min`;
  return `${(milliseconds / (60 * minute)).toFixed(2)} h`;
}

/** 512 B, 1.5 KiB, 3.2 GiB */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}
