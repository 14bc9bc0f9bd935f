import react from '@vitejs/plugin-react';
import path from 'node:path';
import { defineConfig } from 'vite';
import { bundleBudget } from './bundle-budget.mts';

const root = path.resolve(import.meta.dirname);

// Built into dist/apps/web; the gateway serves that folder at `/` (WEB_DIST_DIR). `nx serve web` proxies the API
// to a gateway on GATEWAY_URL (default the local one).
export default defineConfig({
  root,
  // The chat page's JavaScript stays under 200 kB gzipped (dist/apps/web/bundle-size.json has the numbers).
  plugins: [react(), bundleBudget(200_000)],
  // The one shared library the browser app may use (plain types and constants): see eslint.config.mjs.
  resolve: { alias: { '@echoloop/vocabulary': path.resolve(root, '../../libs/vocabulary/src/index.ts') } },
  build: { outDir: path.resolve(root, '../../dist/apps/web'), emptyOutDir: true, sourcemap: true },
  server: {
    proxy: Object.fromEntries(
      ['/v1', '/socket.io'].map((prefix) => [
        prefix,
        { target: process.env['GATEWAY_URL'] ?? 'http://127.0.0.1:3000', ws: prefix === '/socket.io' },
      ]),
    ),
  },
});
