import type { ErrorReport } from '@faultline/render';
import { recoverErrorReport } from '@faultline/restate';
import * as clients from '@restatedev/restate-sdk-clients';
import type { LlmService } from './llm-service.ts';

export async function ask(
  ingressUrl: string,
  prompt: string,
): Promise<{ answer: string } | { report: ErrorReport }> {
  const ingress = clients.connect({ url: ingressUrl });
  try {
    return { answer: await ingress.serviceClient<LlmService>({ name: 'llm' }).chat(prompt) };
  } catch (error) {
    // The report the handler raised, rebuilt from the terminal error's metadata.
    return { report: recoverErrorReport(error) };
  }
}
