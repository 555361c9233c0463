import { createContextKey, ROOT_CONTEXT } from '@opentelemetry/api';
import { NoActiveContext } from '../src/process/no-active-context';

const key = createContextKey('request');
const manager = new NoActiveContext();

it('runs the function given to with, with its this and arguments, and returns what it returns', () => {
  const target = { factor: 3 };
  const result = manager.with(
    ROOT_CONTEXT.setValue(key, 'span'),
    function (this: typeof target, a: number, b: number) {
      return (a + b) * this.factor;
    },
    target,
    1,
    2,
  );
  expect(result).toBe(9);
});

it('keeps no context active, inside with or across an await: the gateway passes its spans along itself', async () => {
  const seen = await manager.with(ROOT_CONTEXT.setValue(key, 'span'), async () => {
    const inside = manager.active().getValue(key);
    await new Promise((resolve) => setImmediate(resolve));
    return [inside, manager.active().getValue(key)];
  });
  expect(seen).toEqual([undefined, undefined]);
  const fn = () => 'bound';
  expect(manager.bind(ROOT_CONTEXT.setValue(key, 'span'), fn)).toBe(fn);
  expect(manager.enable().disable()).toBe(manager);
});
