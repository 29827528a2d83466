/**
 * The tools the official MCP conformance suite (`@modelcontextprotocol/conformance`) calls,
 * declared through toolwright like any application tool: each handler runs in the canonical
 * runner, `present.mcp` supplies the non-text content blocks, the error tool fails with a
 * `ToolError` (an `isError` result), and progress and logging go through the handler's
 * `reportProgress` and `log`. Every handler records its invocation in a {@link ConformanceCalls},
 * so the runner can prove a scenario really reached the tool (some suite checks also pass on a
 * "tool not found" answer).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import {
  definePrompt,
  defineResource,
  defineResourceTemplate,
  defineRuntimeTool,
  ToolError,
  type RuntimeOperation,
  type RuntimeTool,
} from '../../lib/index.js';

/** How many times each fixture tool's handler ran. */
export class ConformanceCalls {
  private readonly counts = new Map<string, number>();

  record(name: string): void {
    this.counts.set(name, (this.counts.get(name) ?? 0) + 1);
  }

  snapshot(): Record<string, number> {
    return Object.fromEntries(this.counts);
  }
}

/** A 1x1 red PNG. */
const RED_PIXEL_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';

/** A minimal WAV: 8 kHz, mono, 8-bit, eight samples of silence. */
function silentWav(samples = 8): string {
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + samples, 4);
  header.write('WAVE', 8, 'ascii');
  header.write('fmt ', 12, 'ascii');
  header.writeUInt32LE(16, 16); // fmt chunk size
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(8000, 24); // sample rate
  header.writeUInt32LE(8000, 28); // byte rate
  header.writeUInt16LE(1, 32); // block align
  header.writeUInt16LE(8, 34); // bits per sample
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(samples, 40);
  return Buffer.concat([header, Buffer.alloc(samples, 0x80)]).toString('base64');
}

const noInput = z.object({});
const media = z.object({ data: z.string(), mimeType: z.string() });
const text = z.object({ text: z.string() });
const presentText = ({ text }: { text: string }) => ({ content: [{ type: 'text', text }] });

/** The `$defs.address` of `json_schema_2020_12_tool`: a Zod schema with an id is emitted as a `$ref`. */
const address = z
  .object({ street: z.string().optional(), city: z.string().optional() })
  .meta({ id: 'address' });

/** What `test_elicitation` asks: a user name and an email address. */
const UserDetails = z.object({
  username: z.string().describe("User's response"),
  email: z.string().describe("User's email address"),
});

/** SEP-1034: a default on every kind of field. */
const WithDefaults = z.object({
  name: z.string().default('John Doe'),
  age: z.int().default(30),
  score: z.number().default(95.5),
  status: z.enum(['active', 'inactive', 'pending']).default('active'),
  verified: z.boolean().default(true),
});

/** SEP-1330: the five shapes of an enum. */
const EnumShapes = z.object({
  untitledSingle: z.enum(['option1', 'option2', 'option3']),
  titledSingle: z.union([
    z.literal('value1').meta({ title: 'First Option' }),
    z.literal('value2').meta({ title: 'Second Option' }),
    z.literal('value3').meta({ title: 'Third Option' }),
  ]),
  legacyEnum: z
    .enum(['opt1', 'opt2', 'opt3'])
    .meta({ enumNames: ['Option One', 'Option Two', 'Option Three'] }),
  untitledMulti: z.array(z.enum(['option1', 'option2', 'option3'])),
  titledMulti: z.array(
    z.union([
      z.literal('value1').meta({ title: 'First Choice' }),
      z.literal('value2').meta({ title: 'Second Choice' }),
      z.literal('value3').meta({ title: 'Third Choice' }),
    ]),
  ),
});

/** The text the elicitation fixtures answer with: the user's action and content. */
function userResponse(answer: { action: string; content?: unknown }): string {
  return `User response: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`;
}

/** The fixture tools, resources and prompts, each recording its runs in `calls`. */
export function conformanceTools(calls: ConformanceCalls): Array<RuntimeTool | RuntimeOperation> {
  return [
    ...conformanceOperations(calls),
    defineRuntimeTool({
      name: 'test_simple_text',
      description: 'Returns a simple text response',
      identity: { serviceName: 'conformance', action: 'simple_text', method: 'GET' },
      input: noInput,
      output: text,
      present: { mcp: presentText },
      handler: ({ call }) => {
        calls.record(call.name);
        return { text: 'This is a simple text response for testing.' };
      },
    }),
    defineRuntimeTool({
      name: 'test_image_content',
      description: 'Returns image content',
      identity: { serviceName: 'conformance', action: 'image_content', method: 'GET' },
      input: noInput,
      output: media,
      present: { mcp: ({ data, mimeType }) => ({ content: [{ type: 'image', data, mimeType }] }) },
      handler: ({ call }) => {
        calls.record(call.name);
        return { data: RED_PIXEL_PNG, mimeType: 'image/png' };
      },
    }),
    defineRuntimeTool({
      name: 'test_audio_content',
      description: 'Returns audio content',
      identity: { serviceName: 'conformance', action: 'audio_content', method: 'GET' },
      input: noInput,
      output: media,
      present: { mcp: ({ data, mimeType }) => ({ content: [{ type: 'audio', data, mimeType }] }) },
      handler: ({ call }) => {
        calls.record(call.name);
        return { data: silentWav(), mimeType: 'audio/wav' };
      },
    }),
    defineRuntimeTool({
      name: 'test_embedded_resource',
      description: 'Returns an embedded resource',
      identity: { serviceName: 'conformance', action: 'embedded_resource', method: 'GET' },
      input: noInput,
      output: z.object({ uri: z.string(), mimeType: z.string(), text: z.string() }),
      present: { mcp: (resource) => ({ content: [{ type: 'resource', resource }] }) },
      handler: ({ call }) => {
        calls.record(call.name);
        return {
          uri: 'test://embedded-resource',
          mimeType: 'text/plain',
          text: 'This is an embedded resource content.',
        };
      },
    }),
    defineRuntimeTool({
      name: 'test_multiple_content_types',
      description: 'Returns text, image and resource content together',
      identity: { serviceName: 'conformance', action: 'multiple_content_types', method: 'GET' },
      input: noInput,
      output: z.object({
        caption: z.string(),
        image: media,
        data: z.record(z.string(), z.unknown()),
      }),
      present: {
        mcp: ({ caption, image, data }) => ({
          content: [
            { type: 'text', text: caption },
            { type: 'image', ...image },
            {
              type: 'resource',
              resource: {
                uri: 'test://mixed-content-resource',
                mimeType: 'application/json',
                text: JSON.stringify(data),
              },
            },
          ],
        }),
      },
      handler: ({ call }) => {
        calls.record(call.name);
        return {
          caption: 'Multiple content types test:',
          image: { data: RED_PIXEL_PNG, mimeType: 'image/png' },
          data: { test: 'data', value: 123 },
        };
      },
    }),
    defineRuntimeTool({
      name: 'test_error_handling',
      description: 'Always fails, to test error reporting',
      identity: { serviceName: 'conformance', action: 'error_handling', method: 'POST' },
      input: noInput,
      handler: ({ call }) => {
        calls.record(call.name);
        throw new ToolError('TEST_ERROR', {
          status: 400,
          message: 'This tool intentionally returns an error for testing',
        });
      },
    }),
    defineRuntimeTool({
      name: 'test_tool_with_progress',
      description: 'Reports progress 0, 50 and 100 of 100',
      identity: { serviceName: 'conformance', action: 'tool_with_progress', method: 'POST' },
      input: noInput,
      output: text,
      present: { mcp: presentText },
      handler: async ({ call, reportProgress, signal }) => {
        calls.record(call.name);
        reportProgress({ progress: 0, total: 100 });
        await sleep(50, undefined, { signal });
        reportProgress({ progress: 50, total: 100 });
        await sleep(50, undefined, { signal });
        reportProgress({ progress: 100, total: 100 });
        return { text: 'Tool with progress executed successfully' };
      },
    }),
    defineRuntimeTool({
      name: 'test_tool_with_logging',
      description: 'Sends three info log messages while it runs',
      identity: { serviceName: 'conformance', action: 'tool_with_logging', method: 'POST' },
      input: noInput,
      output: text,
      present: { mcp: presentText },
      handler: async ({ call, log, signal }) => {
        calls.record(call.name);
        log.info('Tool execution started');
        await sleep(50, undefined, { signal });
        log.info('Tool processing data');
        await sleep(50, undefined, { signal });
        log.info('Tool execution completed');
        return { text: 'Tool with logging executed successfully' };
      },
    }),
    defineRuntimeTool({
      name: 'test_elicitation',
      description: 'Asks the user for a name and an email address',
      identity: { serviceName: 'conformance', action: 'elicitation', method: 'POST' },
      input: z.object({ message: z.string() }),
      asks: { elicit: [UserDetails] },
      handler: async ({ call, input, elicit }) => {
        calls.record(call.name);
        return userResponse(await elicit({ message: input.message, schema: UserDetails }));
      },
    }),
    defineRuntimeTool({
      name: 'test_elicitation_sep1034_defaults',
      description: 'Asks with a default on every field (SEP-1034)',
      identity: { serviceName: 'conformance', action: 'elicitation_defaults', method: 'POST' },
      input: noInput,
      asks: { elicit: [WithDefaults] },
      handler: async ({ call, elicit }) => {
        calls.record(call.name);
        return userResponse(
          await elicit({
            message: 'Please review and update the form fields with defaults',
            schema: WithDefaults,
          }),
        );
      },
    }),
    defineRuntimeTool({
      name: 'test_elicitation_sep1330_enums',
      description: 'Asks with every shape of enum (SEP-1330)',
      identity: { serviceName: 'conformance', action: 'elicitation_enums', method: 'POST' },
      input: noInput,
      asks: { elicit: [EnumShapes] },
      handler: async ({ call, elicit }) => {
        calls.record(call.name);
        return userResponse(
          await elicit({
            message: 'Please select options from the enum fields',
            schema: EnumShapes,
          }),
        );
      },
    }),
    defineRuntimeTool({
      name: 'json_schema_2020_12_tool',
      description: 'Tool with JSON Schema 2020-12 features',
      identity: { serviceName: 'conformance', action: 'json_schema_2020_12', method: 'POST' },
      // `z.strictObject` → `additionalProperties: false`; `address` → `$defs.address` + `$ref`.
      input: z.strictObject({ name: z.string().optional(), address: address.optional() }),
      output: text,
      present: { mcp: presentText },
      handler: ({ call, input }) => {
        calls.record(call.name);
        return { text: `Received ${JSON.stringify(input)}` };
      },
    }),
  ];
}

/**
 * The resources, resource template and prompts the suite reads and gets, by the URIs and names
 * it expects; each records its runs (the completer too, as `<prompt>.complete`).
 */
function conformanceOperations(calls: ConformanceCalls): RuntimeOperation[] {
  return [
    defineResource({
      uri: 'test://static-text',
      name: 'static_text',
      description: 'A static text resource',
      mimeType: 'text/plain',
      read: ({ call }) => {
        calls.record(call.name);
        return 'This is the content of the static text resource.';
      },
    }),
    defineResource({
      uri: 'test://static-binary',
      name: 'static_binary',
      description: 'A static binary resource (a PNG)',
      mimeType: 'image/png',
      read: ({ call }) => {
        calls.record(call.name);
        return Buffer.from(RED_PIXEL_PNG, 'base64');
      },
    }),
    defineResource({
      uri: 'test://watched-resource',
      name: 'watched_resource',
      description: 'A resource clients may subscribe to (a stateless server never notifies)',
      mimeType: 'text/plain',
      read: ({ call }) => {
        calls.record(call.name);
        return 'Watched resource content.';
      },
    }),
    defineResourceTemplate({
      uriTemplate: 'test://template/{id}/data',
      name: 'template_data',
      description: 'Data for an id',
      mimeType: 'application/json',
      variables: z.object({ id: z.string() }),
      read: ({ call, input }) => {
        calls.record(call.name);
        return JSON.stringify({
          id: input.id,
          templateTest: true,
          data: `Data for ID: ${input.id}`,
        });
      },
    }),
    definePrompt({
      name: 'test_simple_prompt',
      description: 'A simple prompt without arguments',
      args: z.object({}),
      get: ({ call }) => {
        calls.record(call.name);
        return 'This is a simple prompt for testing.';
      },
    }),
    definePrompt({
      name: 'test_prompt_with_arguments',
      description: 'A prompt with two required arguments',
      args: z.object({
        arg1: z.string().describe('First test argument'),
        arg2: z.string().describe('Second test argument'),
      }),
      complete: {
        arg1: (value) => {
          calls.record('test_prompt_with_arguments.complete');
          return ['test-value', 'testing', 'other'].filter((option) => option.startsWith(value));
        },
      },
      get: ({ call, input }) => {
        calls.record(call.name);
        return `Prompt with arguments: arg1='${input.arg1}', arg2='${input.arg2}'`;
      },
    }),
    definePrompt({
      name: 'test_prompt_with_embedded_resource',
      description: 'A prompt that embeds a resource',
      args: z.object({ resourceUri: z.string().describe('The URI of the resource to embed') }),
      get: ({ call, input }) => {
        calls.record(call.name);
        return [
          {
            role: 'user',
            content: {
              type: 'resource',
              resource: {
                uri: input.resourceUri,
                mimeType: 'text/plain',
                text: 'Embedded resource content for testing.',
              },
            },
          },
          {
            role: 'user',
            content: { type: 'text', text: 'Please process the embedded resource above.' },
          },
        ];
      },
    }),
    definePrompt({
      name: 'test_prompt_with_image',
      description: 'A prompt with an image',
      args: z.object({}),
      get: ({ call }) => {
        calls.record(call.name);
        return [
          { role: 'user', content: { type: 'image', data: RED_PIXEL_PNG, mimeType: 'image/png' } },
          { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
        ];
      },
    }),
  ];
}
