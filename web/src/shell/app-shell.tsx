import { useMemo, useRef } from 'react';
import { NavLink, Outlet } from 'react-router';
import { ServerStatus } from './server-status.js';
import { useSession } from './session.js';
import { shortcutHelp, useShortcuts } from './shortcuts.js';

/** `admin`: shown to admins only (the API refuses everyone else there too). */
const nav = [
  { to: '/projects', label: 'Projects' },
  { to: '/discover', label: 'Discover' },
  { to: '/workspaces', label: 'Workspaces' },
  { to: '/emr', label: 'EMR accounts' },
  { to: '/notifications', label: 'Notifications' },
  { to: '/audit', label: 'Audit trail', admin: true },
  { to: '/users', label: 'Users', admin: true },
  { to: '/settings', label: 'Settings' },
];

export function AppShell({ theme, toggleTheme }: { theme: 'light' | 'dark'; toggleTheme(): void }) {
  const { user, signOut } = useSession();
  const help = useRef<HTMLDialogElement>(null);
  const actions = useMemo(() => ({ toggleTheme, showHelp: () => help.current?.showModal() }), [toggleTheme]);
  useShortcuts(actions);

  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <aside className="sidebar">
        <div className="sidebar-inner">
          <div className="brand">
            <span className="brand-mark" aria-hidden="true">
              ◎
            </span>
            Setpoint
          </div>
          <nav aria-label="Main">
            <ul>
              {nav
                .filter((item) => !item.admin || user?.role === 'admin' || user === null)
                .map((item) => (
                  <li key={item.to}>
                    <NavLink
                      to={item.to}
                      className={({ isActive }) => (isActive ? 'nav-link active' : 'nav-link')}
                    >
                      {item.label}
                    </NavLink>
                  </li>
                ))}
            </ul>
          </nav>
          <div className="sidebar-foot">
            {user && (
              <div className="user">
                <span>
                  <NavLink to="/account" title="Your account: change your password">
                    {user.username}
                  </NavLink>{' '}
                  <span className="role">{user.role}</span>
                </span>
                <button type="button" className="link-button" onClick={() => void signOut()}>
                  Sign out
                </button>
              </div>
            )}
            <div className="sidebar-actions">
              <button
                type="button"
                onClick={toggleTheme}
                aria-label={`Switch to ${theme === 'dark' ? 'light' : 'dark'} theme`}
              >
                {theme === 'dark' ? '☀ Light' : '☾ Dark'}
              </button>
              <button type="button" onClick={() => help.current?.showModal()} aria-label="Keyboard shortcuts">
                ?
              </button>
            </div>
            <ServerStatus />
          </div>
        </div>
      </aside>
      <main id="main" className="main" tabIndex={-1}>
        <Outlet />
      </main>
      <dialog ref={help} className="dialog" aria-labelledby="shortcuts-title">
        <h2 id="shortcuts-title">Keyboard shortcuts</h2>
        <table className="table compact">
          <tbody>
            {shortcutHelp.map(([keys, what]) => (
              <tr key={keys}>
                <td>
                  <kbd>{keys}</kbd>
                </td>
                <td>{what}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <div className="dialog-actions">
          <button type="button" onClick={() => help.current?.close()}>
            Close
          </button>
        </div>
      </dialog>
    </div>
  );
}
