import { success, type ServiceReply } from '@clinic/contracts';
import type { HandlerContext } from '../src/nats/responder';
import { subjectHandlers } from '../src/nats/subject-handlers';

const SUBJECTS = { get: 'demo.thing.get', list: 'demo.thing.list', closeDay: 'demo.day.close' } as const;

class Things {
  constructor(private readonly name: string) {}
  async get(): Promise<ServiceReply> {
    return success(200, { got: this.name });
  }
  async list(): Promise<ServiceReply> {
    return success(200, { listed: this.name });
  }
  async close(): Promise<ServiceReply> {
    return success(200, { closed: this.name });
  }
}

it('answers each subject with the method of its key, or the one it is mapped to, bound to its operations', async () => {
  const things = new Things('t');
  const handlers = {
    ...subjectHandlers(SUBJECTS, things, ['get', 'list']),
    ...subjectHandlers(SUBJECTS, things, { closeDay: 'close' }),
  };
  expect(Object.keys(handlers).sort()).toEqual(['demo.day.close', 'demo.thing.get', 'demo.thing.list']);
  const ctx = {} as HandlerContext;
  expect(await handlers['demo.thing.get']!({} as never, ctx)).toMatchObject({ body: { got: 't' } });
  expect(await handlers['demo.thing.list']!({} as never, ctx)).toMatchObject({ body: { listed: 't' } });
  expect(await handlers['demo.day.close']!({} as never, ctx)).toMatchObject({ body: { closed: 't' } });
});
