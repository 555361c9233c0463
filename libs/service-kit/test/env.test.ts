import { Limits } from '@clinic/contracts';
import { serviceSettings } from '../src/process/config';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readEnv } from '../src/process/env';
import { readOutsideSystems } from '../src/process/outside-systems';

const SCHEMA = {
  PORT: { type: 'integer', default: 3000 },
  HOST: { type: 'string', default: '0.0.0.0' },
  USER: { type: 'string' },
  LIMIT: { type: 'integer' },
  FLAG: { type: 'string', enum: ['true', 'false'], default: 'false' },
} as const;

describe('readEnv', () => {
  it('gives the defaults for unset and empty variables, and integers as numbers', () => {
    expect(readEnv(SCHEMA, {})).toEqual({ PORT: 3000, HOST: '0.0.0.0', FLAG: 'false' });
    expect(readEnv(SCHEMA, { PORT: '', HOST: '', USER: '' })).toEqual({ PORT: 3000, HOST: '0.0.0.0', FLAG: 'false' });
    expect(readEnv(SCHEMA, { PORT: '8080', USER: 'ops', LIMIT: '-5', FLAG: 'true', OTHER: 'x' })).toEqual({
      PORT: 8080,
      HOST: '0.0.0.0',
      USER: 'ops',
      LIMIT: -5,
      FLAG: 'true',
    });
  });

  it('stops on a value that is not an integer, or not one of the allowed, naming the variable', () => {
    expect(() => readEnv(SCHEMA, { PORT: 'abc' })).toThrow('Environment variable PORT must be an integer, got "abc"');
    expect(() => readEnv(SCHEMA, { PORT: '80.5' })).toThrow('Environment variable PORT must be an integer, got "80.5"');
    expect(() => readEnv(SCHEMA, { LIMIT: '99999999999999999' })).toThrow(
      'Environment variable LIMIT must be an integer, got "99999999999999999"',
    );
    expect(() => readEnv(SCHEMA, { FLAG: 'yes' })).toThrow('FLAG must be true or false, got "yes"');
    expect(() => readEnv(SCHEMA, { PORT: 'x', FLAG: 'yes' })).toThrow(
      /PORT must be an integer.*; FLAG must be true or false/,
    );
  });
});

describe('serviceSettings', () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
  });

  it('reads the kit’s variables and the service’s own with one schema', () => {
    process.env = {
      ...saved,
      MONGO_DB: '',
      REPLY_CHUNKS_MAX: '999',
      OWN: '7',
      // There is no default token key.
      JWT_SECRET: 'env-test',
    };
    const settings = serviceSettings('billing', { OWN: { type: 'integer', default: 1 } });
    expect(settings).toMatchObject({
      mongoDb: 'clinic_billing',
      replyChunksMax: Limits.replyChunksMax,
    });
    expect(settings.own.OWN).toBe(7);
  });

  it('reads the outside systems of an installation, refusing a bad list, and has `hospital` without one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'clinic-systems-'));
    const file = (name: string, content: unknown) => {
      writeFileSync(join(dir, name), JSON.stringify(content));
      return join(dir, name);
    };
    expect(readOutsideSystems(undefined).map((s) => s.name)).toEqual(['hospital']);
    const two = [
      { name: 'hospital', calls: true },
      { name: 'lab_system', reads: ['BILLING_EVENTS'] },
    ];
    expect(readOutsideSystems(file('two.json', two))).toEqual(two);
    expect(() => readOutsideSystems(file('bad.json', [{ name: 'Bad Name' }]))).toThrow(/bad\.json/);
    expect(() => readOutsideSystems(file('unknown.json', [{ name: 'x1', reads: ['NOPE'] }]))).toThrow(/unknown\.json/);
    expect(() => readOutsideSystems(file('twice.json', [{ name: 'aa' }, { name: 'aa' }]))).toThrow(/named twice/);
    rmSync(dir, { recursive: true, force: true });
  });
});
