import { TOOL_METHODS, TOOL_TRANSPORTS } from './types.js';

/**
 * What the core says when a tool, resource, prompt or registry cannot be composed: each message
 * names what was declared, where, and what would fix it. Thrown as a `ToolsConfigurationError`.
 */
export const CORE_MESSAGES = {
  // Names.
  underivableName: (serviceName: string, action: string, part: 'the action' | 'the service name') =>
    `Cannot derive a tool name from service "${serviceName}" and action "${action}": ` +
    `${part} has no letters or digits. Set an explicit \`name\`.`,
  toolName: (name: string, origin: string, why: string) =>
    `Tool name "${name}" (${origin}) ${why}. Set a shorter or plainer \`name\`.`,
  duplicateName: (name: string, first: string, second: string, label = 'tool name') =>
    `Duplicate ${label} "${name}": declared by ${first} and by ${second}. ` +
    'Rename one of them, or keep only one.',

  // Tool specs.
  noIdentity: (origin: string) =>
    `Tool ${origin} has no identity: give it { serviceName, action, method }.`,
  noDescription: (name: string, origin: string) =>
    `${tool(name, origin)} needs a non-empty description.`,
  unknownMethod: (name: string, origin: string, method: unknown) =>
    `${tool(name, origin)} has method "${String(method)}"; use one of ${TOOL_METHODS.join(', ')}.`,
  inputNotObject: (name: string, origin: string) =>
    `${tool(name, origin)} must have an object input schema (z.object({...}), v.object({...}), ` +
    "type({...}) or a JSON Schema with type: 'object'); wrap a scalar or union in an object.",
  outputNotSchema: (name: string, origin: string) =>
    `${tool(name, origin)} has an output that is not a schema; give a Zod schema, another ` +
    'Standard Schema or a JSON Schema object, or leave `output` out.',
  contextNotSchema: (name: string, origin: string) =>
    `${tool(name, origin)} has a context that is not a schema; give a Zod schema, another ` +
    'Standard Schema or a JSON Schema object, or leave `context` out.',
  noTransport: (name: string, origin: string) =>
    `${tool(name, origin)} must be exposed on at least one transport; omit \`transports\` for MCP and AGENT.`,
  unknownTransport: (name: string, origin: string, transport: unknown) =>
    `${tool(name, origin)} lists unknown transport "${String(transport)}"; use ${TOOL_TRANSPORTS.join(', ')}.`,
  timeoutMs: (name: string, origin: string, timeoutMs: unknown) =>
    `${tool(name, origin)} has timeoutMs ${timeoutMs}; use a positive number.`,
  scope: (name: string, origin: string, scope: unknown) =>
    `${tool(name, origin)} has scope ${JSON.stringify(scope)}; a scope is printable ASCII without spaces, quotes or backslashes.`,
  tags: (name: string, origin: string, tags: unknown) =>
    `${tool(name, origin)} has tags ${JSON.stringify(tags)}; give a list of labels of letters, ` +
    'digits and _ . : / - (1 to 64 characters each).',
  task: (name: string, origin: string, task: unknown) =>
    `${tool(name, origin)} has task ${JSON.stringify(task)}; use 'optional' or 'required'.`,
  taskOnOperation: (name: string, origin: string, kind: 'resource' | 'prompt') =>
    `"${name}" (${origin}) is a ${kind}: only tools run as tasks. Remove \`task\`.`,
  presentersWithoutOutput: (name: string, origin: string) =>
    `${tool(name, origin)} has presenters but no output schema to present: ` +
    'declare `output`, or remove `present`.',
  noHandler: (name: string, origin: string) => `${tool(name, origin)} needs a handler function.`,
  icons: (owner: string) => `${owner}: icons must be a list of { src, mimeType?, sizes?, theme? }.`,
  icon: (owner: string, icon: unknown) =>
    `${owner}: the icon ${JSON.stringify(icon)} is not { src: an https: or data: URI, mimeType?, sizes?: string[], theme?: 'light' | 'dark' }.`,
  metaNotObject: (owner: string) => `${owner}: _meta must be an object.`,
  metaKey: (owner: string, key: string) =>
    `${owner}: the _meta key "${key}" is not [prefix/]name (e.g. "com.example/owner").`,

  // Resources, resource templates and prompts.
  operationName: (kind: 'resource' | 'prompt', name: unknown) =>
    `A ${kind} needs a \`name\` (^[a-zA-Z0-9_-]{1,64}$), got ${JSON.stringify(name)}.`,
  operationHandler: (kind: 'resource' | 'prompt', name: string) =>
    `The ${kind} "${name}" needs a ${kind === 'prompt' ? 'get' : 'read'} function.`,
  resourceUri: (name: string) =>
    `The resource "${name}" needs a plain \`uri\`; for a URI with variables use a resource template.`,
  templateUri: (name: string) =>
    `The resource template "${name}" needs a \`uriTemplate\` with at least one {variable}; for a fixed URI use a resource.`,
  templateVariables: (name: string) =>
    `The resource template "${name}" needs \`variables\`: a Zod object, one key per variable.`,
  templateKeys: (
    name: string,
    keys: readonly string[],
    uriTemplate: string,
    named: readonly string[],
  ) =>
    `The resource template "${name}": its variables schema has the keys ${keys.join(', ') || '(none)'}, but ` +
    `"${uriTemplate}" names ${named.join(', ')}. Give the schema one key per variable.`,
  promptArgs: (name: string) =>
    `The prompt "${name}" needs \`args\`: a Zod object of string fields.`,
  promptArgument: (name: string, key: string) =>
    `The prompt "${name}": argument "${key}" is not a string. MCP prompt arguments are strings: use ` +
    'z.string() or z.enum([...]), and parse numbers in `get`.',
  completesUndeclared: (owner: string, key: string) =>
    `${owner} completes "${key}", which it does not declare: remove complete.${key}, or declare it.`,
  completer: (owner: string, key: string, methods: boolean) =>
    `${owner}: complete.${key} must be a function${methods ? ' or the name of a method of the class' : ''}.`,

  // Tool classes, factories and registries.
  notToolClass: (className: string) =>
    `${className} is not a tool class: decorate it with @ToolFactory and its methods with @Tool.`,
  factoryContext: (serviceName: string) =>
    `Tool factory "${serviceName}" needs a \`context\` schema (Zod, another Standard Schema or a JSON Schema object).`,
  notATool: (entry: string) =>
    `Not a tool: ${entry}. Use defineRuntimeTool(...) or a class decorated with @ToolFactory.`,
  registryDefaults: () =>
    'defineToolRegistry needs { defaults: [...] }: a list of tools and tool classes.',
  undeclaredDefault: (verb: 'disable' | 'replace', name: string, declared: readonly string[]) =>
    `Tool registry ${verb}("${name}") names no default; declared: ${[...declared].sort().join(', ') || '(none)'}.`,
  replaceDisabled: (name: string) =>
    `Tool registry cannot replace "${name}": it is disabled. Drop the disable("${name}") call to replace it.`,
  replacedTwice: (name: string) =>
    `Tool registry already replaced "${name}". Replace each default once.`,
  replacementName: (name: string, carried: readonly string[]) =>
    `A replacement for "${name}" must carry that name, not ${carried.map((each) => `"${each}"`).join(', ')}.`,
  notACollection: (collection: string) =>
    `Expected a tool registry, its build() result or a list of tools, got ${collection}.`,
  noMethod: (name: string, origin: string, className: string, method: string) =>
    `Tool "${name}" (${origin}) has no method to call: ${className} has no method "${method}". ` +
    'Add the method, or decorate the method that exists.',
  noBoundHandler: (name: string, origin: string) =>
    `Tool "${name}" (${origin}) has no method to call: the \`bind\` option returned no handler for it. ` +
    'Return { handler } from `bind`.',
  completerNotMethod: (
    name: string,
    origin: string,
    argument: string,
    completer: string,
    owner: string,
  ) =>
    `"${name}" (${origin}) completes "${argument}" with "${completer}", which is not a method of ${owner}. ` +
    'Add the method, or give a function.',
  sameUri: (
    first: string,
    firstOrigin: string,
    second: string,
    secondOrigin: string,
    uri: string,
  ) =>
    `The resources "${first}" (${firstOrigin}) and "${second}" (${secondOrigin}) are both at "${uri}": ` +
    'give each its own URI.',
  maxDepth: (value: unknown) =>
    `createToolInvoker's maxDepth must be a non-negative integer (how deep calls may nest), got ${String(value)}.`,
  notExposed: (caller: string, key: 'include' | 'exclude', transport: string, unknown: string) =>
    `${caller}({ ${key} }) names a tool not exposed on ${transport}: ${unknown}`,

  // Schemas, URI templates and questions.
  unrepresentable: (owner: string | undefined, io: string, at: string, reason: string) =>
    `${schema(owner, io)} cannot be expressed in JSON Schema, at ${at}: ${reason}.`,
  unconvertible: (owner: string | undefined, io: string, reason: string) =>
    `${schema(owner, io)} cannot be converted to JSON Schema: ${reason}`,
  noJsonSchema: (owner: string | undefined, io: string, vendor: string) =>
    `${schema(owner, io)} (a ${vendor} schema) has no JSON Schema for MCP to list: use the ` +
    "library's Standard JSON Schema form (Valibot: toStandardJsonSchema of " +
    '@valibot/to-json-schema), or give one with withJsonSchema(schema, { type: ... }).',
  withJsonSchemaNotStandard: () =>
    'withJsonSchema(schema, jsonSchema) takes a Standard Schema (Zod, Valibot, ArkType, …) first.',
  withJsonSchemaNotDocument: () =>
    'withJsonSchema(schema, jsonSchema) takes a JSON Schema object second, e.g. { type: "object" }.',
  invalidJsonSchema: (owner: string | undefined, io: string, reason: string) =>
    `${schema(owner, io)} is not a valid JSON Schema: ${reason}`,
  unclosedExpression: (template: string) =>
    `URI template "${template}" has an unclosed "{": close it with "}".`,
  templateExpression: (template: string, expression: string) =>
    `URI template "${template}" has the expression {${expression}}: ` +
    'name its variables with letters, digits, "_" and ".", one "*" at most after a name.',
  elicitationNotObject: (owner: string) =>
    `${owner}: an elicitation schema must be a Zod object (z.object({...})) of flat fields.`,
  elicitationField: (owner: string, key: string, problem: string) =>
    `${owner}: elicitation field "${key}" ${problem}. MCP elicitation carries flat fields ` +
    'only: z.string() (optionally .email(), z.url(), z.iso.date(), z.iso.datetime()), ' +
    'z.number(), z.int(), z.boolean(), z.enum([...]) (or a union of titled literals) and ' +
    'z.array(z.enum([...])).',
  asks: (owner: string) =>
    `${owner}: asks must be { confirm?: true, elicit?: [z.object(...), …] }.`,
  asksConfirm: (owner: string) => `${owner}: asks.confirm must be true or false.`,
  asksElicit: (owner: string) => `${owner}: asks.elicit must be a list of Zod object schemas.`,
  confirmUndeclared: (name: string) =>
    `Tool "${name}" asked for a confirmation without declaring it: add asks: { confirm: true }.`,
  elicitUndeclared: (name: string) =>
    `Tool "${name}" elicited with a schema it does not declare: list it in asks.elicit.`,
} as const;

/** `Tool "name" (origin)`: how a message names a tool. */
function tool(name: string, origin: string): string {
  return `Tool "${name}" (${origin})`;
}

/** The schema a JSON Schema message is about: its owner's, or an anonymous one. */
function schema(owner: string | undefined, io: string): string {
  return owner === undefined ? `This ${io} schema` : `${owner}: its ${io} schema`;
}
