import { useVirtualizer } from '@tanstack/react-virtual';
import { type RefObject, useLayoutEffect, useRef, useState } from 'react';
import { columnDragProps } from '../../components/column-chooser.js';
import { ariaSort, SortButton } from '../../components/sort-button.js';
import { columnsThatFit } from '../../lib/column-layout.js';
import type { SortDirection } from '../../lib/table.js';
import type { Column, ProjectRow } from './project-columns.js';

const columnList = new Intl.ListFormat('en', { type: 'conjunction' });

/** Three lines of a name fit a row. */
const rowHeight = 52;

/** The row's width between its paddings and the gap between its columns, as laid out now. */
function measureRow(scroller: HTMLElement, row: HTMLElement) {
  const style = getComputedStyle(row);
  const px = (value: string) => Number.parseFloat(value) || 0;
  return {
    available: scroller.clientWidth - px(style.paddingLeft) - px(style.paddingRight),
    gap: px(style.columnGap),
  };
}

/**
 * The shown columns that fit the table's frame at their minimum widths, re-measured whenever the frame
 * changes size: a narrow window leaves out the columns ranked to go first rather than scrolling the table
 * sideways (the layout and the CSV export keep them).
 */
function useColumnsThatFit(
  columns: Column[],
  scroller: RefObject<HTMLDivElement | null>,
  headerRow: RefObject<HTMLTableRowElement | null>,
) {
  const [row, setRow] = useState<{ available: number; gap: number } | null>(null);
  useLayoutEffect(() => {
    const frame = scroller.current;
    const header = headerRow.current;
    if (!frame || !header) return;
    const measure = () =>
      setRow((current) => {
        const next = measureRow(frame, header);
        return current?.available === next.available && current.gap === next.gap ? current : next;
      });
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(frame);
    return () => observer.disconnect();
  }, [scroller, headerRow]);
  return row ? columnsThatFit(columns, row.available, row.gap) : { fitting: columns, leftOut: [] };
}

/**
 * A virtualized table: only the rows in view exist in the DOM, so thousands of projects scroll
 * smoothly. Each row's name is a real link stretched over the whole row, so any click opens the
 * project and a middle click opens it in a new tab.
 */
export function ProjectsTable({
  rows,
  columns: shownColumns,
  sortColumn,
  sortDirection,
  onSort,
  onPlaceColumn,
}: {
  rows: ProjectRow[];
  columns: Column[];
  sortColumn: string;
  sortDirection: SortDirection;
  onSort(columnId: string): void;
  /** A header dragged onto another: that column moves to its place. */
  onPlaceColumn(columnId: string, targetId: string): void;
}) {
  const scroller = useRef<HTMLDivElement>(null);
  const headerRow = useRef<HTMLTableRowElement>(null);
  const { fitting: columns, leftOut } = useColumnsThatFit(shownColumns, scroller, headerRow);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => rowHeight,
    overscan: 8,
    // The window's size until the scroller is measured, so the very first render already has rows.
    initialRect: { width: window.innerWidth, height: window.innerHeight },
  });
  const template = {
    gridTemplateColumns: columns
      .map((column) => `minmax(${column.minWidth}px, ${column.maxWidth})`)
      .join(' '),
  };
  const cellClass = (column: Column) =>
    ['cell', column.align === 'end' && 'cell-end', column.wraps && 'cell-lines'].filter(Boolean).join(' ');

  return (
    <div className="grid-table" data-testid="projects-table">
      {leftOut.length > 0 && (
        <p className="table-note" data-testid="columns-left-out">
          Left out to fit this window: {columnList.format(leftOut.map((column) => `“${column.label}”`))}.
          Widen the window, or hide other columns under Columns to make room for them.
        </p>
      )}
      <div ref={scroller} className="grid-scroller" data-testid="projects-scroller">
        <table aria-label="Projects" aria-rowcount={rows.length + 1}>
          <thead>
            <tr ref={headerRow} className="grid-row grid-header-row" style={template}>
              {columns.map((column) => {
                const active = column.id === sortColumn;
                return (
                  <th
                    key={column.id}
                    scope="col"
                    aria-sort={ariaSort(active, sortDirection)}
                    className={cellClass(column)}
                    {...columnDragProps(column.id, onPlaceColumn)}
                  >
                    <SortButton
                      label={column.label}
                      active={active}
                      direction={sortDirection}
                      onSort={() => onSort(column.id)}
                    />
                  </th>
                );
              })}
            </tr>
          </thead>
          <tbody style={{ height: virtualizer.getTotalSize() }}>
            {virtualizer.getVirtualItems().map((item) => {
              const row = rows[item.index]!;
              return (
                <tr
                  key={row.project.id}
                  aria-rowindex={item.index + 2}
                  className="grid-row grid-body-row"
                  data-testid="project-row"
                  style={{ ...template, height: rowHeight, transform: `translateY(${item.start}px)` }}
                >
                  {columns.map((column) => (
                    <td key={column.id} className={cellClass(column)} data-column={column.id}>
                      {column.render(row)}
                    </td>
                  ))}
                </tr>
              );
            })}
          </tbody>
        </table>
        {rows.length === 0 && <p className="empty">No projects match.</p>}
      </div>
    </div>
  );
}
