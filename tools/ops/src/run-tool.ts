import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface ToolRun {
  code: number | null;
  stdout: string;
  /** The stderr lines the command kept (onStderrLine returned true), at most the last 20. */
  kept: string[];
}

export interface ToolOptions {
  env?: Record<string, string>;
  /** Each stderr line as it comes; true keeps it for the failure message. */
  onStderrLine?: (line: string) => boolean;
}

/** Runs a command to its end (no shell), its stderr read line by line as progress. */
export function runTool(
  command: string,
  args: readonly string[],
  options: ToolOptions = {},
): Promise<ToolRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, [...args], {
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    const kept: string[] = [];
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    const lines = createInterface({ input: child.stderr });
    lines.on('line', (line) => {
      if (options.onStderrLine ? options.onStderrLine(line) : true) kept.push(line);
      if (kept.length > 20) kept.shift();
    });
    const closed = new Promise<void>((done) => lines.once('close', done));
    child.once('error', (error) =>
      reject(new Error(`cannot run ${command}: ${(error as NodeJS.ErrnoException).code ?? error.message}`)),
    );
    child.once('close', (code) => void closed.then(() => resolve({ code, stdout, kept })));
  });
}
