// The width of the terminal that output is fitted to: COLUMNS when set (as ls, git and gh honour it),
// else the terminal's own width, else undefined (not a terminal: nothing is cut).

export function terminalWidth(
  stream: { isTTY?: boolean; columns?: number },
  env: NodeJS.ProcessEnv,
): number | undefined {
  if (!stream.isTTY) return undefined;
  const fromEnv = env.COLUMNS?.trim();
  if (fromEnv && /^\d+$/.test(fromEnv) && Number(fromEnv) > 0) return Number(fromEnv);
  return stream.columns && stream.columns > 0 ? stream.columns : undefined;
}

/** `text` cut to `width` characters, the last one an ellipsis when something was cut. */
export function truncate(text: string, width: number): string {
  const chars = [...text];
  if (chars.length <= width) return text;
  return width <= 1 ? '…'.slice(0, width) : `${chars.slice(0, width - 1).join('')}…`;
}
