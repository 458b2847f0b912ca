// Measured cases: autocannon at fixed concurrency for a fixed duration, after a short warm-up.
// Cases are measured in rounds, each case a slice per round, so that a machine that gets slower
// or faster during a run (shared hosts do) weighs on the service and its baselines alike.
// Latencies come from every response (autocannon's own summary has no p95).
import autocannon from 'autocannon';

export interface Case {
  name: string;
  method?: 'GET' | 'POST';
  /** Called for every request: path, headers and body may change from one request to the next. */
  request: () => { path: string; headers?: Record<string, string>; body?: string };
  /** Concurrent requests of this case, when not the run's (a batch of 1,000 rows is not a read). */
  connections?: number;
  /** What one request counts for in `rps` (a batch: its rows). */
  perRequest?: number;
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
  /** Measured time per case, split evenly over the rounds. */
  seconds: number;
  warmupSeconds: number;
  rounds: number;
  /** Awaited before each slice: lets the database finish work that earlier cases left running. */
  settle?: () => Promise<void>;
}

export interface Target {
  server: { base: string; cpuMs(): number };
  case: Case;
}

const round = (ms: number) => Math.round(ms * 10) / 10;

function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

function fire(
  base: string,
  c: Case,
  connections: number,
  seconds: number,
  onLatency?: (ms: number) => void,
): Promise<autocannon.Result> {
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
  if (onLatency)
    (instance as unknown as autocannon.Instance).on(
      'response',
      (_client: unknown, _status: number, _bytes: number, ms: number) => onLatency(ms),
    );
  return instance;
}

/** Measures every target for `opts.seconds`, interleaved: round 1 of each, round 2 of each, … */
export async function measureInRounds(
  targets: Target[],
  opts: LoadOptions,
  onDone?: (m: Measured) => void,
): Promise<Measured[]> {
  const slice = opts.seconds / opts.rounds;
  const tallies = targets.map(() => ({ latencies: [] as number[], requests: 0, failures: 0, cpu: 0 }));
  for (let round = 0; round < opts.rounds; round++) {
    for (const [i, t] of targets.entries()) {
      if (round === 0 && opts.warmupSeconds > 0)
        await fire(t.server.base, t.case, t.case.connections ?? opts.connections, opts.warmupSeconds);
      const tally = tallies[i];
      await opts.settle?.();
      const cpuBefore = t.server.cpuMs();
      const result = await fire(t.server.base, t.case, t.case.connections ?? opts.connections, slice, (ms) =>
        tally.latencies.push(ms),
      );
      tally.cpu += t.server.cpuMs() - cpuBefore;
      tally.requests += result.requests.total;
      tally.failures += result.non2xx + result.errors + result.timeouts;
    }
  }
  return targets.map((t, i) => {
    const { latencies, requests, failures, cpu } = tallies[i];
    latencies.sort((a, b) => a - b);
    const m: Measured = {
      name: t.case.name,
      rps: (requests * (t.case.perRequest ?? 1)) / opts.seconds,
      p50: round(percentile(latencies, 50)),
      p95: round(percentile(latencies, 95)),
      p99: round(percentile(latencies, 99)),
      failures,
      cpuPerRequest: Math.round((cpu / Math.max(1, requests)) * 100) / 100,
    };
    onDone?.(m);
    return m;
  });
}
