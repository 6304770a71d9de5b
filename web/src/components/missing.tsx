import { dash } from '../lib/format.js';

/** A "—" that says why the value is missing, on hover and to screen readers. */
export function Missing({ reason }: { reason: string }) {
  return (
    <span className="missing" title={reason} aria-label={reason} role="img" data-missing="true">
      {dash}
    </span>
  );
}

/** A formatted value, or a "—" that says why when the formatter found nothing to show. */
export function ValueOr({ text, reason }: { text: string; reason: string }) {
  return text === dash ? <Missing reason={reason} /> : text;
}
