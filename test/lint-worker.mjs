// A worker thread that lints source text as the file at a path, with one ESLint instance for every call: the
// architecture test calls it synchronously (synckit), where a process per call took seconds each.
import { ESLint } from 'eslint';
import path from 'node:path';
import { runAsWorker } from 'synckit';

let eslint;

runAsWorker(async (cwd, file, source) => {
  eslint ??= new ESLint({ cwd });
  const [result] = await eslint.lintText(source, { filePath: path.join(cwd, file) });
  return (result?.messages ?? []).map(({ ruleId, message }) => ({ ruleId, message }));
});
