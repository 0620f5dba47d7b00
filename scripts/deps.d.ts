/** Types of scripts/deps.js (the import rules of src/, read from the DEPS.list files). */
export interface Deps {
  folder: string;
  list: string;
  folders: string[];
  files: string[];
  packages: string[];
  closed: Array<{ target: string; from: string[] }>;
}
export function parseDeps(list: string, text: string): Deps;
export function depsFor(file: string, src: string, read?: (list: string) => string | undefined): Deps | undefined;
export function refusal(deps: Deps, file: string, specifier: string): string | null;
export function depsRule(src: string): unknown;
