import { useId } from 'react';
import type { MetricResult } from './types';
import { DifferenceChart } from './DifferenceChart';
import { fmt, fmtInterval, metricLabel } from '../../ui/format';
import { DataTable } from '../../ui/DataTable';

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
        <DataTable
          label={`${title} by arm`}
          columns={[
            'Arm',
            'Users',
            'Mean',
            '95% CI',
            'Δ vs control [95% CI]',
            'p',
            'CUPED Δ [95% CI]',
            'p (Holm)',
          ]}
        >
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
                <td
                  title={
                    comparison?.cuped
                      ? `θ ${fmt(comparison.cuped.theta)}; ${comparison.cuped.usersWithPrePeriod} users with a pre-period; variance ${fmt(100 * comparison.cuped.varianceReduction)}% lower`
                      : undefined
                  }
                >
                  {comparison?.cuped
                    ? `${fmt(comparison.cuped.difference)} ${fmtInterval(comparison.cuped.ci)}`
                    : comparison
                      ? '–'
                      : ''}
                </td>
                <td>{fmt(comparison?.holmPValue)}</td>
              </tr>
            );
          })}
        </DataTable>
        {metric.comparisons.length > 0 && <DifferenceChart title={title} comparisons={metric.comparisons} />}
      </div>
    </section>
  );
}
