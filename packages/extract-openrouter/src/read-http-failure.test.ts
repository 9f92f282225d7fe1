import { httpReaderCheck } from '@faultline/test-fixtures/http-reader-check';
import { readHttpFailure } from './index.ts';

// Any transport (the AI SDK's APICallError, LangChain, a raw fetch) hands faultline the response
// as { status, headers, body }: readHttpFailure must give every recorded HTTP failure the
// classification the client's own error gets, and stay total on hostile input (the check every
// extract-* package runs).
httpReaderCheck({ provider: 'openrouter', read: readHttpFailure });
