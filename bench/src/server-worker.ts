// Runs the loopback servers in a child process, so that the bench's process holds only the
// timers of the SDKs (and faultline) under test: the retry bench intercepts those.
import { providerEntry } from '@faultline/scenario-driver';
import {
  type LoopbackServer,
  loadScenarios,
  type Scenario,
  startLoopbackServer,
} from '@faultline/test-fixtures';

const scenarios = new Map<string, Scenario>(loadScenarios().map((scenario) => [scenario.id, scenario]));
const servers: Record<'http1' | 'h2c', LoopbackServer> = {
  http1: await startLoopbackServer({ protocol: 'http1' }),
  h2c: await startLoopbackServer({ protocol: 'h2c' }),
};
const registered = new Map<string, { server: LoopbackServer; scenario: Scenario }>();

process.on('message', async (message: { id: number; kind: string; scenarioId?: string }) => {
  if (message.kind === 'register') {
    const scenario = scenarios.get(message.scenarioId!)!;
    // A fresh registration per policy, so that request counts start at zero.
    const copy = structuredClone(scenario);
    const server = servers[providerEntry(scenario.provider)?.protocol ?? 'http1'];
    const baseUrl = server.baseUrlFor(copy);
    registered.set(`${message.id}`, { server, scenario: copy });
    process.send!({ id: message.id, baseUrl });
  } else if (message.kind === 'count') {
    const entry = registered.get(message.scenarioId!);
    process.send!({ id: message.id, count: entry ? entry.server.requests(entry.scenario).length : 0 });
  } else if (message.kind === 'close') {
    await Promise.all([servers.http1.close(), servers.h2c.close()]);
    process.send!({ id: message.id });
    process.disconnect();
  }
});
process.send!({ id: 0, ready: true });
