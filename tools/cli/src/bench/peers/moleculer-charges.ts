/**
 * The peer of issue 31's comparison, its service: Moleculer 0.15 with its
 * MemoryCacher, answering the charge list of a branch from the same embedded
 * database, over a NATS transporter. Never invalidated across processes: the
 * price it serves may have changed a second ago (docs/CACHE.md).
 * Usage: node moleculer-charges.js <nats url> <mongo url>
 */
import { MongoClient } from 'mongodb';
import { ServiceBroker, type Context } from 'moleculer';

async function main(): Promise<void> {
  const [natsUrl, mongoUrl] = process.argv.slice(2);
  const mongo = await MongoClient.connect(mongoUrl!);
  const charges = mongo.db('clinic_catalogue').collection('charges');
  const broker = new ServiceBroker({
    nodeID: 'charges',
    transporter: { type: 'NATS', options: { url: natsUrl } },
    cacher: 'Memory',
    logger: false,
  });
  broker.createService({
    name: 'charges',
    actions: {
      list: {
        cache: { keys: ['store_id'] },
        async handler(ctx: Context<{ store_id: string }>) {
          const docs = await charges.find({ store_id: Number(ctx.params.store_id), is_deleted: false }).toArray();
          return { success: true, charges: docs.map(({ _id, ...charge }) => charge) };
        },
      },
    },
  });
  await broker.start();
  process.stdout.write('ready\n');
  process.once('SIGTERM', () => void broker.stop().finally(() => mongo.close()));
}

void main();
