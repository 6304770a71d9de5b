/** What a user chose for one table: the columns' order and which are hidden. */
export interface ColumnLayout {
  order: string[];
  hidden: string[];
}

export interface LayoutColumn {
  id: string;
  /** Cannot be hidden. */
  fixed?: boolean;
}

/**
 * A stored layout made valid for today's columns: unknown ids dropped, columns added since the layout
 * was saved placed at their default position, fixed columns never hidden.
 */
export function reconcileLayout(stored: unknown, columns: readonly LayoutColumn[]): ColumnLayout {
  const ids = columns.map((column) => column.id);
  const known = new Set(ids);
  const record = typeof stored === 'object' && stored !== null ? (stored as Record<string, unknown>) : {};
  const strings = (value: unknown) =>
    Array.isArray(value) ? value.filter((id): id is string => typeof id === 'string' && known.has(id)) : [];
  const order = [...new Set(strings(record.order))];
  for (const [index, id] of ids.entries()) {
    if (order.includes(id)) continue;
    const before = ids.slice(0, index).findLast((earlier) => order.includes(earlier));
    order.splice(before === undefined ? 0 : order.indexOf(before) + 1, 0, id);
  }
  const fixed = new Set(columns.filter((column) => column.fixed).map((column) => column.id));
  const hidden = [...new Set(strings(record.hidden))].filter((id) => !fixed.has(id));
  return { order, hidden };
}

/** The order with `id` moved `delta` places (clamped at both ends). */
export function moveColumn(order: readonly string[], id: string, delta: number): string[] {
  const from = order.indexOf(id);
  if (from === -1) return [...order];
  const to = Math.min(order.length - 1, Math.max(0, from + delta));
  const next = order.filter((other) => other !== id);
  next.splice(to, 0, id);
  return next;
}

/** The order with `id` put where `target` is (dragged onto it): before it when coming from the right, after it from the left. */
export function placeColumn(order: readonly string[], id: string, target: string): string[] {
  const from = order.indexOf(id);
  const to = order.indexOf(target);
  if (from === -1 || to === -1 || from === to) return [...order];
  return moveColumn(order, id, to - from);
}

/** The columns to show, in the user's order. */
export function visibleColumns<Column extends LayoutColumn>(
  columns: readonly Column[],
  layout: ColumnLayout,
): Column[] {
  const byId = new Map(columns.map((column) => [column.id, column]));
  const hidden = new Set(layout.hidden);
  return layout.order.flatMap((id) => {
    const column = byId.get(id);
    return column && !hidden.has(id) ? [column] : [];
  });
}

/** Where a user's layout of a table is kept in this browser: one entry per user and table. */
export function layoutStorageKey(table: string, user: string | null): string {
  return `setpoint-columns:${user ?? '-'}:${table}`;
}

export interface FitColumn {
  id: string;
  /** The narrowest the column can be and still be read, in CSS pixels. */
  minWidth: number;
  /**
   * Left out when the window is too narrow for every shown column: the lowest rank goes first. A column
   * without a rank always stays (the ones a person reads the table for).
   */
  fitRank?: number;
}

/**
 * The shown columns that fit `available` pixels of row (between its paddings) with `gap` pixels between
 * columns: columns with a fit rank are left out, lowest rank first, until the rest fit at their minimum
 * widths. When the unranked ones alone do not fit, the table scrolls sideways inside its frame.
 */
export function columnsThatFit<Column extends FitColumn>(
  columns: readonly Column[],
  available: number,
  gap: number,
): { fitting: Column[]; leftOut: Column[] } {
  const needed = (kept: readonly Column[]) =>
    kept.reduce((sum, column) => sum + column.minWidth, 0) + gap * Math.max(0, kept.length - 1);
  const candidates = columns
    .filter((column) => column.fitRank !== undefined)
    .sort((a, b) => (a.fitRank ?? 0) - (b.fitRank ?? 0));
  const out = new Set<string>();
  let kept = [...columns];
  for (const candidate of candidates) {
    if (needed(kept) <= available) break;
    out.add(candidate.id);
    kept = columns.filter((column) => !out.has(column.id));
  }
  return { fitting: kept, leftOut: columns.filter((column) => out.has(column.id)) };
}
