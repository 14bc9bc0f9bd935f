import { execFileSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../../..');

/** Stops or starts a real stack component (tools/stack/<component>.sh), for failure tests. */
export function stackComponent(component: 'postgres' | 'kafka' | 'model', action: 'up' | 'down'): void {
  execFileSync('bash', [path.join(ROOT, 'tools/stack', `${component}.sh`), action], {
    stdio: 'pipe',
    timeout: 120_000,
  });
}
