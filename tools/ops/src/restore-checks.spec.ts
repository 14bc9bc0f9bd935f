import { dumpVersionProblem, postgresMajor, schemaVerdict } from './restore-checks';

const CODE = ['Init1700000000000', 'Labels1710000000000', 'Exports1720000000000'];
const head = (name: string) => ({ id: 1, timestamp: Number(name.slice(-13)), name });

describe('schemaVerdict', () => {
  it('accepts a backup at this code’s head, with nothing to run after', () => {
    expect(schemaVerdict(head('Exports1720000000000'), CODE)).toEqual({ refusal: null, behind: [] });
  });

  it('accepts an older backup and names the migrations to run after the restore', () => {
    expect(schemaVerdict(head('Init1700000000000'), CODE)).toEqual({
      refusal: null,
      behind: ['Labels1710000000000', 'Exports1720000000000'],
    });
  });

  it('accepts a database that was never migrated: every migration runs after', () => {
    expect(schemaVerdict(null, CODE)).toEqual({ refusal: null, behind: CODE });
  });

  it('refuses a backup made by newer code, and says to restore it with that code', () => {
    const verdict = schemaVerdict(head('Future1730000000000'), CODE);
    expect(verdict.refusal).toMatch(/newer than this code.*Future1730000000000.*Exports1720000000000/);
  });

  it('refuses a head this code never had, even an older one', () => {
    expect(schemaVerdict(head('Branch1705000000000'), CODE).refusal).toMatch(
      /Branch1705000000000 is not one of this code's migrations/,
    );
  });
});

describe('dumpVersionProblem', () => {
  const v = (major: number) => `pg_dump (PostgreSQL) ${major}.4 (Debian ${major}.4-1.pgdg120+1)`;

  it('reads the major version from the tools’ --version line', () => {
    expect(postgresMajor(v(15))).toBe(15);
    expect(postgresMajor('pg_restore (PostgreSQL) 16.2')).toBe(16);
    expect(postgresMajor('something else')).toBeNull();
  });

  it('lets pg_restore read dumps of its own version and older ones', () => {
    expect(dumpVersionProblem(v(15), v(15))).toBeNull();
    expect(dumpVersionProblem(v(14), v(16))).toBeNull();
  });

  it('refuses a dump from a newer pg_dump, naming both versions', () => {
    expect(dumpVersionProblem(v(17), v(15))).toMatch(/PostgreSQL 17's pg_dump; this pg_restore is 15/);
  });
});
