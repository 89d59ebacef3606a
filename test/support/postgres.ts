// The PostgreSQL databases of a test run (DATABASE_URL set): each server's and suite's a new one next to
// DATABASE_URL's, dropped afterwards; and the shared chains' deployed databases, kept as templates for the run
// (test/support/shared-chain.ts) and dropped when it ends (test/support/global-setup.ts).
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const onPostgres = process.env.DATABASE_URL !== undefined && process.env.DATABASE_URL !== '';

const adminUrl = () => process.env.DATABASE_URL!;

/** The run's templates are named after it: SVC_TEST_RUN, set by global-setup.ts for every worker. */
const templatePrefix = () => `svc_tpl_${process.env.SVC_TEST_RUN ?? 'local'}_`;

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl() });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

const urlOf = (name: string): string => {
  const url = new URL(adminUrl());
  url.pathname = `/${name}`;
  return url.toString();
};

/** A new PostgreSQL database next to DATABASE_URL's, empty or a copy of `template`; returns its URL. */
export async function freshPostgresUrl(template?: string): Promise<string> {
  const name = `svc_t_${randomBytes(6).toString('hex')}`;
  // A copy waits (up to 5 s, PostgreSQL's own rule) for the template's last sessions to end.
  await admin((client) => client.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`));
  return urlOf(name);
}

export async function dropPostgres(url: string): Promise<void> {
  const name = new URL(url).pathname.slice(1);
  if (!/^svc_t_[0-9a-f]+$/.test(name)) return;
  await admin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
}

/** A new empty database to become a template of this run (a shared chain's deployed rows); answers its name and URL. */
export async function newTemplate(): Promise<{ name: string; url: string }> {
  const name = `${templatePrefix()}${randomBytes(6).toString('hex')}`;
  await admin((client) => client.query(`CREATE DATABASE ${name}`));
  return { name, url: urlOf(name) };
}

/** Drops the templates of this run. */
export async function dropTemplates(): Promise<void> {
  await admin(async (client) => {
    const { rows } = await client.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE starts_with(datname, $1)`, [templatePrefix()]);
    for (const { datname } of rows) await client.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
  });
}
