import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { prefetchProjects } from './api/endpoints.js';
import { App } from './app.js';
import './styles.css';

if (window.location.pathname === '/' || window.location.pathname === '/projects') prefetchProjects();

const root = document.getElementById('root');
if (!root) throw new Error('missing #root element');
createRoot(root).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
