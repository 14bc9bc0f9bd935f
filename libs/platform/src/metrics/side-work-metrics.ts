import type { MetricsService } from './metrics.service';

/**
 * The metrics of background model work giving way to users' replies (the hooks of libs/llm's SideWorkLane): how
 * long it waited for the engine, whether it went anyway after its longest wait, and how often a reply preempted it.
 */
export function sideWorkMetrics(metrics: MetricsService) {
  const waited = metrics.histogram(
    'model_side_work_wait_seconds',
    'Time background model work (judges, persona, director, summaries) waited for the engine to be free of replies',
    ['forced'],
    [0.1, 0.5, 1, 2, 5, 10, 30, 60],
  );
  const preempted = metrics.counter(
    'model_side_work_preemptions_total',
    'Background model requests aborted because a reply came to the engine (each runs again later)',
  );
  return {
    onAdmit: ({ waitedMs, forced }: { waitedMs: number; forced: boolean }) =>
      waited.observe({ forced: String(forced) }, waitedMs / 1_000),
    onPreempt: () => preempted.inc(),
  };
}
