import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiError, messageOf } from './client.js';

export type Load<T> =
  | { state: 'loading' }
  | { state: 'ready'; data: T }
  | { state: 'unavailable'; message: string }
  | { state: 'failed'; message: string };

/** Runs `load` on mount and whenever `key` changes; a missing route becomes the "unavailable" state. */
export function useApi<T>(key: string, load: (signal: AbortSignal) => Promise<T>) {
  const [result, setResult] = useState<Load<T>>({ state: 'loading' });
  const [generation, setGeneration] = useState(0);
  const loadedKey = useRef(key);
  // biome-ignore lint/correctness/useExhaustiveDependencies: `key` names what `load` fetches
  useEffect(() => {
    const controller = new AbortController();
    // A reload keeps showing the data it refreshes; a different key starts over.
    const sameKey = loadedKey.current === key;
    loadedKey.current = key;
    setResult((previous) => (sameKey && previous.state === 'ready' ? previous : { state: 'loading' }));
    load(controller.signal).then(
      (data) => {
        if (!controller.signal.aborted) setResult({ state: 'ready', data });
      },
      (error: unknown) => {
        if (controller.signal.aborted) return;
        if (error instanceof ApiError && error.notAvailable)
          setResult({ state: 'unavailable', message: error.message });
        else setResult({ state: 'failed', message: messageOf(error) });
      },
    );
    return () => controller.abort();
  }, [key, generation]);
  const reload = useCallback(() => setGeneration((value) => value + 1), []);
  return { result, reload, setResult };
}
