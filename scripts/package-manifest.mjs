/**
 * The package.json that is published: only what a user of the package needs.
 *
 * `npm pack` and `npm publish` run `prepack` before they read the files and `postpack` after:
 *
 *   node scripts/package-manifest.mjs trim      (prepack)  backs package.json up, writes the trim
 *   node scripts/package-manifest.mjs restore   (postpack) puts the backup back, byte for byte
 *
 * The backup is written before package.json is touched, so a pack that failed between the two
 * steps loses nothing. The trimmed package.json has no scripts, so npm cannot restore it by
 * itself: `node scripts/package-manifest.mjs restore` does, and so do `npm run check:package`
 * and `npm run test:newcomer` (scripts/consumer-app.mjs restores before and after packing).
 * Neither step overwrites a package.json that changed since `trim` wrote it.
 *
 * npm publish reads package.json again after `postpack` for the registry's metadata, so only the
 * tarball's package.json is trimmed; the registry document keeps the repository's fields, as it
 * does for every package.
 */
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The fields the published package.json keeps, when the repository's has them. */
export const PUBLISHED_FIELDS = [
  'name',
  'version',
  'description',
  'license',
  'repository',
  'keywords',
  'type',
  'engines',
  'main',
  'types',
  'exports',
  'typesVersions',
  'files',
  'sideEffects',
  'peerDependencies',
  'peerDependenciesMeta',
  'dependencies',
];

/** Where the original waits while the trimmed package.json is on disk (git-ignored). */
export const BACKUP_NAME = '.package.json.prepack';

/** The published manifest: the kept fields, in the repository's order. */
export function trimManifest(manifest) {
  return Object.fromEntries(
    Object.entries(manifest).filter(([field]) => PUBLISHED_FIELDS.includes(field)),
  );
}

/** The fields of `manifest` the published one leaves out. */
export function droppedFields(manifest) {
  return Object.keys(manifest).filter((field) => !PUBLISHED_FIELDS.includes(field));
}

const serialize = (manifest) => `${JSON.stringify(manifest, null, 2)}\n`;

/** Whether package.json holds the backed-up original or the trim written from it. */
const isOriginalOrTrim = (current, original) =>
  current === original || current === serialize(trimManifest(JSON.parse(original)));

/** prepack: back package.json up (unless a backup is already there), then write the trim. */
export function trim(dir = root) {
  const file = join(dir, 'package.json');
  const backup = join(dir, BACKUP_NAME);
  if (existsSync(backup)) {
    if (!isOriginalOrTrim(readFileSync(file, 'utf8'), readFileSync(backup, 'utf8'))) {
      throw new Error(
        `${BACKUP_NAME} is left from an earlier pack and package.json changed since: keep the ` +
          `right one as package.json and delete ${BACKUP_NAME}.`,
      );
    }
    console.error(`${BACKUP_NAME} is left from a pack that did not finish: trimming from it.`);
  } else {
    writeFileSync(backup, readFileSync(file));
  }
  const original = JSON.parse(readFileSync(backup, 'utf8'));
  writeFileSync(file, serialize(trimManifest(original)));
  console.error(
    `package.json trimmed for packing (left out: ${droppedFields(original).join(', ')}); ` +
      'if the pack fails, `node scripts/package-manifest.mjs restore` puts it back.',
  );
}

/**
 * postpack: put the backup back. Answers false (and keeps the backup) when package.json is
 * neither the trim nor the original, i.e. someone edited it while the package was packed.
 */
export function restore(dir = root) {
  const file = join(dir, 'package.json');
  const backup = join(dir, BACKUP_NAME);
  if (!existsSync(backup)) return true;
  const original = readFileSync(backup, 'utf8');
  const current = readFileSync(file, 'utf8');
  if (current === original) {
    rmSync(backup);
    return true;
  }
  if (!isOriginalOrTrim(current, original)) {
    console.error(
      `package.json changed while it was trimmed for packing; the original is kept in ${BACKUP_NAME}. ` +
        'Merge the two by hand, then delete the backup.',
    );
    return false;
  }
  renameSync(backup, file);
  return true;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const command = process.argv[2];
  if (command === 'trim') trim();
  else if (command === 'restore') process.exitCode = restore() ? 0 : 1;
  else {
    console.error('usage: node scripts/package-manifest.mjs trim|restore');
    process.exitCode = 2;
  }
}
