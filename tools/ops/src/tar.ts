import { mkdir, stat } from 'node:fs/promises';
import { runTool } from './run-tool';

/** GNU tar: a folder's whole tree into one archive and back, owners and modes kept. */
export class Tar {
  constructor(private readonly command = 'tar') {}

  /** The folder's tree (an empty archive when it does not exist); the number of files and links in it. */
  async create(dir: string, file: string): Promise<number> {
    const exists = await stat(dir).then(
      (s) => s.isDirectory(),
      () => false,
    );
    const args = exists
      ? ['--create', `--file=${file}`, `--directory=${dir}`, '--sort=name', '.']
      : ['--create', `--file=${file}`, '--files-from=/dev/null'];
    const run = await runTool(this.command, args);
    if (run.code === 1) {
      throw new Error(
        `files under ${dir} changed while they were archived (${run.kept.join('; ')}); run the backup again ` +
          'when no RL job or export is writing there',
      );
    }
    if (run.code !== 0) throw new Error(`tar could not archive ${dir}: ${run.kept.join('; ')}`);
    return this.entries(file);
  }

  async extract(file: string, dir: string): Promise<void> {
    await mkdir(dir, { recursive: true });
    const run = await runTool(this.command, ['--extract', `--file=${file}`, `--directory=${dir}`]);
    if (run.code !== 0) throw new Error(`tar could not extract ${file} into ${dir}: ${run.kept.join('; ')}`);
  }

  /** Files and links (not folders) in an archive. */
  private async entries(file: string): Promise<number> {
    const run = await runTool(this.command, ['--list', '--verbose', `--file=${file}`]);
    if (run.code !== 0) throw new Error(`tar could not list ${file}: ${run.kept.join('; ')}`);
    return run.stdout.split('\n').filter((line) => line && !line.startsWith('d')).length;
  }
}
