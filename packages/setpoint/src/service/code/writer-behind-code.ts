import { ConflictError } from '@setpoint/foundation/errors';
import type { ApplyWriter, WriteLocation } from '../apply/apply-writer.js';
import type { Project } from '../projects/project-records.js';
import type { SourceView } from './source-service.js';
import { configurationInCode, writeRoute } from './write-route.js';

/**
 * A platform's writer that never writes a job behind its code's back: where the project's configuration
 * lives in code (linked, tagged `setpoint:source`, or deployed from a bundle), `locate` refuses, so no apply,
 * rollback or SLA-guard revert goes through the platform's API; the change goes to the code as a proposal.
 * A team that lets Setpoint write the API too (`api_writes`) keeps the platform's writer as it is.
 */
export function writerBehindCode<Target>(
  writer: ApplyWriter<Target>,
  sourceOf: (projectId: string) => Promise<SourceView>,
): ApplyWriter<Target> {
  return {
    ...writer,
    async locate(project: Project): Promise<WriteLocation<Target>> {
      const route = writeRoute(await sourceOf(project.id));
      if (route.kind === 'refuse') return { refusal: new ConflictError('DEPLOYED_FROM_CODE', route.reason) };
      if (route.kind === 'code') return { refusal: configurationInCode(project.id, route.source) };
      return writer.locate(project);
    },
  };
}
