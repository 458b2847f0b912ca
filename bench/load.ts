// One measured case: autocannon at fixed concurrency for a fixed duration, after a short warm-up.
// Latencies come from every response (autocannon's own summary has no p95).
import autocannon from 'autocannon';

export interface Case {
  name: string;
  method?: 'GET' | 'POST';
  /** Called for every request: path, headers and body may change from one request to the next. */
  request: () => { path: string; headers?: Record<string, string>; body?: string };
}

export interface Measured {
  name: string;
  rps: number;
  p50: number;
  p95: number;
  p99: number;
  /** Answers other than 2xx, and connection errors or timeouts. */
  failures: number;
  /** CPU time of the server process per request, in ms. */
  cpuPerRequest: number;
}

export interface LoadOptions {
  connections: number;
  seconds: number;
  warmupSeconds: number;
}

const round = (ms: number) => Math.round(ms * 10) / 10;

function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

function fire(base: string, c: Case, connections: number, seconds: number, onLatency?: (ms: number) => void): Promise<autocannon.Result> {
  // Without a callback autocannon returns its instance, an event emitter that is also a promise of the result.
  const instance = autocannon({
    url: base,
    connections,
    duration: seconds,
    requests: [
      {
        method: c.method ?? 'GET',
        setupRequest: (req) => {
          const r = c.request();
          return { ...req, path: r.path, headers: { 'content-type': 'application/json', ...r.headers }, body: r.body };
        },
      },
    ],
  });
  if (onLatency) (instance as unknown as autocannon.Instance).on('response', (_client: unknown, _status: number, _bytes: number, ms: number) => onLatency(ms));
  return instance;
}

export async function measure(server: { base: string; cpuMs(): number }, c: Case, opts: LoadOptions): Promise<Measured> {
  if (opts.warmupSeconds > 0) await fire(server.base, c, opts.connections, opts.warmupSeconds);
  const latencies: number[] = [];
  const cpuBefore = server.cpuMs();
  const result = await fire(server.base, c, opts.connections, opts.seconds, (ms) => latencies.push(ms));
  const cpu = server.cpuMs() - cpuBefore;
  latencies.sort((a, b) => a - b);
  return {
    name: c.name,
    rps: result.requests.total / opts.seconds,
    p50: round(percentile(latencies, 50)),
    p95: round(percentile(latencies, 95)),
    p99: round(percentile(latencies, 99)),
    failures: result.non2xx + result.errors + result.timeouts,
    cpuPerRequest: Math.round((cpu / Math.max(1, result.requests.total)) * 100) / 100,
  };
}
