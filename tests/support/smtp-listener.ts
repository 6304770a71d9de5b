import { createServer, type Server } from 'node:net';

/** What an SMTP client sent to the listener. */
export interface SmtpListener {
  port: number;
  /** Connections accepted. */
  connections(): number;
  /** Every command line received, in order (message bodies excluded). */
  commands(): string[];
  /** The `AUTH …` lines received: a password travels in them (base64). */
  authLines(): string[];
  close(): Promise<void>;
}

/**
 * A loopback SMTP server that accepts anything and records what clients send: it offers AUTH PLAIN and
 * LOGIN, so a client with credentials sends them, and accepts every message. Enough SMTP for nodemailer.
 */
export async function startSmtpListener(): Promise<SmtpListener> {
  let connections = 0;
  const commands: string[] = [];
  const server: Server = createServer((socket) => {
    connections += 1;
    let buffer = '';
    let inData = false;
    const reply = (line: string) => socket.write(`${line}\r\n`);
    reply('220 listener ESMTP');
    socket.setEncoding('latin1');
    socket.on('error', () => undefined);
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      for (let end = buffer.indexOf('\r\n'); end !== -1; end = buffer.indexOf('\r\n')) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (inData) {
          if (line === '.') {
            inData = false;
            reply('250 queued');
          }
          continue;
        }
        commands.push(line);
        const verb = line.split(' ')[0]?.toUpperCase() ?? '';
        if (verb === 'EHLO') reply('250-listener\r\n250-AUTH PLAIN LOGIN\r\n250 8BITMIME');
        else if (verb === 'HELO') reply('250 listener');
        else if (verb === 'AUTH') reply('235 accepted');
        else if (verb === 'DATA') {
          inData = true;
          reply('354 go on');
        } else if (verb === 'QUIT') {
          reply('221 bye');
          socket.end();
        } else reply('250 ok');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : 0,
    connections: () => connections,
    commands: () => [...commands],
    authLines: () => commands.filter((line) => /^AUTH\b/i.test(line)),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
