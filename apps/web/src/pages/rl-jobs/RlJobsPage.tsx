import type { StaffPageProps } from '../../staff-page-props';
import { RlJobDetail } from './RlJobDetail';
import { RlJobList } from './RlJobList';
import './rl-jobs.css';

/** RL refreshes (experimenters and admins): the list and a new one, or one job with its stages and logs. */
export function RlJobsPage({ id }: StaffPageProps) {
  return id ? <RlJobDetail id={id} /> : <RlJobList />;
}
