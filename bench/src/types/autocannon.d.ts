/**
 * The part of autocannon's programmatic API the harness uses. Declared here rather than taken
 * from @types/autocannon, which would bring a second, newer @types/node into bench/.
 */
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  namespace autocannon {
    interface Options {
      url: string;
      method?: string;
      connections?: number;
      pipelining?: number;
      duration?: number;
      headers?: Record<string, string>;
      body?: string;
      expectBody?: string;
    }
    interface Histogram {
      average: number;
      mean: number;
      stddev: number;
      min: number;
      max: number;
      total: number;
      p50: number;
      p99: number;
    }
    interface Result {
      duration: number;
      errors: number;
      timeouts: number;
      mismatches: number;
      non2xx: number;
      latency: Histogram;
      requests: Histogram & { sent: number };
    }
    interface Instance extends EventEmitter {
      stop(): void;
    }
  }

  function autocannon(
    options: autocannon.Options,
    callback: (error: Error | null, result: autocannon.Result) => void,
  ): autocannon.Instance;

  export = autocannon;
}
