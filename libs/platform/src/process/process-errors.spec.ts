import { EventEmitter } from 'node:events';
import { Counter, Registry } from 'prom-client';
import { handleProcessErrors, type ProcessErrorSinks, type ProcessEvents } from './process-errors';

function setup() {
  const registry = new Registry();
  const counter = new Counter({
    name: 'process_errors_total',
    help: 'h',
    labelNames: ['kind'] as const,
    registers: [registry],
  });
  const sinks = { error: jest.fn(), fatal: jest.fn(), exit: jest.fn(), counter } satisfies ProcessErrorSinks;
  const events = new EventEmitter();
  const remove = handleProcessErrors(sinks, events as unknown as ProcessEvents);
  const count = async (kind: string) =>
    (await counter.get()).values.find((v) => v.labels['kind'] === kind)?.value ?? 0;
  return { sinks, events, remove, count };
}

describe('handleProcessErrors', () => {
  it('logs and counts an unhandled rejection, and the process goes on', async () => {
    const { sinks, events, count } = setup();
    const reason = new Error('nobody awaited me');
    events.emit('unhandledRejection', reason);
    expect(sinks.error).toHaveBeenCalledWith(
      { err: reason, kind: 'unhandled_rejection' },
      expect.stringContaining('rejected'),
    );
    expect(await count('unhandled_rejection')).toBe(1);
    expect(sinks.exit).not.toHaveBeenCalled();
  });

  it('logs, counts and ends the process once on uncaught exceptions', async () => {
    const { sinks, events, count } = setup();
    const error = new Error('broken state');
    events.emit('uncaughtException', error);
    events.emit('uncaughtException', new Error('while closing'));
    expect(sinks.fatal).toHaveBeenCalledWith({ err: error, kind: 'uncaught_exception' }, expect.any(String));
    expect(await count('uncaught_exception')).toBe(2);
    expect(sinks.exit).toHaveBeenCalledTimes(1);
  });

  it('removes its handlers when asked', () => {
    const { events, remove } = setup();
    remove();
    expect(events.listenerCount('unhandledRejection')).toBe(0);
    expect(events.listenerCount('uncaughtException')).toBe(0);
  });
});
