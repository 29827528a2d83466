export { createLangChainTools, type LangChainToolsOptions } from './create-langchain-tools.js';
export type { ToolSelection } from '../core/tool-selection.js';
