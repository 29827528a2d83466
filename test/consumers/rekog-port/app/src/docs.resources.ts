import { Payload } from '@nestjs/microservices';
import { McpController, Resource, ResourceTemplate } from '@rekog/mcp-nest';

const BRANCHES = [
  { id: 'central', name: 'Central Library' },
  { id: 'riverside', name: 'Riverside Branch' },
];

@McpController()
export class DocsResources {
  @Resource({
    uri: 'mcp://library/branches',
    description: 'The branches of the library',
    mimeType: 'application/json',
  })
  branches(@Payload() { uri }: { uri: string }) {
    return {
      contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(BRANCHES) }],
    };
  }

  @ResourceTemplate({
    name: 'doc',
    uriTemplate: 'mcp://docs/{path*}',
    description: 'A page of the library handbook',
    mimeType: 'text/markdown',
  })
  doc(@Payload() { uri, path }: { uri: string; path: string }) {
    return {
      contents: [{ uri, mimeType: 'text/markdown', text: `# ${path}\n\nA page of the handbook.` }],
    };
  }

  @ResourceTemplate({
    uriTemplate: 'mcp://members/{name}',
    description: 'A member card',
    mimeType: 'application/json',
  })
  member(@Payload() { uri, name }: { uri: string; name: string }) {
    return {
      contents: [
        { uri, mimeType: 'application/json', text: JSON.stringify({ name, card: 'active' }) },
      ],
    };
  }
}
