import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { ArtifactName } from './manifest';

/**
 * The artifact store's folders, from the apps' own variables and defaults: dataset exports (the gateway's and the
 * dataset CLI's EXPORT_DIR, libs/datasets/src/dataset-env.ts) and RL snapshots and job outputs, trained adapters
 * among them (the rl-orchestrator's RL_WORK_DIR, apps/rl-orchestrator/src/env.ts). Relative paths are the apps'
 * working folder's, the repository root.
 */
export const ARTIFACT_FOLDERS: Record<ArtifactName, { variable: string; default: string }> = {
  exports: { variable: 'EXPORT_DIR', default: 'exports' },
  rl: { variable: 'RL_WORK_DIR', default: '.infra/rl' },
};

export interface ArtifactRoot {
  name: ArtifactName;
  /** Absolute. */
  dir: string;
  variable: string;
}

export function artifactRoots(env: NodeJS.ProcessEnv, cwd: string): ArtifactRoot[] {
  return (Object.entries(ARTIFACT_FOLDERS) as [ArtifactName, { variable: string; default: string }][]).map(
    ([name, folder]) => ({
      name,
      variable: folder.variable,
      dir: path.resolve(cwd, env[folder.variable] || folder.default),
    }),
  );
}

/** True when `inner` is `outer` or inside it. */
export function isWithin(inner: string, outer: string): boolean {
  const relative = path.relative(outer, inner);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

/** Entries in a folder; 0 when it does not exist. */
export async function entriesIn(dir: string): Promise<number> {
  try {
    return (await readdir(dir)).length;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
}
