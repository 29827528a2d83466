/**
 * The command line's floor: a Nest standalone application context that resolves one provider,
 * asks it for an answer, prints it and closes. What `node` costs to start, load Nest, build a
 * context and exit, against which `bench:startup` sets the sample's `list` and `call`.
 *
 * Usage: `node floor.js [id]`; prints `{"id":…,"status":"open"}`.
 */
import 'reflect-metadata';
import { Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';

@Injectable()
class Tickets {
  get(id: string) {
    return { id, status: 'open' };
  }
}

@Module({ providers: [Tickets] })
class FloorModule {}

const app = await NestFactory.createApplicationContext(FloorModule, { logger: false });
process.stdout.write(`${JSON.stringify(app.get(Tickets).get(process.argv[2] ?? 'T-1001'))}\n`);
await app.close();
