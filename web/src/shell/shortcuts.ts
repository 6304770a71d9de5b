import { useEffect } from 'react';
import { useNavigate } from 'react-router';

export const shortcutHelp: Array<[string, string]> = [
  ['/', 'Search on this page'],
  ['g p', 'Go to Projects'],
  ['g d', 'Go to Discover'],
  ['g w', 'Go to Workspaces'],
  ['g s', 'Go to Settings'],
  ['t', 'Switch light / dark'],
  ['?', 'Show these shortcuts'],
];

const destinations: Record<string, string> = {
  p: '/projects',
  d: '/discover',
  w: '/workspaces',
  s: '/settings',
};

function typingInto(target: EventTarget | null): boolean {
  return (
    target instanceof HTMLElement &&
    (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName))
  );
}

/** Keyboard shortcuts that never fire while the person is typing into a field. */
export function useShortcuts(actions: { toggleTheme(): void; showHelp(): void }) {
  const navigate = useNavigate();
  useEffect(() => {
    let pendingG = false;
    const onKey = (event: KeyboardEvent) => {
      if (event.metaKey || event.ctrlKey || event.altKey || typingInto(event.target)) return;
      if (pendingG) {
        pendingG = false;
        const to = destinations[event.key];
        if (to) {
          event.preventDefault();
          navigate(to);
        }
        return;
      }
      if (event.key === '/') {
        const search = document.querySelector<HTMLInputElement>('[data-search]');
        if (search) {
          event.preventDefault();
          search.focus();
          search.select();
        }
      } else if (event.key === 'g') pendingG = true;
      else if (event.key === 't') actions.toggleTheme();
      else if (event.key === '?') actions.showHelp();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [navigate, actions]);
}
