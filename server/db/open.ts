// Chooses the SQL engine: DATABASE_URL means a Postgres server, otherwise the embedded one.
import type { Logger } from 'pino';
import type { Database } from './database.js';
import { openEmbedded } from './embedded.js';

export { EmbeddedDatabaseInUseError } from './embedded.js';
import { openPostgres } from './postgres.js';

export interface DatabaseSettings {
  databaseUrl: string | undefined;
  dataDir: string;
  dbPoolSize: number;
}

export async function openDatabase(settings: DatabaseSettings, logger: Logger): Promise<Database> {
  if (settings.databaseUrl) {
    return openPostgres({ url: settings.databaseUrl, poolSize: settings.dbPoolSize, applicationName: 'simfleet', logger });
  }
  return openEmbedded(settings.dataDir);
}
