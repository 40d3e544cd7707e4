// `dlake help TOPIC`: reference that is no command's own help. Each topic's text is generated from where the
// concept is defined, as the docs' copies of it are (scripts/commands-doc.ts).
import { exitCodes } from '../errors.js';

export const HELP_TOPICS: Record<string, { summary: string; text: () => string }> = {
  'exit-codes': {
    summary: 'what each exit code means',
    text: () => {
      const rows = exitCodes().map(({ code, meaning }) => `  ${String(code).padEnd(5)}${meaning}`);
      return `Exit codes of dlake, the same for every command:\n\n${rows.join('\n')}\n`;
    },
  },
};
