import type { ReactNode } from 'react';
import type { Load } from '../api/use-api.js';

export function NotAvailable({ what, detail }: { what: string; detail?: string }) {
  return (
    <div className="notice notice-unavailable" role="status" data-testid="not-available">
      <strong>{what}: not available on this server.</strong>
      <span>
        {' '}
        This Setpoint server does not offer it yet{detail ? ` (${detail})` : ''}; upgrade the server to use
        it.
      </span>
    </div>
  );
}

export function ErrorNotice({ message, onRetry }: { message: string; onRetry?: () => void }) {
  return (
    <div className="notice notice-error" role="alert">
      <span>{message}</span>
      {onRetry && (
        <button type="button" className="link-button" onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}

export function Loading({ label }: { label: string }) {
  return (
    <p className="loading" aria-busy="true">
      {label}
    </p>
  );
}

/** Renders a loaded value, or the loading, failed or not-available state of `what`. */
export function LoadView<T>({
  result,
  what,
  onRetry,
  children,
}: {
  result: Load<T>;
  what: string;
  onRetry?: () => void;
  children: (data: T) => ReactNode;
}) {
  if (result.state === 'loading') return <Loading label={`Loading ${what.toLowerCase()}…`} />;
  if (result.state === 'unavailable') return <NotAvailable what={what} />;
  if (result.state === 'failed')
    return <ErrorNotice message={`${what}: ${result.message}`} onRetry={onRetry} />;
  return <>{children(result.data)}</>;
}
