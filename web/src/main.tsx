import { prefetchProjects, prefetchSession } from './api/endpoints.js';
import './styles.css';

// This small entry asks for the session and the first projects while the browser is still loading
// and parsing the app (React and the pages), which is most of the time to first render.
prefetchSession();
if (window.location.pathname === '/' || window.location.pathname === '/projects') prefetchProjects();
void import('./boot.js');
