/** What the tests of the kit's adapters to library internals share (nats-internals, mongo-driver-internals). */

/** The outcome of `work`: 'resolved', its error, or 'hung' if it has not settled within `ms`. */
export async function settlesWithin(work: Promise<unknown>, ms: number): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise((resolve) => {
    timer = setTimeout(() => resolve('hung'), ms);
  });
  try {
    return await Promise.race([
      work.then(
        () => 'resolved',
        (err: unknown) => err,
      ),
      hung,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Whether libs/service-kit/package.json pins `library` to an exact version and that version is the one installed;
 * both versions come along, for the failure's message.
 */
export function pinOf(library: 'nats' | 'mongodb') {
  const kit = require('../package.json') as { dependencies: Record<string, string> };
  const pinned = kit.dependencies[library] ?? '';
  const installed = (require(`${library}/package.json`) as { version: string }).version;
  return { pinned, installed, exact: /^\d+\.\d+\.\d+$/.test(pinned), installedIsPinned: installed === pinned };
}
