export { createLangChainTools, type LangChainToolsOptions } from './create-langchain-tools.js';
export { isToolInterrupt, type ToolInterrupt } from './graph-asking.js';
export type { ToolAnswer, ToolAsk, ToolQuestion } from '../core/asking.js';
