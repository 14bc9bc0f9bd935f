import Module from 'node:module';
import { join } from 'node:path';
import ts from 'typescript';
import { z } from 'zod';

// tools/stack/model.sh starts this server with `node -r @swc-node/register`, which takes path aliases
// only from a usable ./tsconfig.json; the workspace keeps them in tsconfig.base.json. This resolves
// them from there. Importing it first in main.ts is enough; once swc has rewritten the aliases itself,
// no specifier matches and it does nothing.
const workspaceRoot = join(__dirname, '..', '..', '..');
const baseConfigSchema = z.object({
  compilerOptions: z.object({ paths: z.record(z.string(), z.array(z.string())) }),
});
const { config } = ts.readConfigFile(join(workspaceRoot, 'tsconfig.base.json'), ts.sys.readFile);
const aliases = Object.entries(baseConfigSchema.parse(config).compilerOptions.paths);

function aliasTarget(request: string): string | undefined {
  for (const [pattern, [target]] of aliases) {
    if (target === undefined) continue;
    if (pattern === request) return join(workspaceRoot, target);
    const [prefix, suffix] = pattern.split('*');
    if (suffix !== undefined && request.startsWith(prefix ?? '') && request.endsWith(suffix)) {
      const star = request.slice((prefix ?? '').length, request.length - suffix.length);
      return join(workspaceRoot, target.replace('*', star));
    }
  }
  return undefined;
}

type ResolveFilename = (this: unknown, request: string, ...rest: unknown[]) => string;
const loader = Module as unknown as { _resolveFilename: ResolveFilename };
const resolveFilename = loader._resolveFilename;

loader._resolveFilename = function resolveWorkspaceAlias(request, ...rest) {
  return resolveFilename.call(this, aliasTarget(request) ?? request, ...rest);
};
