import { createServer } from 'node:http';

/** An HTTP endpoint on 127.0.0.1 that keeps every body POSTed to it: where alert webhooks are sent in tests. */
export async function startWebhookReceiver(): Promise<{ url: string; received: string[]; close(): void }> {
  const received: string[] = [];
  const receiver = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      received.push(body);
      response.end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const address = receiver.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { url: `http://127.0.0.1:${port}/hook`, received, close: () => receiver.close() };
}
