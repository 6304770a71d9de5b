import { createServer, type Server } from 'node:http';

/** An alert as a webhook destination receives it. */
export interface ReceivedAlert {
  event: string;
  project_id: string | null;
  title: string;
  detail: Record<string, unknown>;
}

/** A webhook receiver on 127.0.0.1 that answers 200 and keeps every alert it was sent. */
export async function startWebhookReceiver(): Promise<{
  server: Server;
  url: string;
  hooks: ReceivedAlert[];
}> {
  const hooks: ReceivedAlert[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      hooks.push(JSON.parse(body) as ReceivedAlert);
      response.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    server,
    url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
    hooks,
  };
}
