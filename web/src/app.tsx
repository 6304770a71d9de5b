import { lazy, Suspense } from 'react';
import { BrowserRouter, Navigate, Route, Routes } from 'react-router';
import { LoginPage } from './pages/login-page.js';
import { ProjectsPage } from './pages/projects/projects-page.js';
import { SettingsPage } from './pages/settings-page.js';
import { WorkspacesPage } from './pages/workspaces-page.js';
import { AppShell } from './shell/app-shell.js';
import { SessionProvider, useSession } from './shell/session.js';
import { ThemeContext, useTheme } from './shell/theme.js';

// Pages with charts load ECharts on demand, so the projects list renders without it.
const ProjectPage = lazy(() =>
  import('./pages/project/project-page.js').then((module) => ({ default: module.ProjectPage })),
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
      <Route path="/login" element={<LoginPage />} />
      <Route element={<AppShell theme={theme} toggleTheme={toggleTheme} />}>
        <Route index element={<Navigate to="/projects" replace />} />
        <Route path="/projects" element={<ProjectsPage />} />
        <Route path="/projects/:id" element={<Lazy page={<ProjectPage />} />} />
        <Route path="/projects/:id/:tab" element={<Lazy page={<ProjectPage />} />} />
        <Route path="/discover" element={<Lazy page={<DiscoverPage />} />} />
        <Route path="/workspaces" element={<WorkspacesPage />} />
        <Route path="/settings" element={<SettingsPage />} />
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
