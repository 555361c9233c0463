/**
 * Secrets given as files (docker compose `secrets:`, mounted under /run/secrets): `<NAME>_FILE` names the file whose
 * text is NAME's value, so that no password sits in a container's environment (`docker inspect`, /proc/<pid>/environ,
 * every child process). MONGO_PASSWORD goes into MONGO_URL, whose user it is, so that the URL itself holds none.
 */
import { readFileSync } from 'node:fs';

/** The variables a process may be given as `<NAME>_FILE`. */
export const SECRET_FILE_VARIABLES = ['JWT_SECRET', 'NATS_PASSWORD', 'MONGO_PASSWORD'] as const;

/** The file's text without the line break editors and `echo` leave at its end. */
function readSecret(name: string, path: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`${name}_FILE names ${path}, which cannot be read: ${(err as Error).message}`);
  }
  const value = text.replace(/\r?\n$/, '');
  if (!value) throw new Error(`${name}_FILE names ${path}, which is empty`);
  return value;
}

/** `url` (mongodb:// or mongodb+srv://, one host or several) with `password` for the user it names. */
export function withMongoPassword(url: string, password: string): string {
  const match = /^(mongodb(?:\+srv)?:\/\/)([^@/?]*)@/.exec(url);
  if (!match) throw new Error('MONGO_PASSWORD is set, but MONGO_URL names no user (mongodb://user@host/...)');
  const user = match[2]!; // the group always takes part in a match
  if (user.includes(':')) throw new Error('MONGO_PASSWORD is set, and MONGO_URL holds a password too: give one');
  return `${match[1]}${user}:${encodeURIComponent(password)}@${url.slice(match[0].length)}`;
}

/**
 * `env` with each `<NAME>_FILE` read into NAME (both set is refused: which one wins would be a guess) and
 * MONGO_PASSWORD put into MONGO_URL. `env` itself is left as it is.
 */
export function withSecretFiles(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const result = { ...env };
  for (const name of SECRET_FILE_VARIABLES) {
    const path = env[`${name}_FILE`];
    if (!path) continue;
    if (env[name]) throw new Error(`Set ${name} or ${name}_FILE, not both`);
    result[name] = readSecret(name, path);
  }
  const password = result.MONGO_PASSWORD;
  if (password) {
    if (!result.MONGO_URL) throw new Error('MONGO_PASSWORD is set without MONGO_URL, which names its user');
    result.MONGO_URL = withMongoPassword(result.MONGO_URL, password);
  }
  return result;
}
