import 'reflect-metadata';
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { Injectable, NotFoundException } from '@nestjs/common';
import { z } from 'zod';
import { Tool, ToolFactory, ToolInvoker, ToolsModule } from '../../lib/index.js';
import { TestApps } from '../fixtures/apps.js';

@ToolFactory({ serviceName: 'records' })
@Injectable()
class RecordTools {
  @Tool({ action: 'get', method: 'GET', description: 'Get a record', input: z.object({}) })
  get(): never {
    throw new NotFoundException('No such record');
  }
}

describe('an application mapError that throws, under ToolsModule', () => {
  const apps = new TestApps();
  afterEach(() => apps.closeAll());

  it('is logged and passed over: Nest HttpExceptions are still mapped by status', async () => {
    const mapError = jest.fn(() => {
      throw new Error('mapper bug');
    });
    const app = await apps.init({
      imports: [ToolsModule.forRoot({ registry: [RecordTools], mapError })],
      providers: [RecordTools],
    });
    const result = await app.get(ToolInvoker).invoke('records_get', {}, { transport: 'AGENT' });
    expect(result).toEqual({
      ok: false,
      error: { code: 'NOT_FOUND', message: 'No such record', retryable: false },
    });
    expect(mapError).toHaveBeenCalledTimes(1);
  });
});
