/**
 * What operators run against an installation, apart from the dev and test stack (libs/devstack): the backup and
 * restore of the embedded default. The installation's own parts (binaries, secrets, a NATS server to restore
 * into) are passed in by the caller (tools/cli).
 */
export * from './backup/embedded';
