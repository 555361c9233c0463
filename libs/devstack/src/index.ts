export * from './paths';
export * from './ports';
export * from './process';
export * from './nats-config';
export * from './infra';
export * from './stack';
export * from './seed';
export * from './tokens';
