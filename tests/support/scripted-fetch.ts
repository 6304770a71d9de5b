/** A scripted stand-in for fetch: each call takes the next answer and is recorded for assertions. */
export interface ScriptedAnswer {
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Simulate a network failure instead of answering. */
  networkError?: string;
}

export interface RecordedCall {
  method: string;
  url: URL;
  body: unknown;
  headers: Record<string, string>;
}

export function scriptedFetch(answers: ScriptedAnswer[]) {
  const calls: RecordedCall[] = [];
  const fetchImpl: typeof fetch = async (input, init) => {
    const headers = Object.fromEntries(Object.entries((init?.headers ?? {}) as Record<string, string>));
    calls.push({
      method: init?.method ?? 'GET',
      url: new URL(String(input)),
      body: typeof init?.body === 'string' ? JSON.parse(init.body) : undefined,
      headers,
    });
    const answer = answers.shift();
    if (!answer) throw new Error(`no scripted answer left for ${String(input)}`);
    if (answer.networkError) throw new TypeError(answer.networkError);
    const text = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body ?? {});
    return new Response(text, { status: answer.status ?? 200, headers: answer.headers });
  };
  return { fetch: fetchImpl, calls };
}
