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

/**
 * Where to look at an inbox after its wait failed, as the sentence the wait's
 * error ends with; never with a secret. A kept inbox (`keepOnFailure`) is in the
 * viewer while its service runs; any other is deleted when the test ends, so
 * the useful place is the report, where the failed test's emails are attached.
 *
 * @param handle - The inbox (its id and address).
 * @param apiUrl - The client's API root.
 * @param options - The fixture options that decide what is kept and attached.
 */
export function whereToLook(handle: { id: string; address: string }, apiUrl: string, options: { keepOnFailure?: boolean; attachToReport?: boolean }): string {
  if (options.keepOnFailure) return `Look at the inbox in the viewer (kept by keepOnFailure; while its service runs): ${viewerLink(apiUrl, handle.id)}`;
  const local = handle.address.slice(0, handle.address.lastIndexOf('@'));
  const phone = /^\+[1-9]\d{6,14}$/.test(local) ? local : null;
  if (options.attachToReport ?? true) {
    if (phone) return `Every SMS ${phone} received is attached to this test in the report, all on the page "inboxkit: … SMS" (each also as "SMS N" or "received #seq"); the phone is deleted when the test ends (keepOnFailure keeps it to look at in the viewer).`;
    return `Every email ${handle.address} received is attached to this test in the report, all on the page "inboxkit: … emails" (each also as "email N" or "received #seq"); the inbox is deleted when the test ends (keepOnFailure keeps it to look at in the viewer).`;
  }
  if (phone) return `${phone} is deleted when the test ends: set keepOnFailure to look at it in the viewer, or attachToReport to get its texts in the report.`;
  return `${handle.address} is deleted when the test ends: set keepOnFailure to look at it in the viewer, or attachToReport to get its emails in the report.`;
}
