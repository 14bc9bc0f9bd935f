// What an idle outbox relay costs on its own, with nothing to publish: this process's CPU time and the
// transactions committed in its database, for the relay polling every 250 ms (how it ran before LISTEN/NOTIFY) and
// for the relay woken by notifications with a 5 s safety poll (how OUTBOX_RELAY_PROVIDERS runs it). Prints a JSON
// line per mode.
//
//   node -r @swc-node/register bench/outbox-relay-idle.ts [--seconds 45]
//
// Needs the local stack's PostgreSQL and Kafka: tools/stack/stack.sh up postgres kafka.
import { dataSourceOptions } from '@echoloop/persistence';
import { EventPublisher, MetricsService, OutboxRelay, type OutboxRelayOptions } from '@echoloop/platform';
import { createTestDatabase, testKafka } from '@echoloop/testing';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { DataSource } from 'typeorm';
import { formatTable, writeBenchResult } from './bench-env';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '45' } } });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function main(): Promise<void> {
  const db = await createTestDatabase('bench_relay_idle');
  const dataSource = await new DataSource(dataSourceOptions({ url: db.url })).initialize();
  await dataSource.runMigrations();
  const publisher = new EventPublisher(testKafka('bench-relay-idle'));
  const commits = async () => {
    await dataSource.query('SELECT pg_stat_clear_snapshot()');
    const [row] = await dataSource.query<{ n: string }[]>(
      'SELECT xact_commit AS n FROM pg_stat_database WHERE datname = current_database()',
    );
    return Number(row?.n);
  };
  const base = { batchSize: 500, maxBackoffMs: 5_000, retainPublishedMs: 86_400_000 };
  const modes: [string, OutboxRelayOptions][] = [
    ['poll every 250 ms', { ...base, idleMs: 250 }],
    [
      'LISTEN/NOTIFY, safety poll every 5 s',
      { ...base, idleMs: 5_000, listen: { connectionString: db.url, applicationName: 'bench-relay' } },
    ],
  ];
  const rows: {
    mode: string;
    seconds: number;
    cpuMs: number;
    cpuPercent: number;
    dbCommitsPerSecond: number;
  }[] = [];
  try {
    for (const [mode, options] of modes) {
      const relay = new OutboxRelay(
        dataSource,
        publisher,
        new MetricsService('bench'),
        pino({ level: 'silent' }),
        options,
      );
      relay.start();
      await sleep(3_000);
      const [cpu0, tx0, t0] = [process.cpuUsage(), await commits(), performance.now()];
      await sleep(Number(values.seconds) * 1_000);
      const [cpu, tx1, t1] = [process.cpuUsage(cpu0), await commits(), performance.now()];
      await relay.stop();
      const seconds = (t1 - t0) / 1_000;
      const cpuMs = (cpu.user + cpu.system) / 1_000;
      const row = {
        mode,
        seconds: Math.round(seconds),
        cpuMs: Math.round(cpuMs),
        cpuPercent: Math.round((cpuMs / 10 / seconds) * 100) / 100,
        dbCommitsPerSecond: Math.round(((tx1 - tx0) / seconds) * 10) / 10,
      };
      console.log(JSON.stringify(row));
      rows.push(row);
    }
    const table = formatTable(
      ['idle outbox relay', 'over s', 'CPU ms', 'CPU % of a core', 'database commits/s'],
      rows.map((r) => [r.mode, r.seconds, r.cpuMs, r.cpuPercent, r.dbCommitsPerSecond].map(String)),
    );
    process.stdout.write(table);
    writeBenchResult('outbox-relay-idle.json', { rows }, table);
  } finally {
    await publisher.disconnect();
    await dataSource.destroy();
    await db.drop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
