import { useId } from 'react';
import type { MetricResult } from './types';
import { DifferenceChart } from './DifferenceChart';
import { fmt, fmtInterval, metricLabel } from '../../ui/format';

export function MetricSection({ metric }: { metric: MetricResult }) {
  const id = useId();
  const title = metricLabel(metric.metric);
  return (
    <section className="metric" aria-labelledby={`${id}-title`} data-metric={metric.metric}>
      <h3 id={`${id}-title`}>
        {title}
        {metric.guardrail && <span className="muted"> (guardrail)</span>}
      </h3>
      <div className="metric-body">
        <div className="table-scroll" role="region" aria-label={`${title} by arm`} tabIndex={0}>
          <table className="data-table">
            <thead>
              <tr>
                <th scope="col">Arm</th>
                <th scope="col">Users</th>
                <th scope="col">Mean</th>
                <th scope="col">95% CI</th>
                <th scope="col">Δ vs control [95% CI]</th>
                <th scope="col">p</th>
              </tr>
            </thead>
            <tbody>
              {metric.arms.map((arm) => {
                const comparison = metric.comparisons.find((c) => c.armId === arm.armId);
                return (
                  <tr key={arm.armId}>
                    <th scope="row">{arm.armId}</th>
                    <td>{arm.users}</td>
                    <td>{fmt(arm.mean)}</td>
                    <td>{fmtInterval(arm.ci)}</td>
                    <td>
                      {comparison?.welch
                        ? `${fmt(comparison.welch.difference)} ${fmtInterval(comparison.welch.ci)}`
                        : comparison
                          ? '–'
                          : 'control'}
                    </td>
                    <td>{fmt(comparison?.welch?.pValue)}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
        {metric.comparisons.length > 0 && <DifferenceChart title={title} comparisons={metric.comparisons} />}
      </div>
    </section>
  );
}
