import pg from 'pg';

/** The PostgreSQL server tests may create databases on, or undefined (PostgreSQL tests skipped). */
export function testDatabaseUrl(): string | undefined {
  const url = process.env.TEST_DATABASE_URL?.trim();
  return url === undefined || url === '' ? undefined : url;
}

/** The URL of another database on the same server. */
export function databaseUrl(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

/** Runs `fn` with a connection to the server; `connectTimeoutMs` makes an unreachable server fail fast. */
export async function withAdminClient<T>(serverUrl: string, fn: (client: pg.Client) => Promise<T>, connectTimeoutMs?: number): Promise<T> {
  const client = new pg.Client({
    connectionString: serverUrl,
    ...(connectTimeoutMs === undefined ? {} : { connectionTimeoutMillis: connectTimeoutMs }),
  });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * Copies the migrated template into a new database (its files in `tablespace` if given). PostgreSQL refuses to copy a template that
 * another CREATE DATABASE is reading at that instant, so that one error is retried.
 */
export async function createDatabaseFromTemplate(serverUrl: string, name: string, template: string, tablespace?: string): Promise<void> {
  await withAdminClient(serverUrl, async (client) => {
    for (let attempt = 0; ; attempt++) {
      try {
        await client.query(
          `CREATE DATABASE "${name}" TEMPLATE "${template}"${tablespace === undefined ? '' : ` TABLESPACE "${tablespace}"`}`,
        );
        return;
      } catch (error) {
        const busy = (error as { code?: string }).code === '55006';
        if (!busy || attempt >= 50) throw error;
        await new Promise((resolve) => setTimeout(resolve, 50 + Math.random() * 100));
      }
    }
  });
}

export async function dropDatabase(serverUrl: string, name: string): Promise<void> {
  await withAdminClient(serverUrl, (client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
}
