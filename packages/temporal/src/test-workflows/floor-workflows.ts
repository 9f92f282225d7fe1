// Workflows for the replay test of the floor. They are bundled into Temporal's workflow sandbox.
import { errorFromMetadata } from '@faultline/render/toolkit';
import { withFaultlineWorkflow } from '../workflow.ts';

/** A domain failure raised by workflow code itself: the model answered something unusable. */
function domainFailure() {
  return errorFromMetadata({
    provider: 'openai',
    origin: 'http',
    statusCode: 400,
    message: "This model's maximum context length is 8192 tokens.",
    providerCode: 'context_length_exceeded',
  });
}

export async function throwsFaultlineError(): Promise<string> {
  throw domainFailure();
}

export async function wrappedThrowsFaultlineError(): Promise<string> {
  return withFaultlineWorkflow(async () => {
    throw domainFailure();
  });
}
