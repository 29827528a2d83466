import { Payload } from '@nestjs/microservices';
import { McpController, Prompt } from '@rekog/mcp-nest';
import { z } from 'zod';

@McpController()
export class LibraryPrompts {
  @Prompt({
    description: 'Suggest books for a reader',
    parameters: z.object({
      genre: z.string().describe('A genre, such as mystery'),
      mood: z.string().optional().describe('How the reader feels'),
    }),
  })
  recommendBooks(@Payload() { genre, mood }: { genre: string; mood?: string }) {
    return {
      description: `Books for a ${genre} reader`,
      messages: [
        {
          role: 'user' as const,
          content: {
            type: 'text' as const,
            text: `Suggest three ${genre} books${mood ? ` for a ${mood} reader` : ''}.`,
          },
        },
      ],
    };
  }
}
