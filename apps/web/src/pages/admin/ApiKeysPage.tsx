import type { StaffPageProps } from '../../staff-pages';

export function ApiKeysPage(_props: StaffPageProps) {
  return (
    <section className="page">
      <h1>API keys</h1>
    </section>
  );
}
