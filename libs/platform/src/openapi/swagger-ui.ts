import { readFileSync } from 'node:fs';
import path from 'node:path';

/** The Swagger UI files the docs page loads, served from the installed package (no CDN: hosts may be offline). */
const JAVASCRIPT = 'text/javascript; charset=utf-8';
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': JAVASCRIPT,
  'swagger-ui-standalone-preset.js': JAVASCRIPT,
  'favicon-32x32.png': 'image/png',
};

const initializer = (base: string) => `window.onload = () => {
  window.ui = SwaggerUIBundle({
    url: '${base}/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    layout: 'StandaloneLayout',
  });
};
`;

/** The docs page; `base` is the docs route's absolute path (`/docs`, or under the global prefix). */
export const swaggerUiHtml = (title: string, base: string): string => `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>${title} API</title>
    <link rel="stylesheet" href="${base}/swagger-ui.css" />
    <link rel="icon" type="image/png" href="${base}/favicon-32x32.png" />
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="${base}/swagger-ui-bundle.js"></script>
    <script src="${base}/swagger-ui-standalone-preset.js"></script>
    <script src="${base}/swagger-initializer.js"></script>
  </body>
</html>
`;

const packageDir = () => path.dirname(require.resolve('swagger-ui-dist/package.json'));

/** A docs asset by file name, or undefined when it is not one (never a path: the name is looked up, not joined). */
export function swaggerUiAsset(
  name: string,
  base: string,
): { body: Buffer | string; contentType: string } | undefined {
  if (name === 'swagger-initializer.js') return { body: initializer(base), contentType: JAVASCRIPT };
  const contentType = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
  if (!contentType) return undefined;
  let body = cache.get(name);
  if (!body) cache.set(name, (body = readFileSync(path.join(packageDir(), name))));
  return { body, contentType };
}

const cache = new Map<string, Buffer>();
