// Runs a GitHub Actions job written in the README the way a runner would, on this machine: the job's
// `env`, each `run:` step in bash with `set -eo pipefail`, `$GITHUB_ENV` carried from step to step, and
// `if: always()` steps run after a failure. The `uses:` steps a test cannot run are stood in for:
// checkout is the workspace the test prepared, setup-node is the node running the tests, upload-artifact
// checks that its path exists.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface WorkflowStep {
  name?: string;
  uses?: string;
  run?: string;
  if?: string;
  /** `with:` as written (one line, `{ key: value, … }`), for upload-artifact's path. */
  with?: string;
}

export interface WorkflowJob {
  env: Record<string, string>;
  steps: WorkflowStep[];
}

/** The ```yaml blocks of a markdown text that hold a `jobs:` key. */
export function workflowBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]!).filter((y) => /^jobs:/m.test(y));
}

const stripComment = (value: string): string => value.replace(/\s+#\s.*$/, '').trim();

/**
 * The one job of a workflow written in the README's style (a small YAML subset: `env:` as `KEY: value`
 * lines, steps as `- uses:`/`- run:`/`- name:` items with `run: |` blocks).
 */
export function parseJob(yaml: string): WorkflowJob {
  const lines = yaml.split('\n');
  const job: WorkflowJob = { env: {}, steps: [] };
  let section: 'env' | 'steps' | undefined;
  let step: WorkflowStep | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const indent = line.length - line.trimStart().length;
    const text = line.trim();
    if (!text) continue;
    if (indent === 4) {
      section = text === 'env:' ? 'env' : text === 'steps:' ? 'steps' : undefined;
      continue;
    }
    if (section === 'env' && indent === 6) {
      const m = /^(\w+):\s*(.*)$/.exec(text);
      if (m) job.env[m[1]!] = stripComment(m[2]!);
      continue;
    }
    if (section !== 'steps') continue;
    let body = text;
    if (indent === 6 && text.startsWith('- ')) {
      step = {};
      job.steps.push(step);
      body = text.slice(2);
    } else if (indent !== 8 || !step) continue;
    const m = /^(name|uses|run|if|with):\s*(.*)$/.exec(body);
    if (!m || !step) continue;
    const key = m[1] as keyof WorkflowStep;
    if (key === 'run' && m[2] === '|') {
      const block: string[] = [];
      while (i + 1 < lines.length && (lines[i + 1]!.trim() === '' || /^ {10}/.test(lines[i + 1]!)))
        block.push(lines[++i]!.slice(10));
      step.run = `${block.join('\n').trimEnd()}\n`;
    } else step[key] = key === 'run' ? m[2]! : stripComment(m[2]!);
  }
  return job;
}

export interface StepResult {
  step: WorkflowStep;
  code: number | null;
  output: string;
}

export interface RunJobOptions {
  /** The checked-out repository: the steps' working directory. */
  workspace: string;
  /** The runner's environment (PATH, HOME, npm's prefix…). */
  env: Record<string, string>;
  /** Values of `${{ secrets.NAME }}`. */
  secrets?: Record<string, string>;
  /** Job `env` entries to replace (a real server's URL by the emulator's). */
  envOverrides?: Record<string, string>;
  /** A step to leave out, with the reason (something the test provides otherwise). */
  skip?: (step: WorkflowStep) => boolean;
}

/** Runs the job's steps in order; a failed step skips the rest but for `if: always()` ones. */
export async function runJob(job: WorkflowJob, opts: RunJobOptions): Promise<StepResult[]> {
  const githubEnv = join(opts.workspace, '.github-env');
  writeFileSync(githubEnv, '');
  const secret = (v: string): string =>
    v.replace(/\$\{\{\s*secrets\.(\w+)\s*\}\}/g, (_, name: string) => opts.secrets?.[name] ?? '');
  const jobEnv = Object.fromEntries(Object.entries(job.env).map(([k, v]) => [k, secret(v)]));
  const results: StepResult[] = [];
  let failed = false;
  for (const step of job.steps) {
    if (failed && !/always\(\)/.test(step.if ?? '')) continue;
    if (opts.skip?.(step)) continue;
    const env = {
      ...opts.env,
      ...jobEnv,
      ...opts.envOverrides,
      ...readGithubEnv(githubEnv),
      GITHUB_ENV: githubEnv,
      GITHUB_WORKSPACE: opts.workspace,
    };
    const result = step.run ? await bash(step.run, opts.workspace, env) : standIn(step, opts.workspace);
    results.push({ step, ...result });
    if (result.code !== 0) failed = true;
  }
  return results;
}

function readGithubEnv(file: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const eq = line.indexOf('=');
    if (eq > 0) env[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return env;
}

function standIn(step: WorkflowStep, workspace: string): { code: number; output: string } {
  const action = step.uses ?? '';
  if (/^actions\/(checkout|setup-node)@/.test(action)) return { code: 0, output: `(${action}: provided)` };
  if (/^actions\/upload-artifact@/.test(action)) {
    const path = /path:\s*([^,}]+)/.exec(step.with ?? '')?.[1]?.trim() ?? '';
    const found = path !== '' && existsSync(join(workspace, path));
    return { code: found ? 0 : 1, output: `(upload-artifact: ${path} ${found ? 'exists' : 'is missing'})` };
  }
  return { code: 1, output: `no stand-in for ${action}` };
}

function bash(
  script: string,
  cwd: string,
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    // GitHub runs `run:` steps with `bash -e {0}` (plus pipefail when the shell is named).
    const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], {
      cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => {
      output += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      output += c.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}
