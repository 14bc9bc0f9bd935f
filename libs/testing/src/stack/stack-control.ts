import { execFile, execFileSync } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

const ROOT = path.resolve(__dirname, '../../../..');
type Component = 'postgres' | 'kafka' | 'model';
const script = (component: Component) => path.join(ROOT, 'tools/stack', `${component}.sh`);

/** Stops or starts a real stack component (tools/stack/<component>.sh), for failure tests. */
export function stackComponent(component: Component, action: 'up' | 'down'): void {
  execFileSync('bash', [script(component), action], { stdio: 'pipe', timeout: 120_000 });
}

/**
 * The same without blocking the test's event loop, for a component slow to start (the model engine takes about a
 * minute): a blocked loop would keep the test's HTTP clients from noticing connections the servers closed meanwhile.
 */
export async function stackComponentAsync(component: Component, action: 'up' | 'down'): Promise<void> {
  await promisify(execFile)('bash', [script(component), action], { timeout: 300_000 });
}
