// Preloaded into an app under test (APP_NODE_ARGS='-r …'): prints `FAULT_PID <pid>` and, on each SIGWINCH (which
// neither Node nor Nest handles), makes one error nothing handles: first a promise rejection nobody awaits, then an
// uncaught exception.
process.stdout.write(`FAULT_PID ${process.pid}\n`);
let faults = 0;
process.on('SIGWINCH', () => {
  faults += 1;
  if (faults === 1) void Promise.reject(new Error('a rejection nothing handles'));
  else
    setImmediate(() => {
      throw new Error('an exception nothing catches');
    });
});
