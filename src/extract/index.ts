/**
 * Link and one-time-code extraction from a message's decoded bodies. Plain
 * functions over `{ html, text, subject, baseUrl }` (or one string); the
 * client wires them into the received message (`message.links()`,
 * `message.link()`, `message.otp()`, `message.otps()`).
 */
export { extractLinks, findLink } from './links.ts';
export { describeLinkFilter } from './link-filter.ts';
export type { LinkFilter, LinkOptions, LinkQuery, LinkFilterArg } from './link-filter.ts';
export { matchesPattern, showPattern } from './pattern.ts';
export { extractOtps, extractOtp, normalizeCode, OTP_MIN_SCORE } from './otp.ts';
export type { OtpOptions } from './otp.ts';
export { unwrapTrackingUrl } from './unwrap.ts';
export type { UnwrapResult } from './unwrap.ts';
export type { ExtractInput, ExtractSource } from './input.ts';
export { EXTRACTION_BOUNDS } from './dom.ts';
export type { ExtractionBound } from './dom.ts';
export { ExtractionError, LinkNotFoundError, AmbiguousLinkError, OtpNotFoundError } from './errors.ts';
export type { ExtractedLink, ExtractedLinks, OtpCandidate, OtpCandidates, RejectedOtp, ExtractedFrom } from './types.ts';
