// Preloaded into an app under test (APP_NODE_ARGS='-r …'): once its HTTP server listens, prints one line,
// `EXPRESS_ROUTES <json>`, listing every request handler route on the Express router (method and path).
// Nest binds middleware (`forRoutes('*')`) as router routes too: those layers are recorded and left out.
const http = require('node:http');
const { ExpressAdapter } = require('@nestjs/platform-express');

const middlewareLayers = new WeakSet();
const routerOf = (app) => app && (app.router || app._router);

const createMiddlewareFactory = ExpressAdapter.prototype.createMiddlewareFactory;
ExpressAdapter.prototype.createMiddlewareFactory = function (requestMethod) {
  const bind = createMiddlewareFactory.call(this, requestMethod);
  return (...args) => {
    const stack = routerOf(this.getInstance()).stack;
    const before = stack.length;
    const result = bind(...args);
    stack.slice(before).forEach((layer) => middlewareLayers.add(layer));
    return result;
  };
};

const createServer = http.createServer;
http.createServer = function (...args) {
  const server = createServer.apply(this, args);
  const app = args.find((arg) => typeof arg === 'function');
  server.once('listening', () => {
    const routes = (routerOf(app)?.stack ?? [])
      .filter((layer) => layer.route && !middlewareLayers.has(layer))
      .flatMap((layer) =>
        Object.keys(layer.route.methods)
          .filter((method) => layer.route.methods[method])
          .map((method) => ({ method, path: layer.route.path })),
      );
    process.stdout.write(`EXPRESS_ROUTES ${JSON.stringify(routes)}\n`);
  });
  return server;
};
