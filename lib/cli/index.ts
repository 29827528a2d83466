export { runToolsCli, type ToolsCliModule, type ToolsCliOptions } from './run-tools-cli.js';
export { runCliCommand, type CliCommand, type CliCommandIO } from './cli-commands.js';
export { parseCliArguments, type CliArgumentsSource, type CliRequest } from './cli-arguments.js';
export { readCallArguments, type CliStdin } from './cli-input.js';
export { CLI_EXIT_CODES, CliUsageError, cliUsage } from './cli-usage.js';
