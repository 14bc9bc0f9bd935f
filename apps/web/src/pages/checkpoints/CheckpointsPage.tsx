import type { StaffPageProps } from '../../staff-pages';

export function CheckpointsPage(_props: StaffPageProps) {
  return (
    <section className="page">
      <h1>Checkpoints</h1>
    </section>
  );
}
