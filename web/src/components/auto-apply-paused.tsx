import { messageOf } from '../api/client.js';

/**
 * "Auto-apply is paused: <reason>." with a Resume button for those who may change the project: the one
 * notice both platforms show after an SLA-guard revert paused auto-apply.
 */
export function AutoApplyPaused({
  reason,
  canResume,
  resume,
  onOutcome,
  testId,
}: {
  reason: string | null | undefined;
  canResume: boolean;
  resume(): Promise<unknown>;
  /** Told what happened (resumed, or why not) once the resume request settled. */
  onOutcome(message: string): void;
  testId: string;
}) {
  return (
    <div className="notice notice-error" role="status" data-testid={testId}>
      <span>Auto-apply is paused{reason ? `: ${reason}` : ''}.</span>{' '}
      {canResume && (
        <button
          type="button"
          className="link-button"
          onClick={async () => {
            try {
              await resume();
              onOutcome('Auto-apply resumed: the next ready recommendation is applied.');
            } catch (error) {
              onOutcome(messageOf(error));
            }
          }}
        >
          Resume auto-apply
        </button>
      )}
    </div>
  );
}
