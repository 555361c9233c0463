import { Limits } from '@clinic/contracts';
import { serviceSettings } from '../src/process/config';
import { readEnv } from '../src/process/env';
import { consumerNames } from '../src/nats/provision';

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

  it("reads provisioning's consumer names apart, and refuses one a consumer cannot hold", () => {
    expect(consumerNames('EVENT_READERS', ' a, b ,a')).toEqual(['a', 'b']);
    expect(() => consumerNames('EVENT_READERS', 'ok,not ok')).toThrow(
      'EVENT_READERS: not ok cannot name a consumer (letters, digits, - and _ only)',
    );
  });
});
