// `dlake api METHOD PATH [--data …] [--paginate]`: a raw authenticated call, printing the body.

import type { Command } from '@commander-js/extra-typings';
import { checkNesting } from '../api/exact-json.js';
import { PageTokens } from '../api/paging.js';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { examples, readJsonArgument } from './common.js';
import { defineCommand, type OptionsOf } from './define.js';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH'] as const;
type ApiMethod = (typeof METHODS)[number];

const declaration = (api: Command) =>
  api
    .description('Make an authenticated request to the service and print the response body')
    .argument('<method>', `HTTP method: ${METHODS.join(', ')}`)
    .argument(
      '<path>',
      'path such as /api/v3/catalog (a path without a leading / is taken below /api/v3/, or below the project on the hosted edition)',
    )
    .option('--data <json>', 'request body: JSON text, @FILE, or @- for standard input')
    .option('--paginate', 'follow nextPageToken and print one merged JSON document (GET only)')
    .addHelpText(
      'after',
      examples(
        'dlake api GET /api/v3/catalog',
        'dlake api GET reflection-summary --paginate --query "data[].name"',
        'dlake api POST /api/v3/sql --data \'{"sql": "SELECT 1"}\'',
        'dlake api PUT /api/v3/wlm/queue/ID --data @queue.json',
        'dlake --edition cloud --project-id UUID api GET catalog     # /v0/projects/UUID/catalog',
      ),
    );

export const register = defineCommand(declaration, request);

async function request(
  ctx: Context,
  methodArg: string,
  pathArg: string,
  opts: OptionsOf<typeof declaration>,
): Promise<void> {
  const method = methodArg.toUpperCase() as ApiMethod;
  if (!METHODS.includes(method))
    throw new UsageError(`unknown HTTP method "${methodArg}"`, { hint: `use one of: ${METHODS.join(', ')}` });
  if (opts.paginate && method !== 'GET') throw new UsageError('--paginate works with GET only');
  // The URL parser drops tabs and line breaks without a word: a path that holds one is not the path sent.
  if (/\p{Cc}/u.test(pathArg)) {
    throw new UsageError(
      `the path ${JSON.stringify(pathArg)} holds a control character (a line break, a tab)`,
      {
        hint: 'percent-encode it (%0A, %0D, %09) if the service should receive it',
      },
    );
  }
  const json = opts.data === undefined ? undefined : await readJsonArgument(opts.data, ctx.streams.stdin);
  // A relative path is taken below the edition's root: /api/v3 here, the project on the hosted edition.
  const [{ relativeApiPath }, { literal }] = await Promise.all([
    import('../api/roots.js'),
    import('../api/endpoint.js'),
  ]);
  const url = new URL(relativeApiPath(ctx.root(), pathArg), 'http://placeholder');
  const query = Object.fromEntries(url.searchParams);
  const client = await ctx.client();

  let merged: unknown;
  const tokens = new PageTokens(`GET ${url.pathname}`);
  for (let pageToken: string | undefined, page = 0; page === 0 || pageToken; page++) {
    const spec = { method, at: literal('raw', url.pathname), query: { ...query, pageToken }, json } as const;
    const res = await client.send(spec);
    if (res.status >= 400) throw client.failure(res, spec);
    if (!opts.paginate) return printBody(ctx, res.text, res.contentType);
    const body = parseJson(res.text, `${method} ${url.pathname}`);
    merged = page === 0 ? body : mergePages(merged as Record<string, unknown>, body);
    // The page's entries: its arrays (`data`, `children`, `results`, whichever the endpoint lists).
    const items = Object.values(body ?? {})
      .filter(Array.isArray)
      .flat();
    pageToken = tokens.next(body?.nextPageToken, items);
  }
  delete (merged as Record<string, unknown>).nextPageToken;
  await printJson(ctx, merged);
}

/** The body is the service's JSON: printed as JSON unless another format is asked for, like `gh api`. */
function printJson(ctx: Context, data: unknown): Promise<void> {
  return ctx.print({ data }, ctx.opts.output || ctx.opts.json ? undefined : 'json');
}

async function printBody(ctx: Context, text: string, contentType: string): Promise<void> {
  const { stderrSafe } = await import('../output/safe-text.js');
  if (!text) return;
  if (/json/i.test(contentType)) {
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {}
    if (data !== undefined) return printJson(ctx, data);
  }
  // Not JSON (a PAT, a plain-text error page): print it as it came; on a terminal, its control and invisible
  // characters shown, as every text from the service is there (docs/cli-contract.md "Output bounds").
  const shown = ctx.streams.stdout.isTTY ? stderrSafe(text) : text;
  ctx.streams.stdout.write(shown.endsWith('\n') ? shown : `${shown}\n`);
}

function parseJson(text: string, endpoint: string): Record<string, unknown> {
  let v: unknown;
  try {
    v = JSON.parse(text) as unknown;
  } catch {}
  // Bounded before anything walks it (docs/cli-contract.md "Output bounds": nesting).
  checkNesting(v, `the answer to ${endpoint}`, text);
  if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
  throw new UsageError(`--paginate needs JSON object pages, but ${endpoint} answered something else`);
}

/** Pages share their shape: concatenate their lists (`data`, `children`, …), keep the first page's rest. */
function mergePages(into: Record<string, unknown>, page: Record<string, unknown>): Record<string, unknown> {
  for (const [k, v] of Object.entries(page)) {
    if (Array.isArray(v) && Array.isArray(into[k])) into[k] = [...(into[k] as unknown[]), ...v];
  }
  return into;
}
