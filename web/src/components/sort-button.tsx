import type { SortDirection } from '../lib/table.js';

/** The `aria-sort` of a column header: only the sorted column says its direction. */
export function ariaSort(active: boolean, direction: SortDirection): 'ascending' | 'descending' | 'none' {
  if (!active) return 'none';
  return direction === 'asc' ? 'ascending' : 'descending';
}

/** A column header's label as a button that sorts by the column (again to reverse). */
export function SortButton({
  label,
  active,
  direction,
  onSort,
}: {
  label: string;
  active: boolean;
  direction: SortDirection;
  onSort(): void;
}) {
  return (
    <button type="button" className="sort-button" title={`Sort by ${label}`} onClick={onSort}>
      {label}
      <span className="sort-mark" aria-hidden="true">
        {active ? (direction === 'asc' ? '▲' : '▼') : ''}
      </span>
    </button>
  );
}
