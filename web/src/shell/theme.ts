import { createContext, useCallback, useContext, useEffect, useState } from 'react';

export type ThemeChoice = 'light' | 'dark';

const storageKey = 'setpoint-theme';

function initialTheme(): ThemeChoice {
  const stored = localStorage.getItem(storageKey);
  if (stored === 'light' || stored === 'dark') return stored;
  return window.matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

/** Light or dark, following the system until the person picks one; charts re-read the palette on change. */
export function useTheme() {
  const [theme, setTheme] = useState<ThemeChoice>(initialTheme);
  useEffect(() => {
    document.documentElement.dataset.theme = theme;
  }, [theme]);
  const toggle = useCallback(() => {
    setTheme((current) => {
      const next = current === 'dark' ? 'light' : 'dark';
      localStorage.setItem(storageKey, next);
      return next;
    });
  }, []);
  return { theme, toggle };
}

/** A CSS custom property of the current theme, for canvases and charts that cannot use var(). */
export function themeColor(name: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim();
}

export const ThemeContext = createContext<ThemeChoice>('light');

export function useThemeName(): ThemeChoice {
  return useContext(ThemeContext);
}
