import { lazy, type ComponentType, type LazyExoticComponent } from 'react';
import type { StaffSection } from './router';
import type { StaffPageProps } from './staff-page-props';

interface StaffPage {
  label: string;
  /** Roles that may open it; admins pass every check, as on the gateway, which checks every call anyway. */
  roles: readonly string[];
  component: LazyExoticComponent<ComponentType<StaffPageProps>>;
}

/** Staff pages load on demand, so the chat's bundle does not carry them. */
const page = <K extends string>(
  load: () => Promise<Record<K, ComponentType<StaffPageProps>>>,
  name: K,
): LazyExoticComponent<ComponentType<StaffPageProps>> =>
  lazy(() => load().then((m) => ({ default: m[name] })));

export const STAFF_PAGES: Record<StaffSection, StaffPage> = {
  experiments: {
    label: 'Experiments',
    roles: ['experimenter'],
    component: page(() => import('./pages/experiments/ExperimentsPage'), 'ExperimentsPage'),
  },
  checkpoints: {
    label: 'Checkpoints',
    roles: ['experimenter'],
    component: page(() => import('./pages/checkpoints/CheckpointsPage'), 'CheckpointsPage'),
  },
  'rl-jobs': {
    label: 'RL jobs',
    roles: ['experimenter'],
    component: page(() => import('./pages/rl-jobs/RlJobsPage'), 'RlJobsPage'),
  },
  evaluations: {
    label: 'Evaluations',
    roles: ['experimenter', 'analyst'],
    component: page(() => import('./pages/evaluations/EvaluationsPage'), 'EvaluationsPage'),
  },
  turns: {
    label: 'Turns',
    roles: ['analyst'],
    component: page(() => import('./pages/turns/TurnsPage'), 'TurnsPage'),
  },
  exports: {
    label: 'Exports',
    roles: ['analyst'],
    component: page(() => import('./pages/exports/ExportsPage'), 'ExportsPage'),
  },
  users: {
    label: 'Users',
    roles: [],
    component: page(() => import('./pages/admin/UsersPage'), 'UsersPage'),
  },
  'api-keys': {
    label: 'API keys',
    roles: [],
    component: page(() => import('./pages/admin/ApiKeysPage'), 'ApiKeysPage'),
  },
};

export const mayOpen = (section: StaffSection, roles: readonly string[]): boolean =>
  roles.includes('admin') || STAFF_PAGES[section].roles.some((role) => roles.includes(role));
