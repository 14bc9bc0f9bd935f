import type { StaffPageProps } from '../../staff-pages';

export function EvaluationsPage(_props: StaffPageProps) {
  return (
    <section className="page">
      <h1>Evaluations</h1>
    </section>
  );
}
