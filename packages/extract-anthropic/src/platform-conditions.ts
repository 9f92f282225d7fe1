import type { ProviderErrorMetadata } from '@faultline/classify';
import { inspectTransportError, messageOf, safeGet, safeString } from '@faultline/classify/toolkit';
import { sdkConditionMetadata } from '@faultline/stainless';

/**
 * The words AnthropicVertex (`@anthropic-ai/vertex-sdk`) and AnthropicBedrock
 * (`@anthropic-ai/bedrock-sdk`) use for their own configuration before a request is sent (1.x,
 * observed). Both clients extend @anthropic-ai/sdk's client and throw its error classes; these are
 * the failures that are theirs alone.
 *
 * The client cannot tell where to send the call: Vertex has no region (`region`,
 * `CLOUD_ML_REGION`) or no project (`projectId`, `ANTHROPIC_VERTEX_PROJECT_ID`: the project is part
 * of every Vertex model path, as the region is of its host); Bedrock's `awsRegion` was cleared.
 * Plain `Error`s, not the SDK's classes.
 */
const PLACE_MISSING =
  /^(No region was given\. The client should be instantiated with the `region` option|No projectId was given and it could not be resolved from credentials\.|Expected `awsRegion` option to be passed to the client)/;

/**
 * `APIConnectionError`s the clients raise when no credential could be obtained: Google's
 * (Application Default Credentials absent, a refresh grant refused) or AWS's (no provider of the
 * chain had one). The SDK files them under connection errors so that its retries cover a metadata
 * server that did not answer; only a transport failure on the cause chain is one.
 */
const CREDENTIALS_UNRESOLVED =
  /^Failed to (acquire Google OAuth credentials|resolve AWS credentials from the credential provider chain)\./;

/** The reason the auth library gave: its message, and an OAuth error description when it has one. */
function credentialCause(cause: unknown): string | undefined {
  const message = messageOf(cause, 300).trim();
  const description = safeString(
    safeGet(safeGet(safeGet(cause, 'response'), 'data'), 'error_description'),
    300,
  );
  const text = description === undefined ? message : `${message}: ${description}`;
  return text.length > 0 ? text : undefined;
}

/** A plain `Error` of the platform clients' configuration, as `missing_region` metadata; else undefined. */
export function platformPlaceMissing(
  error: unknown,
  message: string,
  provider: string,
): ProviderErrorMetadata | undefined {
  return PLACE_MISSING.test(message)
    ? sdkConditionMetadata(error, provider, message, 'missing_region')
    : undefined;
}

/**
 * A platform client's "Failed to acquire/resolve ... credentials" whose cause is no transport
 * failure, as `missing_credentials` metadata with the auth library's reason; else undefined (a
 * metadata or token endpoint that could not be reached is read as the transport failure it is).
 */
export function platformCredentialsUnresolved(
  error: unknown,
  provider: string,
): ProviderErrorMetadata | undefined {
  const message = messageOf(error, 1000);
  if (!CREDENTIALS_UNRESOLVED.test(message)) return undefined;
  const cause = safeGet(error, 'cause');
  if (cause !== undefined && inspectTransportError(cause) !== undefined) return undefined;
  const reason = cause === undefined ? undefined : credentialCause(cause);
  return sdkConditionMetadata(
    error,
    provider,
    reason === undefined ? message : `${message} (${reason})`,
    'missing_credentials',
  );
}
