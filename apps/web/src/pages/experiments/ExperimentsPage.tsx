import type { StaffPageProps } from '../../staff-page-props';
import { ExperimentDetail } from './ExperimentDetail';
import { ExperimentList } from './ExperimentList';

/** Experiments over checkpoints (experimenters and admins): the list and a new one, or one's results. */
export function ExperimentsPage({ id }: StaffPageProps) {
  return id ? <ExperimentDetail id={id} /> : <ExperimentList />;
}
