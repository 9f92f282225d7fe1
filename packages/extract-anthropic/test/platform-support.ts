// AnthropicVertex and AnthropicBedrock at the loopback server, for this package's tests (not part of the build).
import { AnthropicBedrock } from '@anthropic-ai/bedrock-sdk';
import { AnthropicVertex } from '@anthropic-ai/vertex-sdk';
import { OAuth2Client } from 'google-auth-library';
import type { AnyClient } from './support.ts';

export const VERTEX_ACCESS_TOKEN = 'ya29.faultlineCanaryAccessToken0000';
export const VERTEX_MODEL = 'claude-sonnet-4-5@20250929';

/** A Google access token that needs no refresh (a canary): AnthropicVertex sends it as it is. */
export function vertexAuthClient(): OAuth2Client {
  const client = new OAuth2Client();
  client.setCredentials({ access_token: VERTEX_ACCESS_TOKEN, expiry_date: Date.now() + 3_600_000 });
  return client;
}

/** AnthropicVertex at the loopback server: it calls `<baseURL>/projects/…/models/<model>:rawPredict`. */
export function vertexClientFor(baseUrl: string, timeout = 5_000): AnyClient {
  return new AnthropicVertex({
    region: 'us-east5',
    projectId: 'faultline-test',
    baseURL: `${baseUrl}/v1`,
    authClient: vertexAuthClient(),
    maxRetries: 0,
    timeout,
  }) as unknown as AnyClient;
}

/** Static AWS credentials (AWS's documented example keys: canaries, never real). */
export const AWS_CREDENTIALS = {
  awsAccessKey: 'AKIAIOSFODNN7EXAMPLE',
  awsSecretKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
} as const;
export const BEDROCK_MODEL = 'anthropic.claude-sonnet-4-5-20250929-v1:0';

/** AnthropicBedrock at the loopback server: it calls `/model/<id>/invoke(-with-response-stream)`, SigV4-signed. */
export function bedrockClientFor(baseUrl: string, timeout = 5_000): AnyClient {
  return new AnthropicBedrock({
    ...AWS_CREDENTIALS,
    awsRegion: 'us-east-1',
    baseURL: baseUrl,
    maxRetries: 0,
    timeout,
  }) as unknown as AnyClient;
}

/** The two platform clients, keyed by their npm name (their devDependency, and `sdkPackage` of a matrix). */
export const PLATFORMS = [
  {
    alias: '@anthropic-ai/vertex-sdk',
    folder: 'anthropic-vertex',
    clientFor: vertexClientFor,
    model: VERTEX_MODEL,
  },
  {
    alias: '@anthropic-ai/bedrock-sdk',
    folder: 'anthropic-bedrock',
    clientFor: bedrockClientFor,
    model: BEDROCK_MODEL,
  },
] as const;
