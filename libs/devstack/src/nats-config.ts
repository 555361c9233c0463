export interface NatsConfigOptions {
  listen: string;
  storeDir: string;
}

/** nats-server configuration for the local stack: JetStream on, payloads up to 1 MiB. */
export function renderNatsConfig(options: NatsConfigOptions): string {
  return [
    `listen: ${JSON.stringify(options.listen)}`,
    'max_payload: 1048576',
    'jetstream {',
    `  store_dir: ${JSON.stringify(options.storeDir)}`,
    '  max_memory_store: 268435456',
    '  max_file_store: 4294967296',
    '}',
    '',
  ].join('\n');
}
