import { lazy, Suspense } from 'react';
import { BrowserRouter, Navigate, Route, Routes } from 'react-router';
import { ProjectsPage } from './pages/projects/projects-page.js';
import { AppShell } from './shell/app-shell.js';
import { SessionProvider, useSession } from './shell/session.js';
import { ThemeContext, useTheme } from './shell/theme.js';

// Only the projects list is in the first bundle; other pages (and ECharts with the charts) load on demand.
const LoginPage = lazy(() =>
  import('./pages/login-page.js').then((module) => ({ default: module.LoginPage })),
);
const WorkspacesPage = lazy(() =>
  import('./pages/workspaces-page.js').then((module) => ({ default: module.WorkspacesPage })),
);
const EmrAccountsPage = lazy(() =>
  import('./pages/emr/emr-accounts-page.js').then((module) => ({ default: module.EmrAccountsPage })),
);
const SettingsPage = lazy(() =>
  import('./pages/settings-page.js').then((module) => ({ default: module.SettingsPage })),
);
const ProjectPage = lazy(() =>
  import('./pages/project/project-page.js').then((module) => ({ default: module.ProjectPage })),
);
const NotificationsPage = lazy(() =>
  import('./pages/notifications-page.js').then((module) => ({ default: module.NotificationsPage })),
);
const AuditPage = lazy(() =>
  import('./pages/audit-page.js').then((module) => ({ default: module.AuditPage })),
);
const UsersPage = lazy(() =>
  import('./pages/users-page.js').then((module) => ({ default: module.UsersPage })),
);
const AccountPage = lazy(() =>
  import('./pages/account-page.js').then((module) => ({ default: module.AccountPage })),
);
const DiscoverPage = lazy(() =>
  import('./pages/discover-page.js').then((module) => ({ default: module.DiscoverPage })),
);

function NotFoundPage() {
  return (
    <div className="page">
      <h1>Page not found</h1>
      <p>
        There is nothing at this address. Go to the <a href="/projects">projects</a>.
      </p>
    </div>
  );
}

function Lazy({ page }: { page: React.ReactNode }) {
  return <Suspense fallback={<p className="loading page">Loading…</p>}>{page}</Suspense>;
}

function SignedInRoutes({ theme, toggleTheme }: { theme: 'light' | 'dark'; toggleTheme(): void }) {
  const { session } = useSession();
  if (session.state === 'checking') {
    return (
      <p className="loading center" aria-busy="true">
        Connecting to the Setpoint server…
      </p>
    );
  }
  return (
    <Routes>
      <Route path="/login" element={<Lazy page={<LoginPage />} />} />
      <Route element={<AppShell theme={theme} toggleTheme={toggleTheme} />}>
        <Route index element={<Navigate to="/projects" replace />} />
        <Route path="/projects" element={<ProjectsPage />} />
        <Route path="/projects/:id" element={<Lazy page={<ProjectPage />} />} />
        <Route path="/projects/:id/:tab" element={<Lazy page={<ProjectPage />} />} />
        <Route path="/discover" element={<Lazy page={<DiscoverPage />} />} />
        <Route path="/workspaces" element={<Lazy page={<WorkspacesPage />} />} />
        <Route path="/emr" element={<Lazy page={<EmrAccountsPage />} />} />
        <Route path="/settings" element={<Lazy page={<SettingsPage />} />} />
        <Route path="/notifications" element={<Lazy page={<NotificationsPage />} />} />
        <Route path="/audit" element={<Lazy page={<AuditPage />} />} />
        <Route path="/users" element={<Lazy page={<UsersPage />} />} />
        <Route path="/account" element={<Lazy page={<AccountPage />} />} />
        <Route path="*" element={<NotFoundPage />} />
      </Route>
    </Routes>
  );
}

export function App() {
  const { theme, toggle } = useTheme();
  return (
    <ThemeContext.Provider value={theme}>
      <BrowserRouter>
        <SessionProvider>
          <SignedInRoutes theme={theme} toggleTheme={toggle} />
        </SessionProvider>
      </BrowserRouter>
    </ThemeContext.Provider>
  );
}
