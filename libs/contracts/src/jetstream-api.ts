/** JetStream API subjects (nats-server 2.9 and later; nats.js uses the CREATE form with the consumer's name). */
export const JS = {
  accountInfo: '$JS.API.INFO',
  streamInfo: (stream: string) => `$JS.API.STREAM.INFO.${stream}`,
  streamCreate: (stream: string) => `$JS.API.STREAM.CREATE.${stream}`,
  streamUpdate: (stream: string) => `$JS.API.STREAM.UPDATE.${stream}`,
  /** Hands a clustered stream's leadership to another of its replicas (`{"placement":{"preferred":"n2"}}`: to that one). */
  streamLeaderStepdown: (stream: string) => `$JS.API.STREAM.LEADER.STEPDOWN.${stream}`,
  /** The latest message of each of several subjects, answered by any replica of a stream with allow_direct. */
  directGet: (stream: string) => `$JS.API.DIRECT.GET.${stream}`,
  consumerInfo: (stream: string, consumer: string) => `$JS.API.CONSUMER.INFO.${stream}.${consumer}`,
  /** `$JS.API.CONSUMER.CREATE.<stream>.<consumer>[.<filter subject>]`, for create and update alike. */
  consumerCreate: (stream: string, consumer: string) => `$JS.API.CONSUMER.CREATE.${stream}.${consumer}`,
  next: (stream: string, consumer: string) => `$JS.API.CONSUMER.MSG.NEXT.${stream}.${consumer}`,
  ack: (stream: string, consumer: string) => `$JS.ACK.${stream}.${consumer}.>`,
};
