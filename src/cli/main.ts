// The `svc` process: runs the command line (src/cli/svc.ts) on this process's arguments, environment and streams.
import { svc } from './svc.ts';

const io = { out: (line: string) => process.stdout.write(`${line}\n`), err: (line: string) => process.stderr.write(`${line}\n`) };

process.exitCode = await svc(process.argv.slice(2), io);
