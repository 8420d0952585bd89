// Bearer tokens: minted with 256 bits of randomness, stored only as SHA-256 (a slow hash buys
// nothing for secrets nobody chose), each carrying a role and a team.
import { createHash, randomBytes } from 'node:crypto';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Role } from '../../openapi/contract.js';
import type { Database } from '../db/database.js';
import { recordAudit } from '../db/repositories/audit.js';
import * as tokens from '../db/repositories/tokens.js';
import * as tickets from '../db/repositories/tickets.js';
import { ApiError } from '../errors.js';

export interface Principal {
  tokenId: string | null;
  name: string;
  role: Role;
  team: string;
}

/** The in-process worker of `simfleet start` is trusted without a token. */
export const LOCAL_WORKER: Principal = { tokenId: null, name: 'local worker', role: 'worker', team: 'default' };

export const hashSecret = (secret: string): string => createHash('sha256').update(secret).digest('hex');
const newSecret = (): string => `sf_${randomBytes(32).toString('base64url')}`;
const newTokenId = (): string => `tok_${randomBytes(10).toString('hex')}`;
/** How long a WebSocket ticket is good for: long enough to open the socket it was asked for. */
const TICKET_TTL_MS = 30_000;

/** How often a token's last use is written: the statement per request cost a round trip each. */
const TOUCH_EVERY_MS = 60_000;

export class TokenService {
  /** When this gateway last wrote each token's last use. */
  private readonly touched = new Map<string, number>();

  constructor(private readonly db: Database) {}

  async mint(spec: { name: string; role: Role; team: string }, actor: Principal | null): Promise<{ row: tokens.TokenRow; secret: string }> {
    const secret = newSecret();
    const row = await this.db.transaction(async (tx) => {
      const created = await tokens.insertToken(tx, {
        id: newTokenId(),
        ...spec,
        secretHash: hashSecret(secret),
        createdBy: actor?.tokenId ?? null,
      });
      await recordAudit(tx, audit(actor, 'token.create', created.id, { name: spec.name, role: spec.role, team: spec.team }));
      return created;
    });
    return { row, secret };
  }

  async authenticate(secret: string): Promise<Principal> {
    const row = await tokens.findTokenBySecretHash(this.db, hashSecret(secret));
    if (!row || row.revoked_at) throw new ApiError('INVALID_TOKEN');
    const now = Date.now();
    if (now - (this.touched.get(row.id) ?? 0) >= TOUCH_EVERY_MS) {
      if (this.touched.size > 10_000) this.touched.clear(); // at worst a few extra writes
      this.touched.set(row.id, now);
      tokens.touchToken(this.db, row.id).catch(() => undefined); // bookkeeping; never fails a request
    }
    return { tokenId: row.id, name: row.name, role: row.role, team: row.team };
  }

  /** A ticket standing for this caller's token on one WebSocket upgrade within TICKET_TTL_MS. */
  async issueTicket(principal: Principal): Promise<{ ticket: string; expiresAt: Date }> {
    if (!principal.tokenId) throw new ApiError('FORBIDDEN', { message: 'only a token holder can be given a ticket' });
    const ticket = `tk_${randomBytes(24).toString('base64url')}`;
    const expiresAt = await tickets.insertTicket(this.db, hashSecret(ticket), principal.tokenId, TICKET_TTL_MS);
    tickets.pruneTickets(this.db).catch(() => undefined); // housekeeping; never fails the request
    return { ticket, expiresAt };
  }

  async redeemTicket(ticket: string): Promise<Principal> {
    const row = await tickets.redeemTicket(this.db, hashSecret(ticket));
    if (!row || row.revoked_at) throw new ApiError('INVALID_TICKET');
    return { tokenId: row.id, name: row.name, role: row.role, team: row.team };
  }

  async get(id: string): Promise<tokens.TokenRow> {
    const row = await tokens.getToken(this.db, id);
    if (!row) throw new ApiError('NOT_FOUND', { message: `no token ${id}` });
    return row;
  }

  list(includeRevoked: boolean): Promise<tokens.TokenRow[]> {
    return tokens.listTokens(this.db, includeRevoked);
  }

  async revoke(id: string, actor: Principal): Promise<tokens.TokenRow> {
    return this.db.transaction(async (tx) => {
      const row = await tokens.revokeToken(tx, id);
      if (!row) throw new ApiError('NOT_FOUND', { message: `no token ${id}` });
      await recordAudit(tx, audit(actor, 'token.revoke', id, {}));
      return row;
    });
  }

  /**
   * Makes sure the farm has an admin. SIMFLEET_ADMIN_TOKEN, when set, is registered as one.
   * Otherwise, on the very first start, a token is generated and written to <dataDir>/admin-token
   * (mode 0600); `secret` is returned only then, so the caller prints it exactly once.
   */
  async bootstrapAdmin(envToken: string | undefined, dataDir: string): Promise<{ file: string; secret?: string; source: 'env' | 'generated' | 'existing' }> {
    const file = join(dataDir, 'admin-token');
    return this.db.transaction(async (tx) => {
      // Two gateways booting a fresh farm at once must not both mint an admin.
      await tx.query('SELECT pg_advisory_xact_lock($1, $2)', [0x5f1ee7, 2]);
      const insertAdmin = async (secret: string, name: string, detail: Record<string, unknown>) => {
        const row = await tokens.insertToken(tx, { id: newTokenId(), name, role: 'admin', team: 'default', secretHash: hashSecret(secret), createdBy: null });
        await recordAudit(tx, audit(null, 'token.bootstrap', row.id, detail));
      };
      if (envToken) {
        if (!(await tokens.findTokenBySecretHash(tx, hashSecret(envToken)))) {
          await insertAdmin(envToken, 'admin (SIMFLEET_ADMIN_TOKEN)', { source: 'env' });
        }
        return { file, source: 'env' as const };
      }
      if ((await tokens.countActiveAdmins(tx)) > 0) return { file, source: 'existing' as const };
      const secret = newSecret();
      await insertAdmin(secret, 'admin (generated on first start)', { source: 'generated', file });
      await mkdir(dataDir, { recursive: true });
      await writeFile(file, `${secret}\n`, { mode: 0o600 });
      await chmod(file, 0o600); // mode applies only when the file is created
      return { file, secret, source: 'generated' as const };
    });
  }
}

function audit(actor: Principal | null, action: string, subject: string, detail: Record<string, unknown>) {
  return { actor: actor?.tokenId ?? null, actorRole: actor?.role ?? null, team: actor?.team ?? null, action, subject, detail };
}
