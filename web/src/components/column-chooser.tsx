import { type DragEvent, type SyntheticEvent, useCallback, useMemo, useState } from 'react';
import {
  type ColumnLayout,
  type LayoutColumn,
  layoutStorageKey,
  moveColumn,
  placeColumn,
  reconcileLayout,
  visibleColumns,
} from '../lib/column-layout.js';
import { useSession } from '../shell/session.js';

function readLayout(key: string, columns: readonly LayoutColumn[]): ColumnLayout {
  try {
    return reconcileLayout(JSON.parse(localStorage.getItem(key) ?? 'null'), columns);
  } catch {
    // an unreadable preference falls back to the defaults
    return reconcileLayout(null, columns);
  }
}

/**
 * The order and visibility of a table's columns, remembered in this browser for the signed-in user:
 * each user of a shared machine keeps their own layout of each table.
 */
export function useColumnLayout<Column extends LayoutColumn>(table: string, columns: readonly Column[]) {
  const { user } = useSession();
  const key = layoutStorageKey(table, user?.username ?? null);
  const [state, setState] = useState(() => ({ key, layout: readLayout(key, columns) }));
  // A different user (or table) reads their own layout.
  const layout = state.key === key ? state.layout : readLayout(key, columns);
  const update = useCallback(
    (change: (current: ColumnLayout) => ColumnLayout) =>
      setState((current) => {
        const base = current.key === key ? current.layout : readLayout(key, columns);
        const next = change(base);
        localStorage.setItem(key, JSON.stringify(next));
        return { key, layout: next };
      }),
    [key, columns],
  );
  const toggle = useCallback(
    (id: string) =>
      update((current) => ({
        ...current,
        hidden: current.hidden.includes(id)
          ? current.hidden.filter((other) => other !== id)
          : [...current.hidden, id],
      })),
    [update],
  );
  const move = useCallback(
    (id: string, delta: number) =>
      update((current) => ({ ...current, order: moveColumn(current.order, id, delta) })),
    [update],
  );
  const place = useCallback(
    (id: string, target: string) =>
      update((current) => ({ ...current, order: placeColumn(current.order, id, target) })),
    [update],
  );
  const reset = useCallback(() => update(() => reconcileLayout(null, columns)), [update, columns]);
  const shown = useMemo(() => visibleColumns(columns, layout), [columns, layout]);
  return { layout, shown, toggle, move, place, reset };
}

/** The drag type a column header carries, so drops from elsewhere (text, files) are ignored. */
const columnDragType = 'application/x-setpoint-column';

/**
 * What makes a column header draggable onto another header of the same table (the pointer's way to
 * reorder columns; the Columns menu's buttons are the keyboard's). The order is kept like the menu's.
 */
export function columnDragProps(id: string, onPlace: (id: string, target: string) => void) {
  return {
    draggable: true,
    'data-column-id': id,
    onDragStart(event: DragEvent<HTMLElement>) {
      event.dataTransfer.setData(columnDragType, id);
      event.dataTransfer.effectAllowed = 'move';
    },
    onDragOver(event: DragEvent<HTMLElement>) {
      if (!event.dataTransfer.types.includes(columnDragType)) return;
      event.preventDefault();
      event.dataTransfer.dropEffect = 'move';
    },
    onDrop(event: DragEvent<HTMLElement>) {
      const dragged = event.dataTransfer.getData(columnDragType);
      if (!dragged) return;
      event.preventDefault();
      if (dragged !== id) onPlace(dragged, id);
    },
  };
}

export function ColumnChooser<Column extends LayoutColumn & { label: string }>({
  columns,
  layout,
  onToggle,
  onMove,
  onReset,
}: {
  columns: readonly Column[];
  layout: ColumnLayout;
  onToggle(id: string): void;
  onMove(id: string, delta: number): void;
  onReset(): void;
}) {
  const byId = new Map(columns.map((column) => [column.id, column]));
  const hidden = new Set(layout.hidden);
  const [openRight, setOpenRight] = useState(false);
  // The panel hangs left from its button; where the toolbar wrapped the button to the left of the page,
  // that would cover the sidebar, so it opens to the right instead.
  const placePanel = (event: SyntheticEvent<HTMLDetailsElement>) => {
    const details = event.currentTarget;
    if (!details.open) return;
    const button = details.querySelector('summary')?.getBoundingClientRect();
    const panel = details.querySelector('fieldset')?.getBoundingClientRect();
    const page = details.closest('main')?.getBoundingClientRect();
    if (!button || !panel || !page) return;
    setOpenRight(button.right - panel.width < page.left);
  };
  return (
    <details className="menu" onToggle={placePanel}>
      <summary>Columns</summary>
      <fieldset
        className={openRight ? 'menu-panel menu-panel-start' : 'menu-panel'}
        data-testid="column-chooser"
      >
        <legend className="sr-only">Columns: show, hide and order</legend>
        {layout.order.map((id, index) => {
          const column = byId.get(id);
          if (!column) return null;
          return (
            <div key={id} className="column-choice">
              <label className="check">
                <input
                  type="checkbox"
                  checked={!hidden.has(id)}
                  disabled={column.fixed}
                  onChange={() => onToggle(id)}
                />
                {column.label}
              </label>
              <span className="column-moves">
                <button
                  type="button"
                  className="icon-button"
                  aria-label={`Move ${column.label} left`}
                  title="Move left"
                  disabled={index === 0}
                  onClick={() => onMove(id, -1)}
                >
                  ↑
                </button>
                <button
                  type="button"
                  className="icon-button"
                  aria-label={`Move ${column.label} right`}
                  title="Move right"
                  disabled={index === layout.order.length - 1}
                  onClick={() => onMove(id, 1)}
                >
                  ↓
                </button>
              </span>
            </div>
          );
        })}
        <button type="button" className="link-button" onClick={onReset}>
          Reset to default
        </button>
      </fieldset>
    </details>
  );
}
