import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module.js';

const app = await NestFactory.create(AppModule);
// 2.x mounted /mcp beside Nest's router, where the global prefix never reached it. toolwright's
// endpoint is a Nest route: exclude it from the prefix to keep the URL clients know.
app.setGlobalPrefix('api', { exclude: ['mcp'] });
// Gone: mcp.setHttpAdapter(app.getHttpAdapter()), app.connectMicroservice({ strategy: mcp })
// and app.startAllMicroservices(): ToolsModule mounts its route while the app initialises.
app.enableShutdownHooks();
await app.listen(Number(process.env.PORT ?? 3000));
