import { endpoints } from '../../api/endpoints.js';
import { useApi } from '../../api/use-api.js';
import { LoadView } from '../../components/load-view.js';
import { useSession } from '../../shell/session.js';
import { RulesSection } from '../alerts/rules-section.js';
import type { ProjectData } from './project-data.js';

/** The alert rules that cover this project: its own (added, edited and deleted here) and the organization's. */
export function AlertsTab({ project }: { project: ProjectData['project'] }) {
  const { user, session } = useSession();
  const canEdit = user?.role === 'admin' || session.state === 'proxy-authenticated';
  const list = useApi(`project-alerts:${project.id}`, async (signal) => {
    const [rules, destinations] = await Promise.all([
      endpoints.alertRules(signal, project.id),
      endpoints.alertDestinations(signal),
    ]);
    return { rules: rules.items, destinations: destinations.items };
  });
  return (
    <LoadView result={list.result} what="Alert rules" onRetry={list.reload}>
      {({ rules, destinations }) => (
        <RulesSection
          rules={rules}
          destinations={destinations}
          projects={[project]}
          canEdit={canEdit}
          onChanged={list.reload}
          project={project}
        />
      )}
    </LoadView>
  );
}
