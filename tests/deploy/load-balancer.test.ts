/**
 * Compose's load balancer run: the real HAProxy with deploy/haproxy/haproxy.cfg and the files compose mounts, on
 * loopback ports, in front of a stand-in gateway (HTTPS with the gateway's certificate, echoing the headers it is
 * sent). What the configuration says it does, it does: port 80 redirects, HSTS on every answer, and the gateway
 * learns the address the client connected from, never one the client wrote.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, request as httpRequest, type Server } from 'node:http';
import { createServer as createHttpsServer, request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { freePort, REPO_ROOT } from '@clinic/devstack';
import { asOnHost, METRICS_PORT, mountedFiles, tlsDir } from './compose-stack';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function ask(url: string, headers: Record<string, string> = {}): Promise<Answer> {
  const secure = url.startsWith('https:');
  return new Promise((resolve, reject) => {
    const request = (secure ? httpsRequest : httpRequest)(
      url,
      { headers, ...(secure ? { ca: readFileSync(join(tlsDir, 'ca.crt')), servername: 'localhost' } : {}) },
      (response) => {
        let body = '';
        response.on('data', (chunk) => {
          body += chunk;
        });
        response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body }));
      },
    );
    request.on('error', reject);
    request.end();
  });
}

async function until<T>(what: string, check: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const value = await check().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within 15 s`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const ports = { http: 0, https: 0, monitor: 0, gateway: 0, readiness: 0 };
let gateway: Server;
let readiness: Server;
let haproxy: ChildProcess;
let said = '';

beforeAll(async () => {
  for (const name of Object.keys(ports) as (keyof typeof ports)[]) ports[name] = await freePort();
  // The stand-in gateway: its HTTPS port (the gateway's certificate, which HAProxy verifies) and its readiness port.
  gateway = createHttpsServer(
    { cert: readFileSync(join(tlsDir, 'gateway.crt')), key: readFileSync(join(tlsDir, 'gateway.key')) },
    (request, response) => response.end(JSON.stringify(request.headers)),
  ).listen(ports.gateway, '127.0.0.1');
  readiness = createHttpServer((_request, response) => response.end('ok')).listen(ports.readiness, '127.0.0.1');
  // The configuration compose mounts, on this machine's files and ports, with the one gateway instead of compose's DNS.
  const config = asOnHost(readFileSync(join(REPO_ROOT, 'deploy', 'haproxy', 'haproxy.cfg'), 'utf8'), mountedFiles('lb'))
    .replace('bind :8080', `bind 127.0.0.1:${ports.http}`)
    .replace('bind :8443', `bind 127.0.0.1:${ports.https}`)
    .replace('bind 127.0.0.1:8405', `bind 127.0.0.1:${ports.monitor}`)
    .replace(`check port ${METRICS_PORT}`, `check port ${ports.readiness}`)
    .replace(' resolvers docker init-addr none', '')
    .replace(/server-template gateway \d+ gateway:3000/, `server gateway1 127.0.0.1:${ports.gateway}`);
  const file = join(tlsDir, 'haproxy-run.cfg');
  writeFileSync(file, config);
  haproxy = spawn(existsSync('/usr/sbin/haproxy') ? '/usr/sbin/haproxy' : 'haproxy', ['-db', '-f', file]);
  haproxy.stdout!.on('data', (chunk) => {
    said += chunk;
  });
  haproxy.stderr!.on('data', (chunk) => {
    said += chunk;
  });
  // Up once it counts the gateway up (its own healthcheck's page).
  await until(`HAProxy (${said})`, async () =>
    (await ask(`http://127.0.0.1:${ports.monitor}/health`)).status === 200 ? true : undefined,
  );
}, 30_000);

afterAll(async () => {
  haproxy?.kill();
  await new Promise((resolve) => gateway?.close(resolve));
  await new Promise((resolve) => readiness?.close(resolve));
});

it('answers port 80 with a redirect to the same URL over HTTPS on 443, keeping the method (308), and serves nothing', async () => {
  for (const host of ['clinic.example.org', 'clinic.example.org:8080', '[fd00::1]:80']) {
    const answer = await ask(`http://127.0.0.1:${ports.http}/hospital_charges?store_id=1`, { host });
    expect({ host, status: answer.status, location: answer.headers.location, body: answer.body }).toEqual({
      host,
      status: 308,
      location: `https://${host.replace(/:\d+$/, '')}/hospital_charges?store_id=1`,
      body: '',
    });
  }
});

it("sends the gateway the address the client connected from, never the client's own X-Forwarded-For, and HSTS back", async () => {
  const answer = await ask(`https://127.0.0.1:${ports.https}/health`, { 'x-forwarded-for': '203.0.113.66' });
  expect(answer.status).toBe(200);
  const seen = JSON.parse(answer.body);
  expect({ for: seen['x-forwarded-for'], proto: seen['x-forwarded-proto'] }).toEqual({
    for: '127.0.0.1',
    proto: 'https',
  });
  expect(answer.headers['strict-transport-security']).toBe('max-age=31536000');
});

it('sends HSTS on its own answers too: a 503 while no gateway is up', async () => {
  await new Promise((resolve) => readiness.close(resolve));
  const answer = await until('the gateway marked down', async () => {
    const asked = await ask(`https://127.0.0.1:${ports.https}/health`);
    return asked.status === 503 ? asked : undefined;
  });
  expect(answer.headers['strict-transport-security']).toBe('max-age=31536000');
}, 30_000);
