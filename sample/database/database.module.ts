import { Global, Module, type DynamicModule } from '@nestjs/common';
import { DATABASE_FILE, DatabaseService } from './database.service.js';

/** The embedded database, one file per application. */
@Global()
@Module({})
export class DatabaseModule {
  static forRoot(file: string): DynamicModule {
    return {
      module: DatabaseModule,
      providers: [{ provide: DATABASE_FILE, useValue: file }, DatabaseService],
      exports: [DatabaseService],
    };
  }
}
