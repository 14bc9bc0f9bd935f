import { checksumProblems, type FileDigest, type Manifest, ManifestError, parseManifest } from './manifest';

const sha = (c: string) => c.repeat(64);

export const sampleManifest = (): Manifest => ({
  format: 'echoloop-backup',
  version: 1,
  createdAt: '2026-12-05T03:00:00.000Z',
  database: {
    name: 'echoloop',
    serverVersion: '15.18',
    migrationHead: { id: 2, timestamp: 1795312600000, name: 'PersonalApiKeys1795312600000' },
    migrations: 2,
    tables: 34,
    dump: 'database.dump',
  },
  pgDumpVersion: 'pg_dump (PostgreSQL) 15.18',
  artifacts: [{ name: 'rl', source: '/srv/rl', archive: 'artifacts/rl.tar', entries: 1 }],
  files: [
    { name: 'database.dump', bytes: 10, sha256: sha('a') },
    { name: 'artifacts/rl.tar', bytes: 20, sha256: sha('b') },
  ],
});

const digests =
  (files: Record<string, { bytes: number; sha256: string }>): FileDigest =>
  async (name) =>
    files[name] ?? null;

describe('backup manifest', () => {
  it('reads a whole manifest back', () => {
    const manifest = sampleManifest();
    expect(parseManifest(JSON.stringify(manifest))).toEqual(manifest);
  });

  it.each([
    ['not JSON', '{', /is not JSON/],
    ['another format', JSON.stringify({ ...sampleManifest(), format: 'x' }), /format/],
    [
      'a dump it does not list',
      JSON.stringify({ ...sampleManifest(), files: sampleManifest().files.slice(1) }),
      /database.dump is not among the files/,
    ],
    [
      'a path leaving the folder',
      JSON.stringify({
        ...sampleManifest(),
        files: [...sampleManifest().files, { name: '../etc/passwd', bytes: 1, sha256: sha('c') }],
      }),
      /inside the backup folder/,
    ],
    [
      'a bad migration head',
      JSON.stringify({
        ...sampleManifest(),
        database: { ...sampleManifest().database, migrationHead: { name: 'X' } },
      }),
      /migrationHead/,
    ],
  ])('refuses %s', (_what, text, message) => {
    expect(() => parseManifest(text)).toThrow(ManifestError);
    expect(() => parseManifest(text)).toThrow(message);
  });

  it('finds nothing wrong with files as listed', async () => {
    const manifest = sampleManifest();
    const files = Object.fromEntries(manifest.files.map(({ name, ...d }) => [name, d]));
    await expect(checksumProblems(manifest, digests(files))).resolves.toEqual([]);
  });

  it('names a tampered file, a truncated one and a missing one', async () => {
    const problems = await checksumProblems(
      sampleManifest(),
      digests({ 'database.dump': { bytes: 10, sha256: sha('f') } }),
    );
    expect(problems).toEqual(['database.dump does not match its sha256', 'artifacts/rl.tar is missing']);
    await expect(
      checksumProblems(sampleManifest(), digests({ 'database.dump': { bytes: 9, sha256: sha('a') } })),
    ).resolves.toContain('database.dump has 9 bytes, the manifest says 10');
  });
});
