// `simfleet migrate [--status]`: apply (or report) migrations without starting a gateway.
import type { GatewayConfig } from '../config.js';
import { migrate, migrationStatus, readMigrations } from '../db/migrate.js';
import { openDatabase } from '../db/open.js';
import { createLogger } from '../log.js';
import { migrationsDir } from '../paths.js';

export async function runMigrate(config: GatewayConfig, statusOnly: boolean): Promise<void> {
  const db = await openDatabase(config, createLogger(config.logLevel, 'migrate'));
  try {
    const migrations = await readMigrations(migrationsDir);
    if (!statusOnly) {
      const applied = await migrate(db, migrations);
      process.stdout.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'already up to date\n');
    }
    const status = await migrationStatus(db, migrations);
    process.stdout.write(
      `${db.location}: ${status.applied} of ${status.expected} applied${status.pending.length ? `; pending: ${status.pending.join(', ')}` : ''}\n`,
    );
    if (statusOnly && status.pending.length) process.exitCode = 1;
  } finally {
    await db.close();
  }
}
