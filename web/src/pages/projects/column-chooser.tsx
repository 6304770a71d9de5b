import { useCallback, useMemo, useState } from 'react';
import { defaultVisibleColumns, projectColumns } from './project-columns.js';

const storageKey = 'setpoint-project-columns';

function storedColumns(): Set<string> {
  try {
    const parsed: unknown = JSON.parse(localStorage.getItem(storageKey) ?? 'null');
    if (Array.isArray(parsed)) return new Set(parsed.filter((id): id is string => typeof id === 'string'));
  } catch {
    // an unreadable preference falls back to the defaults
  }
  return new Set(defaultVisibleColumns);
}

function save(next: Set<string>): Set<string> {
  localStorage.setItem(storageKey, JSON.stringify([...next]));
  return next;
}

/** Which project columns are shown, remembered in this browser. */
export function useVisibleColumns() {
  const [visible, setVisible] = useState<Set<string>>(storedColumns);
  const toggle = useCallback((id: string) => {
    setVisible((current) => {
      const next = new Set(current);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return save(next);
    });
  }, []);
  const reset = useCallback(() => setVisible(save(new Set(defaultVisibleColumns))), []);
  const shown = useMemo(
    () =>
      new Set([...visible, ...projectColumns.filter((column) => column.fixed).map((column) => column.id)]),
    [visible],
  );
  return { visible: shown, toggle, reset };
}

export function ColumnChooser({
  visible,
  onToggle,
  onReset,
}: {
  visible: Set<string>;
  onToggle(id: string): void;
  onReset(): void;
}) {
  return (
    <details className="menu">
      <summary>Columns</summary>
      <fieldset className="menu-panel">
        <legend className="sr-only">Visible columns</legend>
        {projectColumns.map((column) => (
          <label key={column.id} className="check">
            <input
              type="checkbox"
              checked={visible.has(column.id)}
              disabled={column.fixed}
              onChange={() => onToggle(column.id)}
            />
            {column.label}
          </label>
        ))}
        <button type="button" className="link-button" onClick={onReset}>
          Show all
        </button>
      </fieldset>
    </details>
  );
}
