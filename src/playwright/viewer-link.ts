/**
 * Links to the local service's web inbox viewer, for the report and the errors
 * of a failed test.
 *
 * @packageDocumentation
 */

/**
 * The viewer link of an inbox: `<origin>/#inbox=<id>`.
 *
 * It carries no credential, so that no secret lands in a report: the viewer
 * opens it with the operator link `inboxkit serve` printed (remembered by the
 * browser until the service restarts), or asks for an inbox token or API key.
 *
 * @param apiUrl - The client's API root, e.g. `http://127.0.0.1:8025/api/v1`.
 * @param inboxId - The inbox's id.
 */
export function viewerLink(apiUrl: string, inboxId: string): string {
  return `${new URL(apiUrl).origin}/#${new URLSearchParams({ inbox: inboxId })}`;
}
