export type SortDirection = 'asc' | 'desc';

export interface SortSpec<Row> {
  value(row: Row): number | string | null;
  direction: SortDirection;
}

/** Stable sort; rows without a value go last whichever the direction. */
export function sortRows<Row>(rows: readonly Row[], sort: SortSpec<Row>): Row[] {
  const sign = sort.direction === 'asc' ? 1 : -1;
  return rows
    .map((row, index) => ({ row, index, key: sort.value(row) }))
    .sort((a, b) => {
      if (a.key === null || b.key === null) {
        if (a.key === b.key) return a.index - b.index;
        return a.key === null ? 1 : -1;
      }
      const order =
        typeof a.key === 'number' && typeof b.key === 'number'
          ? a.key - b.key
          : String(a.key).localeCompare(String(b.key), 'en', { numeric: true });
      return order === 0 ? a.index - b.index : sign * order;
    })
    .map(({ row }) => row);
}

/** Case-insensitive match of every word of `query` against any of a row's texts. */
export function matchesSearch(texts: readonly string[], query: string): boolean {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return true;
  const haystack = texts.join('\u0000').toLowerCase();
  return words.every((word) => haystack.includes(word));
}
