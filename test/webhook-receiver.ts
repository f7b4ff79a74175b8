import { createHmac, timingSafeEqual } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A webhook receiver on loopback, as an app's server would be: it records every delivery and
 * checks its Standard Webhooks signature itself (written here from the specification, not with the
 * server's own code), answering with the status a test sets, or holding the answer until told.
 */

export interface Delivery {
  readonly path: string;
  readonly id: string;
  readonly timestamp: string;
  readonly signature: string;
  readonly contentType: string;
  readonly body: string;
  readonly json: Record<string, unknown>;
}

export class Receiver {
  readonly received: Delivery[] = [];
  /** The status answered (a function: per delivery). */
  status: number | ((d: Delivery) => number) = 200;
  /** While set, answers wait until release(). */
  holding = false;
  /**
   * While set, every connection is dropped unanswered: a receiver that is down, on a port it keeps
   * (a port closed and opened again later could be taken meanwhile by another process).
   */
  down = false;
  private held: Array<() => void> = [];
  private waiters: Array<() => void> = [];

  private constructor(private readonly server: Server) {}

  static async start(port = 0): Promise<Receiver> {
    const server = createServer();
    const receiver = new Receiver(server);
    server.on('connection', (socket) => {
      if (receiver.down) socket.destroy();
    });
    server.on('request', (req, res) => void receiver.take(req, res));
    server.listen(port, '127.0.0.1');
    await once(server, 'listening');
    return receiver;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  url(path = '/hook'): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  /** Resolves once `n` deliveries have come (rejects after `timeoutMs`). */
  async waitFor(n: number, timeoutMs = 5000): Promise<Delivery[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.received.length < n) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`${this.received.length} deliveries of ${n} within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.received.slice(0, n);
  }

  /** Requests whose answer is held. */
  get holdingCount(): number {
    return this.held.length;
  }

  release(): void {
    this.holding = false;
    for (const answer of this.held.splice(0)) answer();
  }

  /** Whether the delivery is signed with `secret` (whsec_ and the base64 of the key). */
  static verify(secret: string, d: Delivery): boolean {
    const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
    const expected = createHmac('sha256', key).update(`${d.id}.${d.timestamp}.${d.body}`).digest();
    return d.signature.split(' ').some((part) => {
      const [version, value] = part.split(',');
      const given = Buffer.from(value ?? '', 'base64');
      return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
    });
  }

  close(): Promise<void> {
    this.release();
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private async take(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let body = '';
    for await (const chunk of req) body += String(chunk);
    const header = (name: string): string => String(req.headers[name] ?? '');
    let json: Record<string, unknown> = {};
    try {
      json = JSON.parse(body) as Record<string, unknown>;
    } catch {
      // Recorded as it came; the test sees a body that is not JSON.
    }
    const d: Delivery = {
      path: req.url ?? '',
      id: header('webhook-id'),
      timestamp: header('webhook-timestamp'),
      signature: header('webhook-signature'),
      contentType: header('content-type'),
      body,
      json,
    };
    const answer = (): void => {
      this.received.push(d);
      for (const wake of this.waiters.splice(0)) wake();
      res.writeHead(typeof this.status === 'function' ? this.status(d) : this.status).end();
    };
    if (this.holding) this.held.push(answer);
    else answer();
  }
}
