import type { StaffPageProps } from '../../staff-page-props';
import './admin.css';
import { UserDetail } from './UserDetail';
import { UserList } from './UserList';

/** Accounts for admins: the list at `/users`, one account with its roles and audit trail at `/users/<id>`. */
export function UsersPage({ id }: StaffPageProps) {
  return id ? <UserDetail key={id} id={id} /> : <UserList />;
}
