/** JSON documents are stored as text on both dialects. */
export function parseJsonColumn<T>(text: string | null): T | null {
  return text === null ? null : (JSON.parse(text) as T);
}
