import type { StaffPageProps } from '../../staff-pages';

export function RlJobsPage(_props: StaffPageProps) {
  return (
    <section className="page">
      <h1>RL jobs</h1>
    </section>
  );
}
