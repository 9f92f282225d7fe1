// Test support: a real Restate server (the npm package's binary) bound to 127.0.0.1 on free ports,
// with a temporary base dir, and an SDK endpoint on 127.0.0.1 registered with it.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttp2Server, type Http2Server, type ServerHttp2Session } from 'node:http2';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { arch, platform, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { endpoint } from '@restatedev/restate-sdk';

export interface RestateServer {
  readonly ingressUrl: string;
  readonly adminUrl: string;
  /** Serves `services` from an endpoint on 127.0.0.1 and registers it as a deployment. */
  register(services: Parameters<ReturnType<typeof endpoint>['bind']>[0][]): Promise<void>;
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** The binary @restatedev/restate-server ships in its platform package (what its `restate-server` bin spawns). */
function serverBinary(): string {
  const require = createRequire(import.meta.url);
  const launcher = require.resolve('@restatedev/restate-server/package.json');
  return createRequire(launcher).resolve(
    `@restatedev/restate-server-${platform()}-${arch()}/bin/restate-server`,
  );
}

export async function startRestateServer(): Promise<RestateServer> {
  const baseDir = mkdtempSync(join(tmpdir(), 'faultline-restate-'));
  const [ingressPort, adminPort, nodePort] = [await freePort(), await freePort(), await freePort()];
  const output: string[] = [];
  const child: ChildProcess = spawn(serverBinary(), ['--no-logo', '--base-dir', baseDir], {
    cwd: dirname(baseDir),
    env: {
      PATH: process.env.PATH,
      HOME: baseDir,
      RESTATE_BIND_IP: '127.0.0.1',
      RESTATE_BIND_PORT: String(nodePort),
      RESTATE_ADMIN__BIND_PORT: String(adminPort),
      RESTATE_INGRESS__BIND_PORT: String(ingressPort),
      RESTATE_LISTEN_MODE: 'tcp',
      RESTATE_NODE_NAME: 'faultline-test',
      RESTATE_DEFAULT_NUM_PARTITIONS: '2',
      RESTATE_ROCKSDB_TOTAL_MEMORY_SIZE: '256MB',
      RESTATE_DISABLE_TELEMETRY: 'true',
      RESTATE_LOG_DISABLE_ANSI_CODES: 'true',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const keep = (chunk: Buffer) => {
    output.push(String(chunk));
    if (output.length > 200) output.shift();
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const adminUrl = `http://127.0.0.1:${adminPort}`;
  const endpoints: Http2Server[] = [];
  const sessions = new Set<ServerHttp2Session>();

  const close = async () => {
    // Restate keeps its HTTP/2 sessions to the endpoint open: end them, or close() waits forever.
    for (const session of sessions) session.destroy();
    for (const server of endpoints) await new Promise<void>((resolve) => server.close(() => resolve()));
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killer);
    }
    rmSync(baseDir, { recursive: true, force: true });
  };

  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      await close();
      throw new Error(`restate-server exited before it was healthy:\n${output.join('')}`);
    }
    const healthy = await fetch(`${adminUrl}/health`).then(
      (response) => response.ok,
      () => false,
    );
    if (healthy) break;
    if (Date.now() > deadline) {
      await close();
      throw new Error(`restate-server was not healthy after 60 s:\n${output.join('')}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }

  return {
    ingressUrl: `http://127.0.0.1:${ingressPort}`,
    adminUrl,
    async register(services) {
      // The SDK logs every failed attempt with its stack (the tests fail attempts on purpose): keep CI output readable.
      const builder = endpoint().setLogger(() => undefined);
      for (const service of services) builder.bind(service);
      const server = createHttp2Server(builder.http2Handler());
      endpoints.push(server);
      server.on('session', (session: ServerHttp2Session) => {
        sessions.add(session);
        session.once('close', () => sessions.delete(session));
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
      const { port } = server.address() as { port: number };
      const response = await fetch(`${adminUrl}/deployments`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ uri: `http://127.0.0.1:${port}` }),
      });
      if (!response.ok)
        throw new Error(`registering the deployment failed: ${response.status} ${await response.text()}`);
    },
    close,
  };
}
