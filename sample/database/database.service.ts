import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { seed } from './seed.js';

/** Where the database lives; `HELPDESK_DB` overrides it. */
export const DATABASE_FILE = Symbol('DATABASE_FILE');

/**
 * The help desk's embedded SQLite database: created and seeded on first start, kept in one file.
 */
@Injectable()
export class DatabaseService implements OnApplicationShutdown {
  private readonly logger = new Logger(DatabaseService.name);
  readonly db: Database.Database;

  constructor(@Inject(DATABASE_FILE) readonly file: string) {
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('foreign_keys = ON');
    if (seed(this.db)) this.logger.log(`Created and seeded ${file}`);
  }

  /** Closed last: tool calls still draining on shutdown may use it until then. */
  onApplicationShutdown(): void {
    this.db.close();
  }
}
