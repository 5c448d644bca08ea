/**
 * A fault-injecting HTTP proxy for tests, placed in front of DynamoDB Local: the service under test
 * talks to it through `AWS_ENDPOINT_URL_DYNAMODB`, and the test switches what it does.
 *
 * Modes (see {@link FaultMode}):
 * - `pass`: forwards every request and response unchanged.
 * - `unreachable`: resets connections (TCP RST) as they open, and resets the open ones when the
 *   mode is switched on, so pooled keep-alive sockets fail too; the SDK sees `ECONNRESET`.
 * - `slow`: holds each request for `delayMs` (longer than the client's time-out) before forwarding;
 *   a request whose client gives up first is dropped, never forwarded, so it cannot write late.
 *   With `stage: 'response'` the request is forwarded at once and its *response* is held instead:
 *   DynamoDB has applied the write, but the client times out (the ambiguous case).
 * - `throttle`: answers as DynamoDB does when throttling: HTTP 400,
 *   `ProvisionedThroughputExceededException`, `application/x-amz-json-1.0`.
 *
 * Every mode but `pass` can be limited to some DynamoDB operations (`X-Amz-Target`, e.g.
 * `TransactWriteItems`; the others pass) and to the first `times` matching requests (later ones
 * pass, e.g. to let the SDK's third attempt through). The proxy emits an {@link ProxyEvent} for each request
 * it handles, so tests wait on events instead of sleeping.
 */
import { randomUUID } from 'node:crypto';
import { EventEmitter, once } from 'node:events';
import {
  Agent,
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { Socket } from 'node:net';

/** Which requests a fault applies to; by default every request. */
export interface FaultScope {
  /** DynamoDB operations (`X-Amz-Target` suffix, e.g. `TransactWriteItems`); others pass. */
  readonly operations?: readonly string[];
  /** Apply to the first this many matching requests only; later ones pass. */
  readonly times?: number;
}

/** What the proxy does to the requests it applies to. */
export type FaultMode =
  | { readonly kind: 'pass' }
  | ({ readonly kind: 'unreachable' } & FaultScope)
  | ({
      readonly kind: 'slow';
      /** How long a request (or its response) is held, in ms. */
      readonly delayMs: number;
      /** Hold the request before DynamoDB sees it (default), or DynamoDB's response after it acted. */
      readonly stage?: 'request' | 'response';
    } & FaultScope)
  | ({ readonly kind: 'throttle' } & FaultScope);

/** What happened to one request (or, for `refused`, one connection). */
export type ProxyAction =
  /** Forwarded and answered by DynamoDB. */
  | 'forwarded'
  /** Connection reset by the proxy (`unreachable`). */
  | 'refused'
  /** Held by `slow`; followed by `abandoned` or `forwarded`. */
  | 'held'
  /** The client gave up while the request was held; it never reached DynamoDB. */
  | 'abandoned'
  /** Forwarded, but the client gave up while its response was held (`slow`, stage `response`). */
  | 'responseAbandoned'
  /** Answered with a throttling error. */
  | 'throttled';

/** One event of the proxy. */
export interface ProxyEvent {
  readonly action: ProxyAction;
  /** DynamoDB operation from `X-Amz-Target` (e.g. `GetItem`); `undefined` for connection-level refusals. */
  readonly operation: string | undefined;
}

/** The body DynamoDB sends when a request is throttled. */
export const THROTTLING_ERROR_BODY = {
  __type: 'com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException',
  message:
    'The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API.',
} as const;

/** DynamoDB's JSON protocol content type. */
const AMZ_JSON = 'application/x-amz-json-1.0';

function operationOf(request: IncomingMessage): string | undefined {
  const target = request.headers['x-amz-target'];
  const value = Array.isArray(target) ? target[0] : target;
  return value?.split('.').at(-1);
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks);
}

/** A running fault proxy. Build it with {@link FaultProxy.start}. */
export class FaultProxy extends EventEmitter<{ event: [ProxyEvent] }> {
  readonly #server: Server;
  readonly #upstream: URL;
  readonly #agent = new Agent({ keepAlive: true });
  readonly #sockets = new Set<Socket>();
  readonly #timers = new Set<NodeJS.Timeout>();
  readonly #counts = new Map<string, number>();
  #mode: FaultMode = { kind: 'pass' };
  /** Matching requests the current mode still applies to (`times`). */
  #budget = Number.POSITIVE_INFINITY;

  private constructor(server: Server, upstream: URL) {
    super();
    this.#server = server;
    this.#upstream = upstream;
  }

  /**
   * Starts a proxy on a free loopback port.
   * @param upstream - DynamoDB endpoint to forward to, e.g. `http://127.0.0.1:8000`
   */
  static async start(upstream: string): Promise<FaultProxy> {
    const server = createServer();
    const proxy = new FaultProxy(server, new URL(upstream));
    server.on('connection', (socket) => proxy.#onConnection(socket));
    server.on('request', (request, response) => {
      // A client that resets mid-request is one of the faults; it must not crash the test run.
      proxy.#onRequest(request, response).catch(() => request.socket.destroy());
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    return proxy;
  }

  /** `http://127.0.0.1:<port>`, for `AWS_ENDPOINT_URL_DYNAMODB` or a client's `endpoint`. */
  get endpoint(): string {
    const address = this.#server.address();
    if (address === null || typeof address === 'string') throw new Error('the proxy is not listening');
    return `http://127.0.0.1:${address.port}`;
  }

  /** The current mode. */
  get mode(): FaultMode {
    return this.#mode;
  }

  /** Switches the mode; switching to `unreachable` (for all operations) also resets open connections. */
  setMode(mode: FaultMode): void {
    this.#mode = mode;
    this.#budget = mode.kind === 'pass' ? 0 : (mode.times ?? Number.POSITIVE_INFINITY);
    if (mode.kind === 'unreachable' && mode.operations === undefined && mode.times === undefined) {
      for (const socket of this.#sockets) this.#refuse(socket);
    }
  }

  /**
   * How often an action happened since the last {@link resetCounts}, optionally for one operation.
   * @param operation - e.g. `TransactWriteItems`; omitted = all operations
   */
  count(action: ProxyAction, operation?: string): number {
    if (operation !== undefined) return this.#counts.get(`${action} ${operation}`) ?? 0;
    let total = 0;
    for (const [key, value] of this.#counts) if (key.startsWith(`${action} `)) total += value;
    return total;
  }

  /** The counters as text, e.g. `throttled TransactWriteItems ×3, forwarded GetItem ×1`. */
  summary(): string {
    if (this.#counts.size === 0) return 'nothing';
    return [...this.#counts].map(([key, value]) => `${key} ×${value}`).join(', ');
  }

  /** Clears the counters of {@link count}. */
  resetCounts(): void {
    this.#counts.clear();
  }

  /**
   * Resolves once `action` has happened `times` times (counted from now), optionally for one operation.
   * @param options.timeoutMs - rejects after this long (default 15 000 ms), naming what was awaited
   */
  async waitFor(
    action: ProxyAction,
    options: { operation?: string; times?: number; timeoutMs?: number } = {},
  ): Promise<void> {
    const times = options.times ?? 1;
    let seen = 0;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.off('event', listener);
        reject(
          new Error(`fault proxy: waited for ${times}× ${action} ${options.operation ?? ''}, saw ${seen}`),
        );
      }, options.timeoutMs ?? 15_000);
      const listener = (event: ProxyEvent): void => {
        if (event.action !== action) return;
        if (options.operation !== undefined && event.operation !== options.operation) return;
        seen += 1;
        if (seen < times) return;
        clearTimeout(timer);
        this.off('event', listener);
        resolve();
      };
      this.on('event', listener);
    });
  }

  /** Stops listening, drops held requests and closes every connection. */
  async close(): Promise<void> {
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    const closed = once(this.#server, 'close');
    this.#server.close();
    for (const socket of this.#sockets) socket.destroy();
    this.#agent.destroy();
    await closed;
  }

  #emit(action: ProxyAction, operation: string | undefined): void {
    const key = `${action} ${operation ?? '-'}`;
    this.#counts.set(key, (this.#counts.get(key) ?? 0) + 1);
    this.emit('event', { action, operation });
  }

  /** Whether the current mode applies to a request of `operation`; uses up one of its `times`. */
  #applies(operation: string | undefined): boolean {
    const mode = this.#mode;
    if (mode.kind === 'pass' || this.#budget <= 0) return false;
    const matches =
      mode.operations === undefined || (operation !== undefined && mode.operations.includes(operation));
    if (matches) this.#budget -= 1;
    return matches;
  }

  #refuse(socket: Socket, operation?: string): void {
    socket.resetAndDestroy();
    this.#emit('refused', operation);
  }

  #onConnection(socket: Socket): void {
    const mode = this.#mode;
    if (mode.kind === 'unreachable' && mode.operations === undefined && mode.times === undefined) {
      this.#refuse(socket);
      return;
    }
    this.#sockets.add(socket);
    socket.once('close', () => this.#sockets.delete(socket));
  }

  #delay(ms: number, abandoned: Promise<unknown>): Promise<'elapsed' | 'abandoned'> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#timers.delete(timer);
        resolve('elapsed');
      }, ms);
      this.#timers.add(timer);
      void abandoned.then(() => {
        clearTimeout(timer);
        this.#timers.delete(timer);
        resolve('abandoned');
      });
    });
  }

  async #onRequest(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const operation = operationOf(request);
    const body = await readBody(request);
    // The client gives up by closing its socket before our response is complete.
    const clientGone = new Promise<void>((resolve) => {
      response.once('close', () => {
        if (!response.writableFinished) resolve();
      });
    });
    const mode = this.#mode;
    if (!this.#applies(operation)) {
      await this.#forward(request, body, response, operation);
      return;
    }
    switch (mode.kind) {
      case 'unreachable':
        this.#refuse(request.socket, operation);
        return;
      case 'throttle': {
        const payload = JSON.stringify(THROTTLING_ERROR_BODY);
        response.writeHead(400, {
          'content-type': AMZ_JSON,
          'content-length': Buffer.byteLength(payload),
          'x-amzn-requestid': randomUUID(),
        });
        response.end(payload);
        this.#emit('throttled', operation);
        return;
      }
      case 'slow':
        this.#emit('held', operation);
        if (mode.stage === 'response') {
          await this.#forward(request, body, response, operation, () =>
            this.#delay(mode.delayMs, clientGone),
          );
          return;
        }
        if ((await this.#delay(mode.delayMs, clientGone)) === 'abandoned') {
          this.#emit('abandoned', operation);
          return;
        }
        await this.#forward(request, body, response, operation);
        return;
      case 'pass':
        await this.#forward(request, body, response, operation);
        return;
    }
  }

  /**
   * Sends the request upstream and relays the answer.
   * @param holdResponse - awaited between receiving DynamoDB's answer and relaying it
   */
  async #forward(
    request: IncomingMessage,
    body: Buffer,
    response: ServerResponse,
    operation: string | undefined,
    holdResponse?: () => Promise<'elapsed' | 'abandoned'>,
  ): Promise<void> {
    // Headers go upstream unchanged: they are covered by the client's SigV4 signature.
    const upstream = httpRequest({
      host: this.#upstream.hostname,
      port: this.#upstream.port,
      method: request.method,
      path: request.url,
      headers: request.headers,
      agent: this.#agent,
    });
    const answered = new Promise<IncomingMessage>((resolve, reject) => {
      upstream.once('response', resolve);
      upstream.once('error', reject);
    });
    upstream.end(body);
    let answer: IncomingMessage;
    try {
      answer = await answered;
    } catch {
      request.socket.destroy();
      return;
    }
    const payload = await readBody(answer);
    if (holdResponse !== undefined && (await holdResponse()) === 'abandoned') {
      this.#emit('responseAbandoned', operation);
      return;
    }
    if (response.destroyed) return;
    response.writeHead(answer.statusCode ?? 502, answer.headers);
    response.end(payload);
    this.#emit('forwarded', operation);
  }
}
