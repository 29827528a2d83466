import type Database from 'better-sqlite3';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS tenants (id TEXT PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS users (
  id TEXT PRIMARY KEY,
  tenant_id TEXT NOT NULL REFERENCES tenants(id),
  name TEXT NOT NULL,
  api_key TEXT NOT NULL UNIQUE
);
CREATE TABLE IF NOT EXISTS tickets (
  id TEXT PRIMARY KEY,
  tenant_id TEXT NOT NULL REFERENCES tenants(id),
  title TEXT NOT NULL,
  body TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'open',
  priority TEXT NOT NULL DEFAULT 'normal',
  assignee TEXT,
  created_by TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS comments (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  ticket_id TEXT NOT NULL REFERENCES tickets(id) ON DELETE CASCADE,
  author TEXT NOT NULL,
  body TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS articles (
  id TEXT PRIMARY KEY,
  tenant_id TEXT NOT NULL REFERENCES tenants(id),
  title TEXT NOT NULL,
  body TEXT NOT NULL,
  tags TEXT NOT NULL DEFAULT ''
);
`;

/** The credentials the seed creates; the sample prints the first one at start. */
export const SEEDED_USERS = [
  { id: 'alice', tenantId: 'acme', name: 'Alice (Acme support)', apiKey: 'hd_acme_alice_5f2c9a' },
  { id: 'bob', tenantId: 'acme', name: 'Bob (Acme support)', apiKey: 'hd_acme_bob_81d3e0' },
  {
    id: 'gina',
    tenantId: 'globex',
    name: 'Gina (Globex support)',
    apiKey: 'hd_globex_gina_c47b16',
  },
] as const;

/** Creates the schema and, on an empty database, the seed data. Returns whether it seeded. */
export function seed(db: Database.Database): boolean {
  db.exec(SCHEMA);
  const seeded = db.prepare('SELECT count(*) AS n FROM tenants').get() as { n: number };
  if (seeded.n > 0) return false;
  const now = new Date().toISOString();
  db.transaction(() => {
    const tenant = db.prepare('INSERT INTO tenants (id, name) VALUES (?, ?)');
    tenant.run('acme', 'Acme Corp');
    tenant.run('globex', 'Globex');
    const user = db.prepare('INSERT INTO users (id, tenant_id, name, api_key) VALUES (?, ?, ?, ?)');
    for (const u of SEEDED_USERS) user.run(u.id, u.tenantId, u.name, u.apiKey);
    const ticket = db.prepare(
      `INSERT INTO tickets (id, tenant_id, title, body, status, priority, created_by, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    ticket.run(
      'T-1001',
      'acme',
      'Cannot reset password',
      'The reset email never arrives.',
      'open',
      'high',
      'alice',
      now,
      now,
    );
    ticket.run(
      'T-1002',
      'acme',
      'Invoice shows wrong VAT',
      'The March invoice charges 21% instead of 19%.',
      'open',
      'normal',
      'bob',
      now,
      now,
    );
    ticket.run(
      'T-2001',
      'globex',
      'Export to CSV times out',
      'Exports over 10k rows fail after 30 s.',
      'pending',
      'normal',
      'gina',
      now,
      now,
    );
    const article = db.prepare(
      'INSERT INTO articles (id, tenant_id, title, body, tags) VALUES (?, ?, ?, ?, ?)',
    );
    article.run(
      'KB-1',
      'acme',
      'Password reset emails',
      'Check the spam folder, then verify the address under Settings → Profile.',
      'password,email,login',
    );
    article.run(
      'KB-2',
      'acme',
      'VAT rates on invoices',
      'VAT follows the billing country set on the account.',
      'invoice,vat,billing',
    );
    article.run(
      'KB-3',
      'globex',
      'Large CSV exports',
      'Exports above 10k rows run in the background and are emailed.',
      'export,csv',
    );
  })();
  return true;
}
