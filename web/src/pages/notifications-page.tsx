import { Link } from 'react-router';
import { endpoints } from '../api/endpoints.js';
import { useApi } from '../api/use-api.js';
import { LoadView } from '../components/load-view.js';
import { formatDateTime } from '../lib/format.js';

const eventLabels: Record<string, string> = {
  sla_missed: 'SLA missed',
  sla_at_risk: 'SLA at risk',
  cost_spike: 'Cost spike',
  external_change: 'Changed outside Setpoint',
  apply_failed: 'Apply failed',
  collection_parked: 'Collection parked',
  learning_finished: 'Learning finished',
};

const statusLabels: Record<string, string> = {
  SENDING: 'Sending',
  SENT: 'Sent',
  RETRYING: 'Retrying',
  PARKED: 'Parked (gave up)',
  FAILED: 'Failed',
  RATE_LIMITED: 'Held back (hourly limit)',
};

/** What alert rules sent (or could not send), newest first; rules and destinations are set up in the API or CLI. */
export function NotificationsPage() {
  const list = useApi('notifications', async (signal) => {
    const [notifications, destinations, rules] = await Promise.all([
      endpoints.notifications(signal),
      endpoints.alertDestinations(signal),
      endpoints.alertRules(signal),
    ]);
    return { notifications, destinations, rules };
  });
  return (
    <div className="page">
      <h1>Notifications</h1>
      <LoadView result={list.result} what="Notifications" onRetry={list.reload}>
        {({ notifications, destinations, rules }) => {
          const destinationName = new Map(destinations.items.map((item) => [item.id, item.name]));
          return (
            <>
              <p>
                {rules.items.length} alert rule(s) sending to {destinations.items.length} destination(s). Add
                them with <code>setpoint alerts</code> or the API (docs/alerts.md).
              </p>
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
                    </tr>
                  </thead>
                  <tbody>
                    {notifications.items.map((item) => (
                      <tr key={item.id}>
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
                      </tr>
                    ))}
                  </tbody>
                </table>
              )}
            </>
          );
        }}
      </LoadView>
    </div>
  );
}
