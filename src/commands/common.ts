// Small pieces shared by command files: help examples, refusal of secrets on argv, --data parsing.
import { Option } from '@commander-js/extra-typings';
import type { Target } from '../api/endpoint.js';
import { STORE_MODES, type StoreMode } from '../config/secrets.js';
import type { StoreSnapshot } from '../config/store.js';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { readStdin } from '../output/prompt.js';
import { readTextFile } from '../util/files.js';

/** The "Examples:" block of a command's help. */
export function examples(...lines: string[]): string {
  return `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}\n`;
}

/**
 * A hidden option that refuses a secret given on the command line: argv ends up in shell history and
 * process lists. The message never repeats the value.
 */
export function refuseSecretFlag<F extends string>(flags: F, alternative: string) {
  const name = flags.split(' ')[0];
  return new Option(flags).hideHelp().argParser((): never => {
    throw new UsageError(`${name} is not accepted: secrets are never taken from the command line`, {
      hint: `use ${alternative} (or the interactive prompt)`,
    });
  });
}

/** `--credential-store`: where the token a login or exchange stores keeps its secrets (src/config/secrets.ts). */
export function credentialStoreOption() {
  return new Option(
    '--credential-store <where>',
    "where the token's secrets go: the OS credential store (keyring), the 0600 file (file), or the store when one answers (auto) (default: DLAKE_CREDENTIAL_STORE, else auto)",
  ).choices(STORE_MODES);
}

/** Applies `--credential-store` to this command's writes. */
export function useCredentialStore(ctx: Context, where: string | undefined): void {
  if (where && ctx.store.vault)
    ctx.store.vault.modeOverride = { mode: where as StoreMode, source: '--credential-store' };
}

/** The note of a login that kept the token in the file for want of a credential store, said once. */
export function sayWhereSecretsWent(ctx: Context, stored: StoreSnapshot): void {
  if (stored.secretsNote) ctx.ui.notice(`note: ${stored.secretsNote}`);
  if (stored.secretsWarning) ctx.ui.warn(stored.secretsWarning);
}

/** `--data JSON|@file|@-`: the JSON body of a request, parsed (malformed JSON is a usage error). */
export async function readJsonArgument(
  value: string,
  stdin: NodeJS.ReadStream,
  what = '--data',
): Promise<unknown> {
  let text = value;
  let source = what;
  if (value === '@-') {
    text = await readStdin(stdin);
    source = `${what} (standard input)`;
  } else if (value.startsWith('@')) {
    const file = value.slice(1);
    text = readTextFile(file);
    source = `${what} (${file})`;
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new UsageError(`${source} is not valid JSON: ${(e as Error).message}`);
  }
}

/**
 * The confirmation rule of docs/cli-contract.md "Writes: confirmation and dry run" for destructive commands:
 * ask on a TTY, skip with --yes, and refuse (exit 2) without a TTY and without --yes.
 */
export async function confirmDestructive(
  ctx: Context,
  question: string,
  yes: boolean | undefined,
): Promise<void> {
  if (yes) return;
  if (!ctx.ui.interactive) {
    throw new UsageError(`refusing to ${question.replace(/\?$/, '')} without confirmation`, {
      hint: 'pass --yes (-y) to confirm when there is no terminal',
    });
  }
  const { confirm } = await import('../output/prompt.js');
  if (!(await confirm(ctx.streams, question))) throw new UsageError('cancelled: not confirmed');
}

/** `--dry-run`: prints the request as routed on the edition in force, secrets redacted, and sends nothing. */
export async function printDryRun(
  ctx: Context,
  req: {
    method: string;
    at: Target;
    query?: Record<string, string | number | boolean | undefined>;
    json?: unknown;
    secretFields?: readonly string[];
  },
): Promise<void> {
  const { redactJson } = await import('../util/redact.js');
  const client = await ctx.client();
  const url = client.urlFor(req);
  const body = req.json === undefined ? undefined : redactJson(req.json, req.secretFields);
  await ctx.print({
    data: { dryRun: true, method: req.method, url, ...(body === undefined ? {} : { body }) },
    rows: [{ method: req.method, url, body: body === undefined ? '' : JSON.stringify(body) }],
    view: {
      columns: [
        { header: 'DRY RUN', value: (r: { method: string }) => r.method },
        { header: 'URL', value: (r: { url: string }) => r.url },
        { header: 'BODY', value: (r: { body: string }) => r.body },
      ],
    },
  });
}
