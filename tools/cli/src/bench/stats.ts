/** Latency figures from raw samples, in milliseconds. */
export interface LatencyStats {
  count: number;
  rps: number;
  p50: number;
  p90: number;
  p99: number;
  errors: number;
}

/** A write scenario's median round, with every round's bills/s. */
export type WriteFigures = LatencyStats & { runs: number[] };

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, index)]!;
}

export function summarize(samplesMs: number[], errors: number, elapsedMs: number): LatencyStats {
  const sorted = [...samplesMs].sort((a, b) => a - b);
  const round = (n: number) => Math.round(n * 1000) / 1000;
  return {
    count: sorted.length,
    rps: Math.round((sorted.length / elapsedMs) * 1000),
    p50: round(percentile(sorted, 50)),
    p90: round(percentile(sorted, 90)),
    p99: round(percentile(sorted, 99)),
    errors,
  };
}

/** The median of some runs by their rate (the higher of the middle two when even); at least one run. */
export function medianByRate<T extends { rps: number }>(runs: T[]): T {
  return [...runs].sort((a, b) => a.rps - b.rps)[Math.floor(runs.length / 2)]!;
}
