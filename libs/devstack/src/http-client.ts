import { request as plainRequest, type IncomingHttpHeaders } from 'node:http';
import { request as tlsRequest } from 'node:https';

export interface HttpRequestOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** For https: the CA the server's certificate must chain to (else the system's CAs). */
  ca?: string | Buffer;
  timeoutMs?: number;
}

export interface HttpAnswer {
  status: number;
  headers: Headers;
  body: Buffer;
}

function toHeaders(raw: IncomingHttpHeaders): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  return headers;
}

/**
 * One HTTP or HTTPS request, answered with its whole body: what the stack's
 * own tools and tests use where the gateway may serve HTTPS under a local CA
 * (Node's fetch cannot be given a CA).
 */
export function httpRequest(url: string, options: HttpRequestOptions = {}): Promise<HttpAnswer> {
  const target = new URL(url);
  const send = target.protocol === 'https:' ? tlsRequest : plainRequest;
  return new Promise((resolve, reject) => {
    const req = send(
      target,
      {
        method: options.method ?? 'GET',
        headers: options.headers,
        ...(options.ca ? { ca: options.ca } : {}),
        timeout: options.timeoutMs ?? 30_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: toHeaders(res.headers), body: Buffer.concat(chunks) }),
        );
      },
    );
    req.on('timeout', () => req.destroy(new Error(`No answer from ${url} in time`)));
    req.on('error', reject);
    req.end(options.body);
  });
}
