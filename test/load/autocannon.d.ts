/**
 * The part of autocannon 8's API the load test uses (the package ships no types).
 */
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  namespace autocannon {
    /** A request as autocannon builds it; `setupRequest` returns a changed copy. */
    interface RequestParams {
      method?: string;
      path?: string;
      headers?: Record<string, string>;
      body?: string | Buffer;
    }

    /** Per-connection scratch object shared by `setupRequest` and `onResponse` of one request. */
    type Context = Record<string, unknown>;

    interface Request extends RequestParams {
      setupRequest?: (request: RequestParams, context: Context) => RequestParams;
      onResponse?: (status: number, body: string, context: Context, headers: Record<string, string>) => void;
    }

    interface Options {
      url: string;
      connections?: number;
      /** Requests to send in total; overrides `duration`. */
      amount?: number;
      /** Seconds to wait for each response. */
      timeout?: number;
      pipelining?: number;
      requests?: Request[];
    }

    /** Histogram summary; values in ms for latency. */
    interface Histogram {
      average: number;
      mean: number;
      stddev: number;
      min: number;
      max: number;
      p50: number;
      p90: number;
      p99: number;
      total: number;
    }

    interface Result {
      latency: Histogram;
      requests: Histogram & { sent: number };
      throughput: Histogram;
      /** Seconds. */
      duration: number;
      errors: number;
      timeouts: number;
      non2xx: number;
      statusCodeStats: Record<string, { count: number }>;
    }

    interface Instance extends EventEmitter {
      stop(): void;
    }
  }

  function autocannon(
    options: autocannon.Options,
    callback: (error: Error | null, result: autocannon.Result) => void,
  ): autocannon.Instance;

  export default autocannon;
}
