import Module from 'node:module';
import { join } from 'node:path';

// tools/stack/model.sh starts this server with `node -r @swc-node/register`, which reads path
// aliases only from ./tsconfig.json, and the workspace keeps them in tsconfig.base.json. Map
// `@echoloop/<lib>` here the same way tsconfig.base.json and jest.config.cjs do. Importing this
// first in main.ts is enough; it does nothing once swc has already rewritten the aliases.
const workspaceRoot = join(__dirname, '..', '..', '..');
const workspaceAlias = /^@echoloop\/([a-z-]+)$/;

type ResolveFilename = (this: unknown, request: string, ...rest: unknown[]) => string;
const loader = Module as unknown as { _resolveFilename: ResolveFilename };
const resolveFilename = loader._resolveFilename;

loader._resolveFilename = function resolveWorkspaceAlias(request, ...rest) {
  const lib = workspaceAlias.exec(request)?.[1];
  const target = lib === undefined ? request : join(workspaceRoot, 'libs', lib, 'src', 'index.ts');
  return resolveFilename.call(this, target, ...rest);
};
