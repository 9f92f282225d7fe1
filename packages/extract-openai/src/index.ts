export { detectOpenAIBlockedAnswer, OPENAI_PROVIDER, openaiExtractor } from './extract-openai.ts';
