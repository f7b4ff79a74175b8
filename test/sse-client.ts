import http from 'node:http';

/**
 * A client of server-sent events over a real socket (fetch), reading the stream as the
 * EventSource of a browser would: blocks separated by a blank line, `field: value` lines, comments
 * starting with `:`. For the tests and the benchmark of /3/sync/events.php.
 */

export interface SseMessage {
  /** A comment line (`: keep-alive`), or an event's fields. */
  readonly comment?: string;
  readonly id?: string;
  readonly event?: string;
  readonly data?: string;
  readonly retry?: string;
}

export interface SseAnswer {
  readonly status: number;
  readonly headers: Headers;
  /** The body of an answer that is not a stream (an error record). */
  readonly body: string;
  /** The stream, when the answer is one (200). */
  readonly stream: SseStream | undefined;
}

/**
 * Opens `url` with `headers` (a Bearer token, Last-Event-ID), on a connection of its own (as
 * EventSource does): fetch's pool would send later requests on a stream's connection behind it.
 */
export function openEvents(url: string, headers: Record<string, string>): Promise<SseAnswer> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers, agent: false }, (res) => {
      const answerHeaders = new Headers();
      for (const [name, value] of Object.entries(res.headers)) if (value !== undefined) answerHeaders.set(name, Array.isArray(value) ? value.join(', ') : value);
      if (res.statusCode !== 200) {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => {
          req.destroy();
          resolve({ status: res.statusCode ?? 0, headers: answerHeaders, body, stream: undefined });
        });
        return;
      }
      resolve({ status: 200, headers: answerHeaders, body: '', stream: new SseStream(res, () => req.destroy()) });
    });
    req.on('error', reject);
  });
}

export class SseStream {
  private readonly queue: Array<SseMessage | 'end'> = [];
  private waiter: (() => void) | undefined;
  private buffer = '';
  private ended = false;

  constructor(
    body: AsyncIterable<Buffer>,
    private readonly abort: () => void,
  ) {
    void this.read(body);
  }

  /** Whether the server ended the stream. */
  get done(): boolean {
    return this.ended;
  }

  /** The next message, comments included; 'end' once the server ended the stream. Rejects after `timeoutMs`. */
  async next(timeoutMs = 5000): Promise<SseMessage | 'end'> {
    const deadline = Date.now() + timeoutMs;
    while (this.queue.length === 0) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no server-sent message within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiter = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.waiter = undefined;
    }
    const first = this.queue[0] as SseMessage | 'end';
    // The end stays at the head: every later call sees it too.
    if (first !== 'end') this.queue.shift();
    return first;
  }

  /** The next event (with data), passing over comments and a bare `retry`. */
  async nextEvent(timeoutMs = 5000): Promise<SseMessage | 'end'> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const m = await this.next(Math.max(1, deadline - Date.now()));
      if (m === 'end' || m.data !== undefined) return m;
    }
  }

  /** Messages received and not yet taken. */
  get waiting(): readonly (SseMessage | 'end')[] {
    return this.queue;
  }

  /** Closes the connection, as a client going away does. */
  close(): void {
    this.abort();
  }

  private async read(body: AsyncIterable<Buffer>): Promise<void> {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of body) {
        this.buffer += decoder.decode(chunk, { stream: true });
        let at: number;
        while ((at = this.buffer.indexOf('\n\n')) >= 0) {
          const block = this.buffer.slice(0, at);
          this.buffer = this.buffer.slice(at + 2);
          this.push(block);
        }
      }
    } catch {
      // Aborted by close(), or the connection broke: the stream ends either way.
    }
    this.ended = true;
    this.queue.push('end');
    this.waiter?.();
  }

  private push(block: string): void {
    const fields: Record<string, string> = {};
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) {
        this.queue.push({ comment: line.slice(1).trim() });
        continue;
      }
      const colon = line.indexOf(':');
      const name = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      fields[name] = name in fields && name === 'data' ? `${fields[name]}\n${value}` : value;
    }
    if (Object.keys(fields).length > 0) this.queue.push(fields as SseMessage);
    this.waiter?.();
  }
}
