import type { StaffPageProps } from '../../staff-pages';

export function TurnsPage(_props: StaffPageProps) {
  return (
    <section className="page">
      <h1>Turns</h1>
    </section>
  );
}
