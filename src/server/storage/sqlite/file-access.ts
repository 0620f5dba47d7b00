/**
 * Who may read the SQLite database's files. The database holds every message,
 * the hashes of every key and token and the inboxes' addresses, so its file is
 * the service user's alone (0600); SQLite gives its `-wal` and `-shm` files the
 * mode of the database file, so they follow. The folder is checked first: in a
 * folder other users may write to, any of them could replace the database or
 * plant a `-wal` file that SQLite would replay into it.
 *
 * @packageDocumentation
 */
import { chmodSync, closeSync, constants, lstatSync, openSync, statSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** The mode of the database file and of its `-wal` and `-shm` files. */
export const DATABASE_FILE_MODE = 0o600;

/** The files SQLite keeps beside a database in WAL mode. */
const COMPANIONS = ['', '-wal', '-shm', '-journal'];

function statOrNull(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/**
 * Refuses a folder that other users may write to (group- or world-writable,
 * without the sticky bit that keeps them from replacing other users' files),
 * and, in a sticky shared folder such as `/tmp`, a database file or companion
 * that another user owns.
 *
 * @throws Error naming the folder or file, its mode or owner, and what to do.
 */
function checkFolder(path: string): void {
  const folder = dirname(resolve(path));
  const stats = statSync(folder);
  const uid = process.getuid?.();
  const sharedWritable = (stats.mode & 0o022) !== 0;
  const sticky = (stats.mode & 0o1000) !== 0;
  if (sharedWritable && !sticky) {
    throw new Error(
      `inboxkit: the database folder ${folder} is writable by other users (mode ${(stats.mode & 0o777).toString(8)}), who could replace the database or plant a -wal file in it; ` +
        `keep the database in a folder only the service user may write to (chmod go-w ${folder}, or pick another --db path).`,
    );
  }
  if (!sharedWritable || uid === undefined) return;
  for (const suffix of COMPANIONS) {
    const file = statOrNull(`${path}${suffix}`);
    if (file && file.uid !== uid) {
      throw new Error(
        `inboxkit: ${path}${suffix} in the shared folder ${folder} belongs to another user (uid ${file.uid}), who could change what the database reads; ` +
          `remove it, or keep the database in a folder only the service user may write to (another --db path).`,
      );
    }
  }
}

/** Creates an empty file 0600 (another process creating it at the same moment is fine). */
function createPrivate(path: string): void {
  try {
    closeSync(openSync(path, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY | constants.O_NOFOLLOW, DATABASE_FILE_MODE));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

/**
 * Prepares a database path before SQLite opens it: checks its folder, creates
 * the file 0600 when missing, and takes an existing file (and its `-wal`,
 * `-shm`) that the service user owns down to 0600. Does nothing on Windows,
 * whose files have no such modes.
 *
 * @throws Error when the folder (or a file in a shared folder) lets other users change the database.
 */
export function secureDatabaseFile(path: string): void {
  if (process.platform === 'win32') return;
  checkFolder(path);
  const uid = process.getuid?.();
  const existing = statOrNull(path);
  if (!existing) createPrivate(path);
  for (const suffix of COMPANIONS) {
    const file = statOrNull(`${path}${suffix}`);
    if (file && file.isFile() && file.uid === uid && (file.mode & 0o077) !== 0) chmodSync(`${path}${suffix}`, DATABASE_FILE_MODE);
  }
}
