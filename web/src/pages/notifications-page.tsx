import { countOf } from '@setpoint/insights';
import { useState } from 'react';
import { Link } from 'react-router';
import { messageOf } from '../api/client.js';
import { endpoints } from '../api/endpoints.js';
import { useApi } from '../api/use-api.js';
import { LoadView } from '../components/load-view.js';
import { formatDateTime } from '../lib/format.js';
import { useSession } from '../shell/session.js';
import { eventLabels, retryableStatuses, statusLabels } from './alerts/alert-labels.js';
import { DestinationsSection } from './alerts/destinations-section.js';
import { RulesSection } from './alerts/rules-section.js';

/**
 * What alert rules sent (or could not send), newest first, with the rules and destinations behind
 * them; admins edit those here and send again what Setpoint gave up on.
 */
export function NotificationsPage() {
  const { user, session } = useSession();
  const canEdit = user?.role === 'admin' || session.state === 'proxy-authenticated';
  const [error, setError] = useState<string | null>(null);
  const [retrying, setRetrying] = useState<string | null>(null);
  const list = useApi('notifications', async (signal) => {
    const [notifications, destinations, rules, projects] = await Promise.all([
      endpoints.notifications(signal),
      endpoints.alertDestinations(signal),
      endpoints.alertRules(signal),
      endpoints.projects(signal),
    ]);
    return { notifications, destinations, rules, projects };
  });
  const retry = async (id: string) => {
    setError(null);
    setRetrying(id);
    try {
      await endpoints.retryNotification(id);
    } catch (caught) {
      setError(messageOf(caught));
    } finally {
      setRetrying(null);
      list.reload();
    }
  };
  return (
    <div className="page">
      <h1>Notifications</h1>
      <LoadView result={list.result} what="Notifications" onRetry={list.reload}>
        {({ notifications, destinations, rules, projects }) => {
          const destinationName = new Map(destinations.items.map((item) => [item.id, item.name]));
          return (
            <>
              <p>
                {countOf(rules.items.length, 'alert rule')} sending to{' '}
                {countOf(destinations.items.length, 'destination')}.
                {canEdit ? '' : ' Admins change them here, with setpoint alerts or the API (docs/alerts.md).'}
              </p>
              {error && (
                <p className="notice notice-error" role="alert">
                  {error}
                </p>
              )}
              {notifications.items.length === 0 ? (
                <div className="empty-state">
                  <h2>No notifications yet</h2>
                  <p>When a rule fires (a missed SLA, a cost spike, a failed apply…) it is listed here.</p>
                </div>
              ) : (
                <table className="table" data-testid="notifications">
                  <thead>
                    <tr>
                      <th>When</th>
                      <th>Event</th>
                      <th>Notification</th>
                      <th>Sent to</th>
                      <th>Status</th>
                      {canEdit && <th aria-label="Actions" />}
                    </tr>
                  </thead>
                  <tbody>
                    {notifications.items.map((item) => (
                      <tr key={item.id} data-notification-id={item.id}>
                        <td>{formatDateTime(item.created_at)}</td>
                        <td>{eventLabels[item.event] ?? item.event}</td>
                        <td>
                          {item.project_id ? (
                            <Link to={`/projects/${encodeURIComponent(item.project_id)}`}>{item.title}</Link>
                          ) : (
                            item.title
                          )}
                        </td>
                        <td>{destinationName.get(item.destination_id) ?? 'deleted destination'}</td>
                        <td title={item.error ?? undefined}>
                          {statusLabels[item.status]}
                          {item.attempts > 1 ? ` after ${item.attempts} attempts` : ''}
                          {item.error ? `: ${item.error}` : ''}
                          {item.next_attempt_at ? ` (next try ${formatDateTime(item.next_attempt_at)})` : ''}
                        </td>
                        {canEdit && (
                          <td>
                            {retryableStatuses.has(item.status) &&
                              destinationName.has(item.destination_id) && (
                                <button
                                  type="button"
                                  disabled={retrying !== null}
                                  onClick={() => void retry(item.id)}
                                >
                                  {retrying === item.id ? 'Sending…' : 'Send again'}
                                </button>
                              )}
                          </td>
                        )}
                      </tr>
                    ))}
                  </tbody>
                </table>
              )}
              <RulesSection
                rules={rules.items}
                destinations={destinations.items}
                projects={projects}
                canEdit={canEdit}
                onChanged={list.reload}
              />
              <DestinationsSection
                destinations={destinations.items}
                canEdit={canEdit}
                onChanged={list.reload}
              />
            </>
          );
        }}
      </LoadView>
    </div>
  );
}
