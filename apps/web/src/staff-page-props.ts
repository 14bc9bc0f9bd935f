/** What a staff page gets from the address: `/<section>/<id>`. */
export interface StaffPageProps {
  id?: string | undefined;
}
