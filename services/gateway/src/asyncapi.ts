/**
 * The AsyncAPI document of the NATS subjects (generated from libs/contracts)
 * at /docs/asyncapi.json, rendered at /docs/asyncapi by the AsyncAPI React
 * component's standalone bundle, served from node_modules: the page loads
 * nothing from the internet, so it works on an offline hospital network.
 */
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { asyncApiDocument } from '@clinic/contracts';

export const ASYNCAPI_PATHS = { document: '/docs/asyncapi.json', page: '/docs/asyncapi' } as const;

const ASSETS: Record<string, { file: string; type: string }> = {
  'standalone.js': { file: 'browser/standalone/index.js', type: 'text/javascript; charset=utf-8' },
  'default.min.css': { file: 'styles/default.min.css', type: 'text/css; charset=utf-8' },
};

// Relative links: the page works behind a proxy that mounts the gateway under a prefix.
const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Clinic NATS API (AsyncAPI)</title>
  <link rel="stylesheet" href="asyncapi/default.min.css">
</head>
<body>
  <div id="asyncapi"></div>
  <script src="asyncapi/standalone.js"></script>
  <script>
    AsyncApiStandalone.render(
      { schema: { url: 'asyncapi.json', options: { method: 'GET' } }, config: { show: { sidebar: true } } },
      document.getElementById('asyncapi'),
    );
  </script>
</body>
</html>
`;

export function registerAsyncApiDocs(app: FastifyInstance): void {
  const document = JSON.stringify(asyncApiDocument());
  const componentDir = dirname(require.resolve('@asyncapi/react-component/package.json'));
  const loaded = new Map<string, Promise<Buffer>>();
  const hide = { schema: { hide: true } };

  app.get(ASYNCAPI_PATHS.document, hide, (_request, reply) =>
    reply.type('application/json; charset=utf-8').send(document),
  );
  app.get(ASYNCAPI_PATHS.page, hide, (_request, reply) => reply.type('text/html; charset=utf-8').send(PAGE));
  app.get<{ Params: { asset: string } }>(`${ASYNCAPI_PATHS.page}/:asset`, hide, async (request, reply) => {
    const asset = ASSETS[request.params.asset];
    if (!asset) return reply.callNotFound();
    if (!loaded.has(asset.file)) loaded.set(asset.file, readFile(join(componentDir, asset.file)));
    return reply
      .type(asset.type)
      .header('cache-control', 'public, max-age=3600')
      .send(await loaded.get(asset.file)!);
  });
}
