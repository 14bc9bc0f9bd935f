import type { StaffPageProps } from '../../staff-pages';

export function UsersPage(_props: StaffPageProps) {
  return (
    <section className="page">
      <h1>Users</h1>
    </section>
  );
}
