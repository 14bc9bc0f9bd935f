/** A dependency the app cannot serve without. `check` resolves when it is usable and throws otherwise. */
export interface HealthIndicator {
  readonly name: string;
  check(): Promise<void>;
}

export const HEALTH_INDICATORS = Symbol('HEALTH_INDICATORS');

export interface ReadinessReport {
  status: 'ok' | 'unavailable';
  checks: Record<string, { status: 'up' | 'down'; latencyMs: number; error?: string }>;
}

export async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export async function checkReadiness(indicators: readonly HealthIndicator[], timeoutMs: number) {
  const entries = await Promise.all(
    indicators.map(async (indicator) => {
      const started = performance.now();
      try {
        await withTimeout(indicator.check(), timeoutMs, indicator.name);
        return [
          indicator.name,
          { status: 'up' as const, latencyMs: Math.round(performance.now() - started) },
        ];
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        return [
          indicator.name,
          { status: 'down' as const, latencyMs: Math.round(performance.now() - started), error: message },
        ];
      }
    }),
  );
  const checks: ReadinessReport['checks'] = Object.fromEntries(entries);
  const status = Object.values(checks).every((c) => c.status === 'up') ? 'ok' : 'unavailable';
  return { status, checks } satisfies ReadinessReport;
}
